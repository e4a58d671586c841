"""Page images for OCR: a PDF page rendered by PDFium, a frame of an image file.

PDFium renders every codec a scan uses (CCITT, JBIG2, JPEG 2000) and honours /Rotate;
pypdf only hands out raw images. 150 dpi gives lines a few dozen pixels tall, what the
recogniser wants; a small page scanned finer is rendered finer.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Any

from ingest.ocr.engine import fitting_scale

if TYPE_CHECKING:
    from PIL import Image

BASE_DPI = 150.0
"""Print-sized text is a few dozen pixels tall at this resolution."""
SMALL_SIDE = 1200
"""A page rendered smaller than this (pixels, long side) is rendered finer, up to the
resolution its own image was scanned at."""
_POINTS = 72.0


class PdfPages:
    """A PDF opened in PDFium, to render the pages that need OCR (opened on first use)."""

    def __init__(self, source: IO[bytes]) -> None:
        self._source = source
        self._document: Any = None

    def render(self, number: int) -> Image.Image:
        """Page ``number`` (1-based) as an RGB image at the resolution OCR wants."""
        import pypdfium2 as pdfium

        if self._document is None:
            self._document = pdfium.PdfDocument(self._source)
        page = self._document[number - 1]
        try:
            width, height = page.get_size()
            scale = render_scale(width, height, _native_scale(page))
            bitmap = page.render(scale=scale, may_draw_forms=True)
            try:
                return bitmap.to_pil().convert("RGB")
            finally:
                bitmap.close()
        finally:
            page.close()

    def close(self) -> None:
        if self._document is not None:
            self._document.close()
            self._document = None
        self._source.close()


def render_scale(width: float, height: float, native: float | None) -> float:
    """Pixels per point for a page whose images hold ``native`` pixels per point (or None)."""
    long_side = max(width, height, 1.0)
    scale = BASE_DPI / _POINTS
    if native is not None and native > scale and long_side * scale < SMALL_SIDE:
        scale = min(native, SMALL_SIDE / long_side)
    return scale * fitting_scale(width * scale, height * scale)


def _native_scale(page: Any) -> float | None:
    """The finest resolution (pixels per point) of the images drawn on the page."""
    import pypdfium2.raw as raw

    finest: float | None = None
    for image in page.get_objects(filter=[raw.FPDF_PAGEOBJ_IMAGE], max_depth=3):
        try:
            pixels, _ = image.get_px_size()
            left, _, right, _ = image.get_bounds()
        except Exception:  # an image PDFium cannot measure says nothing of resolution
            continue
        if right - left > 1:
            ratio = pixels / (right - left)
            finest = ratio if finest is None else max(finest, ratio)
    return finest
