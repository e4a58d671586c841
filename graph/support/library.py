"""Check any text against the library: each sentence's own passages, found by the
retriever, then one support check over all of them (for ``POST /api/verify``).

A long text takes a while (a search per claim, then the embedding of every passage
found), so a call may be given ``in_time``: the claims are searched in order while it
says there is time, and those left when it says no come back ``unchecked``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from graph.retrieval.types import Retrieval
from graph.support.check import SupportBars, SupportCheck
from graph.support.claims import is_claim
from graph.support.sentences import split_sentences
from graph.support.types import SentenceSupport, SourcePassage
from graph.support.windows import plain
from models.protocols import Embedder

PASSAGES_PER_SENTENCE = 3


class PassageSearch(Protocol):
    """What finding a sentence's passages needs; ``Retriever`` is one."""

    def retrieve(self, query: str, files: Sequence[str] = (), k: int | None = None) -> Retrieval:
        """The passages for ``query``, best first, within ``files`` when given."""
        ...


def _always() -> bool:
    return True


def library_passages(
    text: str,
    search: PassageSearch,
    files: Sequence[str] = (),
    k: int = PASSAGES_PER_SENTENCE,
    in_time: Callable[[], bool] = _always,
) -> tuple[list[SourcePassage], int]:
    """The best ``k`` passages of each claim of ``text``, without repeats, numbered 1..N in
    the order first found; and how many claims were searched, in order, before
    ``in_time`` said there was no time for the next."""
    seen: dict[tuple[str, int | None, int, int], SourcePassage] = {}
    searched = 0
    for sentence in split_sentences(text):
        if not is_claim(sentence):
            continue
        if not in_time():
            break
        searched += 1
        for passage in search.retrieve(plain(sentence.text), files, k).passages:
            key = (passage.path, passage.page, passage.start, passage.end)
            if key not in seen:
                seen[key] = SourcePassage(
                    len(seen) + 1,
                    passage.text,
                    passage.file,
                    passage.path,
                    passage.page,
                    passage.start,
                )
    return list(seen.values()), searched


def verify_in_library(
    text: str,
    search: PassageSearch,
    embedder: Embedder,
    files: Sequence[str] = (),
    bars: SupportBars | None = None,
    in_time: Callable[[], bool] = _always,
) -> list[SentenceSupport]:
    """Each sentence of ``text`` checked against the library's passages for its claims;
    the claims not searched while ``in_time`` said yes are ``unchecked``.

    Blocking (search and embedding): async callers run it in a worker thread.
    """
    passages, searched = library_passages(text, search, files, in_time=in_time)
    return SupportCheck(passages, embedder, bars).check(text, claims=searched)
