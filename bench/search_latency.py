"""POST /api/search latency at 10,000 and 100,000 chunks, and the BM25 index's start-up cost.

    uv run python bench/search_latency.py [--sizes 10000,100000] [--queries 200] [--fresh]

The library is synthetic: each chunk is seven sentences drawn at random from the SQuAD
paragraphs (about 1,000 characters, like a real chunk), with a random unit vector, so
filling 100,000 chunks needs no embedding. The request path is the product's: the real
app and route, the MiniLM query embedder, Chroma, BM25, fusion, neighbours and the floor.
Queries are SQuAD questions, each asked once (no query-cache hits), sent one at a time by
a client in another process, as a real client would be.

Printed: the keyword index's rebuild from the store's chunks against its load from its
files (which decides whether it is persisted); search p50/p95 on an idle library; and
p50/p95 of the searches made while the whole keyword index is merged into one segment
(the biggest merge there is). The load average is printed beside each figure: the machine
is shared, so compare figures printed in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.api_without_window import create_api_app  # noqa: E402
from app.container import build_services  # noqa: E402
from app.settings import Settings  # noqa: E402
from ingest.index.chroma_calls import open_chroma  # noqa: E402
from ingest.index.chroma_rows import TEXT_KEY  # noqa: E402
from ingest.index.keyword.index import KeywordIndex  # noqa: E402
from ingest.index.vectors import ChromaStore  # noqa: E402
from ingest.keys import chunk_id, content_key  # noqa: E402
from models.embeddings import MiniLMEmbedder  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "squad"
ROOT = Path(os.environ.get("DOCENT_LATENCY_DIR", "/tmp/retrieval-latency"))
"""Shared by the worktrees: a branch whose index differs sets ``DOCENT_LATENCY_DIR``."""
VERSION = (
    "4"  # texts in metadata and document vectors, as the app writes them; older fills are redone
)
PER_DOC = 50
PORT = 8741
FILL_BATCH = 2_000


def sentences() -> list[str]:
    rows = [json.loads(line)["text"] for line in open(CORPUS / "paragraphs.jsonl")]
    return [s.strip() + "." for p in rows for s in p.split(". ") if len(s) > 40]


class CountingEmbedder:
    """MiniLM, counting the texts it embeds: the merge starts once searches are under way."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return self.inner.embed(texts)


