"""A child process for the crash tests: indexes a folder, and can park at a chosen point.

    python -m tests.crash_child DATA_DIR LOG_FILE {none|load|embed|between|ocr}

With a point other than ``none`` it stops there while indexing ``interrupt.txt``, writes
``DATA_DIR/reached`` and sleeps, waiting for the test's SIGKILL. Every text it embeds is
appended to LOG_FILE (one JSON string a line), so the test can tell what was embedded twice.
With ``ocr`` it reads scans with ``CodedReader``: each page it reads is a line of
LOG_FILE with the suffix ``.ocr``, and a page marked HOLD waits for ``DATA_DIR/gate``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import ingest.pipeline.process as pipeline_module
from ingest.index.chroma_calls import open_chroma
from ingest.index.registry import Registry
from ingest.index.vectors import ChromaStore
from ingest.parsing import ParserPool
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.indexer import Indexer
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.ocr import CodedReader

MARK = "INTERRUPT"


def park(data: Path) -> None:
    (data / "reached").write_text("parked")
    time.sleep(3600)


class LoggingEmbedder(FakeEmbedder):
    def __init__(self, log: Path, data: Path, crash_at: str) -> None:
        super().__init__()
        self.log, self.data, self.crash_at = log, data, crash_at
        self.marked_batches = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if any(MARK in text for text in texts):
            self.marked_batches += 1
            if self.crash_at == "embed" and self.marked_batches == 3:
                park(self.data)  # two batches of interrupt.txt are stored by now
        vectors = super().embed(texts)
        with self.log.open("a") as fh:
            fh.writelines(json.dumps(text) + "\n" for text in texts)
        return vectors


def main() -> None:
    data, log, crash_at = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    docs = data / "documents"
    registry = Registry(data / "docent.db")
    embedder = LoggingEmbedder(log, data, crash_at)
    store = ChromaStore(open_chroma(data), embedder, lookup=registry)
    if crash_at == "load":
        real_open = pipeline_module.open_source

        def parked_open(path: Path, *args: Any) -> Any:
            if path.name == "interrupt.txt":
                park(data)
            return real_open(path, *args)

        pipeline_module.open_source = parked_open  # type: ignore[assignment]
    if crash_at == "between":
        real_finish = registry.finish_content

        def parked_finish(rel: str, key: str, **fields: Any) -> Any:
            if rel == "interrupt.txt":
                park(data)  # every chunk is in the store; the registry does not know yet
            return real_finish(rel, key, **fields)

        registry.finish_content = parked_finish  # type: ignore[method-assign]
    ocr = None
    if crash_at == "ocr":
        ocr = ParserPool.for_ocr(1024, partial(CodedReader, log.with_suffix(".ocr"), data / "gate"))
    indexer = Indexer(
        docs, registry, [store], embedder, ocr_parsers=ocr, options=IndexOptions(workers=2)
    )
    if crash_at == "embed":
        # Each batch is written as soon as it is held, so the file killed mid-embedding
        # has stored batches whose re-embedding the test can catch.
        indexer.pipeline.writes.hold = 1
    asyncio.run(indexer.index_all())
    if ocr is not None:
        ocr.close()
    print("finished")


if __name__ == "__main__":
    main()
