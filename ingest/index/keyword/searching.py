"""Searching the keyword index: BM25 scores over one immutable snapshot of it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ingest.index.keyword.scores import KeywordScores
from ingest.index.keyword.segments import Segment, lucene_idf
from ingest.index.keyword.terms import terms

MAX_QUERY_CHARS = 4_000
"""A query's text beyond this is not read: no question needs more, and terms cost work."""
MAX_QUERY_TERMS = 32
"""Distinct query terms scored at most, the rarest first."""


@dataclass(frozen=True)
class IndexView:
    """What searches read: a state of the index writers never change, only swap."""

    segments: tuple[Segment, ...] = ()
    lives: tuple[npt.NDArray[np.bool_], ...] = ()
    df: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rows: int = 0
    """Live rows in all: BM25's N."""


def query_terms(
    view: IndexView, vocab: Mapping[str, int], query: str
) -> tuple[list[str], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """(terms, their ids (-1: unknown to ``view``), their idf), rarest first if capped."""
    unique = list(dict.fromkeys(terms(query[:MAX_QUERY_CHARS])))
    # A term a writer added after this view was made is unknown to it.
    ids = np.asarray([vocab.get(t, -1) for t in unique], dtype=np.int64)
    ids[ids >= len(view.df)] = -1
    df = np.where(ids >= 0, view.df[np.clip(ids, 0, None)], 0)
    idf = lucene_idf(df, max(1, view.rows))
    if len(ids) > MAX_QUERY_TERMS:
        keep = np.argsort(-idf, kind="stable")[:MAX_QUERY_TERMS]
        unique, ids, idf = [unique[i] for i in keep], ids[keep], idf[keep]
    return unique, ids, idf


def search_view(
    view: IndexView,
    vocab: Mapping[str, int],
    query: str,
    doc_ids: Collection[str] | None = None,
) -> KeywordScores:
    """Score every chunk of ``view`` for ``query`` (only ``doc_ids``' chunks, if given)."""
    _, ids, idf = query_terms(view, vocab, query)
    total_idf = float(idf.sum())
    known = ids >= 0
    term_ids = ids[known].astype(np.int32)
    term_idf = idf[known]
    order = np.argsort(term_ids)
    term_ids, term_idf = term_ids[order], term_idf[order]
    scores, matched = [], []
    for segment, live in zip(view.segments, view.lives, strict=True):
        if doc_ids is not None:
            live = live & rows_of(segment, doc_ids)
        score, match = segment.score(term_ids, term_idf, live)
        scores.append(score)
        matched.append(match)
    empty = np.zeros(0, dtype=np.float32)
    return KeywordScores(
        view.segments,
        view.lives,
        np.concatenate(scores) if scores else empty,
        np.concatenate(matched) if matched else empty,
        total_idf,
    )


def rows_of(segment: Segment, doc_ids: Collection[str]) -> npt.NDArray[np.bool_]:
    """A mask of the segment's rows that belong to ``doc_ids``."""
    mask = np.zeros(segment.rows, dtype=bool)
    for doc_id in doc_ids:
        span = segment.doc_range(doc_id)
        if span:
            mask[span[0] : span[1]] = True
    return mask
