"""Settings of a search and of a turn: what a question reads as it begins. One marked live
applies from the next search or turn when ``RetrievalSettings`` or ``TurnOptions`` has a
field of the same name (app/services/live_settings.py hands it on)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from app.editable import Editable
from graph.turn_options import FOCUS_TOKENS


class SearchSettings(BaseModel):
    """How much a search looks at and hands on, and what it and verify accept."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

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
    verify_max_chars: int = Field(
        20_000, ge=1, description="Longest text POST /api/verify (and MCP's verify) checks."
    )
    verify_seconds: float = Field(
        10.0,
        gt=0,
        description="Seconds a verify may spend checking sentences; the ones left when they "
        "are spent come back 'unchecked'.",
    )


class TurnSettings(BaseModel):
    """How a turn of the conversation routes, rewrites, fits its prompt and answers."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    max_message_chars: int = Field(16_000, ge=1, description="Longest chat message accepted.")
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
