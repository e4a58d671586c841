"""The MCP server: Docent's tools over streamable HTTP at /mcp and over stdio."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import ApiError, error_response
from app.api.security import require_token
from app.mcp_tools import (
    Answer,
    DocentTools,
    DocumentList,
    DocumentText,
    SearchResults,
    ToolFailed,
)

if TYPE_CHECKING:
    from app.container import Container
    from app.settings import Settings

INSTRUCTIONS = (
    "Docent answers from the documents in a folder on the user's own machine. "
    "search_documents finds passages without writing an answer; ask writes an answer that "
    "cites its sources as [n]; list_documents and read_document show what is there."
)


def build_mcp_server(container: Container) -> MCPServer:
    """An MCP server whose tools call the container's services."""
    tools = DocentTools(
        chat=lambda: container.chat,
        search=container.deps.search,
        documents=container.registry.list,
        docs_dir=container.settings.docs_dir,
    )
    # Logs go to stderr (stdout is the stdio transport) and only when they matter.
    server: MCPServer = MCPServer("docent", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    async def search_documents(
        query: str, files: list[str] | None = None, k: int = 5
    ) -> SearchResults:
        """Find the passages of the user's documents that best match the query (no LLM).

        files: only search these documents (file names or relative paths).
        k: how many passages to return (1-50).
        """
        return await _as_tool_error(tools.search_documents(query, files, k))

    @server.tool()
    async def ask(question: str, files: list[str] | None = None) -> Answer:
        """Answer a question from the user's documents, citing sources as [n].

        files: only use these documents (file names or relative paths).
        """
        return await _as_tool_error(tools.ask(question, files))

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
    """A ToolFailed reaches the client as the tool's error text, for the model to read."""
    try:
        return await call
    except ToolFailed as error:
        raise ToolError(str(error)) from error


class _TokenRequired:
    """The API's bearer token in front of the MCP endpoint."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            require_token(Request(scope))
        except ApiError as error:
            await error_response(error.status, error.code, error.message)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def install_mcp(app: FastAPI, container: Container) -> None:
    """Serve the MCP tools at /mcp (streamable HTTP) in ``app``, behind the token."""
    server = build_mcp_server(container)
    host = container.settings.host
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in ("127.0.0.1", "localhost", "[::1]", host)],
        allowed_origins=[f"http://{name}:*" for name in ("127.0.0.1", "localhost", "[::1]", host)],
    )
    # Stateless with JSON replies: each POST stands alone, so curl can drive it too.
    server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=security,
        host=host,
    )
    endpoint = _TokenRequired(StreamableHTTPASGIApp(server.session_manager))
    # A plain ASGI app as a route's endpoint: Starlette passes the request through as is.
    app.add_route("/mcp", endpoint, include_in_schema=False)  # type: ignore[arg-type]

    # The session manager needs a task group for the app's lifetime: run it inside the
    # app's own lifespan (the API app's and NiceGUI's alike).
    outer = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(asgi_app: Any) -> AsyncIterator[Any]:
        async with outer(asgi_app) as state, server.session_manager.run():
            yield state

    app.router.lifespan_context = lifespan


async def serve_stdio(settings: Settings) -> int:
    """`run.py mcp`: the tools over stdin/stdout, for clients that launch their servers."""
    from app.container import Container

    container = Container(settings)
    # The window (if running) owns indexing; this process only reads the index and
    # writes sessions, so two processes never index the same folder at once.
    await container.start(watch=False, scan=False)
    try:
        await build_mcp_server(container).run_stdio_async()
    finally:
        await container.stop()
    return 0
