"""Check any text against the library for ``POST /api/verify``: each claim's passages found by the
retriever, then one support check. Embedding every passage sentence is the cost (40 of 66 s for
20,000 characters; bench/verify_budget.py), so ``in_time`` may stop early and the claims not reached
come back ``unchecked``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from graph.retrieval.scored import Retrieval
from graph.support.check import SupportBars, SupportCheck
from graph.support.claims import is_claim
from graph.support.sentences import split_sentences
from graph.support.verdicts import SentenceSupport, SourcePassage
from graph.support.windows import cut_pieces, piece_texts, plain
from models.protocols import Embedder

PASSAGES_PER_SENTENCE = 3


class PassageSearch(Protocol):
    """What finding a sentence's passages needs; ``Retriever`` is one."""

    def retrieve(self, query: str, files: Sequence[str] = (), k: int | None = None) -> Retrieval:
        """The passages for ``query``, best first, within ``files`` when given."""
        ...


class RememberingEmbedder:
    """An embedder that keeps each text's vector, so the check does not embed it again."""

    def __init__(self, embedder: Embedder) -> None:
        self.name = embedder.name
        self._embedder = embedder
        self._vectors: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order; only texts not seen before are embedded."""
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if new:
            self._vectors.update(zip(new, self._embedder.embed(new), strict=True))
        return [self._vectors[t] for t in texts]


def _always() -> bool:
    return True


def library_passages(
    text: str,
    search: PassageSearch,
    files: Sequence[str] = (),
    k: int = PASSAGES_PER_SENTENCE,
    *,
    embedder: Embedder | None = None,
    in_time: Callable[[], bool] = _always,
) -> tuple[list[SourcePassage], int]:
    """The best ``k`` passages of each claim, deduplicated, numbered 1..N, and how many claims were
    read while ``in_time`` said yes; with an ``embedder``, sentences are embedded as found."""
    seen: dict[tuple[str, int | None, int, int], SourcePassage] = {}
    read = 0
    for sentence in split_sentences(text):
        if not is_claim(sentence):
            continue
        if not in_time():
            break
        new: list[SourcePassage] = []
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
                new.append(seen[key])
        if embedder is not None:
            embedder.embed([*piece_texts(new, cut_pieces(new)), plain(sentence.text)])
        read += 1
    return list(seen.values()), read


def verify_in_library(
    text: str,
    search: PassageSearch,
    embedder: Embedder,
    files: Sequence[str] = (),
    bars: SupportBars | None = None,
    in_time: Callable[[], bool] = _always,
) -> list[SentenceSupport]:
    """Each sentence checked against the library; claims past ``in_time`` are ``unchecked``.
    Blocking: async callers run it in a worker thread."""
    remembering = RememberingEmbedder(embedder)
    passages, read = library_passages(text, search, files, embedder=remembering, in_time=in_time)
    return SupportCheck(passages, remembering, bars).check(text, claims=read)
