"""Scans, pictures and spreadsheets, dropped in the folder, are found on the right page.

The scans are made here (``tests.scans``) and read by the real OCR models in the OCR
lane's worker process; the embedder is the hash fake, so it is the words OCR read that
are found. Nothing may connect beyond this machine meanwhile.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.api_app import api_app
from tests.network_guard import only_loopback
from tests.running import RunningApp, eventually
from tests.scans import image_pdf, mixed_pdf, page_image, tiff, workbook

TYPED = "Typed page. The harbour master keeps the tide tables in the blue ledger."
SCANNED = ["Scanned page.", "The lighthouse keeper counts seventeen gulls daily."]
SIDEWAYS = ["Sideways page.", "Quartermaster Oduya stores lanterns beneath the stairs."]
PICTURE = ["Photographed note.", "Bring marmalade sandwiches for the picnic."]
FRAMES = [
    ["First frame.", "Invoice number 4471 is overdue."],
    ["Second frame.", "Vermilion paint arrives Tuesday."],
]


def _make_files(folder: Path) -> None:
    mixed_pdf(folder / "mixed.pdf", [TYPED, page_image(SCANNED)])
    image_pdf(folder / "sideways.pdf", [page_image(SIDEWAYS, rotate=90)])
    page_image(PICTURE, size=(1400, 500)).save(folder / "note.png")
    tiff(folder / "fax.tiff", [page_image(lines, size=(1400, 500)) for lines in FRAMES])
    workbook(
        folder / "stock.xlsx",
        {
            "Fruit": [["Name", "Colour", "Count"], ["Apple", "red", 12], ["Kiwi", "brown", 7]],
            "Tools": [["Tool", "Shelf"], ["Chisel", "C3"], ["Trowel", "F9"]],
        },
    )


async def _search(app: RunningApp, query: str) -> dict[str, Any]:
    response = await app.client.post("/api/search", json={"query": query, "k": 3})
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    assert results, f"nothing found for {query!r}"
    return results[0]


async def test_scans_pictures_and_sheets_are_found_on_their_page(tmp_path: Path) -> None:
    with only_loopback() as attempts:
        async with api_app(tmp_path) as app:
            _make_files(tmp_path / "staging")
            for made in sorted((tmp_path / "staging").iterdir()):
                shutil.copy(made, app.container.settings.paths.docs_dir / made.name)

            async def all_ready() -> bool:
                docs = (await app.client.get("/api/documents")).json()["documents"]
                failed = [d for d in docs if d["status"] == "error"]
                assert not failed, failed
                return len(docs) == 6 and all(d["status"] == "ready" for d in docs)

            await eventually(all_ready, timeout=240, what="the scans to be read")

            typed = await _search(app, "harbour master tide tables blue ledger")
            assert (typed["path"], typed["page"], typed["ocr"]) == ("mixed.pdf", 1, False)
            assert typed["ocr_confidence"] is None
            scanned = await _search(app, "lighthouse keeper seventeen gulls")
            assert (scanned["path"], scanned["page"], scanned["ocr"]) == ("mixed.pdf", 2, True)
            assert 0.8 < scanned["ocr_confidence"] <= 1.0
            assert "seventeen gulls" in scanned["text"]
            sideways = await _search(app, "Quartermaster Oduya lanterns stairs")
            assert (sideways["path"], sideways["page"], sideways["ocr"]) == (
                "sideways.pdf",
                1,
                True,
            )
            assert "Oduya stores lanterns" in sideways["text"]  # read upright, in order
            picture = await _search(app, "marmalade sandwiches picnic")
            assert (picture["path"], picture["page"], picture["ocr"]) == ("note.png", 1, True)
            second = await _search(app, "Vermilion paint Tuesday")
            assert (second["path"], second["page"]) == ("fax.tiff", 2)
            first = await _search(app, "Invoice 4471 overdue")
            assert (first["path"], first["page"]) == ("fax.tiff", 1)
            tools = await _search(app, "Trowel shelf F9")
            assert (tools["path"], tools["page"], tools["ocr"]) == ("stock.xlsx", 2, False)
            assert "Tool: Trowel; Shelf: F9" in tools["text"]  # the header row, on the row
            fruit = await _search(app, "Kiwi brown")
            assert (fruit["path"], fruit["page"]) == ("stock.xlsx", 1)

            docs = {
                d["path"]: d for d in (await app.client.get("/api/documents")).json()["documents"]
            }
            assert docs["fax.tiff"]["pages"] == 2 and docs["stock.xlsx"]["pages"] == 2
    assert attempts == []
