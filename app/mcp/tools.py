"""What the MCP tools do, over the same services as the HTTP API (no MCP types here)."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from app.services.chat import ChatService, Failed, MessageRejected, Turn
from app.services.documents import DocumentError, DocumentService, DocumentView
from app.services.search import (
    EmptyQuery,
    EmptyScope,
    QueryTooLong,
    SearchService,
    TextTooLong,
    scope_entries,
)
from graph.events import payload
from graph.records import (
    DocumentList,
    FindResponse,
    SearchResponse,
    SentenceSupportPublic,
    Source,
    VerifyResponse,
)
from graph.scope import BadScope
from ingest.loaders import LoadedDocument, UnreadableFile, UnsupportedFile
from ingest.ocr.page_reader import NeedsOcr

MAX_READ_CHARS = 60_000
"""Most text one read_document call returns; a client reads a long PDF page by page."""


class ToolFailed(Exception):
    """A tool could not do what was asked; the message says what to do instead."""


REFUSALS: tuple[type[Exception], ...] = (
    ToolFailed,
    EmptyQuery,
    QueryTooLong,
    TextTooLong,
    EmptyScope,
    BadScope,
    MessageRejected,
    DocumentError,
)
"""What the tools and the services they call refuse with a message that says what went
wrong and what to do (the REST routes' error messages): every tool gives it as its error
text. Anything else is a crash, which the client sees only as "Error executing tool"."""


class Answer(BaseModel):
    answer: str = Field(description="Cites the sources as [n].")
    sources: list[Source]
    session_id: str = Field(description="The session in Docent that keeps this answer.")
    support: list[SentenceSupportPublic] | None = Field(
        None,
        description="Each sentence checked against the sources: verdict, missing items and "
        "the supporting span (null for an answer not from the documents).",
    )


class DocumentText(BaseModel):
    path: str
    page: int | None = Field(description="The page returned, or None for the whole text.")
    pages: int | None = Field(description="How many pages the document has, if paged.")
    text: str
    truncated: bool = Field(description="True when the text was cut at the size limit.")


class DocentTools:
    """The tools, each a thin call into ChatService, SearchService or DocumentService."""

    def __init__(
        self,
        chat: ChatService,
        search: SearchService,
        documents: DocumentService,
    ) -> None:
        self._chat = chat
        self._search = search
        self._documents = documents

    async def search_documents(
        self, query: str, files: list[str] | None = None, k: int = 5, scope: str | None = None
    ) -> SearchResponse:
        if not query.strip():
            raise ToolFailed("The query is empty; say what to look for.")
        k = max(1, min(k, 50))
        # The same search as POST /api/search: passages past the relevance floor.
        results = await self._search.search(query, files or (), k, scope)
        return SearchResponse(results=results)

    async def find_documents(self, query: str, scope: str | None = None) -> FindResponse:
        # The same find as POST /api/find: every matching document, no top-k.
        return await self._search.find(query, scope)

    async def verify(self, text: str, scope: str | None = None) -> VerifyResponse:
        if not text.strip():
            raise ToolFailed("The text is empty; give the text to check.")
        checked = await self._search.verify(text, scope=scope)
        return VerifyResponse(sentences=checked)

    async def ask(
        self, question: str, files: list[str] | None = None, scope: str | None = None
    ) -> Answer:
        # Files become @mentions, so the graph resolves them exactly as it does in the window.
        mentions = " ".join(f'@"{name}"' for name in files or ())
        text = f"{mentions} {question}" if mentions else question
        entries = scope_entries(scope)
        turn = self._chat.start_turn(None, text, "rag" if files else "auto", scope=entries)
        return await _answer(turn)

    async def summarize_document(self, path: str) -> Answer:
        """The whole document read in order (section by section when it is long), summed up
        with page citations; as the window's "Whole documents" mode does it."""
        record = self._find(path)
        if record.status != "ready":
            raise ToolFailed(f"{record.path} could not be indexed ({record.error}); fix it first.")
        text = f'Summarise @"{record.path}"'
        turn = self._chat.start_turn(None, text, "document")
        return await _answer(turn)

    async def list_documents(self) -> DocumentList:
        return DocumentList(documents=self._documents.list())

    async def read_document(self, path: str, page: int | None = None) -> DocumentText:
        record = self._find(path)
        try:
            # Parsed in a parser process, and only as far as the answer needs.
            text, count = await asyncio.to_thread(self._read, record.id, page)
        except _NoSuchPage as missing:
            count_text = f"{missing.count} pages" if missing.count else "no pages (ask without one)"
            raise ToolFailed(f"{record.path} has {count_text}; there is no page {page}.") from None
        except (UnsupportedFile, UnreadableFile, OSError) as error:
            raise ToolFailed(f"{record.path} can't be read: {error}") from error
        except NeedsOcr:
            raise ToolFailed(
                f"{record.path} is scanned{f' on page {page}' if page else ''}: its text was"
                " read by OCR when it was indexed; find it with search_documents."
            ) from None
        return DocumentText(
            path=record.path,
            page=page,
            pages=count,
            text=text[:MAX_READ_CHARS],
            truncated=len(text) > MAX_READ_CHARS,
        )

    def _read(self, doc_id: str, page: int | None) -> tuple[str, int | None]:
        """The text of one page, or of the document up to just past ``MAX_READ_CHARS``,
        with the page count of a paged document (None for the others)."""
        with self._documents.open(doc_id) as document:
            count = document.page_count
            if page is not None and not 1 <= page <= (count or 1):
                raise _NoSuchPage(count)
            return _text(document, page), count

    def _find(self, name: str) -> DocumentView:
        """The document by relative path, or by file name when only one has it."""
        wanted = name.replace("\\", "/").strip().lower()
        records = self._documents.list()
        exact = [d for d in records if d.path.lower() == wanted]
        named = [d for d in records if d.path.rsplit("/", 1)[-1].lower() == wanted]
        found = exact or named
        if len(found) != 1:
            why = "Several documents are" if found else "No document is"
            raise ToolFailed(
                f"{why} called '{name}'. list_documents gives every path; use one of those."
            )
        if found[0].status not in ("ready", "error"):
            raise ToolFailed(f"{found[0].path} is still being indexed; try again shortly.")
        return found[0]


class _NoSuchPage(Exception):
    def __init__(self, count: int | None) -> None:
        self.count = count


def _text(document: LoadedDocument, page: int | None) -> str:
    """Page ``page`` of ``document``, or its pages joined until there are enough."""
    texts: list[str] = []
    size = 0
    for number, found in enumerate(document.pages(), start=1):
        if page is not None:
            if number == page:
                return found.text
            continue
        texts.append(found.text)
        size += len(found.text) + 2
        if size > MAX_READ_CHARS:
            break  # the rest is never read (its parser process is let go)
    return "\n\n".join(texts)


async def _answer(turn: Turn) -> Answer:
    """The turn's answer once it is done, or its failure as the tool's."""
    final = await turn.result()
    if isinstance(final, Failed):
        raise ToolFailed(final.message)
    return Answer.model_validate(payload(final))
