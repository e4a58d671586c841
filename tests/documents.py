"""Make small Word, PowerPoint and EPUB files with known text, for loader tests.

Word and PowerPoint files are written with python-docx and python-pptx (test-only
dependencies), EPUBs by hand with zipfile, so no binary fixture is committed.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from docx import Document as WordDocument
from pptx import Presentation


def make_docx(
    path: Path, blocks: list[tuple[str, str]], table: list[list[str]] | None = None
) -> Path:
    """Write paragraphs given as (style, text): style "Title", "Heading N" or "" for body."""
    document = WordDocument()
    for style, text in blocks:
        if style == "Title":
            document.add_heading(text, level=0)
        elif style.startswith("Heading "):
            document.add_heading(text, level=int(style.split()[1]))
        else:
            document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    document.save(str(path))
    return path


def make_pptx(path: Path, slides: list[tuple[str | None, list[str], str]]) -> Path:
    """Write slides given as (title or None, bullet lines, speaker notes)."""
    deck = Presentation()
    for title, lines, notes in slides:
        layout = deck.slide_layouts[1] if title is not None else deck.slide_layouts[6]
        slide = deck.slides.add_slide(layout)
        if title is not None:
            slide.shapes.title.text = title
            body = slide.placeholders[1].text_frame
            body.text = lines[0] if lines else ""
            for line in lines[1:]:
                body.add_paragraph().text = line
        else:
            box = slide.shapes.add_textbox(0, 0, 1000000, 1000000).text_frame
            box.text = "\n".join(lines)
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(str(path))
    return path


def make_epub(
    path: Path,
    title: str,
    chapters: list[str],
    *,
    encrypted: bool = False,
) -> Path:
    """Write an EPUB 3 whose chapters are the given XHTML body fragments, in order."""
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="OEBPS/content.opf" '
            'media-type="application/oebps-package+xml"/></rootfiles></container>',
        )
        # Chapter n is stored as ch{last - n}: reading order must come from the spine,
        # not from the names of the files.
        last = len(chapters) - 1
        manifest = "".join(
            f'<item id="c{n}" href="text/ch{last - n}.xhtml" media-type="application/xhtml+xml"/>'
            for n in range(len(chapters))
        )
        spine = "".join(f'<itemref idref="c{n}"/>' for n in range(len(chapters)))
        book.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0" encoding="utf-8"?><package version="3.0" '
            'xmlns="http://www.idpf.org/2007/opf" unique-identifier="id"><metadata '
            'xmlns:dc="http://purl.org/dc/elements/1.1/">'
            f'<dc:identifier id="id">test</dc:identifier><dc:title>{title}</dc:title>'
            f"</metadata><manifest>{manifest}</manifest><spine>{spine}</spine></package>",
        )
        for n, body in enumerate(chapters):
            book.writestr(
                f"OEBPS/text/ch{last - n}.xhtml",
                '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n'
                '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter</title>'
                f"</head><body>{body}</body></html>",
            )
        if encrypted:
            book.writestr(
                "META-INF/encryption.xml",
                '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
                '<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
                '<enc:CipherData><enc:CipherReference URI="OEBPS/text/ch0.xhtml"/>'
                "</enc:CipherData></enc:EncryptedData></encryption>",
            )
    return path
