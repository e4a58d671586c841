"""OpenAPI at /openapi.json and its page at /docs, in whichever app hosts the API. Swagger
UI is served from a package, not a CDN: every page's CSP lets it load nothing off the origin.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

DESCRIPTION = (
    "Docent's localhost API. Every route but `/api/health` needs "
    "`Authorization: Bearer <token>` (`uv run run.py token` prints it). "
    "`docs/api.md` in the project describes every route, event and error code."
)
DOCS_PATH = "/docs"
ASSETS = "/docs/assets"


def install_docs(app: FastAPI) -> None:
    """Serve the schema and Swagger UI; NiceGUI's app has them off, the API app on."""
    app.title = "Docent API"
    app.description = DESCRIPTION
    if app.openapi_url is None:
        app.openapi_url = "/openapi.json"
        app.docs_url = app.redoc_url = None  # the page is ours, below
        app.setup()
    app.mount(ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="swagger-ui")
    app.add_api_route(DOCS_PATH, docs_page, include_in_schema=False)


async def docs_page() -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="Docent API",
        swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
        # No badge from the public validator: it would be fetched from elsewhere.
        swagger_ui_parameters={"validatorUrl": None},
    )
