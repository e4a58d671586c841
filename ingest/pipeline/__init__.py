"""A file's way into the indexes, in order: the watcher (and reconcile, at start) sees it,
the queue orders it, the indexer runs it through process (source → chunker → batcher →
write_behind), and progress tells everyone how far it is."""
