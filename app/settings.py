"""Settings: ``DOCENT_*`` environment variables, with command-line flags on top."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, CliSuppress, SettingsConfigDict

from app.editable import Editable, editable_fields
from app.paths import TOKEN_FILE, default_data_dir
from graph.options import FOCUS_TOKENS

LM_STUDIO_URL = "http://127.0.0.1:1234/v1"
"""Where LM Studio's server listens by default: the URL for --llm-api openai without --llm-url."""


def _default_ollama_host() -> str:
    # Ollama's own variable is honoured so an existing setup just works.
    return os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"


class Settings(BaseSettings):
    """Everything Docent can be configured with; each field reads ``DOCENT_<NAME>``.

    A field the window may change carries an ``Editable`` mark (its label, and whether it
    applies live). A live one named as a field of ``TurnOptions`` or ``RetrievalSettings``
    applies from the next turn or search (app/services/live_settings.py): declaring it
    here is all it takes.
    """

    model_config = SettingsConfigDict(env_prefix="DOCENT_", extra="ignore", frozen=True)
    """Frozen: a change from the window makes a new snapshot (``Preferences``), so a turn
    or a search holding one never sees it change under it."""

    host: str = Field("127.0.0.1", description="Address the window and API listen on.")
    port: int = Field(8080, ge=0, le=65535, description="Port of the window and API.")
    data_dir: Path = Field(
        default_factory=default_data_dir,
        validate_default=True,
        description="Index, registry, sessions, API token and logs live here.",
    )
    docs: Annotated[Path | None, Editable("Documents folder", "folder")] = Field(
        None,
        validate_default=True,
        description="The watched documents folder; defaults to <data dir>/documents.",
    )
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
    chroma_url: str | None = Field(
        None, description="A Chroma server to use instead of the embedded store."
    )
    chunk_size: int = Field(1000, ge=100, description="Characters per chunk.")
    chunk_overlap: int = Field(150, ge=0, description="Characters shared by neighbouring chunks.")
    top_k: Annotated[
        int, Editable("Passages per answer (top-k)", "search", name="Top K", live=True)
    ] = Field(6, ge=1, le=50, description="Passages given to the generator.")
    rerank_candidates: Annotated[
        int,
        Editable(
            "Rerank depth (passages the reranker reorders)",
            "search",
            name="Rerank depth",
            live=True,
        ),
    ] = Field(30, ge=1, le=200, description="Fused passages the reranker reorders before top_k.")
    rerank_download: Annotated[
        bool,
        Editable(
            "Download the reranking model once",
            "search",
            name="Download the reranking model",
            live=True,
        ),
    ] = Field(
        False,
        description="Download FlashRank's reranking model (about 4 MB, from Hugging Face) once, "
        "in the background. Off unless you turn it on: Docent connects to nothing but the "
        "model server without your yes.",
    )
    sentence_order: Annotated[
        bool,
        Editable(
            "Without a reranker, order passages by their best sentence (slower)",
            "search",
            name="Order passages by their best sentence",
            live=True,
        ),
    ] = Field(
        False,
        description="Without a reranking model, order the top five passages by their best "
        "sentence, read by the embedding model: the right passage comes first more often, "
        "and each search takes about 0.2 s longer.",
    )
    context_chars: int = Field(
        12_000, ge=1_000, description="@mentioned files up to this size are given whole."
    )
    max_query_chars: int = Field(4_000, ge=1, description="Longest search query accepted.")
    max_upload_mb: int = Field(100, ge=1, description="Largest file accepted by upload, in MB.")
    max_file_mb: int = Field(
        200, ge=1, description="Largest file indexed; a bigger one ends 'error' saying so."
    )
    file_time_budget: float = Field(
        900.0, gt=0, description="Seconds one file may take to index before it ends 'error'."
    )
    parser_memory_mb: int = Field(
        1024,
        ge=128,
        description=(
            "Memory (address space, MB) the process that opens one file may use; a file"
            " that needs more ends 'error' saying so. Files are never opened in the app's"
            " own process."
        ),
    )
    ocr: Literal["auto", "off"] = Field(
        "auto",
        description=(
            "'auto' reads scanned PDF pages and picture files (png, jpg, tiff, webp, bmp)"
            " by OCR, offline, with the models installed with Docent; 'off' leaves scanned"
            " pages out and marks pictures 'error'."
        ),
    )
    ocr_memory_mb: int = Field(
        3072,
        ge=512,
        description=(
            "Memory (address space, MB) the one process that reads pages by OCR may use;"
            " its models and onnxruntime reserve about 1.6 GB of it."
        ),
    )
    ocr_page_seconds: float = Field(
        60.0,
        gt=0,
        description="Seconds each page adds to the time budget of a file read by OCR.",
    )
    ocr_max_pages: int = Field(
        500,
        ge=1,
        description=(
            "Pages of one file OCR reads at most (about half an hour of OCR on a laptop);"
            " the file is indexed with those, and its note says which pages were left out."
        ),
    )
    max_message_chars: int = Field(16_000, ge=1, description="Longest chat message accepted.")
    verify_max_chars: int = Field(
        20_000, ge=1, description="Longest text POST /api/verify (and MCP's verify) checks."
    )
    verify_seconds: float = Field(
        10.0,
        gt=0,
        description="Seconds a verify may spend checking sentences; the ones left when they "
        "are spent come back 'unchecked'.",
    )
    max_body_mb: float = Field(
        4, gt=0, description="Largest request body the API reads (uploads have their own cap)."
    )
    context_tokens: int = Field(
        8192,
        ge=1024,
        description="The chat model's context (Ollama num_ctx); prompts are fitted to it. "
        "An OpenAI-compatible server sets its own: give its size here (llama-server -c).",
    )
    history_tokens: int = Field(
        2048, ge=0, description="Most of the context earlier messages of a session may take."
    )
    focus_tokens: int = Field(
        FOCUS_TOKENS,
        ge=0,
        description="Most tokens the passages of an answer may take: the sentences of each "
        "that bear on the question are shown (tables and summaries whole); 0 shows whole "
        "passages.",
    )
    suggestions: Annotated[
        bool, Editable("Suggest follow-up questions", "answers", name="Follow-up questions")
    ] = Field(True, description="Suggest three follow-up questions.")
    max_calls_per_question: Annotated[
        int,
        Editable(
            "Model calls per question (reading whole documents)",
            "answers",
            name="Max calls per question",
            live=True,
        ),
    ] = Field(
        24,
        ge=2,
        le=1000,
        description="Model calls one question about whole documents may make (notes on "
        "sections plus the answer); past it the answer says which pages it left unread.",
    )
    expand_queries: bool = Field(
        False, description="Also search three rephrasings of each question (one more LLM call)."
    )
    rewrite_timeout: float = Field(
        20.0,
        gt=0,
        description=(
            "Seconds to wait for a follow-up to be rewritten before searching (on a server "
            "that answers one request at a time, the rewrite is waited for)."
        ),
    )
    probe_chat_below: float = Field(
        0.30, description="Router: a best chunk less similar than this means plain chat."
    )
    probe_rag_above: float = Field(
        0.45, description="Router: a best chunk this similar means a document question."
    )
    session_idle_hours: float = Field(
        12.0,
        gt=0,
        description="A window login ends after this many hours without use (the API token "
        "never does); Lock in the window ends it at once.",
    )
    open_browser: CliSuppress[bool] = Field(
        True, description="Open a browser tab on start (the command line says --no-browser)."
    )
    native: bool = Field(False, description="Open a native window instead of a tab.")

    @field_validator("ollama_host", "embed_host", "llm_url")
    @classmethod
    def _with_scheme(cls, value: str | None) -> str | None:
        if value and "://" not in value:
            value = f"http://{value}"
        return value.rstrip("/") if value else value

    @field_validator("data_dir")
    @classmethod
    def _resolved(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @field_validator("docs")
    @classmethod
    def _in_data_dir_unless_given(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        if value is not None:
            return value.expanduser().resolve()
        data_dir: Path | None = info.data.get("data_dir")  # None: refused, its error says why
        return data_dir / "documents" if data_dir else None

    @property
    def docs_dir(self) -> Path:
        """The watched folder, always resolved."""
        assert self.docs is not None
        return self.docs

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

    @property
    def token_path(self) -> Path:
        return self.data_dir / TOKEN_FILE


EDITABLE = editable_fields(Settings)
"""Each setting the window may change, as the Settings dialog orders them (by section,
then as declared above): the dialog, the saved preferences and their messages read it."""
