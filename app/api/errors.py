"""API errors in the contract's shape: ``{"error": {"code", "message"}}``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.api.guard.guard import is_api_path
from app.error_text import bounded
from ingest.disk import is_disk_full

HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}
PROBLEMS_SHOWN = 5
"""Problems of an invalid request its message names (a list of 100,000 wrong items has
as many); the rest are counted."""


class ApiError(Exception):
    """An error the API reports to its caller as JSON."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_response(status: int, code: str, message: str) -> JSONResponse:
    """Every error body of the API; the message bounded, whatever of the request it repeats."""
    body = {"error": {"code": code, "message": bounded(message)}}
    return JSONResponse(body, status_code=status)


def _describe(error: RequestValidationError) -> str:
    problems = error.errors()
    parts = []
    for item in problems[:PROBLEMS_SHOWN]:
        where = ".".join(str(p) for p in item.get("loc", ()) if p != "body")
        parts.append(f"{where}: {item.get('msg')}" if where else str(item.get("msg")))
    more = len(problems) - PROBLEMS_SHOWN
    return "Invalid request. " + "; ".join(parts) + (f"; and {more:,} more" if more > 0 else "")


def _http_message(request: Request, exc: StarletteHTTPException) -> str:
    if exc.status_code == 404 and exc.detail == "Not Found":
        return f"There is no {request.url.path} in Docent's API; see docs/ for its routes."
    if exc.status_code == 405:
        return f"{request.url.path} does not take {request.method} requests."
    return str(exc.detail)


def install_error_handlers(app: FastAPI) -> None:
    """JSON errors for the API; paths outside it keep what the app did before (the window)."""

    async def on_api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.code, exc.message)

    async def on_invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error_response(422, "invalid_request", _describe(exc))

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_invalid)
    # NiceGUI answers unknown paths with the window's page (its 404 handler); under
    # /api, /v1 and /mcp an unknown path or method must get JSON instead.
    for status in HTTP_CODES:
        app.add_exception_handler(status, _json_under_api(app.exception_handlers.get(status)))
    app.add_exception_handler(StarletteHTTPException, _json_under_api(None))
    app.add_exception_handler(
        Exception, _unexpected_under_api(app.exception_handlers.get(Exception))
    )


def _unexpected_under_api(fallback: Any) -> Any:
    """A failure no route expected: JSON under the API (507 when the disk is full, which a
    person can fix), else what the app did before (NiceGUI's error page)."""
    fallback = getattr(fallback, "window_fallback", fallback)

    async def handle(request: Request, exc: Exception) -> Response:
        if is_api_path(request.url.path):
            if is_disk_full(exc):
                where = getattr(exc, "filename", None) or getattr(
                    request.app.state, "data_dir", "Docent's data dir"
                )
                return error_response(
                    507,
                    "disk_full",
                    f"The disk holding {where} is full. Free some space on it and try again.",
                )
            return error_response(
                500,
                "internal_error",
                f"Docent failed unexpectedly ({type(exc).__name__}); its log has the details.",
            )
        if fallback is not None:
            return await fallback(request, exc)
        raise exc

    handle.window_fallback = fallback  # type: ignore[attr-defined]
    return handle


def _json_under_api(fallback: Any) -> Any:
    fallback = getattr(fallback, "window_fallback", fallback)  # installed twice (tests)

    async def handle(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if is_api_path(request.url.path):
            code = HTTP_CODES.get(exc.status_code, "http_error")
            response = error_response(exc.status_code, code, _http_message(request, exc))
            if exc.headers:
                response.headers.update(exc.headers)
            return response
        if fallback is not None:
            return await fallback(request, exc)
        return await http_exception_handler(request, exc)

    handle.window_fallback = fallback  # type: ignore[attr-defined]
    return handle
