"""The BM25 keyword index: immutable segments on disk, merged as they grow."""
