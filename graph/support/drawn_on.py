"""What of a window a sentence draws on: the window's sentences that share its words, the
names said before them, and so the sentence's facts the window does not state."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from pathlib import PurePosixPath

from graph.support.fact_index import Fact, FactIndex, holds
from graph.support.goes_on import goes_on, opens_with_name
from graph.support.slots import place
from graph.support.verdicts import SourcePassage
from graph.support.windows import Piece, Window
from graph.support.words import content_terms

DRAWN_ON = 3
"""Words a sentence shares with one half of a two-sentence span that it draws on."""


def facts_lacking(
    said: str,
    facts: Sequence[Fact],
    window: Window,
    asked: str,
    index: FactIndex,
    pieces: Sequence[Window],
    said_before: Sequence[frozenset[str]],
    text: str,
    common: Collection[str],
) -> tuple[tuple[Fact, ...], dict[str, str]]:
    """The facts a window does not state, and what it says in the place of a number it
    has only elsewhere: numbers, dates and codes must be in it, a number or date next
    to what the sentence says of it (graph/support/slots.py), a name in it or earlier
    in its passage (where the window's "he" was named). A fragment, checked with the
    question it answers (``asked``: graph/support/fragment.py), draws on the sentences
    that share two of the question's words (or half), and its items must be in them.

    In a two-sentence window a number counts only in a sentence the text draws on: one
    that shares, numbers aside, three words with it or half of its own. Else "Tesla
    emigrated in 1856" would pass on "Tesla was born in 1856. He emigrated in 1884".
    A second sentence that opens with "He", "It"... goes on about the first one's
    subject, so the first one's words count as its own: "Ralph Woodward founded the
    park in 1968" draws on "The park was founded by Ralph Woodward. He left his estate
    in 1968 to provide a park". ``index`` is the window's passage's facts, ``text`` its
    text, ``pieces`` each piece's one-sentence window, ``said_before`` each piece's
    words said up to its end."""
    fragment = bool(asked)
    words = _wordy(content_terms(asked or said))
    least = 2 if fragment else DRAWN_ON
    keys: set[str] = set()
    drawn: list[tuple[int, int]] = []
    # A fragment's items must be in a sentence drawn on, or in one going on from it
    # about no name of its own ("A site was chosen in Houston", not "The Netherlands
    # imposed...").
    stated: set[str] = set()
    span = range(window.first, window.last + 1)
    # A fragment draws on the sentence that shares the most of its question, at least.
    most = max(len(words & pieces[i].terms) for i in span) if asked else 0
    for i in span:
        piece = pieces[i]
        own = _wordy(piece.terms)
        if i > window.first and goes_on(text, piece.start):
            own |= _wordy(pieces[i - 1].terms)
        shared = len(words & own)
        half = len(words if fragment else own)
        if (
            window.first == window.last
            or shared >= least
            or 2 * shared >= half
            or (fragment and shared == most > 0)
        ):
            keys |= index.keys_between(piece.start, piece.end)
            drawn.append((piece.start, piece.end))
            stated |= piece.terms
        elif fragment and drawn and drawn[-1][1] == pieces[i - 1].end:
            if not opens_with_name(text, piece.start, common):
                stated |= piece.terms
                keys |= index.keys_between(piece.start, piece.end)
                drawn.append((piece.start, piece.end))
    named = stated if fragment else said_before[window.last]
    lacking: list[Fact] = []
    instead: dict[str, str] = {}
    for fact in facts:
        if not holds(fact, keys, named):
            lacking.append(fact)
        elif fact.kind in ("number", "date"):
            placed = place(fact, said, facts, index, drawn)
            if not placed.holds:
                lacking.append(fact)
                if placed.instead is not None:
                    instead[fact.text] = placed.instead.text
    return tuple(lacking), instead


def _wordy(terms: Iterable[str]) -> set[str]:
    return {t for t in terms if not t.isdigit()}


def named_before(
    passages: Sequence[SourcePassage], pieces: Sequence[Piece], windows: Sequence[Window]
) -> list[frozenset[str]]:
    """For each piece, the words said up to its end: its passage's so far, and its
    document's name, which is what an article never repeats ("Amazon_rainforest.md")."""
    singles = {w.first: w.terms for w in windows if w.first == w.last}
    titles = [_title_terms(p) for p in passages]
    out: list[frozenset[str]] = []
    for i, piece in enumerate(pieces):
        same = i and pieces[i - 1].passage == piece.passage
        earlier = out[-1] if same else titles[piece.passage]
        out.append(earlier | singles[i])
    return out


def _title_terms(passage: SourcePassage) -> frozenset[str]:
    name = PurePosixPath(passage.file or passage.path).stem
    return frozenset(content_terms(re.sub(r"[_\W]+", " ", name)))
