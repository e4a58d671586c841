"""Make small PDFs with known text on known pages, for tests (fpdf2, core fonts).

``make_pdf(path, ["page one text", "page two text"])`` writes a two-page PDF whose
page *n* (1-based) holds ``pages[n - 1]``; an empty string makes a blank page. Text must
be Latin-1 (Helvetica is a core font) and fit on one page (about 3,000 characters):
long lines wrap, but a text that would spill onto a second page raises ValueError, so
page numbers in tests always mean what they say.
"""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF
from fpdf.enums import EncryptionMethod
from PIL import Image


def make_pdf(
    path: Path,
    pages: list[str],
    *,
    user_password: str | None = None,
    owner_password: str = "owner-secret",
    aes: int | None = None,
    image_pages: frozenset[int] = frozenset(),
) -> Path:
    """Write ``pages`` to ``path``, one string per page; returns ``path``.

    ``user_password`` encrypts the file (RC4, or AES with ``aes=128`` / ``aes=256``):
    readers need that password to open it, and ``""`` makes an encrypted file that opens
    without one. Pages whose number is in ``image_pages`` also carry a picture, like a scan.
    """
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.set_font("Helvetica", size=10)
    for number, text in enumerate(pages, start=1):
        pdf.add_page()
        if number in image_pages:
            pdf.image(Image.new("L", (60, 80), color=200), x=20, y=20, w=60)
        if text:
            text.encode("latin-1")  # fails early, with the offending character
            pdf.multi_cell(0, 5, text)
        if pdf.page != number:
            raise ValueError(f"page {number}'s text does not fit on one page")
    if user_password is not None:
        method = {None: EncryptionMethod.RC4, 128: EncryptionMethod.AES_128}.get(
            aes, EncryptionMethod.AES_256
        )
        pdf.set_encryption(
            owner_password=owner_password, user_password=user_password, encryption_method=method
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


NO_XREF_PDF = b"""%PDF-1.4
1 0 obj
<< /Type /Catalog /Pages 2 0 R >>
endobj
2 0 obj
<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>
endobj
3 0 obj
<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 612 792 ] /Contents 4 0 R
   /Resources << /Font << /F1 5 0 R >> >> >>
endobj
4 0 obj
<< /Length 44 >>
stream
BT /F1 24 Tf 100 700 Td (Hello World) Tj ET
endstream
endobj
5 0 obj
<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>
endobj
trailer
<< /Size 6 /Root 1 0 R >>
%%EOF
"""
"""A hand-written PDF like pdfminer's simple1.pdf: objects and a trailer, but no xref
table and no startxref. Its one page says "Hello World".
"""
