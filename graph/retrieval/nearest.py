"""The passages nearest a question that found nothing: what an honest "not found" shows."""

from __future__ import annotations

from graph.records import NearPassage
from graph.retrieval.turn_search import Search

NEAREST_SHOWN = 3
NEAREST_CHARS = 300
"""Each nearest passage is shown cut to about this long: enough to see what it is about."""


def nearest_passages(search: Search, count: int = NEAREST_SHOWN) -> list[NearPassage]:
    """The ``count`` nearest chunks, placed and scored, in one read (blocking: use a thread)."""
    seen = search.seen()
    if not seen:
        return []
    wanted = seen[: count * 2]  # some may be gone since
    chunks = {
        (c.doc_id, c.index): c for c in search.reader.dense.get_chunks([key for key, _ in wanted])
    }
    out: list[NearPassage] = []
    for key, score in wanted:
        chunk = chunks.get(key)
        path = search.library.path_of(key[0]) if chunk is not None else None
        if chunk is None or path is None:
            continue
        out.append(
            {
                "file": path.rsplit("/", 1)[-1],
                "path": path,
                "page": chunk.page,
                "text": _cut(chunk.text),
                "score": round(score, 4),
            }
        )
        if len(out) == count:
            break
    return out


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= NEAREST_CHARS else flat[: NEAREST_CHARS - 1].rstrip() + "…"
