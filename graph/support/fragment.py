"""An answer that is only what was asked for, one short sentence ("Houston, Texas [1].",
"In 1856 [1]."), makes its claim together with the question: "Where was the Manned
Spacecraft Center located: Houston, Texas". Such a fragment is checked as that claim, so
the passage sentence that says what was asked is its span, and what the fragment names
must stand in that span, not merely earlier in the passage: "The Netherlands [1]." for
"Name one country that banned flying on Sundays" is not stated by "The UK, Germany,
Italy... banned flying on Sundays", though the passage names the Netherlands a sentence
before. In a longer answer a short sentence says its own claim.

Where no passage says the claim with the question well enough (the question worded
otherwise than the passage), the fragment is checked by itself as before. The question's
own numbers and names are not the fragment's to prove. On the bare gold answers of
bench/answers_question.py (238 SQuAD questions) 233 are supported this way, 5 partly
(by itself: 234 and 4), none unsupported.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.support.windows import plain
from graph.support.words import content_terms

FRAGMENT_WORDS = 3
"""At most this many content words besides numbers make a sentence a fragment: "Houston,
Texas", "The Netherlands", "That would be 14 of them", "Triple expansion engines"."""


def with_question(sentence: str, question: Sequence[str]) -> str | None:
    """The claim a fragment ``sentence`` (plain text) makes with the question as asked,
    ``question[0]``; None when it is no fragment or there is no question."""
    if not question:
        return None
    asked = question[0].strip().rstrip("?.!: ").strip()
    words = {t for t in content_terms(sentence) if not t.isdigit()}
    if not asked or len(words) > FRAGMENT_WORDS:
        return None
    return f"{asked}: {plain(sentence)}"
