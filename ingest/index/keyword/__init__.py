"""The BM25 keyword index: terms, scores, immutable segments on disk (segments, store),
and the index that merges them (index)."""
