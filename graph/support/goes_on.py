"""Whether a passage's sentence goes on about the one before ("He bequeathed...") or is about a name
of its own ("The Netherlands imposed...")."""

from __future__ import annotations

import re
from collections.abc import Collection

from graph.support.facts import OPENERS
from graph.support.words import STOP

_POINTS_BACK = re.compile(
    r"[\s\"'“‘(*_]*(?:he|she|it|they|his|her|its|their|this|these|those)\b",
    re.IGNORECASE,
)


def goes_on(text: str, start: int) -> bool:
    """Whether the sentence at ``start`` opens with a pronoun for what the one before named."""
    return _POINTS_BACK.match(text, start) is not None


_FIRST_WORD = re.compile(r"[\s\"'“‘(*_]*(?:(?:the|a|an)\s+)?([^\W\d_][\w'’-]*)", re.IGNORECASE)


def opens_with_name(text: str, start: int, common: Collection[str] = ()) -> bool:
    """Whether the sentence at ``start`` opens with a name, after "The" or "A" at most; a word of
    ``common`` (seen in lower case nearby) is no name."""
    match = _FIRST_WORD.match(text, start)
    if match is None:
        return False
    word = match.group(1)
    lowered = word.lower()
    return (
        word[0].isupper()
        and lowered not in STOP
        and lowered not in OPENERS
        and lowered not in common
    )
