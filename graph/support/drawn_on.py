"""What of a window a sentence draws on: the window's sentences that share its words, the
names said before them, and so the sentence's facts the window does not state."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from graph.support.fact_index import Fact, FactIndex, holds
from graph.support.goes_on import goes_on, opens_with_name
from graph.support.slots import place
from graph.support.verdicts import SourcePassage
from graph.support.windows import Piece, Window
from graph.support.words import content_terms

DRAWN_ON = 3
"""Words a sentence shares with one half of a two-sentence span that it draws on."""
_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]+")


@dataclass(frozen=True)
class AsRead:
    """The passages as the support check has read them: what ``facts_lacking`` looks up."""

    passages: Sequence[SourcePassage]
    pieces: Sequence[Window]
    """Each piece's own one-sentence window, by piece index."""
    said_before: Sequence[frozenset[str]]
    """For each piece, the words of its passage up to its end (names said earlier)."""
    common: Collection[str]
    """The words the passages write in lower case: a capitalised one is no name."""
    named_in: Sequence[frozenset[str]]
    """For each passage, every word it says, and its document's name."""
    facts_of: Callable[[int], FactIndex]

    @classmethod
    def of(
        cls,
        passages: Sequence[SourcePassage],
        pieces: Sequence[Piece],
        windows: Sequence[Window],
        facts_of: Callable[[int], FactIndex],
    ) -> AsRead:
        """The passages as cut into ``pieces`` and ``windows``; a piece's words include its
        passage's so far and its document's name, which an article never repeats."""
        own = [w for w in windows if w.first == w.last]
        titles = [_title_terms(p) for p in passages]
        said_before: list[frozenset[str]] = []
        for i, piece in enumerate(pieces):
            same = i and pieces[i - 1].passage == piece.passage
            earlier = said_before[-1] if same else titles[piece.passage]
            said_before.append(earlier | own[i].terms)
        common = {w for p in passages for w in _LOWER_WORD.findall(p.text)}
        named_in = list(titles)
        for piece, said in zip(pieces, said_before, strict=True):
            named_in[piece.passage] = said
        return cls(passages, own, said_before, common, named_in, facts_of)


def facts_lacking(
    said: str,
    facts: Sequence[Fact],
    window: Window,
    asked: str,
    read: AsRead,
    question_names: Collection[Fact] = (),
) -> tuple[tuple[Fact, ...], dict[str, str]]:
    """The facts a window does not state, and what it says in the place of a number it has only
    elsewhere (graph/support/slots.py); a name may stand earlier in its passage. A fragment
    (``asked``: graph/support/fragment.py) draws only on sentences sharing its question's words.

    In a two-sentence window a number counts only in a sentence the text draws on (three shared
    words, or half), else "Tesla emigrated in 1856" would pass on "Tesla was born in 1856. He
    emigrated in 1884"; a second sentence opening with "He", "It"… borrows the first one's words.
    """
    index, pieces = read.facts_of(window.passage), read.pieces
    text = read.passages[window.passage].text
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
            if not opens_with_name(text, piece.start, read.common):
                stated |= piece.terms
                keys |= index.keys_between(piece.start, piece.end)
                drawn.append((piece.start, piece.end))
    named = stated if fragment else read.said_before[window.last]
    lacking: list[Fact] = []
    instead: dict[str, str] = {}
    # The names the question says may go unsaid in a span whose passage or file names one
    # of them (page 2 of DEN08CA034Belen.pdf never says "Belen, New Mexico"), not in a
    # passage about something else: "… provides train service in Fresno", of Newcastle's.
    source = read.passages[window.passage]
    file = (source.file or source.path).lower()
    about = any(
        holds(f, (), read.named_in[window.passage]) or all(p in file for p in f.key.split())
        for f in question_names
    )
    for fact in facts:
        if fact in question_names and about:
            continue
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


def _title_terms(passage: SourcePassage) -> frozenset[str]:
    name = PurePosixPath(passage.file or passage.path).stem
    return frozenset(content_terms(re.sub(r"[_\W]+", " ", name)))
