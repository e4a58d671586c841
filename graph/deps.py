"""What the graph needs from the rest of the app, and how each turn gets its share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from graph.nodes.route import start_early
from graph.retrieval.retriever import Retriever
from graph.state import Mode
from graph.turn_context import TurnContext
from graph.turn_options import TurnOptions
from graph.whole.section_notes import SectionNotes
from models.protocols import ChatModel


@dataclass
class GraphDeps:
    """The long-lived services turns draw on; built by the container, faked in tests."""

    llm: ChatModel
    retriever: Retriever
    known_files: Callable[[], list[str]]
    """Relative paths of the documents that can be searched."""
    options: TurnOptions = field(default_factory=TurnOptions)
    """Budgets, thresholds and switches of the router, rewriter and generator; replaced
    whole when a setting changes (the next turn has them, one under way keeps its own)."""
    notes: SectionNotes = field(default_factory=SectionNotes)
    """Notes on sections of documents read whole (the container's file in the data dir)."""

    def begin(
        self,
        question: str,
        mode: Mode = "auto",
        *,
        opening: bool = False,
        llm: ChatModel | None = None,
        ask_model: bool = True,
    ) -> TurnContext:
        """The context of a turn answering ``question``, with a search of its own that the
        caller closes when the turn ends; ``llm`` answers instead of the configured model.

        An ``opening`` message (a new session's first, with no history to rewrite it
        against) is judged by the router's rules now, and its search may start at once
        (``start_early``).
        """
        search = self.retriever.begin()
        early = start_early(search, question, mode, self.options) if opening else None
        return TurnContext(
            llm or self.llm,
            search,
            self.known_files,
            self.options,
            self.notes,
            ask_model=ask_model,
            early=early,
        )
