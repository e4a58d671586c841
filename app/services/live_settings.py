"""Settings a turn and a search read: built from one snapshot of the settings, and handed
on whole when the window changes one.

A change makes a new frozen ``Settings`` (``Preferences``); ``apply_live`` gives the graph
a new ``TurnOptions`` and ``RetrievalSettings`` made from it. A turn reads the options once,
as it begins, and a search the retrieval settings, so neither sees half a change. A field
of either takes the setting of the same name: a setting marked live that shares a name
with one applies from the next turn or search with nothing more to write.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from app.services.reranking import Reranking
from app.settings import Settings
from graph.deps import GraphDeps
from graph.options import TurnOptions
from graph.retrieval.settings import RetrievalSettings
from models.protocols import ChatModel


def turn_options(settings: Settings) -> TurnOptions:
    """The router's, rewriter's and generator's knobs, from one snapshot of the settings."""
    return TurnOptions(**_named_alike(TurnOptions, settings))


def retrieval_settings(settings: Settings) -> RetrievalSettings:
    """The retriever's knobs, from one snapshot of the settings."""
    return RetrievalSettings(**_named_alike(RetrievalSettings, settings))


def _named_alike(
    options: type[TurnOptions | RetrievalSettings], settings: Settings
) -> dict[str, Any]:
    return {
        field.name: getattr(settings, field.name)
        for field in dataclasses.fields(options)
        if field.name in Settings.model_fields
    }


def apply_live(
    before: Settings, now: Settings, deps: GraphDeps, llm: ChatModel, reranking: Reranking
) -> None:
    """Answer from the next turn and search with the settings ``now``; what ``before``
    had is replaced whole (a turn or a search under way keeps the snapshot it began with)."""
    deps.options = turn_options(now)
    deps.retriever.settings = retrieval_settings(now)
    if now.chat_model != before.chat_model:
        llm.use(now.chat_model)
    if now.rerank_download != before.rerank_download:
        reranking.prepare(now.rerank_download)
