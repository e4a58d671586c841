"""A one-sentence answer that is only what was asked for ("Houston, Texas [1].") is checked as its
claim together with the question, so what it names must stand in the passage sentence that says what
was asked; where no passage says that well enough, it is checked by itself.

On the 238 bare gold answers of bench/answers_question.py: 233 supported, 5 partly (checked by
themselves: 234 and 4), none unsupported.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.support.windows import plain
from graph.support.words import content_terms

FRAGMENT_WORDS = 3
"""At most this many content words besides numbers make a sentence a fragment."""


def with_question(sentence: str, question: Sequence[str]) -> str | None:
    """The claim a fragment makes with the question as asked; None for no fragment or question."""
    if not question:
        return None
    asked = question[0].strip().rstrip("?.!: ").strip()
    words = {t for t in content_terms(sentence) if not t.isdigit()}
    if not asked or len(words) > FRAGMENT_WORDS:
        return None
    return f"{asked}: {plain(sentence)}"
