"""Scans, a phone photo and a spreadsheet, added in the real window (Chromium, logged in
with the link) and asked about.

The files are made here (``tests.scans``): a three-page image-only PDF whose asked fact is
on page 2, a photo of a page (turned a little, speckled, on a grey table) and a workbook of
two sheets. The workbook is in the folder when the app starts; the PDF and the photo are
added through the window's Add files input, as a person picks them. The real OCR models
read the scans in the parser's OCR lane, the real MiniLM embedder indexes them (as a
user's library is by default) and the fake Ollama server answers.

The fake model answers by copying the passage's sentence (or row) that shares most words
with the question and citing [1], so the answer check finds it in the sources and the
answer stands. Each answer's cited chip must name the right page (and say "scanned" for
the scans); clicking it or its [1] opens the viewer there: PDF.js at "Page 2 of 3", the
photo itself, the workbook's sheet named, its rows shown and the passage marked. The
library says which files were read by OCR. Screenshots go to artifacts/browser/scans/.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from graph.prompts import NOT_COVERED
from tests.browser.harness import (
    ANSWERS,
    CHIPS,
    ask_in_new_chat,
    fresh_shots,
    open_window,
    running_app,
    skip_without_chromium,
    turn_routes,
)
from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import eventually
from tests.scans import image_pdf, page_image, workbook

pytestmark = skip_without_chromium

PAGE = (1000, 600)
"""Small pages with a few lines of large print: OCR takes seconds a page on two cores."""
REPORT = [
    ["Harbour report.", "The north quay was painted in March."],
    ["Boats.", "The pilot boat Kestrel sails at dawn.", "Her skipper is Ada Brennan."],
    ["Fees.", "Mooring costs ten pounds a night."],
]
NOTICE = ["Kitchen notice.", "The freezer key hangs behind the clock.", "Wash every mug."]
SHEETS: dict[str, list[list[object]]] = {
    "Crew": [["Name", "Role"], ["Ada Brennan", "skipper"], ["Tom Okafor", "cook"]],
    "Cargo": [
        ["Item", "Quantity", "Hold"],
        ["Lamp oil", "12 barrels", "A"],
        ["Copper wire", "40 coils", "C"],
        ["Sailcloth", "6 bolts", "B"],
    ],
}

SOURCE = re.compile(r"^\[(\d+)\] (.+?)(?:, page (\d+))?:$", re.MULTILINE)
WORD = re.compile(r"[a-z0-9]+")


def closest_sentence(passage: str, question: str) -> str:
    """The passage's sentence or line sharing most words with the question (ties: first)."""
    asked = set(WORD.findall(question.lower()))
    pieces = [
        " ".join(piece.split())
        for line in passage.splitlines()
        for piece in re.split(r"(?<=[.!?])\s+", line)
        if piece.strip()
    ]
    return max(pieces, key=lambda piece: len(asked & set(WORD.findall(piece.lower()))))


def scripted(body: dict[str, Any]) -> str | None:
    """The fake model: documents for the router, the question as its own query, and an
    answer copied from the first source's passage, citing it [1]."""
    properties = (body.get("format") or {}).get("properties", {})
    last = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    if "suggestions" in properties:
        return json.dumps({"suggestions": ["Tell me more.", "Anything else?", "Who decides?"]})
    if "route" in properties:
        return json.dumps({"route": "documents"})
    if "query" in properties:
        return json.dumps({"query": last.rsplit("Last message:", 1)[-1].strip()})
    first = SOURCE.search(last) if "Sources:" in last else None
    if first is None:
        return "I can't tell that without your documents."
    passage = last[first.end() :].split("\n\n[", 1)[0].split("\n\nQuestion:", 1)[0]
    question = last.rsplit("Question:", 1)[-1]
    return f"{closest_sentence(passage, question).rstrip('.!?')} [1]."


def phone_photo(lines: list[str]) -> Image.Image:
    """A page photographed on a grey table: turned a little, speckled, off-centre."""
    sheet = page_image(lines, size=PAGE, text_size=34, rotate=3, speckle=0.004, seed=7)
    table = Image.new("L", (sheet.width + 160, sheet.height + 120), 150)
    table.paste(sheet, (90, 50))
    return table.convert("RGB")


