"""Opening a cited document inside the window, at the cited place.

PDFs open in PDF.js (ui/static/pdfjs) with the cited span marked in the page's text layer,
parsed by the browser, not the app, from a single-use link (ui/library/file_links.py). Text
and Markdown open rendered, a spreadsheet at its cited sheet and row, a picture as itself (a
TIFF's cited frame drawn as PNG by a parser process, as browsers don't show TIFF).
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import re
from pathlib import Path
from typing import Any

from nicegui import ui

from app.services.documents import DocumentError, DocumentService, PlacedLineRow, SheetPage
from ui.answer import markdown
from ui.answer.claim_marks import Wrap
from ui.answer.source_groups import file_icon
from ui.library.file_links import STATIC_ROUTE, file_url, serve_static

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".text", ".rst", ".csv", ".log"}
BROWSER_PICTURES = {".png", ".jpg", ".jpeg", ".webp", ".bmp"}
"""Pictures a browser shows as they are; other picture files are drawn as PNG first."""
DRAWN_PICTURES = {".tif", ".tiff"}
MAX_TEXT_CHARS = 2_000_000
"""Past this a text file is shown cut, so a huge log can't stall the window."""


def passage_span(text: str, snippet: str) -> tuple[int, int] | None:
    """Where ``snippet`` (perhaps cut short, with other spacing) sits in ``text``."""
    words = re.findall(r"\S+", snippet.strip().rstrip("…").strip())
    if not words:
        return None
    for take in (len(words), 24, 12, 6):
        if take > len(words):
            continue
        pattern = r"\s+".join(re.escape(w) for w in words[:take])
        found = re.search(pattern, text)
        if found:
            if take < len(words):  # cut short: highlight about as much as the snippet held
                end = min(len(text), found.start() + len(snippet))
                return found.start(), max(found.end(), end)
            return found.start(), found.end()
    return None


def span_in_text(text: str, span: dict[str, Any] | None) -> tuple[int, int] | None:
    """Where a supporting span is in a text file: at its offsets when the words there match,
    else wherever its words are found (the file changed, or has other line ends)."""
    if not span:
        return None
    start, end = int(span.get("page_start", -1)), int(span.get("page_end", -1))
    if 0 <= start < end <= len(text) and text[start:end].split() == span["text"].split():
        return start, end
    return passage_span(text, span["text"])


def highlighted_html(
    text: str, span: tuple[int, int] | None, *, as_markdown: bool, exact: bool = False
) -> str:
    """The document as HTML with the passage in <mark id="docent-passage">; an ``exact``
    span of Markdown is marked inside the blocks highlighted around it."""
    if span is None:
        return markdown.render(text, document=True) if as_markdown else html.escape(text)
    start, end = span
    if not as_markdown:
        return (
            html.escape(text[:start])
            + '<mark id="docent-passage">'
            + html.escape(text[start:end])
            + "</mark>"
            + html.escape(text[end:])
        )
    # Markdown: highlight the whole blocks (paragraphs) the passage touches, so the
    # blocks around it still render as they should.
    block_start = text.rfind("\n\n", 0, start)
    block_start = 0 if block_start < 0 else block_start + 2
    block_end = text.find("\n\n", end)
    block_end = len(text) if block_end < 0 else block_end
    inner = (
        [Wrap(start - block_start, end - block_start, '<mark class="docent-span">', "</mark>")]
        if exact
        else []
    )
    return (
        markdown.render(text[:block_start], document=True)
        + '<div id="docent-passage" class="docent-passage-block">'
        + markdown.render(text[block_start:block_end], wraps=inner, document=True)
        + "</div>"
        + markdown.render(text[block_end:], document=True)
    )


FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
TEMPLATE_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.DOTALL)


