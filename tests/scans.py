"""Scans made in the test: text drawn with Pillow, turned and saved as a scanner saves it.

Nothing here ships: Pillow draws the pages, its PDF writer wraps them as image-only PDFs
(no text layer, one picture per page), fpdf2 adds typed pages, openpyxl writes workbooks.
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
"""A font with Cyrillic and Greek (Debian's fonts-dejavu-core); Latin-only text is drawn
with Pillow's own font when it is missing."""


def font(size: int, path: str = FONT) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype(path, size)
    except OSError:
        return ImageFont.load_default(size=size)


def page_image(
    lines: Sequence[str],
    *,
    size: tuple[int, int] = (1240, 1754),
    text_size: int = 34,
    rotate: float = 0.0,
    speckle: float = 0.0,
    seed: int = 0,
) -> Image.Image:
    """A white page (A4 at 150 dpi by default) with ``lines`` printed from its top left,
    turned ``rotate`` degrees counter-clockwise, with ``speckle`` (share of pixels) noise."""
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    face = font(text_size)
    y = 120
    for line in lines:
        if line:
            draw.text((110, y), line, font=face, fill=0)
        y += int(text_size * 1.6)
    if rotate:
        image = image.rotate(rotate, expand=True, fillcolor=255)
    if speckle:
        rng = random.Random(seed)
        pixels = image.load()
        assert pixels is not None
        width, height = image.size
        for _ in range(int(width * height * speckle)):
            pixels[rng.randrange(width), rng.randrange(height)] = rng.choice((0, 255))
    return image


def coded_page(text: str) -> Image.Image:
    """A picture whose first row of pixels spells ``text`` (a byte a pixel, then a 0):
    what ``tests.fakes.ocr.CodedReader`` reads back, losslessly, from a TIFF frame."""
    data = text.encode("utf-8") + b"\0"
    image = Image.new("L", (max(len(data), 16), 16), 255)
    image.paste(Image.frombytes("L", (len(data), 1), data), (0, 0))
    return image


def image_pdf(path: Path, pages: Sequence[Image.Image], dpi: int = 150) -> Path:
    """An image-only PDF: each image is a page, as a scanner without OCR leaves them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    first, *rest = [page.convert("L") for page in pages]
    first.save(path, "PDF", resolution=dpi, save_all=True, append_images=rest)
    return path


def mixed_pdf(path: Path, pages: Sequence[str | Image.Image]) -> Path:
    """A PDF whose text pages are typed (fpdf2) and whose image pages are scans."""
    from fpdf import FPDF
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in pages:
        if isinstance(page, str):
            pdf = FPDF(format="A4")
            pdf.add_page()
            pdf.set_font("helvetica", size=12)
            pdf.multi_cell(0, 8, page)
            data = bytes(pdf.output())
        else:
            buffer = io.BytesIO()
            page.convert("L").save(buffer, "PDF", resolution=150)
            data = buffer.getvalue()
        writer.append(PdfReader(io.BytesIO(data)))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def tiff(path: Path, frames: Sequence[Image.Image]) -> Path:
    """A multi-page TIFF, one frame per page."""
    first, *rest = [frame.convert("L") for frame in frames]
    first.save(path, "TIFF", save_all=True, append_images=rest, compression="tiff_lzw")
    return path


def workbook(path: Path, sheets: dict[str, list[list[object]]]) -> Path:
    """An xlsx with these sheets, in order, each a list of rows."""
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path
