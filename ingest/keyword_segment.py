"""One immutable segment of the keyword index: some documents' chunks, scored by bm25s.

bm25s builds an eager index: every (chunk, term) cell holds ``idf(term) * tf part``, with
the idf of the segment's own documents. A query reweights each term's column by
``global idf / segment idf``, so a small new segment scores on the same scale as a large
old one. A document's chunks are contiguous rows of one segment; deleting a document only
marks its rows dead (``live``), and the index merges or compacts segments later. ``live``
is replaced, never written in place, so a reader holding the old mask keeps a consistent
view while a writer changes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import bm25s
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
    """Rows of several documents with their bm25s score matrix (CSC over local terms)."""

    doc_ids: list[str]
    doc_start: IntArray
    """Row where each document begins; ``doc_start[-1]`` is the row count."""
    chunk_index: IntArray
    tokens: IntArray
    token_start: IntArray
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

    def live_docs(self) -> list[DocRows]:
        """The documents still alive, with their tokens (for merging and compaction)."""
        out: list[DocRows] = []
        for i, doc_id in enumerate(self.doc_ids):
            lo, hi = int(self.doc_start[i]), int(self.doc_start[i + 1])
            if hi > lo and self.live[lo]:
                out.append(
                    DocRows(
                        doc_id,
                        self.chunk_index[lo:hi].tolist(),
                        [self.row_tokens(r) for r in range(lo, hi)],
                    )
                )
        return out

    def row_tokens(self, row: int) -> IntArray:
        return self.tokens[self.token_start[row] : self.token_start[row + 1]]

    def live_df(self) -> tuple[IntArray, npt.NDArray[np.int64]]:
        """(global term ids, how many live rows hold each): this segment's share of df."""
        per_column = np.diff(self.indptr)
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
    """Score the documents' rows with bm25s (method ``lucene``, k1 1.5, b 0.75)."""
    rows = [tokens for doc in docs for tokens in doc.tokens]
    doc_start = np.zeros(len(docs) + 1, dtype=np.int32)
    np.cumsum([len(doc.tokens) for doc in docs], out=doc_start[1:])
    token_start = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=token_start[1:])
    flat = np.concatenate(rows).astype(np.int32) if rows else np.zeros(0, dtype=np.int32)
    local_terms = np.unique(flat).astype(np.int32)
    if len(local_terms):
        local_rows = [np.searchsorted(local_terms, r).tolist() for r in rows]
        model = bm25s.BM25(method="lucene", k1=K1, b=B)
        built = model.build_index_from_ids(
            unique_token_ids=list(range(len(local_terms))),
            corpus_token_ids=local_rows,
            show_progress=False,
        )
        data = np.asarray(built["data"], dtype=np.float32)
        indices = np.asarray(built["indices"], dtype=np.int32)
        indptr = np.asarray(built["indptr"], dtype=np.int64)
    else:
        data = np.zeros(0, dtype=np.float32)
        indices = np.zeros(0, dtype=np.int32)
        indptr = np.zeros(1, dtype=np.int64)
    idf = lucene_idf(np.diff(indptr), len(rows))
    return Segment(
        doc_ids=[doc.doc_id for doc in docs],
        doc_start=doc_start,
        chunk_index=np.asarray([i for doc in docs for i in doc.indexes], dtype=np.int32),
        tokens=flat,
        token_start=token_start.astype(np.int64),
        local_terms=local_terms,
        data=data,
        indices=indices,
        indptr=indptr,
        idf=idf,
        live=np.ones(len(rows), dtype=bool),
        name=name,
    )


def save_segment(segment: Segment, path: Path) -> None:
    """Write the segment (without its live mask, which the manifest keeps) to ``path``."""
    tmp = path.with_suffix(".tmp.npz")
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
    tmp.replace(path)


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
