"""OllamaEmbedder against the fake Ollama over a real socket."""

from __future__ import annotations

import math

import pytest

from models.llm import LLMError, ModelNotFound, OllamaUnavailable
from models.ollama_embedder import OllamaEmbedder, l2_normalise
from models.protocols import Embedder
from tests.fakes.ollama_server import unused_url


@pytest.fixture
def embedders():
    """Build embedders through this and they are closed after the test."""
    built: list[OllamaEmbedder] = []

    def build(*args, **kwargs) -> OllamaEmbedder:
        built.append(OllamaEmbedder(*args, **kwargs))
        return built[-1]

    yield build
    for embedder in built:
        embedder.close()


def norm(vector: list[float]) -> float:
    return math.sqrt(sum(v * v for v in vector))


def test_embeds_each_text_in_order_as_a_unit_vector(ollama_server, embedders):
    embedder = embedders(ollama_server.url)

    vectors = embedder.embed(["red apples", "blue sky", "red apples"])

    assert isinstance(embedder, Embedder)
    assert embedder.name == "ollama-nomic-embed-text"
    assert len(vectors) == 3 and all(len(v) == ollama_server.embed_dim for v in vectors)
    assert vectors[0] == vectors[2] != vectors[1]
    assert all(abs(norm(v) - 1.0) < 1e-9 for v in vectors)
    assert ollama_server.requests_to("/api/embed") == [
        {"model": "nomic-embed-text", "input": ["red apples", "blue sky", "red apples"]}
    ]


def test_no_texts_means_no_request(ollama_server, embedders):
    assert embedders(ollama_server.url).embed([]) == []
    assert ollama_server.requests == []


def test_large_inputs_are_sent_in_batches(ollama_server, embedders):
    texts = [f"text number {i}" for i in range(5)]
    embedder = embedders(ollama_server.url, batch_size=2)

    vectors = embedder.embed(texts)

    assert vectors == embedders(ollama_server.url).embed(texts)
    assert [len(b["input"]) for b in ollama_server.requests_to("/api/embed")] == [2, 2, 1, 5]


def test_unreachable_host_raises_ollama_unavailable(embedders):
    host = unused_url()

    with pytest.raises(OllamaUnavailable, match="Start it with `ollama serve`"):
        embedders(host).embed(["x"])


def test_unknown_model_raises_model_not_found(ollama_server, embedders):
    with pytest.raises(ModelNotFound) as error:
        embedders(ollama_server.url, "mxbai-embed-large").embed(["x"])

    assert error.value.model == "mxbai-embed-large"
    assert "`ollama pull mxbai-embed-large`" in str(error.value)


def test_server_error_becomes_llm_error(ollama_server, embedders):
    ollama_server.fail_next(500, "failed to load model")

    with pytest.raises(LLMError, match="failed to load model"):
        embedders(ollama_server.url).embed(["x"])


def test_l2_normalise():
    assert l2_normalise([3.0, 4.0]) == [0.6, 0.8]
    assert l2_normalise([0.0, 0.0]) == [0.0, 0.0]
