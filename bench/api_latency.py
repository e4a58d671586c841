"""p50 latency of POST /api/search and non-streaming /v1/chat/completions at 10,000 chunks.

Indexes generated Markdown files into a fresh data dir (with a stand-in embedder that
writes random vectors into the MiniLM collection, so filling the index takes seconds),
then serves the real app on a real socket with the real MiniLM embedder for queries and
the fake Ollama server for answers, and prints the latency of each route over many calls:

    uv run python bench/api_latency.py [--chunks 10000] [--calls 40]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.container import build_services  # noqa: E402
from app.settings import Settings  # noqa: E402
from models.embeddings import DIMENSION, MODEL_NAME  # noqa: E402
from tests.fakes.ollama_server import FakeOllamaServer  # noqa: E402
from tests.running import running_app  # noqa: E402

CHUNKS_PER_FILE = 100
ANSWER = " ".join(["The documents say this, with a citation [1]."] * 12)
SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "su",
    "te",
    "ra",
    "no",
    "vi",
    "de",
    "pu",
    "ge",
    "xo",
    "ba",
    "fi",
    "ju",
    "zo",
    "wa",
    "ye",
)
WORDS = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in ("n", "r", "s")][:320]
"""Letters only, as the keyword index's tokenizer expects words to be."""


class RandomVectors:
    """Fills the MiniLM collection quickly: same name and size, random unit vectors."""

    name = MODEL_NAME

    def __init__(self) -> None:
        self._random = random.Random(7)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for _ in texts:
            vec = [self._random.gauss(0, 1) for _ in range(DIMENSION)]
            norm = sum(v * v for v in vec) ** 0.5
            out.append([v / norm for v in vec])
        return out


def write_corpus(docs: Path, chunks: int, chunk_size: int) -> int:
    rng = random.Random(1)
    files = max(1, chunks // CHUNKS_PER_FILE)
    for n in range(files):
        words: list[str] = []
        # Overlap means each chunk advances by less than its size; a little slack is fine.
        while sum(len(w) + 1 for w in words) < CHUNKS_PER_FILE * chunk_size * 0.81:
            words.extend(rng.choices(WORDS, k=12))
            words[-1] += "."
        (docs / f"doc{n:04}.md").write_text(f"# Document {n}\n\n{' '.join(words)}\n")
    return files


async def fill_index(settings: Settings, chunks: int) -> int:
    files = write_corpus(settings.paths.docs_dir, chunks, settings.ingest.chunk_size)
    container = build_services(settings, embedder=RandomVectors())
    await container.start(watch=False, scan=False)
    try:
        await container.indexer.scan()
        await container.indexer.wait_idle()
        print(f"indexed {files} files into {container.embedding.store.count():,} chunks")
        return container.embedding.store.count()
    finally:
        await container.stop()


async def p50(call: Callable[[int], Awaitable[None]], calls: int) -> tuple[float, float]:
    for n in range(3):  # warm up: model sessions, HNSW pages, connection pool
        await call(n)
    times = []
    for n in range(calls):
        started = time.perf_counter()
        await call(n)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9) - 1]


async def main(chunks: int, calls: int) -> None:
    with tempfile.TemporaryDirectory(prefix="docent-bench-") as tmp:
        with FakeOllamaServer() as ollama:
            settings = Settings.model_validate(
                {
                    "data_dir": Path(tmp) / "data",
                    "ollama_host": ollama.url,
                    "chat_model": "llama3.2",
                    "rerank_download": False,  # nothing is fetched while measuring
                }
            )
            settings.paths.docs_dir.mkdir(parents=True)
            count = await fill_index(settings, chunks)
            async with running_app(build_services(settings)) as app:

                async def search(n: int) -> None:
                    body = {"query": f"{WORDS[n % len(WORDS)]} {WORDS[(n * 7) % len(WORDS)]}"}
                    response = await app.client.post("/api/search", json=body)
                    assert response.status_code == 200 and response.json()["results"]

                async def complete(n: int) -> None:
                    # Only words the library holds: the relevance floor lets it through. It
                    # names the documents, so it is routed to a search as a user's would be
                    # (the stand-in vectors mean nothing to the router's probe).
                    words = f"{WORDS[n % len(WORDS)]} and {WORDS[(n * 7) % len(WORDS)]}"
                    question = f"What do my documents say about {words}?"
                    body = {"model": "docent", "messages": [{"role": "user", "content": question}]}
                    # A typical answer's length; the fake's default echo would repeat the
                    # whole prompt and measure the fake more than Docent.
                    ollama.enqueue_reply(ANSWER)
                    response = await app.client.post("/v1/chat/completions", json=body)
                    assert response.status_code == 200, response.text
                    assert response.json()["sources"], response.text

                search_p50, search_p90 = await p50(search, calls)
                chat_p50, chat_p90 = await p50(complete, calls)
    print(f"chunks in the index: {count:,}; {calls} calls each after 3 warm-up calls")
    for route, (mid, high) in {
        "POST /api/search": (search_p50, search_p90),
        "POST /v1/chat/completions (fake Ollama)": (chat_p50, chat_p90),
    }.items():
        print(f"{route:42} p50 {mid:7.1f} ms   p90 {high:7.1f} ms")
    print(f"completion / search p50 ratio: {chat_p50 / search_p50:.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(main(args.chunks, args.calls))
