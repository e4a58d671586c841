"""The corpus sweep through the app: every PDF ends ``ready`` or ``error``, every scan of
printed text ``ready`` (read by OCR), and the app stays up throughout."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from app.container import build_services
from app.settings import Settings
from ingest.document_parts import DocStatus
from tests.corpus import CORPUS, needs_corpus
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder

PRINTED = ("SCANNED",)
"""pdfs_index.csv notes of scans whose pages hold printed text."""


@pytest.mark.slow
@needs_corpus
async def test_every_corpus_pdf_ends_ready_or_error_and_every_printed_scan_ready(
    tmp_path: Path,
) -> None:
    with (CORPUS / "pdfs_meta" / "pdfs_index.csv").open(newline="") as fh:
        notes = {row["file"]: row["notes"] for row in csv.DictReader(fh)}
    container = build_services(
        Settings(data_dir=tmp_path / "data"), llm=FakeChatModel(), embedder=FakeEmbedder()
    )
    pdfs = sorted((CORPUS / "pdfs").glob("*.pdf"))
    for path in pdfs:
        shutil.copy(path, container.settings.paths.docs_dir / path.name)

    records = {r.path: r for r in await container.indexer.index_all()}
    await container.stop()

    assert set(records) == {path.name for path in pdfs}
    stuck = [r.path for r in records.values() if r.status not in (DocStatus.READY, DocStatus.ERROR)]
    assert stuck == []
    scans = [name for name, note in notes.items() if note.startswith(PRINTED)]
    assert len(scans) >= 10
    unread = {n: records[n].error for n in scans if records[n].status != DocStatus.READY}
    assert unread == {}
    for name in scans:
        assert records[name].chunks > 0, name
    read = [r for r in records.values() if r.status == DocStatus.READY]
    print(f"\n{len(read)} of {len(pdfs)} corpus PDFs ready; every one of {len(scans)} scans")
