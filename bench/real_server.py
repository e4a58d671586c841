"""Docent against a real model server: does every answer arrive, and how long is each wait?

Runs against a real OpenAI-compatible server (by default ``../shared/tools/real-model
serve``: llama-cpp-python's server, which cancels a streaming answer when another request
arrives, with a 1.5B model on the CPU), never in CI. The app is built as ``run.py`` builds
it, health monitor included, so its status checks run beside the answers as they would in
the window.

- **chat**: ``--questions`` SQuAD questions (default 10), each in a fresh chat, each
  followed by a follow-up in the same chat that names its article with ``@``: whether the
  answer arrives non-empty, whether the follow-up was rewritten by the model and kept its
  scope, time to sources, time to the first token and total time (p50).
- **summary**: a summary of a 20-page PDF in Whole documents mode: time to the first
  section, the estimate of the time left at half-way against the time it really took,
  total time, model calls.
- **compare**: a comparison of two handbook pages: whether its table is well formed and
  free of repeated rows, model calls, total time.

    uv run python bench/real_server.py [--only chat,summary,compare] [--questions 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pypdf import PdfReader, PdfWriter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.container import (
    NOTES_FILE,  # noqa: E402
    Services,  # noqa: E402
)
from app.services.chat import Done, Progress, Sources, Token  # noqa: E402
from bench.counted_model import CountedModel  # noqa: E402
from bench.library import CORPUS, HANDBOOK, indexed_container  # noqa: E402
from graph.state import Mode  # noqa: E402
from models.openai_chat import OpenAIChat  # noqa: E402

SQUAD = CORPUS / "squad"
SEED = 35
WORK = Path(os.environ.get("DOCENT_REAL_SERVER_BENCH", "/tmp/docent-real-server-bench"))
SUMMARY_SOURCE = CORPUS / "pdfs" / "docugami__us-fed-agency-reports_EDAPP2022.pdf"
SUMMARY_PDF = "agency-report-20-pages.pdf"
"""The source's first 20 pages (an agency's annual report, typed)."""
COMPARED = ("travel-and-leave/paid-parental-leave.md", "travel-and-leave/fmla.md")


async def timed_turn(
    container: Services, session: str | None, text: str, mode: Mode
) -> dict[str, Any]:
    """One turn as the window follows it: when sources, the first token and done came."""
    started = time.perf_counter()
    turn = container.chat.start_turn(session, text, mode)
    out: dict[str, Any] = {"sources_at": None, "first_token_at": None, "progress": []}
    async for event in turn.events():
        now = time.perf_counter() - started
        if isinstance(event, Sources) and out["sources_at"] is None:
            out["sources_at"] = now
        elif isinstance(event, Token) and out["first_token_at"] is None and event.text.strip():
            out["first_token_at"] = now
        elif isinstance(event, Progress):
            out["progress"].append((now, event.done, event.total, event.text))
    out["done"] = await turn.result()
    out["total"] = time.perf_counter() - started
    out["session"] = turn.session_id
    return out


def p50(values: Sequence[float | None]) -> str:
    kept = [v for v in values if v is not None]
    return f"{statistics.median(kept):.1f} s" if kept else "—"


def squad_pairs(count: int) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """``count`` articles, each with two of its questions: one to ask, one to follow up."""
    rows = [json.loads(line) for line in open(SQUAD / "questions.jsonl")]
    rng = random.Random(SEED)
    files = sorted({r["doc_file"] for r in rows})
    pairs = []
    for article in sorted(rng.sample(files, count)):
        first, second = rng.sample([r for r in rows if r["doc_file"] == article], 2)
        pairs.append((article.removeprefix("docs/"), first, second))
    return pairs


async def chat(model: CountedModel, questions: int) -> None:
    pairs = squad_pairs(questions)
    docs = WORK / "squad"
    docs.mkdir(parents=True, exist_ok=True)
    for name, _, _ in pairs:
        if not (docs / name).exists():
            shutil.copy(SQUAD / "docs" / name, docs / name)
    container = await indexed_container(
        docs, WORK / "squad-data", llm=model, expect=len(pairs), suggestions=False
    )
    try:
        rows = []
        for name, first, second in pairs:
            asked = await timed_turn(container, None, first["question"], "rag")
            json_before = len(model.json_calls)
            followed = await timed_turn(
                container, asked["session"], f"@{name} {second['question']}", "rag"
            )
            followed["rewrites"] = [c.parsed for c in model.json_calls[json_before:]]
            rows.append((name, asked, followed))
            for label, run in (("ask", asked), ("follow-up", followed)):
                done = run["done"]
                answer = done.answer if isinstance(done, Done) else f"(failed: {done.message})"
                print(
                    f"  {label:<9} {name:<32} sources {p50([run['sources_at']]):>7}  "
                    f"first token {p50([run['first_token_at']]):>7}  "
                    f"total {run['total']:6.1f} s  {answer[:70]!r}",
                    flush=True,
                )
        arrived = sum(_arrived(run["done"]) for _, a, f in rows for run in (a, f))
        scoped = sum(_rewritten_with_scope(f, name) for name, _, f in rows)
        runs = [run for _, a, f in rows for run in (a, f)]
        print(f"\nanswers that arrived non-empty: {arrived} of {2 * len(rows)}")
        print(f"follow-ups rewritten by the model with their scope: {scoped} of {len(rows)}")
        for name, _, followed in rows:
            if not _rewritten_with_scope(followed, name):
                print(f"  not counted: {name}: {_why_not(followed)}")
        print(f"JSON calls: {model.json_ok} came back, {len(model.json_failed)} failed")
        for failure in model.json_failed[:5]:
            print(f"  {failure}")
        print(
            f"p50: time to sources {p50([r['sources_at'] for r in runs])}, "
            f"to the first token {p50([r['first_token_at'] for r in runs])}, "
            f"total {p50([r['total'] for r in runs])}"
        )
    finally:
        await container.stop()


def _arrived(done: Any) -> bool:
    return isinstance(done, Done) and bool(done.answer.strip()) and "cut off" not in done.answer


def _rewritten_with_scope(run: dict[str, Any], name: str) -> bool:
    """The rewriter ran and its model call came back with JSON (a query the model wrote,
    which may keep the file's name), and every query is aimed at the article the
    follow-up names."""
    done = run["done"]
    if not isinstance(done, Done):
        return False
    nodes = [n["node"] for n in done.trace.get("nodes") or []]
    queries = done.trace.get("queries") or []
    aimed = bool(queries) and all(q["files"] == [name] for q in queries)
    return "rewriter" in nodes and aimed and any(run["rewrites"])


def _why_not(run: dict[str, Any]) -> str:
    """What the trace and the model calls say of a follow-up not rewritten with its scope."""
    done = run["done"]
    if not isinstance(done, Done):
        return f"failed: {done.message}"
    nodes = [n["node"] for n in done.trace.get("nodes") or []]
    queries = [(q["text"][:60], q["files"]) for q in done.trace.get("queries") or []]
    return f"nodes {nodes}; JSON replies parsed {run['rewrites']}; queries {queries}"


_ROW = re.compile(r"^\s*\|.*\|\s*$")
_SEPARATOR = re.compile(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$")


def table_report(answer: str) -> str:
    """Whether the answer's Markdown table is well formed, and its repeated rows."""
    lines = [line for line in answer.splitlines() if _ROW.match(line)]
    if len(lines) < 3:
        return "no table"
    widths = {line.strip().count("|") for line in lines}
    separator = bool(_SEPARATOR.match(lines[1]))
    body = [line.strip() for line in lines[2:]]
    repeated = len(body) - len(set(body))
    well = separator and len(widths) == 1
    return f"table {'well formed' if well else 'MALFORMED'}, {len(body)} rows, {repeated} repeated"


async def summary(model: CountedModel) -> None:
    docs = WORK / "summary"
    docs.mkdir(parents=True, exist_ok=True)
    if not (docs / SUMMARY_PDF).exists():
        first_pages(SUMMARY_SOURCE, docs / SUMMARY_PDF, 20)
    _forget_notes(WORK / "summary-data")
    container = await indexed_container(docs, WORK / "summary-data", llm=model, expect=1)
    try:
        before = model.streams
        tokens_before = model.prompt_tokens, model.answer_tokens
        run = await timed_turn(container, None, f"Summarise @{SUMMARY_PDF}", "document")
        progress = run["progress"]
        sections = [p for p in progress if p[1] >= 1]
        print(f"  progress events: {len(progress)}")
        if sections:
            print(f"  time to the first section: {sections[0][0]:.1f} s")
        total = progress[-1][2] if progress else 0
        half = next((p for p in progress if total and p[1] >= total / 2), None)
        reading_ended = progress[-1][0] if progress else run["total"]
        if half is not None:
            left = _estimate_seconds(half[3])
            real = reading_ended - half[0]
            said = f"{left:.0f} s" if left is not None else "none shown"
            print(
                f"  at half-way ({half[1]} of {total} sections, {half[0]:.0f} s): estimate "
                f"{said}, really {real:.0f} s left to read"
            )
        done = run["done"]
        print(f"  total {run['total']:.1f} s, {calls_and_tokens(model, before, tokens_before)}")
        if isinstance(done, Done):
            print(f"  answer: {done.answer[:300]!r}")
    finally:
        await container.stop()


def calls_and_tokens(model: CountedModel, streams: int, tokens: tuple[int, int]) -> str:
    """The model calls and tokens since ``streams`` calls and ``tokens`` (prompt, answer)."""
    prompt, answer = model.prompt_tokens - tokens[0], model.answer_tokens - tokens[1]
    return f"{model.streams - streams} model calls, {prompt:,} prompt and {answer:,} answer tokens"


def _forget_notes(data_dir: Path) -> None:
    """An earlier run's notes would be reused, and the reading not timed at all."""
    (data_dir / NOTES_FILE).unlink(missing_ok=True)


def first_pages(source: Path, target: Path, count: int) -> None:
    writer = PdfWriter()
    for page in PdfReader(source).pages[:count]:
        writer.add_page(page)
    with target.open("wb") as out:
        writer.write(out)


_LEFT = re.compile(r"about (\d+) (s|sec|second|seconds|min|minute|minutes|h|hour|hours)\b")


def _estimate_seconds(text: str) -> float | None:
    found = _LEFT.search(text)
    if found is None:
        return None
    unit = found.group(2)[0]
    return float(found.group(1)) * {"s": 1, "m": 60, "h": 3600}[unit]


async def compare(model: CountedModel) -> None:
    docs = WORK / "compare"
    docs.mkdir(parents=True, exist_ok=True)
    for name in COMPARED:
        if not (docs / Path(name).name).exists():
            shutil.copy(HANDBOOK / name, docs / Path(name).name)
    _forget_notes(WORK / "compare-data")
    container = await indexed_container(docs, WORK / "compare-data", llm=model, expect=2)
    try:
        before = model.streams
        tokens_before = model.prompt_tokens, model.answer_tokens
        first, second = (Path(name).name for name in COMPARED)
        text = f"Compare @{first} and @{second}"
        run = await timed_turn(container, None, text, "document")
        done = run["done"]
        answer = done.answer if isinstance(done, Done) else ""
        print(f"  {table_report(answer)}")
        print(f"  total {run['total']:.1f} s, {calls_and_tokens(model, before, tokens_before)}")
        print(f"  answer: {answer[:600]!r}")
    finally:
        await container.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--only", default="chat,summary,compare")
    args = parser.parse_args()
    load = os.getloadavg()
    print(
        f"model {args.model} at {args.url}; machine: {os.cpu_count()} cores, load "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n"
    )
    parts = {
        "chat": lambda model: chat(model, args.questions),
        "summary": summary,
        "compare": compare,
    }
    try:
        for name in args.only.split(","):
            print(f"== {name}")
            # A fresh client for each part: stopping a part's app closes the model it had.
            inner = OpenAIChat(args.url, args.model, max_tokens=1024, options={"temperature": 0})
            health = await inner.health()
            if not health.reachable or health.error:
                raise SystemExit(f"The model server is not ready: {health.error}")
            try:
                await parts[name.strip()](CountedModel(inner))
            finally:
                await inner.aclose()
            print()
    finally:
        load = os.getloadavg()
        print(f"machine load at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
