"""What one turn's nodes work with: LangGraph's runtime context (``context_schema``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from graph.nodes.rules import Verdict
from graph.retrieval.turn_search import Search
from graph.turn_options import TurnOptions
from graph.whole.section_notes import SectionNotes
from models.protocols import ChatModel


@dataclass(frozen=True)
class TurnContext:
    """The turn's chat model, search, library and options, made by ``GraphDeps.begin`` per turn."""

    llm: ChatModel
    search: Search
    """The turn's searching (probe, retrieval, trace); whoever began it closes it."""
    known_files: Callable[[], list[str]]
    """Relative paths of the documents that can be searched."""
    options: TurnOptions = field(default_factory=TurnOptions)
    """Budgets, thresholds and switches of the router, rewriter and generator."""
    notes: SectionNotes = field(default_factory=SectionNotes)
    """Notes on sections of documents read whole, kept between turns."""
    ask_model: bool = True
    """Whether the router may ask the model when its cheaper tiers can't tell; a slow server is not
    asked and the message is searched."""
    early: Verdict | None = None
    """The rules' verdict if judged before the graph ran (``start_early``), for the router."""
