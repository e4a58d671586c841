"""Terms for the keyword (BM25) index: English stemmed without stop words, other scripts kept.

One function serves both sides, so a document and a query about it always agree on
their terms. The pattern has no nested quantifiers over overlapping classes, so it runs in
linear time on any input; the caller still bounds how much text a query may bring.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

from ingest.index.keyword.stop_words import STOP_WORDS

# A word, or a code made of words joined by - . / _ (e.g. "ISO-8601", "v1.2.3", "x/y"),
# which is kept whole beside its parts: the whole is what makes a code rare.
_WORD = re.compile(r"\w+(?:[-./]\w+)*")
_PART = re.compile(r"[^\W_]+")
# Scripts written without spaces: indexed as overlapping character pairs.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_CJK_SPLIT = re.compile(f"({_CJK.pattern})")

_STOP = STOP_WORDS
_MAX_CODE = 40
_MAX_WORD = 64
"""Longer runs are not words anyone searches for; capping them keeps the vocabulary small."""


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def _cjk_terms(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _part_terms(part: str, out: list[str], english: list[int]) -> None:
    """Append the terms of one word (no separators inside) to ``out``."""
    part = part[:_MAX_WORD]
    if not part.isascii() and _CJK.search(part):
        for piece in _CJK_SPLIT.split(part):
            if not piece:
                continue
            if _CJK.fullmatch(piece):
                out.extend(_cjk_terms(piece))
            elif piece not in _STOP and (len(piece) > 1 or piece.isdigit()):
                out.append(piece)
        return
    if part in _STOP or (len(part) == 1 and not part.isdigit()):
        return
    if part.isascii() and part.isalpha():
        english.append(len(out))
    out.append(part)


def terms(text: str) -> list[str]:
    """The index terms of ``text``, in order, repeats kept (BM25 counts them)."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    english: list[int] = []  # positions in ``out`` still to be stemmed
    for token in _WORD.findall(text):
        if token.isascii() and token.isalnum():  # a plain word: the common case, inlined
            word = token[:_MAX_WORD]
            if word in _STOP or (len(word) == 1 and not word.isdigit()):
                continue
            if word.isalpha():
                english.append(len(out))
            out.append(word)
            continue
        if token.isalnum():
            _part_terms(token, out, english)
            continue
        parts = _PART.findall(token)
        if len(parts) > 1 and len(token) <= _MAX_CODE:
            out.append(token)  # the code as written, e.g. "iso-8601"
        for part in parts:
            _part_terms(part, out, english)
    if english:
        stems = _stemmer().stemWords([out[i] for i in english])
        for i, stem in zip(english, stems, strict=True):
            out[i] = stem
    return out
