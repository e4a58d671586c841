"""/mcp: the MCP tools over streamable HTTP, beside the API's other routes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from app.container import Services


class McpEndpoint:
    """/mcp as a plain ASGI app: stateless streamable HTTP, answered in JSON. Each request
    runs in its own short-lived session manager, so the endpoint needs no start-up or
    shutdown hook from whichever app hosts it; the guard decides who may call it."""

    def __init__(self) -> None:
        self._servers: dict[int, MCPServer] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The MCP SDK loads on the first MCP request, not while the window starts (it is
        # most of a second of imports that a user without an MCP client never needs).
        from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
        from mcp.server.transport_security import TransportSecuritySettings

        from app.mcp.server import build_mcp_server

        request = Request(scope)
        container: Services = await request.app.state.starting.services()
        server = self._servers.get(id(container))
        if server is None:
            server = self._servers[id(container)] = build_mcp_server(container)
        server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            # The SDK would check Host and Origin again with its own list; the guard's
            # answer is the one answer (403 forbidden_host / forbidden_origin).
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        manager = server.session_manager  # the one just made, for this request alone
        async with manager.run():
            await StreamableHTTPASGIApp(manager)(scope, receive, send)


router = APIRouter()
# A plain ASGI app as the endpoint: Starlette hands it the request untouched. Stateless,
# the server has no stream to offer on GET (the SDK would hold it open with nothing to
# say) and no session to end on DELETE: both get the JSON 405 every route gives.
router.add_route(
    "/mcp",
    McpEndpoint(),  # type: ignore[arg-type]
    methods=["POST"],
    include_in_schema=False,
)
