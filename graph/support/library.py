"""Check any text against the library: each sentence's own passages, found by the
retriever, then one support check over all of them (for ``POST /api/verify``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from graph.retrieval.types import Retrieval
from graph.support.check import SupportBars, SupportCheck, is_claim
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


def library_passages(
    text: str, search: PassageSearch, files: Sequence[str] = (), k: int = PASSAGES_PER_SENTENCE
) -> list[SourcePassage]:
    """The best ``k`` passages of each claim of ``text``, without repeats, numbered 1..N in
    the order first found."""
    seen: dict[tuple[str, int | None, int, int], SourcePassage] = {}
    for sentence in split_sentences(text):
        if not is_claim(sentence):
            continue
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
    return list(seen.values())


def verify_in_library(
    text: str,
    search: PassageSearch,
    embedder: Embedder,
    files: Sequence[str] = (),
    bars: SupportBars | None = None,
) -> list[SentenceSupport]:
    """Each claim of ``text`` checked against the library's passages for its claims.

    Blocking (search and embedding): async callers run it in a worker thread.
    """
    passages = library_passages(text, search, files)
    return SupportCheck(passages, embedder, bars).check(text)
