"""Which embedding model the settings name, and how the registry remembers it. Light on
purpose (no Chroma): the window loads the model while the other services still import."""

from __future__ import annotations

import json
from collections.abc import Callable

from app.settings import Settings
from ingest.index.chunk_context import VECTOR_TEXT_VERSION
from models.embeddings import MODEL_NAME, EmbedderUnavailable, MiniLMEmbedder
from models.ollama_embedder import OllamaEmbedder
from models.openai_embedder import OpenAIEmbedder
from models.protocols import Embedder

CHECK_TEXT = "Docent checks that this embedding model answers."


def build_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name."""
    if settings.models.embed_backend == "ollama":
        return OllamaEmbedder(settings.models.embed_ollama_host, settings.models.embed_model)
    if settings.models.embed_backend == "openai":
        return OpenAIEmbedder(
            settings.models.embed_url,
            settings.models.embed_model,
            api_key=settings.models.llm_api_key,
        )
    return minilm(settings)


def minilm(settings: Settings) -> MiniLMEmbedder:
    """The built-in MiniLM, keeping its rewritten graph in the data dir for the next start."""
    return MiniLMEmbedder(saved_graphs=settings.paths.data_dir / "models" / "minilm")


def checked_embedder(factory: Callable[[Settings], Embedder], target: Settings) -> Embedder:
    """Build the model ``target`` names and embed one text with it (in a worker thread)."""
    embedder = factory(target)
    vectors = embedder.embed([CHECK_TEXT])
    if len(vectors) != 1 or not vectors[0]:
        raise EmbedderUnavailable("it returned no vector")
    return embedder


def embedder_name(settings: Settings) -> str:
    """The name the embedder ``build_embedder`` makes will carry, without making it."""
    if settings.models.embed_backend == "minilm":
        return MiniLMEmbedder.name
    return f"{settings.models.embed_backend}-{settings.models.embed_model}"


def embedder_from(spec: dict[str, str], settings: Settings) -> Embedder:
    """The embedder a stored spec names (the model the index was built with)."""
    if spec.get("backend") == "ollama":
        return OllamaEmbedder(spec["host"], spec["model"])
    if spec.get("backend") == "openai":
        return OpenAIEmbedder(spec["host"], spec["model"])
    embedder = minilm(settings)
    if embedder.name != spec["name"]:
        raise EmbedderUnavailable(f"cannot rebuild the embedder {spec['name']}")
    return embedder


def embedder_spec(embedder: Embedder, settings: Settings) -> str:
    """What the registry remembers of the model the index answers with, and of what its
    vectors are made from (a spec without ``vector_text`` is of text-only vectors)."""
    spec = {
        "name": embedder.name,
        "backend": settings.models.embed_backend,
        "model": settings.models.embed_model,
    }
    return json.dumps({**spec, "host": embed_host(settings), "vector_text": VECTOR_TEXT_VERSION})


def embed_host(settings: Settings) -> str:
    """Where the named server model embeds: the model server's URL, or Ollama's host."""
    models = settings.models
    return models.embed_url if models.embed_backend == "openai" else models.embed_ollama_host


def is_named(embedder: Embedder, settings: Settings) -> bool:
    """Whether ``embedder`` is the model the settings name: choosing it loads no second copy."""
    models = settings.models
    if models.embed_backend == "minilm":
        return isinstance(embedder, MiniLMEmbedder)
    kind = OllamaEmbedder if models.embed_backend == "ollama" else OpenAIEmbedder
    named = (models.embed_model, embed_host(settings))
    return isinstance(embedder, kind) and (embedder.model, embedder.host) == named


def model_label(settings: Settings) -> str:
    """The model the settings name, as a person reads it."""
    return MODEL_NAME if settings.models.embed_backend == "minilm" else settings.models.embed_model
