"""SearchService: searching the library and checking a text against it, for every entry
point, so a limit, a scope or a field changes in one place. Each call reads through one
``Search`` of its own, so a model switch waits for it and never mixes two models."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from app.error_text import listed
from graph.records import (
    FindResponse,
    FoundDocument,
    FoundPassage,
    SearchResultPublic,
    SentenceSupportPublic,
)
from graph.retrieval.find_documents import Found, find
from graph.retrieval.retriever import Retriever
from graph.retrieval.scored import Retrieval
from graph.scope import Scope, clean_entry, in_scope, normalise
from graph.support import SentenceSupport
from graph.support.verify_text import verify_in_library
from ingest.keys import doc_id_for

SEARCH_SHARE = 0.8
"""Of a verify's time budget, what finding its claims' passages and embedding their
sentences may take (the most of it: 22 of 27 s for 20,000 characters); judging the claims
read takes the rest, which grows with their number times the passages'."""


class QueryTooLong(ValueError):
    """The query is over the setting ``max_query_chars``; the message says what to do."""


class EmptyQuery(ValueError):
    """Nothing to look for."""


class TextTooLong(ValueError):
    """A text to verify is over the setting ``verify_max_chars``."""


class EmptyScope(LookupError):
    """No document of the library is in the scope (and files) asked for."""


def scope_entries(scope: str | Sequence[str] | None) -> Scope:
    """A scope as the API gives it (one folder, or a list of folders and files) as entries;
    a lone name without a slash is a folder, as in ``"scope": "tax"``."""
    if scope is None:
        return []
    if isinstance(scope, str):
        entry = clean_entry(scope)
        return [entry.rstrip("/") + "/"] if entry else []
    return normalise(scope)


class SearchService:
    """Search and verify over the library, each call with its own search."""

    def __init__(
        self,
        retriever: Retriever,
        known_files: Callable[[], list[str]],
        *,
        max_query_chars: int,
        max_text_chars: int,
        verify_seconds: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._retriever = retriever
        self._known_files = known_files
        """Relative paths of the documents that can be searched."""
        self.max_query_chars = max_query_chars
        self.max_text_chars = max_text_chars
        self.verify_seconds = verify_seconds
        """A verify's budget, from the moment it is asked (so calls made at once each end
        in about that long, however they share the machine)."""
        self.clock = clock

    async def search(
        self,
        query: str,
        files: Sequence[str] = (),
        k: int = 5,
        scope: str | Sequence[str] | None = None,
    ) -> list[SearchResultPublic]:
        """The passages for ``query`` past the relevance floor, best first (no LLM); within
        ``scope`` (a folder, or folders and files) when given."""
        self._check_query(query)
        entries = scope_entries(scope)
        if not entries:
            found = await asyncio.to_thread(self._retriever.retrieve, query, files, k)
            return public_passages(found)
        within = await asyncio.to_thread(self._limit, files, entries)
        found = await asyncio.to_thread(self._retrieve_within, query, within, k)
        return public_passages(found)

    async def find(
        self,
        query: str,
        scope: str | Sequence[str] | None = None,
        files: Sequence[str] = (),
    ) -> FindResponse:
        """Every document with a passage about ``query`` (no top-k), as ``POST /api/find``."""
        self._check_query(query)
        entries = scope_entries(scope)
        found = await asyncio.to_thread(self._find, query, entries, files)
        return public_found(found)

    def _find(self, query: str, entries: Scope, files: Sequence[str]) -> Found:
        within = self._limit(files, entries) if entries or files else []
        with self._retriever.begin() as search:
            return find(search, query, self._known_files(), within)

    def _retrieve_within(self, query: str, within: Sequence[str], k: int) -> Retrieval:
        with self._retriever.begin() as search:
            return search.retrieve(query, k=k, within=within)

    def _check_query(self, query: str) -> None:
        if not query.strip():
            raise EmptyQuery("The query is empty; say what to look for.")
        if len(query) > self.max_query_chars:
            raise QueryTooLong(
                f"The query is {len(query):,} characters; the limit is "
                f"{self.max_query_chars:,}. Shorten it to the words that matter."
            )

    async def verify(
        self, text: str, files: Sequence[str] = (), scope: str | Sequence[str] | None = None
    ) -> list[SentenceSupportPublic]:
        """Each claim of ``text`` checked against the library's passages for it, within
        ``files`` and ``scope`` when given: one search and one embedder call for the check."""
        if len(text) > self.max_text_chars:
            raise TextTooLong(
                f"The text is {len(text):,} characters; the limit is {self.max_text_chars:,}. "
                "Check it in parts."
            )
        deadline = self.clock() + SEARCH_SHARE * self.verify_seconds
        entries = scope_entries(scope)
        limited = await asyncio.to_thread(self._limit, files, entries) if entries else files
        checked = await asyncio.to_thread(self._verify, text, limited, deadline)
        return [sentence.as_dict() for sentence in checked]

    def _limit(self, files: Sequence[str], entries: Scope) -> list[str]:
        """The paths a call is limited to: those in the scope's ``entries``, kept to
        ``files`` when some are named; refused when that leaves none."""
        inside = in_scope(self._known_files(), entries)
        if files:
            inside = in_scope(inside, normalise(files))
        if not inside:
            named = f" named {listed(list(files))}" if files else ""
            where = f" in {listed(entries)}" if entries else " in the library"
            raise EmptyScope(
                f"No document{named} is{where}. The library's paths are relative to "
                "the documents folder, e.g. 'tax/2024/'; GET /api/documents lists them."
            )
        return inside

    def _verify(self, text: str, files: Sequence[str], deadline: float) -> list[SentenceSupport]:
        def in_time() -> bool:
            return self.clock() < deadline

        with self._retriever.begin() as search:
            embedder = search.reader.embedder
            return verify_in_library(text, search, embedder, files, in_time=in_time)


def public_passages(found: Retrieval) -> list[SearchResultPublic]:
    """The passages a search shows, as the API and the MCP tool return them."""
    return [
        SearchResultPublic(
            file=p.file,
            path=p.path,
            page=p.page,
            text=p.text,
            score=round(p.score, 4),
            scores=p.scores(),
            ocr=p.ocr_confidence is not None,
            ocr_confidence=p.ocr_confidence,
        )
        for p in found.passages
    ]


def public_found(found: Found) -> FindResponse:
    """A find's result as the API and the MCP tool return it."""
    documents = [
        FoundDocument(
            id=doc_id_for(d.path),
            file=d.file,
            path=d.path,
            hits=d.hits,
            best=FoundPassage(
                page=d.best.chunk.page if d.best.chunk else None,
                text=d.best.chunk.text if d.best.chunk else "",
                scores=d.best.scores(),
            ),
        )
        for d in found.documents
    ]
    return FindResponse(documents=documents, searched=found.searched, matched=len(documents))
