"""Content keys and the paths that hold them: a vector search seen by file (each hit named
by the paths that hold its content now, content no path holds left out)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any, Protocol

from ingest.document_parts import Hit

NO_FILES: dict[str, Any] = {"doc_id": {"$in": []}}
"""The filter for files that hold no indexed content: nothing can match."""


class KeyLookup(Protocol):
    """The registry's read side: which paths a content key answers for, and back."""

    def paths_for_keys(self, keys: Iterable[str]) -> dict[str, list[str]]: ...

    def keys_for_files(self, files: Iterable[str]) -> set[str]: ...


def files_filter(lookup: KeyLookup | None, files: Sequence[str]) -> dict[str, Any]:
    """A Chroma ``where`` for the chunks of ``files``; ``NO_FILES`` when none is indexed."""
    if lookup is not None:
        keys = sorted(lookup.keys_for_files(files))
        return {"doc_id": {"$in": keys}} if keys else NO_FILES
    names = sorted({name.replace("\\", "/") for name in files})
    return {"$or": [{"file": {"$in": names}}, {"path": {"$in": names}}]}


def resolve_hits(lookup: KeyLookup | None, hits: list[Hit]) -> list[Hit]:
    """Put each hit under the paths holding its content now; drop content no path holds."""
    if lookup is None:
        return hits
    paths = lookup.paths_for_keys({hit.chunk.doc_id for hit in hits})
    resolved = []
    for hit in hits:
        where = paths.get(hit.chunk.doc_id)
        if where:
            chunk = replace(hit.chunk, path=where[0], file=PurePosixPath(where[0]).name)
            resolved.append(Hit(chunk=chunk, score=hit.score, paths=tuple(where)))
    return resolved
