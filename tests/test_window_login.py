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
from app.api.guard import Access
from app.container import Container
from app.settings import Settings
from app.startup import Services
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import eventually
from ui.page import chat_page

BASE = "http://127.0.0.1"


@pytest.fixture
async def services(tmp_path: Path) -> AsyncIterator[Services]:
    settings = Settings(data_dir=tmp_path / "data")
    settings.docs_dir.mkdir(parents=True)
    (settings.docs_dir / "notes.md").write_text("The spare key is under the blue flowerpot.\n")
    container = Container(settings, llm=FakeChatModel(), embedder=FakeEmbedder())
    started = Services.of(container, watch=False)
    await started.container()
    await eventually(lambda: bool(container.ready_paths()), what="notes.md indexed")
    yield started
    await started.stop()


@pytest.fixture
async def guarded(user: User, services: Services) -> AsyncIterator[Access]:
    """NiceGUI's app with the window at / behind the guard, as `run.py` serves it."""
    container = await services.container()
    access = secure(core.app, services, container.settings, container.token)
    ui.page("/")(lambda: chat_page(container))
    user.http_client.base_url = httpx.URL(BASE)  # a Host the guard accepts
    yield access
    # The guard wraps NiceGUI's global app; the next test's app must not inherit it.
    vars(core.app).pop("build_middleware_stack", None)
    core.app.middleware_stack = None


async def test_without_login_the_window_says_how_to_get_in(
    user: User, services: Services, guarded: Access
) -> None:
    token = (await services.container()).token
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
