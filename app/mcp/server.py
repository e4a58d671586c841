"""The MCP server: Docent's tools, served over stdio here and at /mcp by app/api/routes/mcp."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from app.error_text import bounded
from app.mcp.tools import (
    REFUSALS,
    Answer,
    DocentTools,
    DocumentText,
)
from graph.records import DocumentList, FindResponse, SearchResponse, VerifyResponse

if TYPE_CHECKING:
    from app.container import Services
    from app.settings import Settings

INSTRUCTIONS = (
    "Docent answers from the documents in a folder on the user's own machine. "
    "search_documents finds passages without writing an answer; find_documents lists every "
    "document that matches (use its `matched` to count them); ask writes an answer that "
    "cites its sources as [n]; summarize_document reads one document whole, page by page, "
    "and sums it up with page citations; verify checks any text against the documents, sentence by "
    "sentence; list_documents and read_document show what is there."
)


def build_mcp_server(container: Services) -> MCPServer:
    """An MCP server whose tools call the container's services."""
    tools = DocentTools(chat=container.chat, search=container.search, documents=container.documents)
    # Logs go to stderr (stdout is the stdio transport) and only when they matter.
    server: MCPServer = MCPServer("docent", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    async def search_documents(
        query: str, files: list[str] | None = None, k: int = 5, scope: str | None = None
    ) -> SearchResponse:
        """Find the passages of the user's documents that best match the query (no LLM).

        files: only search these documents (file names or relative paths).
        k: how many passages to return (1-50).
        scope: only documents under this folder of the library, e.g. "tax/2024/".
        """
        return await _as_tool_error(tools.search_documents(query, files, k, scope))

    @server.tool()
    async def find_documents(query: str, scope: str | None = None) -> FindResponse:
        """Every document that mentions or is about the query, with no top-k (no LLM).

        Each comes with how many of its passages match and its best passage; `matched`
        counts them. A quoted string ("force majeure") or a code (ABC-123) must appear
        literally.
        scope: only documents under this folder of the library, e.g. "tax/2024/".
        """
        return await _as_tool_error(tools.find_documents(query, scope))

    @server.tool()
    async def ask(
        question: str, files: list[str] | None = None, scope: str | None = None
    ) -> Answer:
        """Answer a question from the user's documents, citing sources as [n].

        files: only use these documents (file names or relative paths).
        scope: only documents under this folder of the library, e.g. "tax/2024/".
        """
        return await _as_tool_error(tools.ask(question, files, scope))

    @server.tool()
    async def summarize_document(path: str) -> Answer:
        """Summarise one whole document (as list_documents names it), reading every page in
        order, citing pages as [n]. A long document takes several model calls; a summary
        asked again is served from the notes kept of its sections."""
        return await _as_tool_error(tools.summarize_document(path))

    @server.tool()
    async def verify(text: str, scope: str | None = None) -> VerifyResponse:
        """Check a text against the user's documents, sentence by sentence (no LLM).

        Each sentence gets a verdict (supported, partly, unsupported; none when it has
        nothing to check, as "Thanks!"; unchecked when the time for the check ran out),
        the numbers, dates and names the documents don't back (with what they say
        instead) and the passage that supports it.
        scope: only documents under this folder of the library, e.g. "tax/2024/".
        """
        return await _as_tool_error(tools.verify(text, scope))

    @server.tool()
    async def list_documents() -> DocumentList:
        """Every document in the folder, with its indexing status and page count."""
        return await _as_tool_error(tools.list_documents())

    @server.tool()
    async def read_document(path: str, page: int | None = None) -> DocumentText:
        """The text of one document (as list_documents names it), or of one page of it."""
        return await _as_tool_error(tools.read_document(path, page))

    return server


async def _as_tool_error(call: Any) -> Any:
    """A refusal reaches the client as the tool's error text, for the model to read: the
    reason the REST route gives, whichever tool and service refused."""
    try:
        return await call
    except REFUSALS as error:
        raise ToolError(bounded(str(error))) from error


async def serve_stdio(settings: Settings) -> int:
    """`run.py mcp`: the tools over stdin/stdout, for clients that launch their servers."""
    from app.container import build_services

    container = build_services(settings)
    # The window (if running) owns indexing; this process only reads the index and
    # writes sessions, so two processes never index the same folder at once.
    await container.start(watch=False, scan=False)
    try:
        await build_mcp_server(container).run_stdio_async()
    finally:
        await container.stop()
    return 0
