"""Fusing the dense and keyword lists into one order, adapted to each query: which search is right
flips with corpus and question, so each list is z-scored against its own pool and trusted by how
sharply its best stands out; quoted phrases, numbers and codes shift trust to keywords."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from graph.retrieval.scored import Candidate

RRF_K = 60
"""The constant of reciprocal rank fusion, as published (Cormack et al. 2009)."""

_EXACT = re.compile(r'"[^"]{2,}"|\b\w*\d\w*\b|\b[A-Z]{2,}\b|\w+[-_./]\w+')
"""Quoted phrases, anything with a digit, acronyms, and joined codes (e.g. ``ISO-8601``)."""

Fusion = Callable[[Sequence[Candidate], str], float | None]
"""Sets each candidate's ``fused`` score; returns its trust in keywords (0..1), or None when it has
none (then no proximity step follows)."""


def rrf(candidates: Sequence[Candidate], query: str = "") -> float | None:
    """Equal-weight reciprocal rank fusion (the common baseline)."""
    for c in candidates:
        c.fused = sum(1.0 / (RRF_K + rank) for rank in (c.dense_rank, c.bm25_rank) if rank)
    return None


def dense_only(candidates: Sequence[Candidate], query: str = "") -> float | None:
    """Order by cosine similarity alone."""
    for c in candidates:
        c.fused = c.dense if c.dense is not None else -1.0
    return None


def keyword_only(candidates: Sequence[Candidate], query: str = "") -> float | None:
    """Order by BM25 alone."""
    for c in candidates:
        c.fused = c.bm25
    return None


def _standardise(values: np.ndarray, pool: np.ndarray) -> tuple[np.ndarray, float]:
    """(z-scores of ``values`` against ``pool``, z of the pool's best): how peaked it is."""
    if len(pool) < 2:
        return np.zeros_like(values), 0.0
    mean, std = float(pool.mean()), float(pool.std())
    if std <= 1e-9:
        return np.zeros_like(values), 0.0
    return (values - mean) / std, (float(pool.max()) - mean) / std


def exact_share(query: str) -> float:
    """How much of the query only exact matching can honour (0..1)."""
    words = re.findall(r"\w+", query)
    if not words:
        return 0.0
    exact = sum(len(re.findall(r"\w+", m.group())) for m in _EXACT.finditer(query))
    return min(1.0, exact / len(words))


def adaptive(candidates: Sequence[Candidate], query: str = "") -> float | None:
    """Docent's fusion: z-scored lists weighted by how peaked each is; returns keywords' weight."""
    if not candidates:
        return None
    dense = np.asarray([c.dense if c.dense is not None else np.nan for c in candidates])
    floor = np.nanmin(dense) if np.isfinite(dense).any() else 0.0
    dense = np.where(np.isfinite(dense), dense, floor)
    bm25 = np.asarray([c.bm25 for c in candidates], dtype=np.float64)
    dense_pool = np.asarray([c.dense for c in candidates if c.dense_rank], dtype=np.float64)
    bm25_pool = np.asarray([c.bm25 for c in candidates if c.bm25_rank], dtype=np.float64)
    z_dense, peak_dense = _standardise(dense, dense_pool)
    z_bm25, peak_bm25 = _standardise(bm25, bm25_pool)
    peak_bm25 *= 1.0 + exact_share(query)
    total = peak_dense + peak_bm25
    w_dense = 0.5 if total <= 0 else peak_dense / total
    fused = w_dense * z_dense + (1.0 - w_dense) * z_bm25
    for c, value in zip(candidates, fused.tolist(), strict=True):
        c.fused = value
    return 1.0 - w_dense


FUSIONS: dict[str, Fusion] = {
    "bm25": keyword_only,
    "dense": dense_only,
    "rrf": rrf,
    "docent": adaptive,
}
