"""Under a reading that stopped short: what it read, and the follow-ups that use its notes.

Each follow-up is sent as a message of its own, so the API offers the same (docs/api.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.records import StoppedReading
from ui.answer import markdown

ICONS = {"Summarise what was read": "summarize", "Continue reading": "play_arrow"}


def show_resume(resume: StoppedReading, stopped: bool, send: Callable[[str], Any]) -> ui.row:
    """What a stopped answer read, then one button per follow-up the reading offers."""
    with ui.row().classes("items-center gap-2 w-full").mark("resume") as row:
        if stopped:
            said = str(resume.get("read") or "")
            line = (
                f"Read before the stop: {said}. Its notes are kept."
                if said
                else ("Stopped before a section was read.")
            )
            ui.html(markdown.render(line), sanitize=False).classes(
                "text-xs docent-muted docent-md"
            ).mark("resume-read")
        for action in resume.get("actions") or []:
            button = ui.button(
                action, icon=ICONS.get(action, "arrow_forward"), on_click=lambda a=action: send(a)
            )
            button.props("outline dense no-caps size=sm color=primary")
            button.mark("resume-action")
    return row
