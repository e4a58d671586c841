"""The answer check on labelled answers: right ones withheld or marked, wrong ones passed.

    uv run python bench/check_labels.py [FILE.jsonl ...] [--fake-embedder] [--verbose]

Each line of a file (default: bench/data/check_labels_seed.jsonl, the audit's examples
made into passages and answers) is one answer as a model wrote it:

    {"question": "...", "answer": "... [1].", "label": "right" | "wrong", "why": "...",
     "passages": [{"n": 1, "file": "report.pdf", "page": 4, "text": "..."}]}

(``sources`` is read as ``passages`` too, each with ``text`` or ``snippet``; ``path``
defaults to ``file``). Each answer is checked as a turn checks it (graph/checking.py:
the same check, with the question; set aside when nothing in it comes near the passages)
and counted:

- a *right* answer is **lost** when it is set aside, **marked** when a sentence of it is
  partly supported, unsupported or the answer said not to address the question, and
  **clean** otherwise;
- a *wrong* answer **passes** when every sentence is supported and the answer is said to
  address the question (a wrong number marked supported is one), and is **caught**
  otherwise, set aside or marked.

Prints the counts, the share of each, and every lost, marked and passed answer with its
``why``. With real MiniLM unless ``--fake-embedder`` (the tests' hashing one). Nothing
calls a chat model.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph.checking import far_from_sources  # noqa: E402
from graph.support import CHECKED, SourcePassage, SupportCheck  # noqa: E402
from models.protocols import Embedder  # noqa: E402

SEED = Path(__file__).resolve().parent / "data" / "check_labels_seed.jsonl"


def passages_of(record: dict[str, Any]) -> list[SourcePassage]:
    """The record's numbered passages, as the check takes them."""
    rows = record.get("passages") or record.get("sources") or []
    return [
        SourcePassage(
            n=int(row.get("n", i)),
            text=str(row.get("text") or row.get("snippet") or ""),
            file=str(row.get("file", "")),
            path=str(row.get("path") or row.get("file", "")),
            page=row.get("page"),
        )
        for i, row in enumerate(rows, start=1)
    ]


def outcome(record: dict[str, Any], embedder: Embedder) -> tuple[str, str]:
    """What the check made of one answer: its outcome, and the verdicts in short."""
    question = record.get("question") or ""
    check = SupportCheck(passages_of(record), embedder, question=[question] if question else [])
    support = check.check(record["answer"])
    verdicts = " ".join(
        s.verdict + (f"{list(s.found.items()) or list(s.missing)}" if s.missing else "")
        for s in support
        if s.verdict in CHECKED
    )
    if far_from_sources(support, check):
        return ("lost" if record["label"] == "right" else "caught"), "set aside"
    misses = not check.addresses_question(support)
    if misses:
        verdicts += " · doesn't address the question"
    clean = all(s.verdict == "supported" for s in support if s.verdict in CHECKED)
    if record["label"] == "right":
        return ("clean" if clean and not misses else "marked"), verdicts
    return ("passed" if clean and not misses else "caught"), verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, default=[SEED])
    parser.add_argument("--fake-embedder", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="print every answer")
    args = parser.parse_args()
    embedder: Embedder
    if args.fake_embedder:
        from tests.fakes.embedder import FakeEmbedder

        embedder = FakeEmbedder()
    else:
        from models.embeddings import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    records = [
        json.loads(line)
        for path in args.files
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    counts: Counter[str] = Counter()
    for record in records:
        got, verdicts = outcome(record, embedder)
        counts[got] += 1
        if args.verbose or got in ("lost", "marked", "passed"):
            print(f"  {got:7} [{record['label']}] {record['answer'][:90]}")
            print(f"          check: {verdicts or '-'}")
            if record.get("why"):
                print(f"          why: {record['why']}")
    right = counts["clean"] + counts["marked"] + counts["lost"]
    wrong = counts["caught"] + counts["passed"]
    print(f"\n{len(records)} answers: {right} right, {wrong} wrong")
    if right:
        lost = counts["lost"]
        print(f"  right answers withheld (lost)       {lost:3}  {lost / right:6.1%}")
        print(
            f"  right answers marked (false alarm)  {counts['marked']:3}  "
            f"{counts['marked'] / right:6.1%}"
        )
    if wrong:
        print(
            f"  wrong answers passed as supported   {counts['passed']:3}  "
            f"{counts['passed'] / wrong:6.1%}"
        )


if __name__ == "__main__":
    main()
