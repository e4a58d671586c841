"""Settings changed from the window: saved in the data dir, applied live where they can be."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.services.health import HealthMonitor
from app.settings import Settings
from models.protocols import ChatModel, PullProgress, PullsModels

log = logging.getLogger(__name__)

EDITABLE = (
    "llm_api",
    "llm_url",
    "ollama_host",
    "embed_host",
    "chat_model",
    "embed_backend",
    "embed_model",
    "top_k",
    "rerank_candidates",
    "rerank_download",
    "suggestions",
    "max_calls_per_question",
    "docs",
)
"""What the settings dialog offers, in its order; a name Settings doesn't have is skipped,
so fields other parts add (rerank depth, follow-ups) appear once they exist."""


EMBEDDING_FIELDS = ("embed_backend", "embed_model", "embed_host")
"""Together they choose the embedding model; changing it rebuilds the index."""


class InvalidSetting(ValueError):
    """A value the settings refuse; the message says which and why."""


def saved_path(settings: Settings) -> Path:
    return settings.data_dir / "preferences.json"


def with_saved(settings: Settings) -> Settings:
    """``settings`` plus what the window saved, for every field no flag or variable set."""
    try:
        saved = json.loads(saved_path(settings).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return settings
    except (OSError, ValueError) as error:
        log.warning("ignoring unreadable %s: %s", saved_path(settings), error)
        return settings
    chosen = {
        k: v for k, v in saved.items() if k in EDITABLE and k not in settings.model_fields_set
    }
    if not chosen:
        return settings
    try:
        return type(settings)(**{**_explicit(settings), **chosen})
    except ValidationError as error:
        log.warning("ignoring saved settings that no longer validate: %s", error)
        return settings


def _explicit(settings: Settings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in settings.model_fields_set}


class Preferences:
    """What the window may change; ``update`` saves it and applies what can change live."""

    def __init__(
        self,
        settings: Settings,
        live: dict[str, Callable[[Any], None]],
        *,
        embedding: Callable[[dict[str, Any], Settings, Callable[[dict[str, Any]], None]], object]
        | None = None,
    ) -> None:
        self.settings = settings
        self._live = live
        """Setters for the fields that take effect at once (the rest wait for a restart)."""
        self._embedding = embedding
        """Starts switching to the embedding model the fields name, in the background; it
        calls ``save`` once the model has loaded (a model that can't load is not saved)."""

    def fields(self) -> list[tuple[str, Any, str]]:
        """(name, current value, description) of every editable field."""
        out = []
        for name in EDITABLE:
            info = Settings.model_fields.get(name)
            if info is not None:
                out.append((name, getattr(self.settings, name), info.description or name))
        return out

    def is_live(self, name: str) -> bool:
        return name in self._live or (self._embedding is not None and name in EMBEDDING_FIELDS)

    def update(self, changes: dict[str, Any]) -> list[str]:
        """Validate, save and apply ``changes``; returns the names that need a restart."""
        changes = {k: v for k, v in changes.items() if getattr(self.settings, k, None) != v}
        unknown = [k for k in changes if k not in EDITABLE or k not in Settings.model_fields]
        if unknown:
            raise InvalidSetting(f"These settings can't be changed here: {', '.join(unknown)}.")
        if not changes:
            return []
        checked = self._checked(changes)
        embedding = {}
        if self._embedding is not None:
            embedding = {k: getattr(checked, k) for k in changes if k in EMBEDDING_FIELDS}
        rest = {k: getattr(checked, k) for k in changes if k not in embedding}
        self._write(rest)
        restart = []
        for name, value in rest.items():
            if name in self._live:
                self._live[name](value)
                setattr(self.settings, name, value)
            else:
                restart.append(name)
        if embedding and self._embedding is not None:
            self._embedding(embedding, checked, self.save)
        return restart

    def save(self, changes: dict[str, Any]) -> None:
        """Validate and save ``changes``, and hold them in the settings from now on."""
        checked = self._checked(changes)
        values = {name: getattr(checked, name) for name in changes}
        self._write(values)
        for name, value in values.items():
            setattr(self.settings, name, value)

    def _checked(self, changes: dict[str, Any]) -> Settings:
        try:
            return type(self.settings)(**{**_explicit(self.settings), **changes})
        except ValidationError as error:
            problems = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors())
            raise InvalidSetting(f"Not saved: {problems}.") from error

    def _write(self, values: dict[str, Any]) -> None:
        if not values:
            return
        path = saved_path(self.settings)
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            saved = {}
        for name, value in values.items():
            saved[name] = str(value) if isinstance(value, Path) else value
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(saved, indent=2), encoding="utf-8")
        tmp.replace(path)


class ChatModels:
    """The chat server's models: which it has, which one answers, and pulling more (Ollama)."""

    def __init__(
        self,
        llm: ChatModel,
        health: HealthMonitor,
        preferences: Preferences,
        *,
        server: str = "Ollama",
    ) -> None:
        self._llm = llm
        self.server = server
        """The chat model server as a sentence names it ("Ollama", "the model server")."""
        self._puller = llm if isinstance(llm, PullsModels) else None
        """The host's model downloads, when it has them (Ollama does)."""
        self._health = health
        self._preferences = preferences

    @property
    def current(self) -> str:
        return self._llm.model

    @property
    def installed(self) -> list[str]:
        """As of the last health check."""
        return self._health.report.models

    @property
    def can_pull(self) -> bool:
        return self._puller is not None

    def choose(self, name: str) -> None:
        """Answer with ``name`` from the next turn on, now and after a restart."""
        self._preferences.update({"chat_model": name})
        self._health.poke()

    async def pull(self, name: str) -> AsyncIterator[PullProgress]:
        """Download ``name`` into Ollama, yielding progress; LLMError if Ollama refuses."""
        if self._puller is None:
            raise InvalidSetting("This chat model's host can't download models.")
        async for step in self._puller.pull(name):
            yield step
        await self._health.check_now()
