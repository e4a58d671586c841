"""The light half of the services: the registry, the chat model's adapter and the status
need no graph, Chroma or onnxruntime, so `/api/status` and the window answer before the
heavy half (``Services``) has loaded."""

from __future__ import annotations

from dataclasses import dataclass

from app.paths import open_data_dir
from app.services.chat_server import build_chat_model
from app.services.embedders import embedder_name
from app.services.preferences import with_saved
from app.services.status import StatusService
from app.settings import Settings
from ingest.disk import short_of_room
from ingest.index.registry import Registry
from models.protocols import ChatModel


@dataclass(frozen=True)
class Core:
    """The settings (with what the window saved) and the light services."""

    settings: Settings
    token: str
    registry: Registry
    llm: ChatModel
    status: StatusService


def open_core(settings: Settings, *, llm: ChatModel | None = None) -> Core:
    """Open the data dir and the light services; ``llm``: a chat model to use instead
    of the configured server's (tests pass fakes in)."""
    settings = with_saved(settings)
    token = open_data_dir(
        settings.paths.data_dir, settings.paths.docs_dir, local_index=not settings.paths.chroma_url
    )
    registry = Registry(settings.paths.data_dir / "docent.db")
    chat = llm or build_chat_model(settings.models)
    status = StatusService(
        registry,
        chat.health,
        chat_model=lambda: chat.model,
        embed_model=lambda: embedder_name(settings),
        disk_full=lambda: short_of_room(settings.paths.data_dir),
        starting=True,
    )
    return Core(settings, token, registry, chat, status)
