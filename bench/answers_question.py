"""Whether the check tells an answer that addresses its question from a true one that
doesn't, on SQuAD questions over their articles' passages.

    uv run python bench/answers_question.py [--questions 300]

For each question of bench/data/support_dev.jsonl (its passages as there), three answers,
each cited [1]: the sentence of the gold paragraph that holds the gold answer (*right*),
the gold answer alone ("October 1973 [1].", *short*), and another sentence of the same
paragraph that doesn't hold it (*elsewhere*: true, cited, about something else, as a
small model writes when it misreads the question). Prints each kind's coverage (the share
of the question's weight the answer covers, graph/support/question.py) by percentile and
how many of each the bar ``ADDRESSED`` flags. Nothing calls a chat model; MiniLM embeds.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.verify_eval import CORPUS, VECTORS, RememberingEmbedder, load_items  # noqa: E402
from graph.support import SupportCheck, split_sentences  # noqa: E402
from graph.support.question import GAP, WORD_GAP, coverage  # noqa: E402
from models.embeddings import MiniLMEmbedder  # noqa: E402


def cases(items: list[dict], limit: int) -> list[tuple[str, str, str, list]]:
    """(kind, question, answer, passages) for up to ``limit`` questions."""
    questions = {}
    for line in open(CORPUS / "questions.jsonl", encoding="utf-8"):
        row = json.loads(line)
        questions[row["id"]] = row
    seen: set[str] = set()
    out = []
    for item in items:
        q = questions.get(item["question"])
        if q is None or item["question"] in seen:
            continue
        seen.add(item["question"])
        gold = item["sources"][item["gold"] - 1]
        answer = q["answers"][0]["text"]
        sentences = [s.text for s in split_sentences(gold.text)]
        right = [s for s in sentences if answer in s]
        other = [s for s in sentences if answer not in s and len(s) > 40]
        if not right or not other:
            continue
        text = q["question"]
        out.append(("right", text, f"{right[0]} [1]", item["sources"]))
        out.append(("short", text, f"{answer} [{item['gold']}].", item["sources"]))
        out.append(("elsewhere", text, f"{other[len(other) // 2]} [1]", item["sources"]))
        if len(seen) >= limit:
            break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--vectors", type=Path, default=VECTORS)
    args = parser.parse_args()
    embedder = RememberingEmbedder(MiniLMEmbedder(), args.vectors)
    scores: dict[str, list[float]] = defaultdict(list)
    missed: dict[str, list[bool]] = defaultdict(list)
    for kind, question, answer, sources in cases(load_items(), args.questions):
        check = SupportCheck(sources, embedder, question=[question])
        support = check.check(answer)
        covered = coverage([question], support, check._idf, check._default_idf)
        scores[kind].append(covered[0] if covered is not None else 1.0)
        missed[kind].append(not check.addresses_question(support))
    embedder.save()
    print(f"WORD_GAP = {WORD_GAP}, GAP = {GAP}")
    for kind, values in scores.items():
        values.sort()
        pick = [values[min(len(values) - 1, int(p * len(values)))] for p in (0.1, 0.25, 0.5)]
        flagged = sum(missed[kind]) / len(missed[kind])
        print(
            f"  {kind:10} n={len(values):3}  said not to address the question {flagged:6.1%}"
            f"   word coverage p10 {pick[0]:.2f}  p25 {pick[1]:.2f}  p50 {pick[2]:.2f}"
        )


if __name__ == "__main__":
    main()
