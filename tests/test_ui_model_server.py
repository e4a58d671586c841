"""The window with an OpenAI-compatible model server: banners say "the model server" and
what to do, nothing offers to pull a model, the picker lists the server's models, and the
settings dialog switches servers for the next start."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nicegui import ui
from nicegui.testing import User

from app.api import new_access
from app.container import Services, build_services
from app.services.preferences import with_saved
from app.settings import Settings
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.ollama_server import unused_url
from tests.fakes.openai_server import FakeOpenAIServer
from tests.running import eventually
from tests.ui_parts import answer_shows, contents, text_of
from ui.page import ChatPage


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


async def window(tmp_path: Path, url: str, model: str) -> Services:
    """The app against the server at ``url``, served at / for the ``user`` fixture."""
    settings = Settings(data_dir=tmp_path / "data", llm_api="openai", llm_url=url, chat_model=model)
    built = build_services(settings, embedder=FakeEmbedder())
    await built.start(watch=False)
    ui.page("/")(lambda: ChatPage(built, new_access(built.settings, built.token)))
    return built


async def test_a_server_that_is_down_is_named_with_what_to_start(
    user: User, tmp_path: Path
) -> None:
    url = unused_url() + "/v1"
    app = await window(tmp_path, url, "qwen2.5-7b-instruct")
    try:
        await app.health.check_now()
        await user.open("/")
        await user.should_see(marker="banner-server_down")
        texts = [text_of(t) for t in contents(user, "banner-text")]
        (said,) = [t for t in texts if t.startswith("Answers are limited.")]
        assert f"No model server answers at {url}" in said
        assert "Start LM Studio" in said and "most relevant passages" in said
        assert "Ollama" not in said and "ollama serve" not in said
        user.find(marker="model").click()
        await user.should_see("No models listed (is the model server running?)")
        await user.should_not_see(marker="pull-model")
    finally:
        await app.stop()


async def test_a_model_not_loaded_lists_the_loaded_ones_and_offers_no_pull(
    user: User, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    app = await window(tmp_path, server.url, "llama-3.3-70b")
    try:
        await app.health.check_now()
        await user.open("/")
        await user.should_see(marker="banner-model_missing")
        (missing,) = [p for p in app.health.report.problems if p.kind == "model_missing"]
        assert missing.message == (
            f"The model 'llama-3.3-70b' is not loaded in the server at {server.url}; load it, "
            f"or choose one of: {', '.join(server.models)}."
        )
        await user.should_not_see(marker="banner-pull")
        await user.should_see("qwen2.5-7b-instruct", marker="model-option")
        user.find(marker="model-qwen2.5-7b-instruct").click()
        assert app.llm.model == "qwen2.5-7b-instruct"
        await eventually(
            lambda: all(p.kind != "model_missing" for p in app.health.report.problems),
            what="the banner to clear once chosen",
        )
        await user.should_not_see(marker="banner-model_missing")
    finally:
        await app.stop()


async def test_the_settings_dialog_switches_the_server_after_a_restart(
    user: User, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    app = await window(tmp_path, server.url, "qwen2.5-7b-instruct")
    try:
        # The dialog lists the models of the last health check: have one before it opens,
        # as the window's first poll would, rather than race it on a busy machine.
        await app.health.check_now()
        await user.open("/")
        user.find(marker="settings").click()
        await user.should_see(marker="settings-dialog")
        await user.should_see("takes effect when Docent restarts", marker="server-note")
        user.find(marker="setting-llm_api").elements.pop().value = "ollama"
        # The server's /v1 URL goes with it (Ollama's host is asked for instead).
        user.find(marker="settings-save").click()
        await user.should_see("restart Docent to apply", marker="settings-message")
        assert app.settings.models.llm_api == "openai"  # until the restart
        saved = json.loads((app.settings.paths.data_dir / "preferences.json").read_text())
        assert saved["llm_api"] == "ollama" and saved["llm_url"] is None
    finally:
        await app.stop()
    # The next start, with nothing set on its command line, speaks to Ollama.
    again = with_saved(Settings(data_dir=tmp_path / "data"))
    assert (again.models.llm_api, again.models.chat_url) == ("ollama", again.models.ollama_host)


async def test_an_answer_the_server_ended_early_says_so_in_the_window(
    user: User, tmp_path: Path
) -> None:
    with FakeOpenAIServer(["qwen2.5-coder-1.5b-instruct"], habits="llama-cpp-python") as llama:
        llama.enqueue_reply("Hello! I can help with", ending="done")
        app = await window(tmp_path, llama.url, "qwen2.5-coder-1.5b-instruct")
        try:
            await user.open("/")
            user.find(marker="message-input").type("hello, what can you do?")
            user.find(marker="message-input").trigger("keydown", {"key": "Enter"})
            await eventually(
                lambda: answer_shows(user, "The answer was cut off"), what="the explanation"
            )
            shown = " ".join(text_of(contents(user, "answer")[-1]).split())
        finally:
            await app.stop()
    assert shown.startswith("Hello! I can help with (The answer was cut off: The model server")
    assert "ended the answer after 22 characters" in shown and "Ask again." in shown


async def test_settings_show_the_address_of_the_server_in_use(
    user: User, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    app = await window(tmp_path, server.url, "qwen2.5-7b-instruct")
    try:
        # The dialog lists the models of the last health check: have one before it opens,
        # as the window's first poll would, rather than race it on a busy machine.
        await app.health.check_now()
        await user.open("/")
        user.find(marker="settings").click()
        await user.should_see(marker="settings-dialog")
        url = user.find(marker="setting-llm_url").elements.pop()
        assert url.visible and url.value == server.url
        await user.should_not_see(marker="setting-ollama_host")  # Ollama is not in use
        # The built-in embedding model needs no server; the model server's does, by its URL.
        await user.should_not_see(marker="setting-embed_host")
        embedding = user.find(marker="setting-embed_model").elements.pop()
        embedding.value = next(k for k in embedding.options if k.startswith("openai:"))
        await user.should_see(marker="setting-embed_host")
        host = user.find(marker="setting-embed_host").elements.pop()
        assert str(host.props["label"]).startswith("Embedding server URL (ends in /v1")
        # Choosing Ollama for the next start asks for Ollama's address instead.
        user.find(marker="setting-llm_api").elements.pop().value = "ollama"
        await user.should_see(marker="setting-ollama_host")
        await user.should_not_see(marker="setting-llm_url")
    finally:
        await app.stop()


async def test_with_ollama_settings_ask_for_the_ollama_host(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    user.find(marker="settings").click()
    await user.should_see(marker="setting-ollama_host")
    await user.should_not_see(marker="setting-llm_url")
