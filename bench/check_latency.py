"""What checking an answer adds after its last token, through the generator as a turn runs it.

    uv run python bench/check_latency.py [--reps 15] [--words-per-second 15]

The cases of bench/verify_eval.py's timing (ten-sentence Markdown answers with citations,
each over its article's eight SQuAD passages) as whole turns: the eight passages are a
library of their own (the real MiniLM embedder, no relevance floor, top 8), and a scripted
model streams the answer word by word at about a small model's pace on a CPU. The generator
embeds the passages as soon as it has them and each sentence as it completes; after the
last token it checks the answer and corrects its marks. Printed, p50 and p95: the trace's
``check_ms`` (the generator's own count from the last token), and the same seen from
outside (the last token's event to the generator's timing event). The machine is shared:
compare figures of one run only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.messages import HumanMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from bench.verify_eval import TARGET_MS, load_items, timing_cases  # noqa: E402
from graph.deps import GraphDeps  # noqa: E402
from graph.events import NodeTimed, Token  # noqa: E402
from graph.graph import build_graph  # noqa: E402
from graph.retrieval.floor import Floor  # noqa: E402
from graph.retrieval.retriever import RetrievalSettings, Retriever  # noqa: E402
from graph.support import SourcePassage  # noqa: E402
from ingest.index.keyword.index import KeywordIndex  # noqa: E402
from models.embeddings import MiniLMEmbedder  # noqa: E402
from models.reranker import PassThroughReranker  # noqa: E402
from tests.fakes.chat import FakeChatModel  # noqa: E402
from tests.fakes.dense import FakeDenseIndex, FakeLibrary  # noqa: E402
from tests.fakes.search import make_chunk  # noqa: E402

QUESTION = "What do the documents say about it?"


def library(passages: list[SourcePassage], embedder: MiniLMEmbedder) -> Retriever:
    """The eight passages, each its own document (so none is merged with another)."""
    dense, keyword = FakeDenseIndex(embedder), KeywordIndex()  # type: ignore[arg-type]
    paths = []
    for passage in passages:
        path = f"{passage.path.removesuffix('.md')}-{passage.n}.md"
        chunks = [make_chunk(path, None, passage.text)]
        dense.replace_document(f"id-{path}", chunks)
        keyword.replace_document(f"id-{path}", chunks)
        paths.append(path)
    settings = RetrievalSettings(top_k=8, floor=Floor(-1))
    return Retriever(dense, keyword, embedder, PassThroughReranker(), FakeLibrary(paths), settings)


async def turn(
    passages: list[SourcePassage], answer: str, embedder: MiniLMEmbedder, pace: float
) -> tuple[float, float, int]:
    """One turn: (check_ms from the trace, last token → generator done in ms, sources)."""
    llm = FakeChatModel(token_delay=1 / pace)
    llm.enqueue(answer)
    retriever = library(passages, embedder)
    deps = GraphDeps(llm, retriever, lambda: list(retriever.library.paths.values()))  # type: ignore[attr-defined]
    graph: Any = build_graph(InMemorySaver())
    context = deps.begin(QUESTION, "rag")
    inputs: dict[str, Any] = {
        "messages": [HumanMessage(content=QUESTION)],
        "question": QUESTION,
        "mode": "rag",
    }
    config: Any = {"configurable": {"thread_id": "bench"}}
    last_token = ended = 0.0
    try:
        async for event in graph.astream(inputs, config, context=context, stream_mode="custom"):
            if isinstance(event, Token):
                last_token = time.perf_counter()
            elif isinstance(event, NodeTimed) and event.node == "generator":
                ended = time.perf_counter()
    finally:
        context.search.close()
    state = (await graph.aget_state(config)).values
    return state["trace"]["check_ms"], (ended - last_token) * 1000, len(state["sources"])


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):6.1f} ms   p95 {p95:6.1f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--words-per-second", type=float, default=15.0)
    args = parser.parse_args()
    cases = timing_cases(load_items())
    embedder = MiniLMEmbedder()
    await turn(*cases[0], embedder, 200.0)  # the model's first run loads it: not counted
    checks, outside = [], []
    for rep in range(args.reps):
        passages, answer = cases[rep % len(cases)]
        check_ms, seen_ms, count = await turn(passages, answer, embedder, args.words_per_second)
        assert count == 8, count
        checks.append(check_ms)
        outside.append(seen_ms)
    print(
        f"== through the generator: 10 sentences over 8 passages, {args.reps} turns, "
        f"{args.words_per_second:g} words/s =="
    )
    print(f"   (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"  check_ms (trace: last token → checked)      {quantiles(checks)}")
    print(f"  last token event → generator done          {quantiles(outside)}")
    print(f"  target: p50 <= {TARGET_MS} ms")


if __name__ == "__main__":
    asyncio.run(main())
