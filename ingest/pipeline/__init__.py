"""A file's way into the indexes (who owns which step: docs/ingest.md)."""
