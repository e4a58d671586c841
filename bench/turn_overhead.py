"""Time Docent adds before the first token, against a fake Ollama that answers at once.

Builds a library of N chunks (real corpus text, in .txt files, indexed by the real
pipeline into /tmp/conversation-overhead-N or --root, kept between runs), starts the real
Services with the real MiniLM embedder for questions, and runs 100 turns per route,
each in a new session (so no rewrite call), with no reranker model and suggestions off:

- chat: small talk, decided by the rules;
- rag: "According to the documents, <a SQuAD question>", decided by the rules;
- probe: a bare SQuAD question, decided by the vector probe (against stand-in vectors
  it finds nothing close, so these turns chat: the line measures the probe's cost).

For each it prints p50/p95 of the time from ``start_turn`` to the first token event,
and Docent's share of it: the p50 less that of a bare request to the fake Ollama (its
own share of the time), which runs in a process of its own as the real one does.

    uv run python bench/turn_overhead.py [--chunks 10000 100000] [--turns 100]

The index is built with stand-in vectors (random, unit length) because embedding 100,000
chunks with MiniLM on this machine takes hours; the questions are embedded by the real
MiniLM, so each turn's cost is the real one. Targets: chat ≤ 20 ms p50; rag at 10,000
chunks ≤ 50 ms p50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.container import Services  # noqa: E402
from app.services.chat import Done, Failed, Token  # noqa: E402
from bench.library import CORPUS, HANDBOOK, indexed_container  # noqa: E402
from models.embeddings import MiniLMEmbedder  # noqa: E402
from models.ollama_chat import OllamaChat  # noqa: E402

CHUNK_CHARS = 1000  # the default chunk size
FILE_CHUNKS = 100
SMALL_TALK = ["hello!", "thanks a lot", "good morning", "how are you?", "ok cool", "bye"]


class QuickIndexEmbedder:
    """Real MiniLM for single texts (questions); random unit vectors for batches (indexing)."""

    def __init__(self, real: MiniLMEmbedder) -> None:
        self.real = real
        self.name = real.name
        self.rng = np.random.default_rng(7)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) == 1:
            return self.real.embed(texts)
        vectors = self.rng.standard_normal((len(texts), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors.tolist()


def corpus_text() -> list[str]:
    paragraphs: list[str] = []
    for folder in (CORPUS / "squad" / "docs", HANDBOOK):
        for path in sorted(folder.rglob("*.md")):
            paragraphs += [p.strip() for p in path.read_text().split("\n\n") if len(p) > 200]
    return paragraphs


def write_library(docs: Path, chunks: int) -> int:
    """Text files holding about ``chunks`` chunks; each file differs (no shared content)."""
    files = max(chunks // FILE_CHUNKS, 1)
    if docs.is_dir() and sum(1 for _ in docs.iterdir()) == files:
        return files
    docs.mkdir(parents=True, exist_ok=True)
    pool = corpus_text()
    rng = random.Random(chunks)
    for index in range(files):
        body: list[str] = [f"Library file {index} of {files}."]
        size = 0
        while size < FILE_CHUNKS * (CHUNK_CHARS - 150):
            paragraph = rng.choice(pool)
            body.append(paragraph)
            size += len(paragraph)
        (docs / f"part-{index:05d}.txt").write_text("\n\n".join(body))
    return files


def questions(count: int) -> list[str]:
    lines = (CORPUS / "squad" / "questions.jsonl").read_text().splitlines()
    rng = random.Random(1)
    return [json.loads(line)["question"] for line in rng.sample(lines, count)]


def percentiles(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"p50 {statistics.median(values):7.1f} ms   p95 {p95:7.1f} ms"


async def first_token_ms(
    container: Services, message: str, nodes: dict[str, list[float]] | None = None
) -> float:
    """Milliseconds from ``start_turn`` to the first token; ``nodes`` collects node times."""
    started = time.perf_counter()
    turn = container.chat.start_turn(None, message)
    first = None
    async for event in turn.events():
        if isinstance(event, Token) and first is None:
            first = (time.perf_counter() - started) * 1000
        if isinstance(event, Failed):
            raise SystemExit(f"turn failed: {event.message}")
        if isinstance(event, Done) and nodes is not None:
            for node in event.trace["nodes"]:
                nodes.setdefault(node["node"], []).append(node["ms"])
            nodes.setdefault(f"routed by {event.trace.get('routed_by')}", []).append(0.0)
    assert first is not None
    return first


async def bare_ollama_ms(url: str, turns: int) -> list[float]:
    chat = OllamaChat(url, "llama3.2")
    out = []
    try:
        for _ in range(turns):
            started = time.perf_counter()
            async for _piece in chat.stream_chat([{"role": "user", "content": "hi"}]):
                out.append((time.perf_counter() - started) * 1000)
                break
    finally:
        await chat.aclose()
    return out


_SERVE = """
import sys, time
sys.path.insert(0, {root!r})
from tests.fakes.ollama_server import FakeOllamaServer
server = FakeOllamaServer().start()
server.responder = lambda body: '{{"route": "documents"}}' if "format" in body else "Hi."
print(server.url, flush=True)
sys.stdin.read()  # until the benchmark closes our stdin
"""


@contextmanager
def fake_ollama() -> Iterator[str]:
    """The fake Ollama in a process of its own, as the real one is: it must not compete
    with Docent for this process's interpreter lock."""
    code = _SERVE.format(root=str(Path(__file__).resolve().parents[1]))
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)


