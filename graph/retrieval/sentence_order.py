"""Ordering the top passages by their best sentence: a stand-in for a reranker that needs
nothing downloaded, off unless the user turns it on (``sentence_order``).

A search often finds the right article but shows the wrong paragraph first: in most
SQuAD misses at R@1 the answer is in the second passage. The search's own embedding
model reads each sentence of the first ``TOP`` passages (with the neighbours they were
widened into), and those passages are ordered among themselves by their score plus
``WEIGHT`` times the z-score of their best sentence's cosine to the question, in standard
deviations of their scores. Measured in docs/retrieval.md ("Ordering the top passages by
their best sentence"). It is opt-in because every sentence is a run of the embedder,
which costs several times the search it follows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from graph.retrieval.scored import Passage
from graph.support.sentences import split_sentences

TOP = 5
"""Passages whose sentences are read: the head, where the first place is decided."""
WEIGHT = 0.5
"""How far one standard deviation of best-sentence cosine moves a passage, in standard
deviations of the head's scores; chosen on the SQuAD tuning split (.25, .5, .75, 1)."""


def order_by_sentences(
    passages: Sequence[Passage],
    question: Sequence[float],
    embed: Callable[[list[str]], Sequence[Sequence[float]]],
) -> list[Passage]:
    """``passages`` (best first) with the first ``TOP`` reordered among themselves by
    their best sentence; their first hit's ``sentence`` is set. ``embed`` is the search's
    embedding model's; its errors reach the caller, and nothing has changed then.

    Only the head's scores change, and only upwards (the passage with the weakest
    sentence keeps its score), so they stay above the rest and the list stays sorted."""
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
