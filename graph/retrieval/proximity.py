"""Term proximity: the model-free reordering of the shown passages when no reranker runs. BM25
scores a whole chunk, so scattered mentions can outrank the sentence that answers; the best
sentence's share of the query's idf moves each candidate, by the trust fusion gave keywords."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from graph.retrieval.scored import Candidate
from ingest.index.keyword.terms import terms

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
"""Where a sentence ends: . ! ? before a space (not inside "3.5"), CJK stops, line breaks."""


STRENGTH = 1.5
"""Standard deviations of fused score one standard deviation of sentence evidence moves a candidate,
at full keyword trust; 1.5 on the SQuAD tuning split raises R@1 everywhere and lowers no metric
(docs/retrieval.md)."""


def best_sentence_share(text: str, weights: Mapping[str, float]) -> float:
    """The largest share of the query's idf mass found within one sentence of ``text``."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    best = 0.0
    for sentence in _SENTENCE_END.split(text):
        found = set(terms(sentence)) & weights.keys()
        if found:
            best = max(best, sum(weights[t] for t in found) / total)
    return best


def order_by_proximity(
    candidates: Sequence[Candidate], weights: Mapping[str, float], trust: float
) -> list[Candidate]:
    """``candidates`` (loaded) reordered by fused score plus proximity; sets ``final``."""
    for c in candidates:
        c.proximity = best_sentence_share(c.text, weights)
        c.final = c.fused
    if len(candidates) >= 2:
        share = np.asarray([c.proximity for c in candidates])
        fused = np.asarray([c.fused for c in candidates])
        if share.std() > 1e-9:
            spread = STRENGTH * trust * fused.std()
            shift = spread * (share - share.mean()) / share.std()
            for c, delta in zip(candidates, shift.tolist(), strict=True):
                c.final = c.fused + delta
    return sorted(candidates, key=lambda c: -(c.final if c.final is not None else c.fused))
