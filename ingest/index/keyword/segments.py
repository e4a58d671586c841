"""One immutable segment of the keyword index: some documents' chunks, scored by BM25.

Cells hold scores with the segment's own idf; a query reweights each column by ``global
idf / segment idf``, so segments of any size score alike. Deleting a document replaces the
``live`` mask, never writes it in place, so a reader keeps a consistent view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float32]

K1 = 1.5
B = 0.75


def lucene_idf(df: npt.NDArray[np.float64] | np.ndarray, n: int) -> npt.NDArray[np.float64]:
    """bm25s's ``lucene`` idf, vectorised: always positive, so ratios of it are safe."""
    df = np.asarray(df, dtype=np.float64)
    return np.log1p((n - df + 0.5) / (df + 0.5))


@dataclass
class DocRows:
    """What the index is given for one document: its chunk numbers and their term ids."""

    doc_id: str
    indexes: list[int]
    tokens: list[IntArray]


@dataclass(eq=False)
class Segment:
    """Rows of several documents with their BM25 score matrix (CSC over local terms)."""

    doc_ids: list[str]
    doc_start: IntArray
    """Row where each document begins; ``doc_start[-1]`` is the row count."""
    chunk_index: IntArray
    tokens: IntArray
    token_start: npt.NDArray[np.int64]
    local_terms: IntArray
    """Sorted global term ids present in the segment; column j is ``local_terms[j]``."""
    data: FloatArray
    indices: IntArray
    indptr: npt.NDArray[np.int64]
    idf: npt.NDArray[np.float64]
    live: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    name: str = ""

    @property
    def rows(self) -> int:
        return int(self.doc_start[-1])

    @property
    def live_rows(self) -> int:
        return int(self.live.sum())

    @cached_property
    def positions(self) -> dict[str, int]:
        """Each document's position in ``doc_ids``."""
        return {doc_id: i for i, doc_id in enumerate(self.doc_ids)}

    @cached_property
    def row_doc(self) -> IntArray:
        """The position in ``doc_ids`` of each row's document."""
        counts = np.diff(self.doc_start)
        return np.repeat(np.arange(len(self.doc_ids), dtype=np.int32), counts)

    def doc_range(self, doc_id: str) -> tuple[int, int] | None:
        i = self.positions.get(doc_id)
        if i is None:
            return None
        return int(self.doc_start[i]), int(self.doc_start[i + 1])

    def without(self, doc_id: str) -> npt.NDArray[np.bool_]:
        """A new live mask with the document's rows dead (the current one is not touched)."""
        live = self.live.copy()
        span = self.doc_range(doc_id)
        if span is not None:
            live[span[0] : span[1]] = False
        return live

    def live_df(self) -> tuple[IntArray, npt.NDArray[np.int64]]:
        """(global term ids, how many live rows hold each): this segment's share of df."""
        per_column = np.diff(self.indptr)
        if self.live.all():  # the common case, e.g. every segment at load: no row to skip
            return self.local_terms, per_column
        column = np.repeat(np.arange(len(self.local_terms)), per_column)
        counts = np.bincount(
            column, weights=self.live[self.indices].astype(np.float64), minlength=len(per_column)
        )
        return self.local_terms, counts.astype(np.int64)

    def score(
        self,
        terms: IntArray,
        global_idf: npt.NDArray[np.float64],
        live: npt.NDArray[np.bool_],
    ) -> tuple[FloatArray, FloatArray]:
        """(BM25 score, idf of the query terms present) for every row; rows not ``live``
        score 0."""
        scores = np.zeros(self.rows, dtype=np.float32)
        matched = np.zeros(self.rows, dtype=np.float32)
        if not len(self.local_terms):
            return scores, matched
        pos = np.searchsorted(self.local_terms, terms)
        n = len(self.local_terms)
        for term, term_pos, idf in zip(
            terms.tolist(), pos.tolist(), global_idf.tolist(), strict=True
        ):
            if term_pos >= n or int(self.local_terms[term_pos]) != term:
                continue
            lo, hi = int(self.indptr[term_pos]), int(self.indptr[term_pos + 1])
            rows = self.indices[lo:hi]
            scores[rows] += self.data[lo:hi] * np.float32(idf / self.idf[term_pos])
            matched[rows] += np.float32(idf)
        scores[~live] = 0.0
        matched[~live] = 0.0
        return scores, matched


def build_segment(docs: Sequence[DocRows], name: str = "") -> Segment:
    """A segment of the documents' rows, scored with BM25 (Lucene's variant, k1 1.5, b 0.75)."""
    rows = [tokens for doc in docs for tokens in doc.tokens]
    doc_start = np.zeros(len(docs) + 1, dtype=np.int32)
    np.cumsum([len(doc.tokens) for doc in docs], out=doc_start[1:])
    token_start = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=token_start[1:])
    flat = np.concatenate(rows).astype(np.int32) if rows else np.zeros(0, dtype=np.int32)
    chunk_index = np.asarray([i for doc in docs for i in doc.indexes], dtype=np.int32)
    return _segment([d.doc_id for d in docs], doc_start, chunk_index, flat, token_start, name)


