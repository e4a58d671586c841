"""Content words, stemmed, as the keyword index has them: the lexical side of support."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from ingest.index.keyword.stop_words import STOP_WORDS
from ingest.index.keyword.terms import terms

STOP = STOP_WORDS
"""The stop words the keyword index leaves out; never a name on their own."""
content_terms = terms
"""The stemmed content words of a text, in order (the keyword index's terms)."""


def stems(words: Iterable[str]) -> list[str]:
    """Each word's terms, flattened: "Tesla's" gives "tesla", "Normans" gives "norman"."""
    return [term for word in words for term in terms(word)]


SMALL_TALK_WORDS = (
    "ok okay sure yes yeah yep no nope fine right alright certainly course absolutely "
    "indeed exactly perfect great good nice cool noted understood agreed "
    "thanks thank welcome please sorry cheers glad happy hope help helps question "
    "hello hi hey bye goodbye morning afternoon evening let know"
)
"""What a reply says that states nothing about the documents ("Ok.", "Thanks!", "Happy to help."): a
sentence of only these and stop words has nothing to check."""


@lru_cache(maxsize=1)
def _small_talk() -> frozenset[str]:
    return frozenset(stems(SMALL_TALK_WORDS.split()))


def checkable_terms(text: str) -> list[str]:
    """The content terms of ``text`` that a passage could support: not small talk."""
    talk = _small_talk()
    return [term for term in content_terms(text) if term not in talk]
