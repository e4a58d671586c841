"""The row of buttons under an answer: versions, copy, regenerate, rating, the trace."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from nicegui import ui

from app.records import Feedback, Trace
from app.services.chat_export import answer_with_sources


@dataclass
class AnswerActions:
    """What the buttons under an answer do; the page supplies them."""

    open_source: Callable[[dict[str, Any]], Any]
    regenerate: Callable[[], Any]
    show_trace: Callable[[dict[str, Any]], Any]
    send_suggestion: Callable[[str], Any]
    rate: Callable[[str, Feedback | None], Any]
    """A thumbs up or down on the answer of a turn id (None takes it back)."""


class ActionsView(Protocol):
    """What the row reads and sets of the answer it sits under (ui/chat/messages.py)."""

    actions: AnswerActions
    turn_id: str
    text: str
    sources: list[dict[str, Any]]
    trace: Trace | None
    stopped: bool
    regen: ui.button | None
    versions: list[dict[str, Any]]
    shown: int | None
    feedback: Feedback | None
    retired: bool
    arrows: tuple[ui.button, ...]

    def show_version(self, index: int) -> None: ...


def show_actions(view: ActionsView) -> None:
    """Versions, copy, regenerate, rating and the trace, under the answer ``view`` shows."""
    with ui.row().classes("gap-0 items-center").mark("answer-actions"):
        if view.versions:
            _versions_nav(view)
        copied = answer_with_sources(view.text, view.sources)
        copy = ui.button(icon="content_copy").props(
            'flat dense round size=sm aria-label="Copy answer and sources"'
        )
        copy.on("click", js_handler=f"() => docent.copy({json.dumps(copied)})")
        copy.props["data-copy"] = copied  # what it copies, readable without a clipboard
        copy.tooltip("Copy answer and sources").mark("copy-answer")
        view.regen = ui.button(icon="refresh", on_click=view.actions.regenerate)
        view.regen.props('flat dense round size=sm aria-label="Regenerate"')
        view.regen.set_visibility(not view.retired)  # only the last answer's
        view.regen.tooltip("Regenerate").mark("regenerate")
        if view.shown is None:  # a rating is for the answer kept, not an earlier one
            for value, icon, tip in (
                ("up", "thumb_up", "Good answer"),
                ("down", "thumb_down", "Bad answer"),
            ):
                chosen = view.feedback == value
                thumb = ui.button(
                    icon=icon if chosen else f"o_{icon}",
                    on_click=lambda v=value: view.actions.rate(
                        view.turn_id, None if view.feedback == v else v
                    ),
                )
                thumb.props(
                    f'flat dense round size=sm aria-label="{tip}"'
                    + (" color=primary" if chosen else "")
                ).tooltip(f"{tip} (kept on this computer, to tune Docent)")
                thumb.mark(f"rate-{value}" + (" rated" if chosen else ""))
        if view.sources or (view.trace and view.trace.get("nodes")):
            why = ui.button(
                "Why these sources?" if view.sources else "How was this answered?",
                on_click=lambda: view.actions.show_trace(
                    {**(view.trace or {}), "sources": view.sources}
                ),
                color=None,  # its colour is docent-quiet's, readable in both themes
            )
            why.props("flat dense no-caps size=sm").classes("docent-quiet")
            why.mark("why-sources")
        if view.stopped:
            ui.label("Stopped").classes("docent-stopped ml-2").mark("stopped")


def _versions_nav(view: ActionsView) -> None:
    count = len(view.versions) + 1
    at = count - 1 if view.shown is None else view.shown
    back = ui.button(icon="chevron_left", on_click=lambda: _step(view, at, -1))
    back.props('flat dense round size=sm aria-label="Earlier answer"').tooltip(
        "Earlier answer"
    ).mark("version-back")
    back.set_enabled(at > 0)
    ui.label(f"{at + 1}/{count}").classes("text-xs docent-muted").mark("version-label")
    on = ui.button(icon="chevron_right", on_click=lambda: _step(view, at, 1))
    on.props('flat dense round size=sm aria-label="Later answer"').tooltip("Later answer").mark(
        "version-next"
    )
    on.set_enabled(at < count - 1)
    view.arrows = (back, on)


def _step(view: ActionsView, at: int, by: int) -> None:
    """Show the version ``by`` away from ``at``; focus goes to the rebuilt arrow, so a
    keyboard user keeps flipping instead of starting over from the top of the page."""
    client = ui.context.client  # the pressed arrow, and its slot, go with the old row
    view.show_version(at + by)
    back, on = view.arrows
    arrow = (back if back.enabled else on) if by < 0 else (on if on.enabled else back)
    client.run_javascript(f"setTimeout(() => document.getElementById('c{arrow.id}')?.focus())")
