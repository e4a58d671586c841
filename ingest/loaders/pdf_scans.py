"""Whether a PDF page is a scan: its text layer is missing or useless, and it draws an image."""

from __future__ import annotations

from typing import Any

from pypdf import PageObject

from ingest.ocr.script import alphanumerics, letter_share, usable_text_layer

_IMAGE_DEPTH = 3


def is_scanned(page: PageObject, text: str) -> bool:
    """Whether a page is a scan: its text layer is missing or useless and it draws an image."""
    if letter_share(text) >= 0.5 and alphanumerics(text) >= 64:
        return False  # plenty of text: whatever images it has are figures
    return _draws_images(page) and not usable_text_layer(text, draws_images=True)


def _draws_images(page: PageObject) -> bool:
    """Whether a page holds a raster image, i.e. text, if any, is in pixels (a scan)."""
    try:
        if _has_image_xobject(page.get("/Resources"), _IMAGE_DEPTH):
            return True
        contents = page.get_contents()
        return contents is not None and b"BI" in contents.get_data()
    except Exception:  # a page too broken to inspect is not evidence of a scan
        return False


def _has_image_xobject(resources: Any, depth: int) -> bool:
    """Whether ``resources`` or the forms they draw, ``depth`` deep, hold an image."""
    if depth == 0 or resources is None:
        return False
    xobjects = resources.get_object().get("/XObject")
    if xobjects is None:
        return False
    for ref in xobjects.get_object().values():
        xobject = ref.get_object()
        subtype = xobject.get("/Subtype")
        if subtype == "/Image":
            return True
        if subtype == "/Form" and _has_image_xobject(xobject.get("/Resources"), depth - 1):
            return True
    return False
