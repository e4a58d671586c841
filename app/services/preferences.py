"""Settings changed from the window: saved in the data dir, applied live where they can be."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.services.health import HealthMonitor
from app.services.model_catalog import ModelCatalog, catalog, deduplicated
from app.settings import EDITABLE, GROUP_OF, GROUPS, Settings
from models.llm import LLMError
from models.protocols import ChatModel, DescribesModels, ModelInfo, PullProgress, PullsModels

log = logging.getLogger(__name__)

EMBEDDING_FIELDS = ("embed_backend", "embed_model", "embed_host")
"""Together they choose the embedding model; changing it rebuilds the index."""


def setting_name(field: str) -> str:
    """The setting as a sentence names it ("Top K")."""
    marked = EDITABLE.get(field)
    return marked.short if marked else field.replace("_", " ").capitalize()


def sentence(error: Any) -> str:
    """One of pydantic's errors as a sentence a person reads: "Top K must be at least 1"."""
    # A setting's place is (group, name), and a union's member may follow: name it.
    named = [str(part) for part in error.get("loc", ()) if str(part) in GROUP_OF]
    name = setting_name(named[0]) if named else "This setting"
    ctx = error.get("ctx") or {}
    kind = error.get("type", "")
    if kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        return (
            f"{name} must be {'at least' if kind == 'greater_than_equal' else 'more than'} {bound}"
        )
    if kind in ("less_than_equal", "less_than"):
        bound = ctx.get("le", ctx.get("lt"))
        return f"{name} must be {'at most' if kind == 'less_than_equal' else 'less than'} {bound}"
    if kind in ("int_parsing", "int_from_float", "int_type"):
        return f"{name} must be a whole number"
    if kind in ("bool_parsing", "bool_type"):
        return f"{name} must be on or off"
    if kind == "literal_error":
        return f"{name} must be one of {ctx.get('expected', 'the listed choices')}"
    if kind in ("string_too_short", "missing"):
        return f"{name} can't be empty"
    if kind == "string_too_long":
        return f"{name} must be at most {ctx.get('max_length')} characters"
    message = str(error.get("msg", "is not valid")).removeprefix("Value error, ")
    return f"{name}: {message[:1].lower() + message[1:]}".rstrip(".")


def _description(name: str) -> str:
    field = GROUPS[GROUP_OF[name]].model_fields[name]
    return field.description or name


class InvalidSetting(ValueError):
    """A value the settings refuse; the message says which and why."""


def saved_path(settings: Settings) -> Path:
    return settings.paths.data_dir / "preferences.json"