def without_template_markup(text: str) -> str:
    """A Markdown file without YAML front matter or ``{% … %}`` / ``{# … #}`` tags.

    Each is blanked, not cut (newlines stay), so a passage's offsets still point at its words."""

    def blank(found: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", found.group(0))

    return TEMPLATE_TAG.sub(blank, FRONT_MATTER.sub(blank, text))


def _read(path: Path) -> str:
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        return handle.read(MAX_TEXT_CHARS)


async def open_document(
    documents: DocumentService,
    path: str,
    page: int | None,
    snippet: str,
    span: dict[str, Any] | None = None,
) -> None:
    """Open ``path`` at ``page``, the supporting ``span`` (else the ``snippet``) highlighted."""
    doc = next((d for d in documents.list() if d.path == path), None)
    if doc is None:
        ui.notify(f"{path} is no longer in the library.", type="warning")
        return
    name = path.rsplit("/", 1)[-1]
    suffix = Path(name).suffix.lower()
    sheet: SheetPage | Exception | None = None
    if suffix in documents.sheet_suffixes:  # its cited sheet, read as it was indexed
        try:
            sheet = await asyncio.to_thread(documents.sheet, doc.id, page)
        except Exception as error:  # gone, or unreadable now
            sheet = error
    with (
        ui.dialog().props("maximized") as dialog,
        ui.card().classes("w-full h-full p-0 gap-0").mark("viewer"),
    ):
        with ui.row().classes("w-full items-center no-wrap gap-2 px-3 py-2 border-b"):
            ui.icon(file_icon(name))
            title = ui.label(name).classes("docent-ellipsis font-semibold docent-dialog-title")
            title.tooltip(path)
            if isinstance(sheet, SheetPage):
                where = f"sheet {sheet.number}: {sheet.name}"
                ui.chip(where).props("dense outline icon=table_view").mark("viewer-page")
            elif page is not None:
                ui.chip(f"page {page}").props("dense outline").mark("viewer-page")
            ui.space()
            ui.button(icon="close", on_click=dialog.close).props(
                'flat round dense aria-label="Close"'
            ).mark("viewer-close")
        passage = span["text"] if span else snippet
        if suffix == ".pdf":
            view = ui.element("div").classes("docent-pdf flex-grow").mark("viewer-pdf")
            view._props.update({"title": name, "data-page": str(page or 1)})
            try:
                url = file_url(documents.file_path(doc.id), name)
            except (DocumentError, OSError) as error:  # gone, or a symlink out of the folder
                view.delete()
                _cant_open(name, error)
            else:
                view._props.update({"data-src": url, "data-passage": passage})
                # A scanned page: where OCR read its lines, to mark the passage on it.
                placed = await asyncio.to_thread(documents.placed_lines, doc.id, page or 1)
                dialog.on("show", lambda: _load_pdf(view.id, url, page, passage, placed))
        elif suffix in TEXT_SUFFIXES:
            try:
                text = await asyncio.to_thread(_read, documents.file_path(doc.id))
            except Exception as error:  # the file went away or can't be read
                _cant_open(name, error)
            else:
                if suffix in (".md", ".markdown"):
                    text = without_template_markup(text)
                _show_text(dialog, text, snippet, span, as_markdown=suffix in (".md", ".markdown"))
        elif isinstance(sheet, SheetPage):
            _show_text(dialog, sheet.text, snippet, span, as_markdown=False)
        elif isinstance(sheet, Exception):
            _cant_open(name, sheet)
        elif suffix in BROWSER_PICTURES | DRAWN_PICTURES:
            picture = await _show_picture(documents, doc.id, name, suffix, page)
            placed = await asyncio.to_thread(documents.placed_lines, doc.id, page or 1)
            if picture is not None and placed:  # the passage marked where OCR read it
                dialog.on("show", lambda: _mark_picture(picture.id, placed, passage))
        else:
            ui.label("This kind of file can't be shown here.").classes("p-4")
    dialog.open()


def _show_text(
    dialog: ui.dialog, text: str, snippet: str, span: dict[str, Any] | None, *, as_markdown: bool
) -> None:
    """``text`` (a text file, a sheet's rows) with the passage highlighted, in view."""
    exact = span_in_text(text, span)
    region = exact or passage_span(text, snippet)
    body = highlighted_html(text, region, as_markdown=as_markdown, exact=bool(exact))
    with ui.scroll_area().classes("flex-grow w-full"):
        kind = "docent-md" if as_markdown else "docent-viewer-plain"
        view = ui.html(body, sanitize=False).classes(
            f"docent-viewer-text {kind} p-4 max-w-3xl mx-auto"
        )
        view.mark("viewer-text")
    if region is not None:
        dialog.on("show", _scroll_to_passage)


async def _show_picture(
    documents: DocumentService, doc_id: str, name: str, suffix: str, page: int | None
) -> ui.element | None:
    """The element showing the picture (a TIFF's cited frame as PNG); None if it can't."""
    try:
        if suffix in BROWSER_PICTURES:
            source = file_url(documents.file_path(doc_id), name)
        else:
            drawn = await asyncio.to_thread(documents.preview, doc_id, page)
            source = "data:image/png;base64," + base64.b64encode(drawn).decode()
    except Exception as error:  # gone, unreadable, or a symlink out of the folder
        _cant_open(name, error)
        return None
    with ui.scroll_area().classes("flex-grow w-full"):
        # A plain <img> sized by its width, so a box OCR placed on it is where it shows.
        with ui.element("div").classes("docent-picture") as picture:
            image = ui.element("img").mark("viewer-image")
            image._props.update({"src": source, "alt": name})
    return picture


def _cant_open(name: str, problem: object) -> None:
    ui.label(f"Can't open {name}: {problem}").classes("p-4 text-negative").mark("viewer-error")


def _mark_picture(element_id: int, placed: list[PlacedLineRow], passage: str) -> None:
    serve_static()
    ui.run_javascript(
        f"docent.markPicture({element_id}, {json.dumps(STATIC_ROUTE + '/marking.mjs')}, "
        f"{json.dumps(placed)}, {json.dumps(passage)})"
    )


def _load_pdf(
    element_id: int, url: str, page: int | None, passage: str, placed: list[PlacedLineRow]
) -> None:
    ui.run_javascript(
        f"docent.openPdf({element_id}, {json.dumps(url)}, {int(page or 1)}, "
        f"{json.dumps(passage)}, {json.dumps(STATIC_ROUTE + '/pdf_view.mjs')}, "
        f"{json.dumps(placed)})"
    )


def _scroll_to_passage() -> None:
    ui.run_javascript(
        "setTimeout(() => document.getElementById('docent-passage')"
        "?.scrollIntoView({block: 'center'}), 50)"
    )
