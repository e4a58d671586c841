"""Document keys to paths and back, through the registry: the one place that knows how.

Today a document's key is derived from its path; when the indexes are keyed by content,
only this module changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from ingest.registry import Registry
from ingest.types import DocStatus


class RegistryLibrary:
    """Implements ``graph.retrieval.ports.Library`` over the document registry."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def path_of(self, doc_id: str) -> str | None:
        """The path of a ready document, or None once it is gone or being replaced."""
        record = self.registry.get(doc_id)
        return record.path if record is not None and record.status == DocStatus.READY else None

    def keys_for(self, files: Sequence[str]) -> list[str]:
        """Keys of ready documents named by relative path or file name (any case)."""
        wanted = {f.replace("\\", "/").lower() for f in files}
        return [
            r.id
            for r in self.registry.list()
            if r.status == DocStatus.READY
            and (r.path.lower() in wanted or PurePosixPath(r.path).name.lower() in wanted)
        ]
