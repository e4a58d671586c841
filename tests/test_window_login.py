"""The window behind its login, driven in-process with NiceGUI's simulated user.

The guard is installed on NiceGUI's app exactly as `run.py` does (``app.api.secure``);
what only a real socket shows (cookies over HTTP, the websocket) is in test_served.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from nicegui import core, ui
from nicegui.testing import User

from app.api import secure
from app.api.guard.guard import Access
from app.container import build_services
from app.settings import Settings
from app.startup import Starting
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import eventually
from ui.page import ChatPage

BASE = "http://127.0.0.1"
COOKIE = "docent-80"
"""The login cookie's name for BASE, whose Host names no port."""


@pytest.fixture
async def services(tmp_path: Path) -> AsyncIterator[Starting]:
    settings = Settings(data_dir=tmp_path / "data")
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "notes.md").write_text(
        "The spare key is under the blue flowerpot.\n"
    )
    container = build_services(settings, llm=FakeChatModel(), embedder=FakeEmbedder())
    started = Starting.of(container, watch=False)
    await started.services()
    await eventually(lambda: bool(container.registry.ready_paths()), what="notes.md indexed")
    yield started
    await started.stop()


@pytest.fixture
async def guarded(user: User, services: Starting) -> AsyncIterator[Access]:
    """NiceGUI's app with the window at / behind the guard, as `run.py` serves it."""
    container = await services.services()
    access = secure(core.app, services, container.settings, container.token)
    ui.page("/")(lambda: ChatPage(container, access))
    user.http_client.base_url = httpx.URL(BASE)  # a Host the guard accepts
    yield access
    # The guard wraps NiceGUI's global app; the next test's app must not inherit it.
    vars(core.app).pop("build_middleware_stack", None)
    core.app.middleware_stack = None


async def test_without_login_the_window_says_how_to_get_in(
    user: User, services: Starting, guarded: Access
) -> None:
    token = (await services.services()).token
    for path in ("/", "/anything", "/_nicegui/client/x/upload"):
        response = await user.http_client.get(path)
        assert response.status_code == 401, path
        assert token not in response.text
    page = await user.http_client.get("/")
    assert "uv run run.py open" in page.text
    assert "notes.md" not in page.text


async def test_login_link_opens_the_window(user: User, guarded: Access) -> None:
    link = guarded.links.issue(BASE)
    login = await user.http_client.get(link)
    assert login.status_code == 303 and login.headers["location"] == "/"
    await user.open("/")  # with the cookie the login set
    await user.should_see("notes.md")
    user.find(marker="message-input").type("Where is the spare key?")
    user.find(marker="send").click()
    await user.should_see("Echo:", retries=50)
    assert (await user.http_client.get(link)).status_code == 401  # the link worked once


async def login(user: User, access: Access) -> str:
    """Open the window with a fresh login link; the session id its cookie holds."""
    await user.http_client.get(access.links.issue(BASE))
    await user.open("/")
    await user.should_see(marker="login-menu")
    return str(user.http_client.cookies[COOKIE])


async def test_lock_ends_the_login_and_the_cookie_opens_nothing_after(
    user: User, guarded: Access
) -> None:
    session = await login(user, guarded)
    assert (await user.http_client.post("/api/login-link")).status_code == 200
    user.find(marker="lock").click()
    await eventually(lambda: not guarded.sessions.check(session, activity=False), what="Lock")
    transport = httpx.ASGITransport(core.app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as replayed:
        replayed.cookies.set(COOKIE, session)
        api = await replayed.post("/api/login-link")
        page = await replayed.get("/")
    assert api.status_code == 401 and api.json()["error"]["code"] == "unauthorized"
    assert page.status_code == 401 and "needs a login link" in page.text


async def test_keeping_the_browser_logged_in_is_a_choice_made_in_the_window(
    user: User, guarded: Access
) -> None:
    session = await login(user, guarded)
    assert not guarded.sessions.is_remembered(session)
    assert not guarded.sessions.path.exists()  # nothing written for a login not remembered
    kept = await user.http_client.post("/login/cookie")
    assert "Max-Age" not in kept.headers["set-cookie"]

    user.find(marker="keep-login").click()
    await eventually(lambda: guarded.sessions.is_remembered(session), what="remembered")
    assert guarded.sessions.path.exists()
    kept = await user.http_client.post("/login/cookie")  # what the page asks for next
    assert kept.status_code == 204
    assert kept.headers["set-cookie"].startswith(f"{COOKIE}={session};")
    assert "Max-Age=" in kept.headers["set-cookie"] and "HttpOnly" in kept.headers["set-cookie"]

    user.find(marker="keep-login").click()
    await eventually(lambda: not guarded.sessions.is_remembered(session), what="forgotten")
    kept = await user.http_client.post("/login/cookie")
    assert "Max-Age" not in kept.headers["set-cookie"]
