"""Content words, stemmed, as the keyword index has them: the lexical side of support."""

from __future__ import annotations

from collections.abc import Iterable

from bm25s.stopwords import STOPWORDS_EN_PLUS

from ingest.index.keyword.terms import terms

STOP = frozenset(STOPWORDS_EN_PLUS)
"""The stop words the keyword index leaves out; never a name on their own."""


def content_terms(text: str) -> list[str]:
    """The stemmed content words of ``text``, in order (the keyword index's terms)."""
    return terms(text)


def stems(words: Iterable[str]) -> list[str]:
    """Each word's terms, flattened: "Tesla's" gives "tesla", "Normans" gives "norman"."""
    return [term for word in words for term in terms(word)]
