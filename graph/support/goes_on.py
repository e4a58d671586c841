"""Whether a passage's sentence goes on about the sentence before it, by opening with a
word that points back to it ("He bequeathed...", "It was...", "This meant...")."""

from __future__ import annotations

import re

_POINTS_BACK = re.compile(
    r"[\s\"'“‘(*_]*(?:he|she|it|they|his|her|its|their|this|these|those)\b",
    re.IGNORECASE,
)


def goes_on(text: str, start: int) -> bool:
    """Whether the sentence of ``text`` at ``start`` opens with a pronoun that stands for
    what the sentence before it named."""
    return _POINTS_BACK.match(text, start) is not None
