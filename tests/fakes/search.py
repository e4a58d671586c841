"""An in-memory ``PassageSearch``: scores chunks by shared words, records its calls."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ingest.types import Chunk, Hit

_WORD = re.compile(r"\w+")


def make_chunk(
    path: str, page: int | None, text: str, index: int = 0, *, doc_id: str | None = None
) -> Chunk:
    """A chunk whose span is its whole text; the sha256 is derived from the doc id."""
    doc_id = doc_id or f"id-{path}"
    return Chunk(
        doc_id=doc_id,
        path=path,
        file=path.rsplit("/", 1)[-1],
        page=page,
        index=index,
        start=0,
        end=len(text),
        text=text,
        sha256=f"sha-{doc_id}",
    )


class FakeSearch:
    """Implements ``graph.deps.PassageSearch`` over a fixed list of chunks."""

    def __init__(self, chunks: Sequence[Chunk] = ()) -> None:
        self.chunks = list(chunks)
        self.calls: list[tuple[str, int, list[str] | None]] = []

    def search(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        self.calls.append((query, k, list(files) if files else None))
        words = set(_WORD.findall(query.lower()))
        hits = []
        for chunk in self.chunks:
            if files and chunk.path not in files and chunk.file not in files:
                continue
            shared = words & set(_WORD.findall(chunk.text.lower()))
            if shared:
                hits.append(Hit(chunk, len(shared) / len(words)))
        hits.sort(key=lambda h: -h.score)
        return hits[:k]

    def files(self) -> list[str]:
        return sorted({c.path for c in self.chunks})
