"""A turn's passages numbered as the sources an answer may cite, for search and find alike."""

from __future__ import annotations

from typing import Any

from graph.records import NumberedPassage, Source

SNIPPET_CHARS = 240


def snippet(text: str) -> str:
    """The passage's text on one line, cut to what a source card shows."""
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"


def numbered_passage(
    n: int,
    text: str,
    *,
    file: str,
    path: str,
    page: int | None,
    score: float,
    scores: dict[str, Any],
    start: int,
    end: int,
) -> NumberedPassage:
    """Passage ``n`` with its source: where it is, its snippet and the scores that chose it."""
    source = Source(
        n=n,
        file=file,
        path=path,
        page=page,
        snippet=snippet(text),
        score=round(score, 4),
        scores=scores,
        start=start,
        end=end,
    )
    return {"source": source, "text": text}
