"""OpenAPI and its page: served behind the Host check, in the API app and in NiceGUI's."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.api import install_api
from app.container import build_services
from app.settings import Settings
from app.startup import Starting
from tests.api_app import anonymous, api_app, error_code
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import RunningApp

ROUTES = {
    ("get", "/api/health"),
    ("get", "/api/status"),
    ("post", "/api/chat"),
    ("post", "/api/search"),
    ("get", "/api/documents"),
    ("get", "/api/sessions"),
    ("get", "/api/sessions/{session_id}"),
    ("patch", "/api/sessions/{session_id}"),
    ("delete", "/api/sessions/{session_id}"),
    ("get", "/v1/models"),
    ("post", "/v1/chat/completions"),
}


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    async with api_app(tmp_path) as running:
        yield running


async def test_schema_and_page_are_served_to_local_hosts_only(app: RunningApp) -> None:
    schema = await app.client.get("/openapi.json")
    page = await app.client.get("/docs")
    foreign = await app.client.get("/openapi.json", headers={"Host": "evil.test"})
    foreign_page = await app.client.get("/docs", headers={"Host": "evil.test"})
    async with anonymous(app) as client:  # like every page: the token or the login cookie
        assert (await client.get("/openapi.json")).status_code == 401
        assert (await client.get("/docs")).status_code == 401
    assert schema.status_code == 200 and schema.json()["info"]["title"] == "Docent API"
    documented = {(m, p) for p, ops in schema.json()["paths"].items() for m in ops}
    assert ROUTES <= documented
    assert page.status_code == 200 and "swagger" in page.text.lower()
    assert foreign.status_code == 403 and error_code(foreign) == "forbidden_host"
    assert foreign_page.status_code == 403


async def test_error_bodies_are_documented(app: RunningApp) -> None:
    schema = (await app.client.get("/openapi.json")).json()
    chat = schema["paths"]["/api/chat"]["post"]["responses"]
    assert {"401", "403", "413", "422", "429"} <= set(chat)
    assert "ErrorResponse" in str(chat["429"])


async def test_window_app_without_docs_gets_them_too(tmp_path: Path) -> None:
    """NiceGUI's app starts with the docs off; installing the API turns them on."""
    window = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    container = build_services(
        Settings(data_dir=tmp_path / "data"), llm=FakeChatModel(), embedder=FakeEmbedder()
    )
    install_api(window, Starting.of(container), container.settings, container.token)
    transport = httpx.ASGITransport(app=window)
    headers = {"Authorization": f"Bearer {container.token}"}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1", headers=headers
    ) as client:
        schema = await client.get("/openapi.json")
        page = await client.get("/docs")
    assert schema.status_code == 200 and "/v1/chat/completions" in schema.json()["paths"]
    assert page.status_code == 200
    container.sessions.close()
    container.registry.close()


DOCS = Path(__file__).resolve().parent.parent / "docs" / "api.md"
README = DOCS.parent.parent / "README.md"


async def test_docs_describe_every_route_and_error_code(app: RunningApp) -> None:
    text = DOCS.read_text(encoding="utf-8")
    schema = (await app.client.get("/openapi.json")).json()
    for path, operations in schema["paths"].items():
        shown = re.sub(r"\{[a-z_]+\}", "{id}", path)
        for method in operations:
            assert f"{method.upper()} {shown}" in text, f"{method.upper()} {shown} undocumented"
    source = "\n".join(
        p.read_text(encoding="utf-8") for p in (DOCS.parent.parent / "app").rglob("*.py")
    )
    raised = r'(?:ApiError|Refusal)\(\s*\d+,\s*"([a-z_]+)"|^\s+code = "([a-z_]+)"'
    codes = {a or b for a, b in re.findall(raised, source, flags=re.MULTILINE)}
    assert {"file_too_large", "forbidden_origin", "body_too_large"} <= codes
    for code in codes:
        assert f"`{code}`" in text, f"error code {code} undocumented"


def test_readme_and_docs_stay_inside_the_project() -> None:
    for page in (README, DOCS):
        text = page.read_text(encoding="utf-8")
        assert "shared/" not in text, page
        for target in re.findall(r"\]\(([^)#]+)\)", text):
            if "://" not in target:
                assert (page.parent / target).exists(), f"{page.name} links to missing {target}"
    assert "docs/api.md" in README.read_text(encoding="utf-8")