@pytest.fixture
def library(tmp_path: Path, ollama: FakeOllamaServer) -> Iterator[tuple[str, Path, Path]]:
    """The app with the workbook indexed; the scan and the photo made, not yet added."""
    data = tmp_path / "data"
    docs = data / "documents"
    docs.mkdir(parents=True)
    workbook(docs / "ship.xlsx", SHEETS)
    made = tmp_path / "made"
    made.mkdir()
    image_pdf(made / "scan.pdf", [page_image(p, size=PAGE, text_size=34) for p in REPORT])
    phone_photo(NOTICE).save(made / "photo.png")
    ollama.responder = scripted
    ollama.token_delay = 0.01
    with running_app(data, ollama, documents=1, embed="minilm") as link:
        yield link, data, made


async def test_scans_a_photo_and_a_sheet_are_asked_about_in_the_window(
    library: tuple[str, Path, Path], browser: object
) -> None:
    from playwright.async_api import Browser

    link, data, made = library
    assert isinstance(browser, Browser)
    shots = fresh_shots("scans")
    page, errors = await open_window(browser, link, height=1000)
    answers = page.locator(ANSWERS)
    chips = page.locator(CHIPS)

    # Added as a person adds them: the Add files chooser's input.
    await page.locator(".docent-uploader input[type=file]").set_input_files(
        [made / "scan.pdf", made / "photo.png"]
    )
    # One toast for the two, at the top, clear of the message box.
    toast = page.locator(".docent-upload-summary")
    await toast.wait_for(timeout=60_000)
    assert await toast.count() == 1
    assert "Added 2 files; indexing them now." in await toast.inner_text()
    boxes = await page.evaluate(
        "(() => [document.querySelector('.docent-upload-summary'),"
        " document.querySelector('.docent-composer')].map((e) => {"
        " const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }))()"
    )
    assert boxes[0][1] < boxes[1][0], boxes  # the toast ends above the box begins
    await eventually(partial(_settled, toast), timeout=10, what="the toast in place")
    await page.screenshot(path=shots / "01-added-toast.png")
    for name in ("ship.xlsx", "scan.pdf", "photo.png"):
        row = page.locator(f".docent-doclist [data-path='{name}']")
        await row.wait_for(timeout=180_000)
        await eventually(partial(_ready, row), timeout=240, what=f"{name} read")
    # Each row says what was read; the scans say their words were read by OCR.
    captions = {
        name: await page.locator(
            f".docent-doclist [data-path='{name}'] .q-item__label--caption"
        ).inner_text()
        for name in ("scan.pdf", "photo.png", "ship.xlsx")
    }
    print(f"library: {captions}")
    assert captions == {
        "scan.pdf": "3 pages · 3 chunks · scanned: 3 pages read by OCR",
        "photo.png": "1 page · 1 chunk · scanned: 1 page read by OCR",
        "ship.xlsx": "2 pages · 2 chunks",
    }
    await page.screenshot(path=shots / "01-library-ready.png")

    async def ask(name: str, question: str) -> tuple[str, list[str]]:
        return await ask_in_new_chat(page, shots / f"{name}-answer.png", question, patience=120)

    # The scanned PDF: the fact is on page 2; [1] opens PDF.js there.
    text, labels = await ask("02-scan", "When does the pilot boat Kestrel sail?")
    assert "Kestrel sails at dawn [1]" in text and NOT_COVERED not in text, text
    assert labels[0] == "scan.pdf · p. 2 · scanned", labels
    await answers.first.locator(".docent-cite").first.click()
    viewer = page.locator(".docent-pdf")
    await viewer.wait_for(timeout=60_000)
    await eventually(lambda: _shown(viewer, "2"), timeout=120, what="the scan's page 2 drawn")
    # The page is a picture: the passage is marked where OCR read it, on its second line.
    assert await viewer.get_attribute("data-marked") in ("whole", "ends"), "not marked"
    label = await viewer.locator(".docent-pdf-label").inner_text()
    assert label == "Page 2 of 3 · a scanned page: its text as OCR read it", label
    highlight = viewer.locator(".docent-pdf-mark").first
    marked_text = " ".join(await viewer.locator(".docent-pdf-mark").all_inner_texts())
    assert "Kestrel sails at dawn" in marked_text, marked_text
    placed = await highlight.evaluate(
        "(m) => { const page = m.closest('.docent-pdf-page').getBoundingClientRect();"
        " const box = m.getBoundingClientRect();"
        " return [(box.top - page.top) / page.height, (box.bottom - page.top) / page.height,"
        " (box.left - page.left) / page.width]; }"
    )
    # Printed at 174 to about 210 pixels down a 600-pixel page, from 110 across 1000.
    assert 0.25 < placed[0] < placed[1] < 0.42 and 0.05 < placed[2] < 0.2, placed
    await page.screenshot(path=shots / "02-scan-viewer.png")
    await page.keyboard.press("Escape")
    await viewer.wait_for(state="detached")

    # The phone photo: its chip opens the picture.
    text, labels = await ask("03-photo", "Where does the freezer key hang?")
    assert "freezer key hangs behind the clock [1]" in text and NOT_COVERED not in text, text
    assert labels[0] == "photo.png · p. 1 · scanned", labels
    await chips.first.click()
    image = page.locator(".q-dialog img").first
    await image.wait_for(timeout=60_000)
    assert "photo.png" in (await image.get_attribute("src") or "")
    await eventually(partial(_drawn, image), timeout=60, what="the photo drawn")
    # The sentence is marked on the photo, on the line OCR read it from (the second).
    picture = page.locator(".q-dialog .docent-picture")
    await eventually(partial(_marked, picture), timeout=30, what="the photo's passage marked")
    marked_text = " ".join(await picture.locator(".docent-pdf-mark").all_inner_texts())
    assert "freezer key hangs behind the clock" in marked_text, marked_text
    top = await picture.locator(".docent-pdf-mark").first.evaluate(
        "(m) => (m.getBoundingClientRect().top - m.closest('.docent-picture')"
        ".getBoundingClientRect().top) / m.closest('.docent-picture').clientHeight"
    )
    # Printed 174 pixels down a 600-pixel page, pasted 50 down a 720-pixel photo.
    assert 0.25 < top < 0.42, top
    # The photo is turned 3° counter-clockwise: the marked line's box is turned with it.
    turn = await picture.locator(".docent-pdf-mark").first.evaluate(
        "(m) => { const t = new DOMMatrix(getComputedStyle(m.closest('.docent-ocr-line'))"
        ".transform); return Math.atan2(t.b, t.a) * 180 / Math.PI; }"
    )
    assert -4.5 < turn < -1.5, turn  # degrees
    await page.screenshot(path=shots / "03-photo-viewer.png")
    await page.keyboard.press("Escape")
    await image.wait_for(state="detached")

    # The spreadsheet: a row of its second sheet, cited as that sheet.
    text, labels = await ask("04-sheet", "How many coils of copper wire are in the cargo?")
    assert "Copper wire; Quantity: 40 coils; Hold: C [1]" in text, text
    assert NOT_COVERED not in text
    assert labels[0] == "ship.xlsx · p. 2", labels  # no OCR: no "scanned"
    await chips.first.click()
    where = page.locator(".q-dialog .q-chip:has-text('sheet')")
    await where.wait_for(timeout=60_000)
    assert await where.inner_text() == "table_view\nsheet 2: Cargo"
    marked = page.locator(".q-dialog #docent-passage")
    assert "Copper wire; Quantity: 40 coils; Hold: C" in await marked.inner_text()
    await page.locator(".q-dialog__inner--animating").wait_for(state="detached")  # drawn
    await page.screenshot(path=shots / "04-sheet-viewer.png")
    await page.keyboard.press("Escape")
    await where.wait_for(state="detached")

    for turn in turn_routes(link, data):
        print(f"route {turn['route']} ({turn['by']}) sources {turn['sources']}")
    assert errors == []


async def _ready(row: Any) -> bool:
    status = await row.get_attribute("data-status")
    assert status != "error", await row.inner_text()
    return bool(status == "ready")


async def _shown(viewer: Any, number: str) -> bool:
    return bool(await viewer.get_attribute("data-shown") == number)


async def _settled(element: Any) -> bool:
    """Whether ``element`` is done arriving (its entry animation over)."""
    return bool(await element.evaluate("(e) => getComputedStyle(e).opacity === '1'"))


async def _marked(picture: Any) -> bool:
    return bool(await picture.get_attribute("data-marked") in ("whole", "ends"))


async def _drawn(image: Any) -> bool:
    return bool(await image.evaluate("(img) => img.complete && img.naturalWidth > 0"))
