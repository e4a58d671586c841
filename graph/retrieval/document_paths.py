"""Document keys to paths and back, through the registry. Indexes are keyed by content
(``ingest.keys.content_key``), so identical files share a key and a rename changes only the registry
row."""

from __future__ import annotations

from collections.abc import Sequence

from ingest.index.registry import Registry


class RegistryLibrary:
    """Implements ``graph.retrieval.ports.Library`` over the document registry."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def path_of(self, doc_id: str) -> str | None:
        """The first current path holding this content, or None once no file holds it."""
        paths = self.paths_of(doc_id)
        return paths[0] if paths else None

    def paths_of(self, doc_id: str) -> list[str]:
        """Every current path holding this content (identical files share it), sorted."""
        return self.registry.paths_for_keys([doc_id]).get(doc_id, [])

    def keys_for(self, files: Sequence[str]) -> list[str]:
        """Content keys of the documents named by relative path or file name (any case)."""
        return sorted(self.registry.keys_for_files(files))
