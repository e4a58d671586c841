"""Settings a turn and a search read, built from one snapshot and handed on whole when the
window changes one, so neither sees half a change. A field takes the setting of the same
name in the groups that feed it: a live setting so named needs nothing more to apply."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import BaseModel

from app.services.reranking import Reranking
from app.settings import Settings
from graph.deps import GraphDeps
from graph.retrieval.settings import RetrievalSettings
from graph.turn_options import TurnOptions
from models.protocols import ChatModel


def turn_options(settings: Settings) -> TurnOptions:
    """The router's, rewriter's and generator's knobs, from one snapshot of the settings."""
    return TurnOptions(**_named_alike(TurnOptions, settings.turn, settings.models))


def retrieval_settings(settings: Settings) -> RetrievalSettings:
    """The retriever's knobs, from one snapshot of the settings."""
    return RetrievalSettings(**_named_alike(RetrievalSettings, settings.search))


def _named_alike(
    options: type[TurnOptions | RetrievalSettings], *groups: BaseModel
) -> dict[str, Any]:
    return {
        field.name: getattr(group, field.name)
        for group in groups
        for field in dataclasses.fields(options)
        if field.name in type(group).model_fields
    }


def apply_live(
    before: Settings, now: Settings, deps: GraphDeps, llm: ChatModel, reranking: Reranking
) -> None:
    """Answer from the next turn and search with the settings ``now`` (a turn or a search
    under way keeps the snapshot it began with)."""
    deps.options = turn_options(now)
    deps.retriever.settings = retrieval_settings(now)
    if now.models.chat_model != before.models.chat_model:
        llm.use(now.models.chat_model)
    if now.search.rerank_download != before.search.rerank_download:
        reranking.prepare(now.search.rerank_download)
