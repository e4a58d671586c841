"""Settings of the model server: which server, which chat and embedding models."""

from __future__ import annotations

import os
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.editable import Editable

LM_STUDIO_URL = "http://127.0.0.1:1234/v1"
"""Where LM Studio's server listens by default: the URL for --llm-api openai without --llm-url."""


def _default_ollama_host() -> str:
    # Ollama's own variable is honoured so an existing setup just works.
    return os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"


class ModelSettings(BaseModel):
    """The chat model server, and the models it and the embedder run."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    llm_api: Annotated[Literal["ollama", "openai"], Editable("Model server", "server")] = Field(
        "ollama",
        description="How the chat model server is spoken to: 'ollama', or 'openai' for any "
        "OpenAI-compatible server (LM Studio, llama-server, vLLM, LocalAI, Jan).",
    )
    llm_url: Annotated[
        str | None,
        Editable(
            "Model server URL (ends in /v1 for OpenAI-compatible servers)",
            "server",
            name="Model server URL",
        ),
    ] = Field(
        None,
        description="The chat model server's base URL. For 'openai' it ends in /v1 (default "
        f"{LM_STUDIO_URL}, LM Studio's); for 'ollama' it says what --ollama-host says.",
    )
    ollama_host: Annotated[str, Editable("Ollama host", "server")] = Field(
        default_factory=_default_ollama_host, description="Ollama server for chat."
    )
    llm_api_key: str | None = Field(
        None, description="The key an OpenAI-compatible server wants (vLLM's --api-key), if any."
    )
    chat_model: Annotated[str, Editable("Chat model", "models", live=True)] = Field(
        "llama3.2", description="The model that writes answers, as its server names it."
    )
    embed_backend: Annotated[
        Literal["minilm", "ollama", "openai"], Editable("Embedding backend", "models", live=True)
    ] = Field(
        "minilm",
        description="'minilm' runs all-MiniLM-L6-v2 in-process; 'ollama' asks Ollama; "
        "'openai' asks an OpenAI-compatible server's /v1/embeddings.",
    )
    embed_model: Annotated[str, Editable("Embedding model", "models", live=True)] = Field(
        "nomic-embed-text",
        description="The server's embedding model when embed_backend is 'ollama' or 'openai'.",
    )
    embed_host: Annotated[
        str | None, Editable("Ollama host for embeddings", "server", live=True)
    ] = Field(
        None,
        description="Server for embeddings (an Ollama host, or a /v1 base for 'openai'); "
        "defaults to the chat model server when it speaks the same API.",
    )
    context_tokens: int = Field(
        8192,
        ge=1024,
        description="The chat model's context (Ollama num_ctx); prompts are fitted to it. "
        "An OpenAI-compatible server sets its own: give its size here (llama-server -c).",
    )

    @field_validator("ollama_host", "embed_host", "llm_url")
    @classmethod
    def _with_scheme(cls, value: str | None) -> str | None:
        if value and "://" not in value:
            value = f"http://{value}"
        return value.rstrip("/") if value else value

    @property
    def chat_url(self) -> str:
        """Where the chat model server answers: its /v1 base, or the Ollama host."""
        if self.llm_api == "openai":
            return self.llm_url or LM_STUDIO_URL
        # Ollama's own API sits at the root, beside the /v1 it also serves.
        return self.llm_url.removesuffix("/v1") if self.llm_url else self.ollama_host

    @property
    def embed_ollama_host(self) -> str:
        if self.embed_host:
            return self.embed_host
        return self.chat_url if self.llm_api == "ollama" else self.ollama_host

    @property
    def embed_url(self) -> str:
        """The OpenAI-compatible server that embeds when embed_backend is 'openai'."""
        if self.embed_host:
            return self.embed_host
        return self.chat_url if self.llm_api == "openai" else LM_STUDIO_URL
