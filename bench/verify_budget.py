"""How long POST /api/verify's check takes on a long text, and what its time budget does.

    uv run python bench/verify_budget.py [--docs DIR] [--chars 20000] [--seconds 10]

Indexes ``--docs`` (default: two sections of the shared handbook) into a data dir kept in
/tmp, builds a text of ``--chars`` characters from the library's own sentences, then
prints, with the real MiniLM embedder and the product's SearchService:

- the check without a budget: the seconds spent finding the claims' passages and
  embedding their sentences, then judging the claims, which is what the budget's split
  (``SEARCH_SHARE``) is set from;
- one verify with the budget: its seconds, and how many sentences were checked;
- three at once, as three callers would send them: each one's seconds and checked count.

The machine is shared: compare figures of one run (the load average is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.services.search import SearchService  # noqa: E402
from bench.library import HANDBOOK, indexed_container  # noqa: E402
from graph.support.check import SupportCheck  # noqa: E402
from graph.support.verify_text import RememberingEmbedder, library_passages  # noqa: E402

DATA = Path(os.environ.get("DOCENT_VERIFY_BENCH_DIR", "/tmp/verify-budget"))


def long_text(docs: Path, chars: int) -> str:
    """Sentences of the library's own documents, shuffled, up to ``chars`` characters."""
    sentences: list[str] = []
    for path in sorted(docs.rglob("*.md")):
        flat = re.sub(r"\s+", " ", re.sub(r"[#*`>\[\]()_|-]", " ", path.read_text("utf-8")))
        sentences += [s for s in re.split(r"(?<=[.!?])\s+", flat) if 40 < len(s) < 200]
    random.Random(1).shuffle(sentences)
    text = ""
    for sentence in sentences:
        if len(text) + len(sentence) + 1 > chars:
            break
        text += sentence + " "
    return text.strip()


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=Path, default=None)
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    docs = args.docs
    if docs is None:
        docs = DATA / "docs"
        for section in ("getting-started", "travel-and-leave"):
            if not (docs / section).exists():
                shutil.copytree(HANDBOOK / section, docs / section)
    container = await indexed_container(
        docs, DATA / "data", expect=sum(1 for p in docs.rglob("*") if p.is_file())
    )
    try:
        text = long_text(docs.resolve(), args.chars)
        print(f"{len(text):,} characters, {len(container.registry.list())} documents ({load()})")
        with container.retriever.begin() as search:
            began = time.perf_counter()
            remembering = RememberingEmbedder(search.reader.embedder)
            passages, read = library_passages(text, search, embedder=remembering)
            found = time.perf_counter()
            results = SupportCheck(passages, remembering).check(text)
            done = time.perf_counter()
        print(
            f"no budget: {read} claims searched and their {len(passages)} passages embedded "
            f"in {found - began:.1f} s, judged in {done - found:.1f} s; "
            f"{len(results)} sentences, {done - began:.1f} s in all ({load()})"
        )
        service = SearchService(
            container.retriever,
            container.registry.ready_paths,
            max_query_chars=container.settings.search.max_query_chars,
            max_text_chars=len(text),
            verify_seconds=args.seconds,
        )

        async def timed() -> str:
            began = time.perf_counter()
            out = await service.verify(text)
            unchecked = sum(s["verdict"] == "unchecked" for s in out)
            return (
                f"{time.perf_counter() - began:.1f} s, "
                f"{len(out) - unchecked} checked, {unchecked} unchecked"
            )

        print(f"budget {args.seconds:g} s, one: {await timed()} ({load()})")
        three = await asyncio.gather(timed(), timed(), timed())
        print(f"budget {args.seconds:g} s, three at once: {'; '.join(three)} ({load()})")
    finally:
        await container.stop()


if __name__ == "__main__":
    asyncio.run(main())
