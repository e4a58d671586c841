"""Is this text worth indexing? For a PDF's own text layer, and for what OCR read.

A text layer may be symbols (a font without a Unicode map) or a scanner's stamp. The
recogniser knows Latin, Greek, Chinese and Japanese; shown another script it returns
blanks or mixed-alphabet nonsense, so such a page says it could not be read.
"""

from __future__ import annotations

import math
import re
import unicodedata

from ingest.ocr.page_reader import Line

USABLE_LETTERS = 0.5
"""A text layer whose characters are mostly letters or digits is read as it is."""
FEW_CHARS = 16
"""A page with an image and fewer letters than this in its text layer is a scan with a
stamp (a page number, a scanner's footer): OCR reads it."""
_MIN_SCORE = 0.65
"""Lines the recogniser is less sure of than this are not counted as read."""
_DENSITY = 0.4
"""Characters per line height a line of text holds, at least (a blank or two where a
long line was seen means the recogniser did not know its letters)."""
_PART = re.compile(r"\d+|[A-Z]?[^\W\d_A-Z]+|[^\W\d_a-z]+|\w")
"""A plausible piece of a word: a number, a word in lower case (capitalised or not), one
in capitals, or any single character."""
_JOINS = re.compile(r"[-'’/.,:;]+")


def letter_share(text: str) -> float:
    """The share of the visible characters that are letters or digits (any script)."""
    visible = [c for c in text if not c.isspace()]
    if not visible:
        return 0.0
    return sum(c.isalnum() for c in visible) / len(visible)


def alphanumerics(text: str) -> int:
    """How many letters and digits ``text`` holds."""
    return sum(c.isalnum() for c in text)


def usable_text_layer(text: str, draws_images: bool) -> bool:
    """Whether a PDF page's own text is what the page says (else OCR should read it)."""
    if letter_share(text) < USABLE_LETTERS:
        return False
    return not (draws_images and alphanumerics(text) < FEW_CHARS)


def is_read(line: Line) -> bool:
    """Whether a recognised line looks like text the models know, not a guess."""
    if line.score < _MIN_SCORE:
        return False
    first = math.dist(line.points[0], line.points[1])
    second = math.dist(line.points[1], line.points[2])
    length, height = max(first, second), max(min(first, second), 1.0)
    visible = sum(not c.isspace() for c in line.text)
    return visible >= _DENSITY * length / height


def plausible_share(text: str) -> float:
    """The share of characters in words that look like words of one alphabet."""
    total = good = 0
    for word in text.split():
        total += len(word)
        parts = [p for p in _JOINS.split(word.strip(_PUNCTUATION)) if p]
        if all(_PART.fullmatch(p) for p in parts) and _one_script(word):
            good += len(word)
    return good / total if total else 0.0


_PUNCTUATION = "\"'“”‘’«»()[]{}<>.,:;!?¡¿*•·-–—…"


def _one_script(word: str) -> bool:
    scripts = {_script(c) for c in word if c.isalpha()}
    return len(scripts) <= 1


def _script(char: str) -> str:
    try:
        name = unicodedata.name(char)
    except ValueError:
        return "?"
    return name.split()[0]