async def run(chunks: int, turns: int, real: MiniLMEmbedder, root: str) -> None:
    base = Path(f"{root}-{chunks}")
    files = write_library(base / "docs", chunks)
    with fake_ollama() as url:
        started = time.perf_counter()
        container = await indexed_container(
            base / "docs",
            base / "data",
            embedder=QuickIndexEmbedder(real),
            expect=files,
            ollama_host=url,
            suggestions=False,
        )
        print(
            f"\n{container.embedding.store.count():,} chunks in {files} files "
            f"(ready after {time.perf_counter() - started:.0f} s)"
        )
        try:
            asked = questions(turns)
            for _ in range(3):  # warm up: model, connections, caches
                await first_token_ms(container, asked[0])
            routes = {
                "chat": [SMALL_TALK[i % len(SMALL_TALK)] for i in range(turns)],
                "rag": [f"According to the documents, {q[0].lower()}{q[1:]}" for q in asked],
                "probe": asked,
            }
            # The fake Ollama's own time to its first token is in every turn's figure;
            # what Docent adds is the rest.
            bare = await bare_ollama_ms(url, turns)
            print(f"  the fake Ollama's own first token      {percentiles(bare)}")
            for name, messages in routes.items():
                nodes: dict[str, list[float]] = {}
                times = [await first_token_ms(container, m, nodes) for m in messages]
                added = statistics.median(times) - statistics.median(bare)
                print(
                    f"  {name:6} start_turn → first token   {percentiles(times)}   n={turns}"
                    f"   Docent's share p50 {added:.1f} ms"
                )
                parts = ", ".join(
                    f"{node} {len(ms)}"
                    if node.startswith("routed")
                    else f"{node} {statistics.median(ms):.1f}"
                    for node, ms in nodes.items()
                )
                print(f"         p50 ms per node (generator: whole answer): {parts}")
        finally:
            await container.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument(
        "--root", default="/tmp/conversation-overhead", help="libraries go in ROOT-<chunks>"
    )
    args = parser.parse_args()
    real = MiniLMEmbedder()
    print("targets: chat ≤ 20 ms p50; rag at 10,000 chunks ≤ 50 ms p50")
    for chunks in args.chunks:
        await run(chunks, args.turns, real, args.root)


if __name__ == "__main__":
    asyncio.run(main())