def load_average() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def fill(data: Path, size: int, embedder: MiniLMEmbedder) -> None:
    """Files, registry rows and Chroma chunks for ``size`` chunks, all agreeing as the
    pipeline leaves them (content keys, sizes, times), so the app's start-up check finds
    nothing to repair or re-index; the keyword index is built later."""
    shutil.rmtree(data, ignore_errors=True)
    settings = Settings.model_validate({"data_dir": data, "rerank_download": False})
    container = build_services(settings, embedder=embedder)
    docs = settings.paths.docs_dir
    pool = sentences()
    rng = random.Random(size)
    vectors = np.random.default_rng(size)
    store = container.embedding.store
    ids: list[str] = []
    metas: list[dict[str, Any]] = []
    keys: list[str] = []
    for d in range(size // PER_DOC):
        rel = f"doc{d:05d}.md"
        chunks = [" ".join(rng.sample(pool, 7)) for _ in range(PER_DOC)]
        body = "\n\n".join(chunks).encode()
        (docs / rel).write_bytes(body)
        sha = hashlib.sha256(body).hexdigest()
        key = content_key(sha, settings.ingest.chunk_size, settings.ingest.chunk_overlap)
        for i, text in enumerate(chunks):
            ids.append(chunk_id(key, i))
            metas.append(
                {"doc_id": key, "path": rel, "file": rel, "page": -1, "index": i,
                 "start": i * 850, "end": i * 850 + 1000, "sha256": sha, TEXT_KEY: text}
            )  # fmt: skip
        keys.append(key)
        stat = (docs / rel).stat()
        container.registry.begin_content(key, sha)
        container.registry.finish_content(
            rel, key, pages=None, chunks=PER_DOC, sha256=sha, size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
        )  # fmt: skip
        if len(ids) >= FILL_BATCH or d == size // PER_DOC - 1:
            unit = vectors.standard_normal((len(ids), 384)).astype(np.float32)
            unit /= np.linalg.norm(unit, axis=1, keepdims=True)
            add(store, store.name, ids=ids, embeddings=unit, metadatas=metas)
            outline = vectors.standard_normal((len(keys), 384)).astype(np.float32)
            outline /= np.linalg.norm(outline, axis=1, keepdims=True)
            add(store, store.documents_name, ids=keys, embeddings=outline,
                metadatas=[{"chunks": PER_DOC}] * len(keys))  # fmt: skip
            ids, metas, keys = [], [], []
    container.registry.close()
    container.sessions.close()
    (data / "filled").write_text(f"{size} v{VERSION}")


def add(store: ChromaStore, collection: str, **records: Any) -> None:
    """Add records to one of the store's collections directly, past the pipeline."""
    store.chroma.write(lambda client: client.get_collection(collection).add(**records))


def keyword_start_up(data: Path, store: ChromaStore) -> None:
    """Rebuild the keyword index from the store, then load it from its files; print both."""
    shutil.rmtree(data / "keyword", ignore_errors=True)
    started = time.perf_counter()
    rebuilt = KeywordIndex(data / "keyword")
    rebuilt.catch_up(store)
    rebuild_s = time.perf_counter() - started
    started = time.perf_counter()
    loaded = KeywordIndex(data / "keyword")
    load_s = time.perf_counter() - started
    assert loaded.count() == rebuilt.count() == store.count()
    print(
        f"  BM25 rebuild from the store {rebuild_s:.1f} s; load from its files {load_s:.2f} s"
        f" ({rebuild_s / load_s:.0f}x)  [{load_average()}]"
    )


def ask(url: str, token: str, queries: list[str]) -> list[tuple[float, float]]:
    """Run the client in its own process; (wall-clock start, ms) per query."""
    out = subprocess.run(
        [sys.executable, __file__, "--client", url, token],
        input=json.dumps(queries),
        capture_output=True,
        text=True,
        check=True,
    )
    return [(at, ms) for at, ms in json.loads(out.stdout)]


def client(url: str, token: str) -> None:
    queries = json.load(sys.stdin)
    headers = {"Authorization": f"Bearer {token}"}
    rows = []
    with httpx.Client(base_url=url, headers=headers, timeout=120) as http:
        for q in queries:
            at, started = time.time(), time.perf_counter()
            response = http.post("/api/search", json={"query": q})
            rows.append((at, (time.perf_counter() - started) * 1000))
            assert response.status_code == 200, response.text
    print(json.dumps(rows))


def percentiles(rows: list[tuple[float, float]]) -> str:
    p50, p95 = np.percentile([ms for _, ms in rows], [50, 95])
    return f"p50 {p50:.0f} ms, p95 {p95:.0f} ms over {len(rows)} queries"


async def measure(size: int, queries: list[str], fresh: bool, embedder: MiniLMEmbedder) -> None:
    data = ROOT / f"n{size}"
    marker = data / "filled"
    if fresh or not marker.is_file() or marker.read_text() != f"{size} v{VERSION}":
        started = time.perf_counter()
        await asyncio.to_thread(fill, data, size, embedder)
        print(f"\n{size:,} chunks: filled Chroma in {time.perf_counter() - started:.0f} s")
    else:
        print(f"\n{size:,} chunks: reusing {data}")
    store = ChromaStore(open_chroma(data), embedder)
    await asyncio.to_thread(keyword_start_up, data, store)
    settings = Settings.model_validate({"data_dir": data, "rerank_download": False})
    counting = CountingEmbedder(embedder)
    container = build_services(settings, embedder=counting)
    await container.start(watch=False, scan=False)
    if container.embedding.store.count() != size:  # the start-up check repaired the library away
        raise SystemExit(
            f"the library holds {container.embedding.store.count():,} chunks, not {size:,}"
        )
    config = uvicorn.Config(
        create_api_app(container), host="127.0.0.1", port=PORT, log_level="warning",
        lifespan="off",
    )  # fmt: skip
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.05)
        url = f"http://127.0.0.1:{PORT}"
        await asyncio.to_thread(ask, url, container.token, ["warm up " + q for q in queries[:10]])
        half = len(queries) // 2
        idle = await asyncio.to_thread(ask, url, container.token, queries[:half])
        print(f"  POST /api/search, idle library: {percentiles(idle)}  [{load_average()}]")

        # A document changes (its old rows die, a small segment joins), then the whole
        # index is merged into one: the largest merge the index can do.
        first = next(iter(sorted(container.embedding.store.document_ids())))
        container.keyword.replace_document(first, container.embedding.store.document_chunks(first))
        segments = len(container.keyword._view.segments)
        span: list[float] = []

        asked = counting.embedded

        def merge() -> None:
            while counting.embedded < asked + 3:  # the client's searches are under way
                time.sleep(0.01)
            span.append(time.time())
            container.keyword.compact()
            span.append(time.time())

        merger = threading.Thread(target=merge)
        merger.start()
        during = await asyncio.to_thread(ask, url, container.token, queries[half:])
        merger.join()
        inside = [row for row in during if span[0] <= row[0] <= span[1]]
        print(
            f"  merging {segments} segments into one took {span[1] - span[0]:.1f} s; searches"
            f" meanwhile: {percentiles(inside) if inside else 'none overlapped'}"
            f"  [{load_average()}]"
        )
    finally:
        server.should_exit = True
        await task
        await container.stop()


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--client":
        client(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--fresh", action="store_true", help="refill the libraries")
    args = parser.parse_args()
    rows = [json.loads(line)["question"] for line in open(CORPUS / "questions.jsonl")]
    queries = random.Random(3).sample(rows, args.queries)
    print("POST /api/search latency (target at 10,000 chunks: p50 <= 50 ms, p95 <= 100 ms)")
    embedder = MiniLMEmbedder()
    for size in (int(s) for s in args.sizes.split(",")):
        asyncio.run(measure(size, queries, args.fresh, embedder))


if __name__ == "__main__":
    main()
