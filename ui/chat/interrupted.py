"""Where an answer a crash cut off would be: the notice, and a button to ask again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.records import INTERRUPTED_NOTICE


def render_interrupted(on_ask_again: Callable[[], Any]) -> ui.card:
    """The interrupted answer's card; ``on_ask_again`` asks its question once more."""
    with ui.card().classes("docent-answer-card shadow-sm").props("flat bordered") as card:
        card.mark("interrupted")
        with ui.row().classes("items-center gap-2 no-wrap"):
            ui.icon("report_gmailerrorred").classes("docent-stopped text-lg")
            ui.label(INTERRUPTED_NOTICE).mark("interrupted-text")
            again = ui.button("Ask again", icon="refresh", on_click=on_ask_again)
            again.props("flat dense no-caps size=sm").mark("ask-again")
    return card
