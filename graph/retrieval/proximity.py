"""Term proximity: the model-free reordering of the passages shown, when no reranker runs.

BM25 scores a whole chunk, so a chunk that mentions the query's words in scattered
sentences can outrank the one with the sentence that answers. Here each shown candidate
also gets the share of the query's idf mass that its best single sentence holds, and that
evidence moves it up or down within the shown set, with the trust fusion gave keyword
evidence for this query: for a paraphrased question, where keywords were not trusted,
it changes little. The evidence is standardised within the set and scaled to the spread of
the fused scores it adjusts, times one constant (``STRENGTH``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from graph.retrieval.scored import Candidate
from ingest.index.keyword.terms import terms

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
"""Where a sentence ends: . ! ? before a space (not inside "3.5"), CJK stops, line breaks."""


STRENGTH = 1.5
"""How far one standard deviation of sentence evidence moves a candidate, in standard
deviations of the fused scores (at full keyword trust). Chosen on the SQuAD tuning split
(1.0, 1.25, 1.5, 1.75, 2 and 3 tried) once the embedder ran in int8: at 1.5 no metric of
any set falls, and R@1 rises on all three (docs/retrieval.md)."""


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
    """``candidates`` (texts loaded) reordered by fused score plus proximity evidence;
    each gets ``proximity`` and ``final`` set."""
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
