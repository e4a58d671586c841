"""POST /api/search latency at 10,000 and 100,000 chunks, and the BM25 index's start-up cost.

    uv run python bench/search_latency.py [--sizes 10000,100000] [--queries 200]

The library is synthetic (sentences drawn from the SQuAD paragraphs, random unit vectors,
so no embedding is needed to fill it) but the request path is the product's: the real app,
the MiniLM query embedder, Chroma, BM25, fusion, neighbours and the floor. Also prints
how long the keyword index takes to load from its files against rebuilding it from the
store's chunks, which is what decides whether it is persisted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any, cast

import httpx
import numpy as np
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.container import Container  # noqa: E402
from app.server import create_api_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from ingest.keyword import KeywordIndex  # noqa: E402
from ingest.registry import doc_id_for  # noqa: E402
from ingest.types import Chunk, DocStatus  # noqa: E402
from models.embeddings import MiniLMEmbedder  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "squad"
ROOT = Path("/tmp/retrieval-latency")
PER_DOC = 50


def sentences() -> list[str]:
    rows = [json.loads(line)["text"] for line in open(CORPUS / "paragraphs.jsonl")]
    return [s.strip() + "." for p in rows for s in p.split(". ") if len(s) > 40]


def fill(container: Container, size: int, pool: list[str]) -> None:
    rng = random.Random(size)
    vectors = np.random.default_rng(size).standard_normal((PER_DOC, 384)).astype(np.float32)
    collection = container.store._collection
    for d in range(size // PER_DOC):
        rel = f"doc{d:05d}.md"
        doc_id = doc_id_for(rel)
        chunks = [
            Chunk(doc_id, rel, rel, None, i, i * 850, i * 850 + 1000, text, "-")
            for i, text in enumerate(" ".join(rng.sample(pool, 7)) for _ in range(PER_DOC))
        ]
        vectors = vectors[np.random.default_rng(d).permutation(PER_DOC)]
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        collection.add(
            ids=[f"{doc_id}:{c.index}" for c in chunks],
            embeddings=cast(Any, unit.tolist()),
            documents=[c.text for c in chunks],
            metadatas=cast(Any, [{**_meta(c)} for c in chunks]),
        )
        container.keyword.replace_document(doc_id, chunks)
        container.registry.upsert(rel, status=DocStatus.READY, chunks=PER_DOC, sha256="-")


def _meta(c: Chunk) -> dict[str, Any]:
    return {
        "doc_id": c.doc_id, "path": c.path, "file": c.file, "page": -1, "index": c.index,
        "start": c.start, "end": c.end, "sha256": c.sha256,
    }  # fmt: skip


async def measure(size: int, queries: list[str], embedder: MiniLMEmbedder) -> None:
    data = ROOT / f"n{size}"
    shutil.rmtree(data, ignore_errors=True)
    settings = Settings.model_validate({"data_dir": data, "rerank_download": False})
    container = Container(settings, embedder=embedder)
    started = time.perf_counter()
    await asyncio.to_thread(fill, container, size, sentences())
    print(f"\n{size:,} chunks: filled in {time.perf_counter() - started:.0f} s")

    started = time.perf_counter()
    loaded = KeywordIndex(data / "keyword")
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    rebuilt = KeywordIndex()
    rebuilt.catch_up(container.store)
    rebuild_s = time.perf_counter() - started
    assert loaded.count() == rebuilt.count() == size
    print(f"  BM25 load from files {load_s:.2f} s; rebuild from the store {rebuild_s:.2f} s")

    await container.start(watch=False, scan=False)
    try:
        config = uvicorn.Config(
            create_api_app(container),
            host="127.0.0.1",
            port=8131,
            log_level="warning",
            lifespan="off",
        )
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        headers = {"Authorization": f"Bearer {container.token}"}
        async with httpx.AsyncClient(
            base_url="http://127.0.0.1:8131", headers=headers, timeout=60
        ) as client:
            for q in queries[:10]:  # warm up
                await client.post("/api/search", json={"query": q})
            times = []
            for q in queries:
                t = time.perf_counter()
                response = await client.post("/api/search", json={"query": q})
                times.append((time.perf_counter() - t) * 1000)
                assert response.status_code == 200, response.text
            p50, p95 = np.percentile(times, [50, 95])
            print(
                f"  POST /api/search over {len(times)} queries: p50 {p50:.0f} ms, p95 {p95:.0f} ms"
            )
        server.should_exit = True
        await task
    finally:
        await container.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rows = [json.loads(line)["question"] for line in open(CORPUS / "questions.jsonl")]
    queries = random.Random(3).sample(rows, args.queries)
    embedder = MiniLMEmbedder()
    for size in (int(s) for s in args.sizes.split(",")):
        asyncio.run(measure(size, queries, embedder))


if __name__ == "__main__":
    main()
