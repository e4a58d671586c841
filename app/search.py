"""What every edge's search shares: the query cap and the passages it shows.

``POST /api/search`` and MCP's ``search_documents`` both call these, so a limit or a field
changes in one place.
"""

from __future__ import annotations

from typing import Any

from graph.retrieval.types import Retrieval


class QueryTooLong(ValueError):
    """The query is over the setting ``max_query_chars``; the message says what to do."""


def check_query_length(query: str, limit: int) -> None:
    """Raise QueryTooLong when ``query`` is over ``limit`` characters."""
    if len(query) > limit:
        raise QueryTooLong(
            f"The query is {len(query):,} characters; the limit is {limit:,}. "
            "Shorten it to the words that matter."
        )


def public_passages(found: Retrieval) -> list[dict[str, Any]]:
    """The passages a search shows, as the API and the MCP tool return them."""
    return [
        {
            "file": p.file,
            "path": p.path,
            "page": p.page,
            "text": p.text,
            "score": round(p.score, 4),
            "scores": p.scores(),
            "ocr": p.ocr_confidence is not None,
            "ocr_confidence": p.ocr_confidence,
        }
        for p in found.passages
    ]
