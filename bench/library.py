"""Benchmarks' libraries: a Services indexed over a folder, kept between runs in /tmp."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from app.container import Services, build_services
from app.settings import Settings
from ingest.document_parts import DocStatus
from models.protocols import ChatModel, Embedder

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
HANDBOOK = CORPUS / "handbook" / "pages"


async def indexed_container(
    docs: Path,
    data_dir: Path,
    *,
    llm: ChatModel | None = None,
    embedder: Embedder | None = None,
    expect: int | None = None,
    **settings: object,
) -> Services:
    """A started Services whose documents in ``docs`` are all indexed (or failed).

    The data dir survives the run, so a second run only checks that nothing changed.
    """
    # No reranking model: benchmarks never download one (and measure without it).
    settings = {"rerank_download": False, **settings}
    flat: dict[str, Any] = {"data_dir": data_dir, "docs": docs, "open_browser": False, **settings}
    config = Settings(**flat)
    container = build_services(config, llm=llm, embedder=embedder)
    await container.start(watch=False, scan=True)
    expect = expect or sum(1 for p in docs.rglob("*") if p.is_file())
    started = time.monotonic()
    last = -1
    while True:
        docs_now = container.registry.list()
        done = sum(d.status in (DocStatus.READY, DocStatus.ERROR) for d in docs_now)
        if done >= expect and not any(
            d.status in (DocStatus.QUEUED, DocStatus.INDEXING) for d in docs_now
        ):
            break
        if done // 25 != last // 25 and time.monotonic() - started > 5:
            print(f"  indexing {done}/{expect} documents…", flush=True)
            last = done
        await asyncio.sleep(0.5)
    while container.embedding.switch is not None:  # a data dir of an older Docent is re-embedded
        await asyncio.sleep(0.5)
    return container
