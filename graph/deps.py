"""What the graph needs from the rest of the app, as protocols."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from graph.options import TurnOptions
from ingest.types import Hit
from models.protocols import ChatModel, Reranker

if TYPE_CHECKING:
    from graph.retrieval.retriever import Retriever


class PassageSearch(Protocol):
    """The read side of the store."""

    def search(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        """The k best chunks for the query, optionally only from the given files."""
        ...


@dataclass
class GraphDeps:
    """Services the nodes use; built by the container, faked in tests."""

    llm: ChatModel
    search: PassageSearch
    reranker: Reranker
    known_files: Callable[[], list[str]]
    """Relative paths of the documents that can be searched."""
    top_k: int = 5
    history_turns: int = 3
    """How many earlier question/answer pairs the generator sees."""
    retriever: Retriever | None = None
    """Hybrid search with fusion, reranking, neighbours and the floor; without it the
    retriever node falls back to ``search`` and ``reranker`` alone."""
    probe: PassageSearch | None = None
    """Vector search the router's probe scores questions against (cosine similarity);
    None means ``search``, and then the retriever reuses the probe's hits."""
    options: TurnOptions = field(default_factory=TurnOptions)
    """Budgets, thresholds and switches of the router, rewriter and generator."""
