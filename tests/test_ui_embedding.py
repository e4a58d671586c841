"""Changing the embedding model in Settings: the rebuild starts at once, with its progress
in a banner, the old index answering until the swap; a model that can't load says why."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
from nicegui import ui
from nicegui.testing import User

from app.api import new_access
from app.container import Services, build_services
from app.services.embedders import CHECK_TEXT
from app.settings import Settings
from models.embeddings import EmbedderUnavailable
from models.protocols import Embedder
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder, GatedEmbedder
from tests.running import eventually
from tests.ui_parts import NOTES, answer_shows, contents, side_calls
from ui.page import ChatPage

SWITCH_TRIES = 300
"""A model switch loads and checks the model in a thread: up to 30 s of 0.1 s looks, as a
busy machine needs (the default 0.3 s failed under load, on main too)."""

PULLED: list[str] = []
"""Models fetched since the test began (model-x loads once it is here)."""


class NewModel(GatedEmbedder):
    """The model chosen in Settings: it loads at once; its document vectors wait at the gate."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if list(texts) == [CHECK_TEXT]:
            return FakeEmbedder.embed(self, texts)
        return super().embed(texts)


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[Services]:
    """The app answering with model-a over two notes; Settings may choose model-b."""
    settings = Settings(data_dir=tmp_path / "data", chunk_size=200, chunk_overlap=0)
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "notes.md").write_text(NOTES, encoding="utf-8")
    (settings.paths.docs_dir / "garden.md").write_text("# Garden\n\nThe shed is blue.\n")
    new = NewModel(dim=32, name="model-b")
    new.hold()

    def load(chosen: Settings) -> Embedder:
        if chosen.models.embed_model == "model-x" and PULLED:
            return FakeEmbedder(dim=48, name="model-x")
        if chosen.models.embed_model != "model-b":
            raise EmbedderUnavailable(
                f"no weights for {chosen.models.embed_model} on this machine. Pull it first"
            )
        return new

    model = FakeChatModel(token_delay=0.01)
    model.responder = side_calls
    # 256 dimensions: at 64, "garden" and "spare" share a bucket of the hashed words, and
    # garden.md, embedded behind its heading ("Garden: # Garden…"), outranked the notes.
    built = build_services(
        settings, llm=model, embedder=FakeEmbedder(dim=256, name="model-a"), embedder_factory=load
    )
    await built.start(watch=False)
    await eventually(lambda: len(built.registry.ready_paths()) == 2, what="the notes indexed")
    ui.page("/")(lambda: ChatPage(built, new_access(built.settings, built.token)))
    yield built
    new.open()
    await built.stop()


def choose_embedding(user: User, typed: str) -> None:
    """Type a model into the embedding choice, as a person adds an Ollama model's name."""
    user.find(marker="setting-embed_model").trigger("update:modelValue", typed)


async def test_changing_the_embedding_model_rebuilds_live_with_progress(
    user: User, app: Services
) -> None:
    new = app.embedding.factory(app.settings.replaced({"embed_model": "model-b"}))
    assert isinstance(new, NewModel)
    await user.open("/")
    user.find(marker="settings").click()
    await user.should_see(marker="settings-dialog")
    choose_embedding(user, "model-b")
    user.find(marker="settings-save").click()
    await user.should_see("Rebuilding the index with model-b", marker="settings-message")
    await user.should_see(marker="banner-embedding_rebuild")
    await user.should_see("0 of 2 documents", marker="rebuild-text")
    await user.should_not_see("Searches now use model-a")  # loading gave way to rebuilding
    assert app.embedding.store.embedder.name == "model-a"  # the old index answers meanwhile

    # One document's vectors: its chunks, then its outline (for garden.md, the same words
    # as its chunk, so not embedded again). Either way the second document still waits.
    new.release(2)
    await user.should_see("1 of 2 documents", marker="rebuild-text")
    bar = user.find(marker="rebuild-progress").elements.pop()
    assert bar.value == 0.5
    llm = app.llm
    assert isinstance(llm, FakeChatModel)
    llm.enqueue("Under the flowerpot [1].")
    user.find(marker="message-input").type("Where is the spare key?")
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})
    await eventually(lambda: answer_shows(user, "flowerpot"), what="an answer during the rebuild")
    assert any("notes.md" in chip for chip in contents(user, "source"))

    new.open()
    await user.should_see("Searches now use model-b", retries=SWITCH_TRIES)
    await user.should_not_see(marker="banner-embedding_rebuild")
    assert app.embedding.store.embedder is new and app.embedding.switch is None
    assert (
        app.settings.models.embed_model == "model-b"
        and app.settings.models.embed_backend == "ollama"
    )
    calls = len(new.calls)
    llm.enqueue("The shed is blue [1].")
    user.find(marker="message-input").type("What colour is the shed?")
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})
    await eventually(lambda: answer_shows(user, "shed is blue"), what="an answer after the swap")
    assert len(new.calls) > calls  # the question was embedded by model-b


async def test_a_model_that_cannot_load_is_not_saved_and_the_window_says_why(
    user: User, app: Services
) -> None:
    await user.open("/")
    user.find(marker="settings").click()
    await user.should_see(marker="settings-dialog")
    choose_embedding(user, "model-x")
    user.find(marker="settings-save").click()
    await user.should_see("no weights for model-x", marker="settings-message", retries=SWITCH_TRIES)
    await user.should_see("keeps answering with model-a", marker="settings-message")
    await user.should_see(marker="banner-embedding_failed")
    assert app.embedding.switch is None and app.embedding.store.embedder.name == "model-a"
    assert app.settings.models.embed_model != "model-x"
    user.find(marker="banner-dismiss").click()
    await user.should_not_see(marker="banner-embedding_failed")

    # Once the model is there, Retry in the banner switches to it.
    user.find(marker="settings-save").click()
    await user.should_see(marker="banner-embedding_failed")
    PULLED.append("model-x")
    try:
        user.find(marker="banner-retry-embedding").click()
        await user.should_see("Searches now use model-x", retries=SWITCH_TRIES)
        assert (
            app.embedding.store.embedder.name == "model-x"
            and app.settings.models.embed_model == "model-x"
        )
    finally:
        PULLED.clear()
