"""Ordering the top passages by their best sentence: a reranker needing no download, off unless
``sentence_order`` is on. In most SQuAD misses at R@1 the answer is in the second passage; but
embedding every sentence costs several times the search (docs/retrieval.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from graph.retrieval.scored import Passage
from graph.support.sentences import split_sentences

TOP = 5
"""Passages whose sentences are read: the head, where the first place is decided."""
WEIGHT = 0.5
"""Head-score standard deviations one standard deviation of best-sentence cosine moves a passage;
chosen on the SQuAD tuning split (.25, .5, .75, 1)."""


def order_by_sentences(
    passages: Sequence[Passage],
    question: Sequence[float],
    embed: Callable[[list[str]], Sequence[Sequence[float]]],
) -> list[Passage]:
    """``passages`` with the first ``TOP`` reordered by their best sentence; ``embed``'s errors
    reach the caller with nothing changed. Head scores only rise, so the list stays sorted."""
    head, rest = list(passages[:TOP]), list(passages[TOP:])
    if len(head) < 2:
        return list(passages)
    texts = [[s.text for s in split_sentences(p.text)] or [p.text] for p in head]
    vectors = np.asarray(embed([t for each in texts for t in each]), dtype=np.float32)
    cosines = vectors @ np.asarray(question, dtype=np.float32)
    best, at = [], 0
    for each in texts:
        best.append(float(cosines[at : at + len(each)].max()))
        at += len(each)
    for p, value in zip(head, best, strict=True):
        if p.hits:
            p.hits[0].sentence = value
    spread = np.asarray(best)
    if spread.std() <= 1e-9:
        return head + rest
    scores = np.asarray([p.score for p in head])
    step = WEIGHT * (scores.std() if scores.std() > 1e-9 else 1.0)
    for p, lift in zip(head, (spread - spread.min()) / spread.std(), strict=True):
        p.score += step * float(lift)
    return sorted(head, key=lambda p: -p.score) + rest
