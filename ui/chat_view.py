"""The conversation: past messages, and a turn streaming into the window."""

from __future__ import annotations

import time
from typing import Any

from nicegui import ui

from app.chat import ChatService, EmptyMessage, MessageTooLong, SessionBusy

SCROLL_EVERY_SECONDS = 0.25


def scroll_to_bottom() -> None:
    """Keep the newest text in view while an answer streams in."""
    ui.run_javascript("window.scrollTo(0, document.body.scrollHeight)")


def _source_label(source: dict[str, Any]) -> str:
    page = f" · page {source['page']}" if source.get("page") is not None else ""
    return f"[{source['n']}] {source['file']}{page}"


def render_sources(sources: list[dict[str, Any]]) -> None:
    """The answer's sources, by file name and page, with their snippets on hover."""
    if not sources:
        return
    with ui.row().classes("gap-1 mt-1").mark("sources"):
        for source in sources:
            ui.chip(_source_label(source), icon="description").props(
                "outline dense color=primary"
            ).classes("docent-source").tooltip(source.get("snippet", ""))


def render_user(text: str) -> None:
    with ui.row().classes("w-full justify-end"):
        ui.label(text).classes(
            "bg-primary text-white rounded-2xl px-4 py-2 max-w-[80%] whitespace-pre-wrap"
        ).mark("user-message")


def render_answer(text: str, sources: list[dict[str, Any]]) -> None:
    with ui.column().classes("w-full gap-0"):
        with ui.card().classes("max-w-[90%] shadow-sm"):
            ui.markdown(text).classes("docent-answer").mark("answer")
        render_sources(sources)


class ChatView:
    """One window's view of one session."""

    def __init__(self, chat: ChatService) -> None:
        self.chat = chat
        self.session_id: str | None = None
        self.column = ui.column().classes("docent-messages w-full gap-3 p-4")
        with self.column:
            self._empty_hint()

    def _empty_hint(self) -> None:
        ui.label("Ask about your documents. Use @file.pdf to ask about one file.").classes(
            "text-gray-500 self-center mt-8"
        ).mark("empty-hint")

    def clear(self) -> None:
        self.session_id = None
        self.column.clear()
        with self.column:
            self._empty_hint()

    async def show_session(self, session_id: str) -> None:
        """Replace the view with a saved session's messages."""
        messages = await self.chat.messages(session_id)
        self.session_id = session_id
        self.column.clear()
        with self.column:
            for message in messages:
                if message["role"] == "user":
                    render_user(message["content"])
                else:
                    render_answer(message["content"], message["sources"])

    async def send(self, text: str, mode: str) -> bool:
        """Start a turn and stream it in; False when it could not start."""
        try:
            turn = self.chat.start_turn(self.session_id, text, mode)  # type: ignore[arg-type]
        except (EmptyMessage, MessageTooLong, SessionBusy) as error:
            ui.notify(str(error), type="warning")
            return False
        if self.session_id is None:
            self.column.clear()
        self.session_id = turn.session_id
        with self.column:
            render_user(text)
            live = LiveAnswer()
        async for event in turn.events():
            if live.is_gone:
                # The tab closed or the view moved on; the turn itself runs on and is saved.
                break
            live.show(event.kind, event.data)
        return True


class LiveAnswer:
    """An answer being written: status line, streamed text, then its sources."""

    def __init__(self) -> None:
        self.box = ui.column().classes("w-full gap-0")
        with self.box:
            self.status = ui.label("Starting…").classes("text-sm text-gray-500 italic")
            self.status.mark("status")
            self.card = ui.card().classes("max-w-[90%] shadow-sm")
            self.card.set_visibility(False)
            with self.card:
                self.answer = ui.markdown("").classes("docent-answer").mark("answer")
            self.sources = ui.column().classes("gap-0")
        self.text = ""
        self.scrolled = 0.0

    @property
    def is_gone(self) -> bool:
        return self.box.is_deleted

    def show(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "status":
            self.status.set_text(data["text"])
        elif kind == "token":
            self.text += data["text"]
            self.card.set_visibility(True)
            self.answer.set_content(self.text)
            if time.monotonic() - self.scrolled > SCROLL_EVERY_SECONDS:
                self.scrolled = time.monotonic()
                scroll_to_bottom()
        elif kind == "done":
            self.status.set_visibility(False)
            self.answer.set_content(data["answer"])
            self.card.set_visibility(True)
            with self.sources:
                render_sources(data["sources"])
            scroll_to_bottom()
        elif kind == "error":
            self.status.set_text(data["message"])
            self.status.classes(replace="text-sm text-negative")
