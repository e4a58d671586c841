"""The spans of a passage a sentence may rest on: its sentences and each two in a row. Only
sentences are embedded: a pair's vector is their length-weighted mean, renormalised, close to
embedding the pair since MiniLM mean-pools tokens, and free."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from graph.support.facts import acronyms, blank_citations
from graph.support.sentences import split_sentences
from graph.support.verdicts import SourcePassage
from graph.support.words import content_terms

MAX_PIECE_CHARS = 400
"""A passage "sentence" longer than this (a table, a PDF without stops) is cut at spaces into pieces
of about this size: a long span would match everything a little."""
_MARKUP = re.compile(r"[*_`]+")
_SPACE_BEFORE_STOP = re.compile(r" (?=[.,;:!?](?:\s|$))")
"""The space a blanked mark leaves before the stop ("1856 ."): without it a copied sentence is the
passage's again and reuses its vector."""
_NAMES_THE_SOURCES = re.compile(
    r"^(?:(?:according to|based on|as (?:stated|said|noted|mentioned|described|shown) in|per)"
    r" (?:the )?(?:(?:provided|given|above|retrieved|available) )?"
    r"(?:sources?|documents?|texts?|passages?|context|information|excerpts?)"
    r"(?: (?:provided|given|above))?\s*,\s*"
    r"|(?:the )?(?:sources?|documents?|texts?|passages?|context) (?:says?|states?|shows?|"
    r"mentions?|notes?|indicates?|explains?)(?: that)? )",
    re.IGNORECASE,
)
"""Opening words that name the source, not a claim: no passage holds "according to the source", so
they only drag a right sentence under the bar."""


@dataclass(frozen=True)
class Piece:
    """A passage sentence (or part of a long one): the unit that is embedded."""

    passage: int
    """Index of its passage in the check's list."""
    start: int
    end: int


@dataclass(frozen=True)
class Window:
    """One or two consecutive pieces of a passage."""

    passage: int
    first: int
    """Index of its first piece."""
    last: int
    """Index of its last piece (the same as ``first`` for one sentence)."""
    start: int
    end: int
    terms: frozenset[str]


def plain(text: str) -> str:
    """Text as the embedder and the word overlap should see it: no marks, no emphasis."""
    return _SPACE_BEFORE_STOP.sub("", " ".join(_MARKUP.sub("", blank_citations(text)).split()))


def claimed(text: str) -> str:
    """An answer sentence as the check weighs it: ``plain``, less "According to the source, …"."""
    said = plain(text)
    return _NAMES_THE_SOURCES.sub("", said, count=1) or said


def cut_pieces(passages: Sequence[SourcePassage]) -> list[Piece]:
    """Every passage's sentences in order, long ones cut into pieces."""
    pieces = []
    for index, passage in enumerate(passages):
        for sentence in split_sentences(passage.text):
            if sentence.heading:
                continue
            for start, end in _cut(passage.text, sentence.start, sentence.end):
                pieces.append(Piece(index, start, end))
    return pieces


def piece_texts(passages: Sequence[SourcePassage], pieces: Sequence[Piece]) -> list[str]:
    """Each piece's text as it is embedded: no marks, no emphasis."""
    return [plain(passages[p.passage].text[p.start : p.end]) for p in pieces]


def _cut(text: str, start: int, end: int) -> list[tuple[int, int]]:
    if end - start <= MAX_PIECE_CHARS:
        return [(start, end)]
    count = math.ceil((end - start) / MAX_PIECE_CHARS)
    size = (end - start) / count
    bounds = [start]
    for i in range(1, count):
        target = int(start + i * size)
        space = text.rfind(" ", bounds[-1] + 1, target + 1)
        bounds.append(space + 1 if space > bounds[-1] else target)
    bounds.append(end)
    return [(a, _trim_end(text, a, b)) for a, b in zip(bounds, bounds[1:], strict=False)]


def _trim_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def make_windows(passages: Sequence[SourcePassage], pieces: Sequence[Piece]) -> list[Window]:
    """Each piece alone, and each two consecutive pieces of the same passage."""
    texts = [plain(passages[p.passage].text[p.start : p.end]) for p in pieces]
    # A window's terms hold its names' initials too, so "AAA" finds its name spelled out.
    piece_terms = [frozenset(content_terms(text)) | acronyms(text) for text in texts]
    windows = []
    for i, piece in enumerate(pieces):
        windows.append(Window(piece.passage, i, i, piece.start, piece.end, piece_terms[i]))
        if i + 1 < len(pieces) and pieces[i + 1].passage == piece.passage:
            after = pieces[i + 1]
            terms = piece_terms[i] | piece_terms[i + 1]
            windows.append(Window(piece.passage, i, i + 1, piece.start, after.end, terms))
    return windows


def window_vectors(
    windows: Sequence[Window], pieces: Sequence[Piece], vectors: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """One unit vector per window from its pieces' vectors, weighted by their lengths."""
    lengths = np.array([p.end - p.start for p in pieces], dtype=np.float32)
    first = np.array([w.first for w in windows], dtype=np.int64)
    last = np.array([w.last for w in windows], dtype=np.int64)
    pair = (last != first)[:, None]
    summed = vectors[first] * lengths[first, None] + np.where(
        pair, vectors[last] * lengths[last, None], 0.0
    )
    norms = np.linalg.norm(summed, axis=1, keepdims=True)
    return (summed / np.clip(norms, 1e-12, None)).astype(np.float32)