def with_saved(settings: Settings) -> Settings:
    """``settings`` plus what the window saved, for every field no flag or variable set."""
    try:
        saved = json.loads(saved_path(settings).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return settings
    except (OSError, ValueError) as error:
        log.warning("ignoring unreadable %s: %s", saved_path(settings), error)
        return settings
    given = settings.explicit()
    chosen = {k: v for k, v in saved.items() if k in EDITABLE and k not in given}
    if not chosen:
        return settings
    try:
        return type(settings)(**{**given, **chosen})
    except ValidationError as error:
        log.warning("ignoring saved settings that no longer validate: %s", error)
        return settings


Apply = Callable[[Settings, Settings], None]
"""Hands the settings now to what reads them live, given the snapshot they replace."""


class Preferences:
    """What the window may change; ``update`` saves it and applies what can change live."""

    def __init__(
        self,
        settings: Settings,
        apply: Apply | None = None,
        *,
        embedding: Callable[[dict[str, Any], Settings, Callable[[dict[str, Any]], None]], object]
        | None = None,
    ) -> None:
        self.settings = settings
        """The settings now: a frozen snapshot, replaced whole when a live one changes."""
        self._apply = apply
        """Applies a new snapshot to what reads it; without it, changes wait for a restart."""
        self._embedding = embedding
        """Starts switching to the embedding model the fields name, in the background; it
        calls ``save`` once the model has loaded (a model that can't load is not saved)."""

    def fields(self) -> list[tuple[str, Any, str]]:
        """(name, current value, description) of every editable field."""
        return [(n, self.settings.value(n), _description(n)) for n in EDITABLE]

    def is_live(self, name: str) -> bool:
        """The setting applies from the next turn or search (its mark says it can)."""
        if name in EMBEDDING_FIELDS:
            return self._embedding is not None
        return EDITABLE[name].live and self._apply is not None

    def update(self, changes: dict[str, Any]) -> list[str]:
        """Validate, save and apply ``changes``; returns the names that need a restart."""
        changes = {
            k: v for k, v in changes.items() if k not in GROUP_OF or self.settings.value(k) != v
        }
        unknown = [k for k in changes if k not in EDITABLE]
        if unknown:
            raise InvalidSetting(f"These settings can't be changed here: {', '.join(unknown)}.")
        if not changes:
            return []
        checked = self._checked(changes)
        embedding = {}
        if self._embedding is not None:
            embedding = {k: checked.value(k) for k in changes if k in EMBEDDING_FIELDS}
        rest = {k: checked.value(k) for k in changes if k not in embedding}
        self._write(rest)
        self._hold({k: v for k, v in rest.items() if self.is_live(k)})
        restart = [name for name in rest if not self.is_live(name)]
        if embedding and self._embedding is not None:
            self._embedding(embedding, checked, self.save)
        return restart

    def save(self, changes: dict[str, Any]) -> None:
        """Validate and save ``changes``, and hold them in the settings from now on."""
        checked = self._checked(changes)
        values = {name: checked.value(name) for name in changes}
        self._write(values)
        self._hold(values)

    def _hold(self, values: dict[str, Any]) -> None:
        """A new snapshot with ``values`` (checked already), handed to what reads it live."""
        if not values:
            return
        before, self.settings = self.settings, self.settings.replaced(values)
        if self._apply is not None:
            self._apply(before, self.settings)

    def remembered(self, key: str) -> Any:
        """A choice the window keeps that is not a setting (an offer answered); None if not."""
        return self._saved().get("window", {}).get(key)

    def remember(self, key: str, value: Any) -> None:
        """Keep ``value`` for ``remembered``, beside the saved settings."""
        window = dict(self._saved().get("window", {}))
        window[key] = value
        self._write({"window": window})

    def _saved(self) -> dict[str, Any]:
        try:
            saved = json.loads(saved_path(self.settings).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return saved if isinstance(saved, dict) else {}

    def _checked(self, changes: dict[str, Any]) -> Settings:
        try:
            return type(self.settings)(**{**self.settings.explicit(), **changes})
        except ValidationError as error:
            problems = ". ".join(sentence(e) for e in error.errors())
            raise InvalidSetting(f"Not saved. {problems}.") from error

    def _write(self, values: dict[str, Any]) -> None:
        if not values:
            return
        path = saved_path(self.settings)
        saved = self._saved()
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
        """As of the last health check, each model once (``llama3.2`` = ``llama3.2:latest``)."""
        return [m.name for m in deduplicated(ModelInfo(n) for n in self._health.report.models)]

    async def catalog(self) -> ModelCatalog:
        """The server's models, with sizes where it says; else those of the last health check."""
        if isinstance(self._llm, DescribesModels):
            try:
                return catalog(await self._llm.describe_models())
            except LLMError as error:
                log.info("listing the models failed: %s", error)
        return catalog(ModelInfo(n) for n in self._health.report.models)

    @property
    def can_pull(self) -> bool:
        return self._puller is not None

    def choose(self, name: str) -> None:
        """Answer with ``name`` from the next turn on, now and after a restart."""
        self._preferences.update({"chat_model": name})
        # The setting may already name it (``llama3.2``, while a flag started Docent with
        # another model): an unchanged setting applies nothing, so the model is told here.
        if self._llm.model != name:
            self._llm.use(name)
        self._health.poke()

    async def pull(self, name: str) -> AsyncIterator[PullProgress]:
        """Download ``name`` into Ollama, yielding progress; LLMError if Ollama refuses."""
        if self._puller is None:
            raise InvalidSetting("This chat model's host can't download models.")
        async for step in self._puller.pull(name):
            yield step
        await self._health.check_now()