def merge_segments(segments: Sequence[Segment], name: str = "") -> Segment:
    """One segment of the live documents of ``segments``, rescored as a whole."""
    doc_ids: list[str] = []
    counts: list[int] = []
    pieces: list[tuple[Segment, int, int]] = []
    for segment in segments:
        for i, doc_id in enumerate(segment.doc_ids):
            lo, hi = int(segment.doc_start[i]), int(segment.doc_start[i + 1])
            if hi > lo and segment.live[lo]:
                doc_ids.append(doc_id)
                counts.append(hi - lo)
                pieces.append((segment, lo, hi))
    doc_start = np.zeros(len(doc_ids) + 1, dtype=np.int32)
    np.cumsum(counts, out=doc_start[1:])
    lengths = [np.diff(s.token_start[lo : hi + 1]) for s, lo, hi in pieces]
    token_start = np.zeros(int(doc_start[-1]) + 1, dtype=np.int64)
    if lengths:
        np.cumsum(np.concatenate(lengths), out=token_start[1:])
    flat = (
        np.concatenate([s.tokens[s.token_start[lo] : s.token_start[hi]] for s, lo, hi in pieces])
        if pieces
        else np.zeros(0, dtype=np.int32)
    )
    chunk_index = (
        np.concatenate([s.chunk_index[lo:hi] for s, lo, hi in pieces])
        if pieces
        else np.zeros(0, dtype=np.int32)
    )
    return _segment(doc_ids, doc_start, chunk_index, flat.astype(np.int32), token_start, name)


def _segment(
    doc_ids: list[str],
    doc_start: IntArray,
    chunk_index: IntArray,
    flat: IntArray,
    token_start: npt.NDArray[np.int64],
    name: str,
) -> Segment:
    local_terms, data, indices, indptr = bm25_matrix(flat, token_start)
    return Segment(
        doc_ids=doc_ids,
        doc_start=doc_start,
        chunk_index=chunk_index,
        tokens=flat,
        token_start=token_start,
        local_terms=local_terms,
        data=data,
        indices=indices,
        indptr=indptr,
        idf=lucene_idf(np.diff(indptr), len(token_start) - 1),
        live=np.ones(len(token_start) - 1, dtype=bool),
        name=name,
    )


def bm25_matrix(
    flat: IntArray, token_start: npt.NDArray[np.int64]
) -> tuple[IntArray, FloatArray, IntArray, npt.NDArray[np.int64]]:
    """(terms, data, indices, indptr): every (row, term) cell's BM25 score, in columns.

    bm25s's ``BM25(method="lucene")`` matrix, in whole-array operations: a merge of 100,000
    rows takes seconds, mostly outside the GIL, so searches meanwhile are barely slowed.
    """
    n_rows = len(token_start) - 1
    lengths = np.diff(token_start)
    if not len(flat):
        empty = np.zeros(0, dtype=np.int32)
        return empty, np.zeros(0, dtype=np.float32), empty, np.zeros(1, dtype=np.int64)
    row = np.repeat(np.arange(n_rows, dtype=np.int64), lengths)
    # One sort of (term, row) pairs gives the term frequencies in column order.
    cells, tf = np.unique(flat.astype(np.int64) * n_rows + row, return_counts=True)
    term, row = np.divmod(cells, n_rows)
    starts = np.flatnonzero(np.diff(term, prepend=-1))  # where each term's column begins
    local_terms = term[starts]
    df = np.diff(np.append(starts, len(term)))
    avg = float(lengths.mean())
    norm = K1 * ((1 - B) + B * lengths[row] / avg)
    data = np.repeat(lucene_idf(df, n_rows), df) * tf / (norm + tf)
    indptr = np.zeros(len(local_terms) + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return (
        local_terms.astype(np.int32),
        data.astype(np.float32),
        row.astype(np.int32),
        indptr,
    )


def save_segment(segment: Segment, path: Path) -> None:
    """Write the segment (without its live mask, which the manifest keeps) to ``path``."""
    tmp = path.with_suffix(".tmp.npz")
    try:
        _write(segment, tmp)
    except OSError:
        tmp.unlink(missing_ok=True)  # half a segment on a full disk
        raise
    tmp.replace(path)


def _write(segment: Segment, tmp: Path) -> None:
    np.savez(
        tmp,
        doc_ids=np.asarray(segment.doc_ids, dtype=str),
        doc_start=segment.doc_start,
        chunk_index=segment.chunk_index,
        tokens=segment.tokens,
        token_start=segment.token_start,
        local_terms=segment.local_terms,
        data=segment.data,
        indices=segment.indices,
        indptr=segment.indptr,
        idf=segment.idf,
    )


def load_segment(path: Path, dead: set[str]) -> Segment:
    """Read a segment written by ``save_segment``; rows of ``dead`` documents stay dead."""
    with np.load(path, allow_pickle=False) as npz:
        segment = Segment(
            doc_ids=[str(d) for d in npz["doc_ids"].tolist()],
            doc_start=npz["doc_start"],
            chunk_index=npz["chunk_index"],
            tokens=npz["tokens"],
            token_start=npz["token_start"],
            local_terms=npz["local_terms"],
            data=npz["data"],
            indices=npz["indices"],
            indptr=npz["indptr"],
            idf=npz["idf"],
            name=path.stem,
        )
    segment.live = np.ones(segment.rows, dtype=bool)
    for doc_id in dead:
        span = segment.doc_range(doc_id)
        if span:
            segment.live[span[0] : span[1]] = False
    return segment
