"""The mark on a setting the window may change, and reading the marks off a settings model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

Section = Literal["server", "models", "search", "answers", "folder"]
SECTIONS: tuple[Section, ...] = ("server", "models", "search", "answers", "folder")
"""The Settings dialog's groups, in the order it shows them."""


@dataclass(frozen=True)
class Editable:
    """Marks a setting the window may change: how the Settings dialog labels it, the
    shorter name a sentence about it uses, and whether a change applies at once."""

    label: str
    section: Section
    name: str = ""
    """The setting in a sentence ("Top K must be at least 1"); the label when empty."""
    live: bool = False
    """Applies from the next turn or search; otherwise saved, and used after a restart."""

    @property
    def short(self) -> str:
        return self.name or self.label


def editable_fields(*models: type[BaseModel]) -> dict[str, Editable]:
    """The marked fields of ``models``, by section, then in the order they are declared."""
    found = {
        name: mark
        for model in models
        for name, info in model.model_fields.items()
        for mark in info.metadata
        if isinstance(mark, Editable)
    }
    return dict(sorted(found.items(), key=lambda item: SECTIONS.index(item[1].section)))
