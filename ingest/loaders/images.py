"""Pictures as documents: a photo or scan of a page (png, jpg, tiff, webp, bmp), read by OCR.

A TIFF's every frame is a page. Frames are decoded at or shrunk to the size OCR uses, so a
50-megapixel photo costs what a page does; a file claiming more pixels than any photo
fails before its pixels are decoded.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import IO

from PIL import Image, ImageOps, TiffImagePlugin, UnidentifiedImageError

from ingest.document_parts import Page
from ingest.loaders.base import Document
from ingest.loaders.errors import OCR_OFF, UNREAD_SCRIPT, UnreadableFile, detail
from ingest.ocr.engine import MAX_SIDE, fitting_scale
from ingest.ocr.page_reader import PageReader

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp"})
"""Picture files Docent reads, by OCR."""
MAX_PIXELS = 2 * (Image.MAX_IMAGE_PIXELS or 89_478_485)
"""Most pixels one frame may claim: Pillow's own decompression-bomb limit (178,956,970, a
poster at 500 dpi), so a refusal names the same number whichever check caught it."""
NO_TEXT_SEEN = "no text found in this picture by OCR"
_NOT_A_PICTURE = "not a picture Docent can open ({detail}): check its extension"
_TOO_BIG = (
    "this picture claims more than {limit:,} pixels, more than any photo or scan: it may"
    " be a decompression bomb, made to exhaust memory"
)


class ImageDocument(Document):
    """A picture file; each frame is a page, read by the ``PageReader``."""

    def __init__(self, path: Path, ocr: PageReader | None = None) -> None:
        super().__init__(path)
        if ocr is None:
            raise UnreadableFile(OCR_OFF)
        self._ocr = ocr
        self._file: IO[bytes] | None = path.open("rb")
        try:
            self._image = open_picture(self._file)
        except BaseException:
            self.close()
            raise
        self.page_count = frame_count(self._image)
        self._first = 1
        self._seen_text = False

    def resume_at(self, first: int, seen_text: bool) -> None:
        """Begin ``pages()`` at frame ``first`` (see ``Resumable``)."""
        self._first, self._seen_text = max(first, 1), seen_text

    def pages(self) -> Iterator[Page]:
        had_text, unread = self._seen_text, False
        try:
            for index in range(self._first - 1, self.page_count or 1):
                read = self._ocr.read(partial(self._frame, index))
                had_text = had_text or bool(read.text.strip())
                unread = unread or read.unread
                yield Page(number=index + 1, text=read.text, ocr=read.page_ocr())
        finally:
            self.close()
        if not had_text:
            raise UnreadableFile(UNREAD_SCRIPT if unread else NO_TEXT_SEEN)

    def _frame(self, index: int) -> Image.Image:
        """Frame ``index`` as an RGB picture no bigger than OCR looks at."""
        image = self._image
        try:
            image.seek(index)
            refuse_past_limit(image)
            if image.format == "JPEG":
                image.draft("RGB", (MAX_SIDE, MAX_SIDE))
            frame = ImageOps.exif_transpose(image.convert("RGB"))
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise UnreadableFile(_NOT_A_PICTURE.format(detail=detail(exc))) from exc
        scale = fitting_scale(*frame.size)
        if scale < 1.0:
            frame.thumbnail((int(frame.size[0] * scale), int(frame.size[1] * scale)))
        return frame

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def frame_count(image: Image.Image) -> int:
    """How many pages a picture file holds: a TIFF's frames; one for other formats."""
    return image.n_frames if isinstance(image, TiffImagePlugin.TiffImageFile) else 1


def open_picture(handle: IO[bytes]) -> Image.Image:
    """The picture in ``handle``, its header read; refuses a claimed size past MAX_PIXELS."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(handle)
    except Image.DecompressionBombError as exc:
        raise UnreadableFile(_TOO_BIG.format(limit=MAX_PIXELS)) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise UnreadableFile(_NOT_A_PICTURE.format(detail=detail(exc))) from exc
    refuse_past_limit(image)
    return image


def refuse_past_limit(image: Image.Image) -> None:
    """Refuse the current frame when it claims more than MAX_PIXELS."""
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise UnreadableFile(_TOO_BIG.format(limit=MAX_PIXELS))
