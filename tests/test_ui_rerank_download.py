"""The reranking model's download in the window: its progress while it comes, the reason
and a Retry when it fails, and Settings telling the truth either way. The model comes from
a fake host on this machine; the test never reaches the internet."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nicegui import ui
from nicegui.testing import User

from app.api import new_access
from app.container import Services, build_services
from app.settings import Settings
from models.reranker import DEFAULT_MODEL, FlashRankReranker
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.model_host import FakeModelHost, zipped
from tests.running import eventually
from tests.tiny_cross_encoder import build
from tests.ui_parts import contents, text_of
from ui.page import ChatPage


@pytest.fixture
def model(tmp_path: Path) -> bytes:
    return zipped(build(tmp_path / "made", ["ferry", "noon"], {"ferry": 2.0}))


async def window(tmp_path: Path, host: FakeModelHost) -> Services:
    """The app whose reranker fetches its model from ``host``, served at /."""
    settings = Settings(data_dir=tmp_path / "data", rerank_download=False)
    reranker = FlashRankReranker(
        settings.paths.data_dir / "models" / "flashrank", source=host.source
    )
    built = build_services(
        settings, llm=FakeChatModel(), embedder=FakeEmbedder(), reranker=reranker
    )
    await built.start(watch=False)
    ui.page("/")(lambda: ChatPage(built, new_access(built.settings, built.token)))
    return built


@pytest.fixture
async def host(model: bytes) -> AsyncIterator[FakeModelHost]:
    with FakeModelHost({f"{DEFAULT_MODEL}.zip": model}, hold=True) as fake:
        yield fake
        fake.release.set()


def banner(user: User, marker: str) -> str:
    return " ".join(text_of(" ".join(contents(user, marker))).split())


async def test_the_download_shows_how_far_it_is_then_reranking_is_on(
    user: User, tmp_path: Path, host: FakeModelHost, model: bytes
) -> None:
    app = await window(tmp_path, host)
    try:
        await user.open("/")
        user.find(marker="rerank-offer-yes").click()
        await user.should_see(marker="banner-rerank_download")
        assert host.holding.wait(timeout=30)
        half = f"{len(model) // 2 / 1e3:.1f} kB of {len(model) / 1e3:.1f} kB"
        await eventually(
            lambda: half in banner(user, "download-text"), what="the bytes downloaded so far"
        )
        assert f"Downloading the reranking model {DEFAULT_MODEL}" in banner(user, "download-text")
        user.find(marker="settings").click()
        await user.should_see("Downloading the reranking model", marker="reranking-status")
        host.release.set()
        await user.should_not_see(marker="banner-rerank_download")
        await user.should_see("Reranking is on", marker="reranking-status")  # the line follows
        assert app.reranking.on
    finally:
        await app.stop()


async def test_a_failed_download_says_why_and_retries(
    user: User, tmp_path: Path, host: FakeModelHost
) -> None:
    host.hold = False
    host.stop()  # the machine is offline: nothing answers where the model is
    app = await window(tmp_path, host)
    try:
        await user.open("/")
        user.find(marker="rerank-offer-yes").click()
        await user.should_see(marker="banner-rerank_failed")
        said = banner(user, "download-failed-text")
        assert said.startswith("The reranking model was not downloaded:")
        assert f"{host.root.removeprefix('http://')} could not be reached" in said
        user.find(marker="settings").click()
        status = banner(user, "reranking-status")
        assert "could not be downloaded" in status and "Downloading" not in status
        await user.should_see(marker="reranking-retry")
        host.start()  # back online, at the same address
        user.find(marker="banner-retry-download").click()
        await user.should_not_see(marker="banner-rerank_failed")
        await eventually(lambda: app.reranking.on, what="the model downloaded on the retry")
        await user.should_see("Reranking is on", marker="reranking-status")
        await user.should_not_see(marker="reranking-retry")
    finally:
        await app.stop()
