"""Settings the window may change are marked once, where they are declared; the dialog,
the saved preferences and their messages read the marks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel

from app.editable import Editable, editable_fields
from app.services.preferences import Preferences, setting_name, with_saved
from app.settings import EDITABLE, Settings


class Knobs(BaseModel):
    folder: Annotated[str, Editable("Folder", "folder")] = "docs"
    hidden: int = 1
    depth: Annotated[int, Editable("Search depth", "search", name="Depth", live=True)] = 3
    server: Annotated[str, Editable("Server", "server")] = "local"
    width: Annotated[int, Editable("Width", "search")] = 2


def test_marked_fields_are_read_by_section_then_as_declared() -> None:
    marks = editable_fields(Knobs)
    assert list(marks) == ["server", "depth", "width", "folder"]  # "hidden" is not offered
    assert marks["depth"] == Editable("Search depth", "search", name="Depth", live=True)


def test_what_the_dialog_offers_is_what_is_marked(tmp_path: Path) -> None:
    offered = [name for name, _, _ in Preferences(Settings(data_dir=tmp_path)).fields()]
    assert offered == list(EDITABLE)
    assert "top_k" in offered and "host" not in offered
    assert setting_name("top_k") == "Top K"  # the mark's short name, in messages
    assert setting_name("docs") == "Documents folder"  # else its label


def test_the_saved_file_sets_marked_settings_only(tmp_path: Path) -> None:
    saved = {"top_k": 9, "sentence_order": True, "port": 9999, "context_tokens": 2048}
    (tmp_path / "preferences.json").write_text(json.dumps(saved))
    settings = with_saved(Settings(data_dir=tmp_path))
    assert (settings.search.top_k, settings.search.sentence_order) == (9, True)
    assert (settings.server.port, settings.models.context_tokens) == (
        8080,
        8192,
    )  # not the window's
