"""The typed state that flows through the graph, and the shapes it carries."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

Mode = Literal["auto", "rag", "chat"]
Route = Literal["rag", "chat"]


class Source(TypedDict):
    """One numbered passage an answer may cite (the contract's source shape)."""

    n: int
    file: str
    path: str
    page: int | None
    snippet: str
    score: float
    scores: NotRequired[dict[str, Any]]
    """Why it was retrieved: dense, bm25 (scores and ranks), fused and rerank."""


class SearchQuery(TypedDict):
    """One search the retriever runs."""

    text: str
    files: list[str]
    """Relative paths to search in; empty means the whole library."""


class AgentState(TypedDict, total=False):
    """State of one session; the checkpointer keeps it between turns."""

    messages: Annotated[list[AnyMessage], add_messages]
    """Conversation so far. Caller adds the user's message; generator adds the answer."""
    question: str
    """This turn's message text, as typed. Written by the caller."""
    mode: Mode
    """Caller's override: 'auto' lets the router decide. Written by the caller."""
    route: Route
    """Whether this turn searches the documents. Written by the router."""
    mentions: list[str]
    """Documents named with @file, resolved to their paths. Written by the router."""
    queries: list[SearchQuery]
    """What the retriever searches for; it runs each and merges the hits. Written by the
    rewriter."""
    sources: list[Source]
    """Numbered passages for the generator. Written by the retriever."""
    passages: list[str]
    """Full text of each source, in the same order. Written by the retriever."""
    candidates: list[dict[str, Any]]
    """Every chunk the retriever considered, with all its scores, for the trace. Written by
    the retriever."""
    answer: str
    """The final answer text. Written by the generator."""
