"""SearchService: searching the library, and checking a text against it, for every entry
point (``POST /api/search`` and ``/api/verify``, MCP's ``search_documents`` and
``verify``), so a limit, a scope or a field changes in one place.

Blocking work (embedding, the indexes) runs in a worker thread; each call reads through
one ``Search`` of its own, so a model switch waits for it and never mixes two models.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from graph.retrieval.retriever import Retriever
from graph.retrieval.types import Retrieval
from graph.support import SentenceSupport
from graph.support.library import verify_in_library


class QueryTooLong(ValueError):
    """The query is over the setting ``max_query_chars``; the message says what to do."""


class TextTooLong(ValueError):
    """A text to verify is over the setting ``max_message_chars``."""


class EmptyScope(LookupError):
    """No document of the library is in the scope (and files) asked for."""


def in_scope(paths: Sequence[str], scope: str) -> list[str]:
    """The ``paths`` under the folder ``scope`` of the documents folder ("tax/2024/";
    the trailing slash may be left out, and "" or "/" is the whole library)."""
    folder = scope.replace("\\", "/").strip().strip("/")
    if not folder:
        return list(paths)
    return [p for p in paths if p.startswith(folder + "/")]


class SearchService:
    """Search and verify over the library, each call with its own search."""

    def __init__(
        self,
        retriever: Retriever,
        known_files: Callable[[], list[str]],
        *,
        max_query_chars: int,
        max_text_chars: int,
    ) -> None:
        self._retriever = retriever
        self._known_files = known_files
        """Relative paths of the documents that can be searched."""
        self.max_query_chars = max_query_chars
        self.max_text_chars = max_text_chars

    async def search(
        self, query: str, files: Sequence[str] = (), k: int = 5
    ) -> list[dict[str, Any]]:
        """The passages for ``query`` past the relevance floor, best first (no LLM)."""
        if len(query) > self.max_query_chars:
            raise QueryTooLong(
                f"The query is {len(query):,} characters; the limit is "
                f"{self.max_query_chars:,}. Shorten it to the words that matter."
            )
        found = await asyncio.to_thread(self._retriever.retrieve, query, files, k)
        return public_passages(found)

    async def verify(
        self, text: str, files: Sequence[str] = (), scope: str | None = None
    ) -> list[SentenceSupport]:
        """Each claim of ``text`` checked against the library's passages for it, within
        ``files`` and ``scope`` when given: one search and one embedder call for the check."""
        if len(text) > self.max_text_chars:
            raise TextTooLong(
                f"The text is {len(text):,} characters; the limit is {self.max_text_chars:,}. "
                "Check it in parts."
            )
        limited = await asyncio.to_thread(self._limit, files, scope)
        return await asyncio.to_thread(self._verify, text, limited)

    def _limit(self, files: Sequence[str], scope: str | None) -> list[str]:
        """The files a call is limited to: ``files``, kept to ``scope`` when one is given."""
        if scope is None:
            return list(files)
        inside = in_scope(self._known_files(), scope)
        if files:
            wanted = set(files)
            inside = [p for p in inside if p in wanted or p.rsplit("/", 1)[-1] in wanted]
        if not inside:
            named = f" holding {', '.join(files)}" if files else ""
            raise EmptyScope(
                f"No document{named} is in '{scope}'. The library's paths are relative to "
                "the documents folder, e.g. 'tax/2024/'; GET /api/documents lists them."
            )
        return inside

    def _verify(self, text: str, files: Sequence[str]) -> list[SentenceSupport]:
        with self._retriever.begin() as search:
            return verify_in_library(text, search, search.reader.embedder, files)


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
