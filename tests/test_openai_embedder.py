"""Embeddings from an OpenAI-compatible server: the adapter over a real socket, a library
indexed and searched with them, and the settings dialog's choice of them."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.container import build_services
from app.settings import Settings
from models.openai_embedder import OpenAIEmbedder
from models.openai_wire import ModelNotLoaded, ServerUnavailable
from models.protocols import Embedder
from tests.fakes.ollama_server import fake_vector, unused_url
from tests.fakes.openai_server import FakeOpenAIServer
from tests.running import running_app, wait_ready
from ui.dialogs.settings_dialog import embedding_choice, embedding_options

EMBEDDER = "text-embedding-nomic-embed-text-v1.5"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(embed_dim=32) as fake:
        yield fake


def test_vectors_come_in_order_normalised_and_in_batches(server: FakeOpenAIServer) -> None:
    embedder = OpenAIEmbedder(server.url, EMBEDDER, batch_size=2)
    try:
        assert isinstance(embedder, Embedder) and embedder.name == f"openai-{EMBEDDER}"
        texts = ["the ferry", "leaves at seven", "from the northern pier"]
        vectors = embedder.embed(texts)
    finally:
        embedder.close()
    for vector, text in zip(vectors, texts, strict=True):
        assert vector == pytest.approx(fake_vector(text, 32))
        assert math.isclose(sum(v * v for v in vector), 1.0)
    assert [body["input"] for body in server.requests_to("/v1/embeddings")] == [
        texts[:2],
        texts[2:],
    ]


def test_a_model_not_loaded_and_a_server_that_is_down_say_what_to_do(
    server: FakeOpenAIServer,
) -> None:
    missing = OpenAIEmbedder(server.url, "bge-m3")
    down = OpenAIEmbedder(unused_url() + "/v1", EMBEDDER)
    try:
        with pytest.raises(ModelNotLoaded, match="choose one of: qwen2.5-7b-instruct"):
            missing.embed(["x"])
        with pytest.raises(ServerUnavailable, match="No model server answers"):
            down.embed(["x"])
    finally:
        missing.close()
        down.close()


async def test_a_library_is_indexed_and_searched_with_the_server_s_vectors(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        llm_api="openai",
        llm_url=server.url,
        chat_model="qwen2.5-7b-instruct",
        embed_backend="openai",
        embed_model=EMBEDDER,
    )
    assert settings.models.embed_url == server.url  # the chat server embeds too, by default
    container = build_services(settings)
    (settings.paths.docs_dir / "harbour.md").write_text(
        "Ferries leave the northern pier every forty minutes.", encoding="utf-8"
    )
    async with running_app(container) as app:
        await wait_ready(app, 1)
        found = (await app.client.post("/api/search", json={"query": "northern pier"})).json()
    assert found["results"][0]["file"] == "harbour.md"
    assert container.embedding.embedder.name == f"openai-{EMBEDDER}"
    assert server.requests_to("/v1/embeddings")


def test_the_settings_dialog_offers_the_server_s_models_for_embedding() -> None:
    models = ["qwen2.5-7b-instruct", EMBEDDER]
    options = embedding_options("minilm", "nomic-embed-text", models, "openai")
    assert list(options)[1] == f"openai:{EMBEDDER}"  # embedders first
    assert options[f"openai:{EMBEDDER}"] == f"{EMBEDDER} (model server)"
    assert embedding_choice(f"openai:{EMBEDDER}", "x", "openai") == ("openai", EMBEDDER)
    assert embedding_choice("bge-m3", "x", "openai") == ("openai", "bge-m3")  # typed
    # Ollama embedding while the chat server is another: it stays on offer, as Ollama's.
    options = embedding_options("ollama", "nomic-embed-text:latest", models, "openai")
    assert options["ollama:nomic-embed-text:latest"] == "nomic-embed-text:latest (Ollama)"
    assert embedding_choice("ollama:nomic-embed-text:latest", "x", "openai") == (
        "ollama",
        "nomic-embed-text:latest",
    )
    assert embedding_choice("nomic-embed-text:latest", "x") == ("ollama", "nomic-embed-text:latest")
