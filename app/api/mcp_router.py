"""/mcp: the MCP tools over streamable HTTP, beside the API's other routes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from app.api.errors import ApiError, error_response
from app.api.security import require_token
from app.mcp_server import build_mcp_server

if TYPE_CHECKING:
    from app.container import Container


class McpEndpoint:
    """/mcp as a plain ASGI app: stateless streamable HTTP, answered in JSON.

    Each request runs in its own short-lived session manager, so the endpoint needs no
    start-up or shutdown hook from whichever app hosts it (the API app, or the window's,
    which adds its routes once the services are ready). The server is built on first use,
    around the container of the app serving the request.
    """

    def __init__(self) -> None:
        self._servers: dict[int, MCPServer] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            require_token(request)
        except ApiError as error:
            await error_response(error.status, error.code, error.message)(scope, receive, send)
            return
        container: Container = await request.app.state.services.container()
        server = self._servers.get(id(container))
        if server is None:
            server = self._servers[id(container)] = build_mcp_server(container)
        server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            transport_security=_transport_security(container.settings.host),
        )
        manager = server.session_manager  # the one just made, for this request alone
        async with manager.run():
            await StreamableHTTPASGIApp(manager)(scope, receive, send)


def _transport_security(host: str) -> TransportSecuritySettings:
    """The SDK's own Host and Origin check, agreeing with the API's."""
    names = ("127.0.0.1", "localhost", "[::1]", host)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"{scheme}://{name}:*" for name in names for scheme in ("http", "https")],
    )


router = APIRouter()
# A plain ASGI app as the endpoint: Starlette hands it the request untouched.
router.add_route(
    "/mcp",
    McpEndpoint(),  # type: ignore[arg-type]
    methods=["GET", "POST", "DELETE"],
    include_in_schema=False,
)
