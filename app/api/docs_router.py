"""OpenAPI at /openapi.json and its page at /docs, in whichever app hosts the API."""

from __future__ import annotations

from fastapi import FastAPI

DESCRIPTION = (
    "Docent's localhost API. Every route but `/api/health` needs "
    "`Authorization: Bearer <token>` (`uv run run.py token` prints it). "
    "`docs/api.md` in the project describes every route, event and error code."
)


def install_docs(app: FastAPI) -> None:
    """Serve the schema and Swagger UI; NiceGUI's app has them off, the API app on."""
    app.title = "Docent API"
    app.description = DESCRIPTION
    if app.openapi_url is None:
        app.openapi_url = "/openapi.json"
        app.docs_url = "/docs"
        app.redoc_url = None
        app.setup()
