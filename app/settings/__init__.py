"""Settings: ``DOCENT_*`` environment variables, with command-line flags on top. Inside, they
sit in groups (``settings.search.top_k``); outside, each keeps one flat name: its variable
``DOCENT_TOP_K``, its flag ``--top-k``, its saved key, and ``Settings(top_k=8)``."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel, Field, create_model, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from app.editable import editable_fields
from app.settings.answers import SearchSettings, TurnSettings
from app.settings.ingest import IngestSettings
from app.settings.models import LM_STUDIO_URL, ModelSettings
from app.settings.places import PathSettings, ServerSettings

__all__ = [
    "EDITABLE",
    "FLAT",
    "LM_STUDIO_URL",
    "IngestSettings",
    "ModelSettings",
    "PathSettings",
    "SearchSettings",
    "ServerSettings",
    "Settings",
    "TurnSettings",
]


class Settings(BaseSettings):
    """Everything Docent can be configured with, in groups; each setting reads
    ``DOCENT_<NAME>``. Each group is frozen and, as BaseSettings does, validates its
    defaults too (an ``OLLAMA_HOST`` without a scheme gets one)."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True)
    """Frozen, groups and all: a change from the window makes a new snapshot
    (``Preferences``), so a turn or a search holding one never sees it change under it."""

    paths: PathSettings = Field(default_factory=lambda: PathSettings.model_validate({}))
    server: ServerSettings = Field(default_factory=lambda: ServerSettings.model_validate({}))
    models: ModelSettings = Field(default_factory=lambda: ModelSettings.model_validate({}))
    ingest: IngestSettings = Field(default_factory=lambda: IngestSettings.model_validate({}))
    search: SearchSettings = Field(default_factory=lambda: SearchSettings.model_validate({}))
    turn: TurnSettings = Field(default_factory=lambda: TurnSettings.model_validate({}))

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The variables keep their flat names (DOCENT_TOP_K, not DOCENT_SEARCH__TOP_K):
        # they are read as the flat model spells them, then put in their groups below.
        return (init_settings, EnvSettingsSource(FLAT))

    @model_validator(mode="before")
    @classmethod
    def _grouped(cls, data: Any) -> Any:
        """Flat names (from a variable, a flag, the saved file or a caller) go to their
        group; what a group given whole says wins over them."""
        if not isinstance(data, dict):
            return data
        grouped: dict[str, Any] = {}
        for key, value in data.items():
            name = key.lower()
            if name in GROUP_OF:
                grouped.setdefault(GROUP_OF[name], {})[name] = value
            elif key not in GROUPS:
                grouped[key] = value  # no setting: ignored, as extra
        for group in GROUPS.keys() & data.keys():
            given = data[group]
            if isinstance(given, BaseModel):
                given = {name: getattr(given, name) for name in given.model_fields_set}
            grouped[group] = {**grouped.get(group, {}), **given}
        return grouped

    def value(self, name: str) -> Any:
        """The setting of flat name ``name`` ("top_k")."""
        return getattr(getattr(self, GROUP_OF[name]), name)

    def explicit(self) -> dict[str, Any]:
        """The settings a flag, a variable or the caller gave (not defaults), by flat name."""
        return {
            name: getattr(group, name)
            for group in (getattr(self, g) for g in GROUPS)
            for name in group.model_fields_set
        }

    def replaced(self, values: dict[str, Any]) -> Settings:
        """A new snapshot with ``values`` (by flat name, checked already) in their groups."""
        changes: dict[str, dict[str, Any]] = {}
        for name, value in values.items():
            changes.setdefault(GROUP_OF[name], {})[name] = value
        return self.model_copy(
            update={g: getattr(self, g).model_copy(update=v) for g, v in changes.items()}
        )


GROUPS: dict[str, type[BaseModel]] = {
    name: info.annotation
    for name, info in Settings.model_fields.items()
    if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
}
"""Each group of ``Settings``, by the name it has there."""

GROUP_OF: dict[str, str] = {
    name: group for group, model in GROUPS.items() for name in model.model_fields
}
"""The group that declares each setting, by the setting's flat name."""
if len(GROUP_OF) < sum(len(model.model_fields) for model in GROUPS.values()):
    raise TypeError("Two groups of Settings declare a setting of the same name; rename one.")


class _Flat(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DOCENT_", extra="ignore")


FLAT: type[BaseSettings] = create_model(  # type: ignore[call-overload]
    "DocentSettings",
    __base__=_Flat,
    **{
        name: (info.annotation, copy.copy(info))
        for model in GROUPS.values()
        for name, info in model.model_fields.items()
    },
)
"""Every setting under its flat name, as the environment and the command line spell it;
made from the groups, so a setting is declared once. Read, never built."""


EDITABLE = editable_fields(*GROUPS.values())
"""Each setting the window may change, as the Settings dialog orders them (by section,
then as the groups declare them): the dialog, the saved preferences and their messages
read it."""
