"""Earlier conversations in the drawer: by recency, grouped by day; rename, delete, search."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from nicegui import ui

from app.services.chat import ChatService, SessionBusy
from app.services.chat_export import MEDIA_TYPES, ExportFormat
from app.services.sessions import MAX_SEARCH_CHARS, SessionIndex
from ui.chat.mention_picker import plain_title
from ui.frame import shortcuts

SHOWN_AT_MOST = 200


def day_label(stamp: str, today: date) -> str:
    """'Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days', or the month."""
    try:
        when = datetime.fromisoformat(stamp).astimezone().date()
    except ValueError:
        return "Older"
    if when >= today:
        return "Today"
    if when == today - timedelta(days=1):
        return "Yesterday"
    if when > today - timedelta(days=7):
        return "Previous 7 days"
    if when > today - timedelta(days=30):
        return "Previous 30 days"
    return when.strftime("%B %Y")


class Sessions:
    """The sessions part of the drawer."""

    def __init__(
        self,
        sessions: SessionIndex,
        chat: ChatService,
        *,
        on_open: Callable[[str], Awaitable[None]],
        on_deleted: Callable[[str], Any],
    ) -> None:
        self.index = sessions
        self.chat = chat
        self.on_open = on_open
        self.on_deleted = on_deleted
        self.current: str | None = None
        self.query = ""
        ui.label("Chats").classes("text-xs uppercase docent-muted mt-4")
        self.search = ui.input(
            placeholder=f"Search chats ({shortcuts.keys('search')})", on_change=self._searched
        )
        self.search.props(
            f'dense outlined clearable aria-label="Search chats" maxlength={MAX_SEARCH_CHARS}'
        )
        self.search.classes("w-full docent-session-search").mark("session-search")
        self.list = ui.column().classes("w-full gap-0").mark("session-list")
        self.list.props('role=list aria-label="Chats"')
        self.anchor = ui.element("div")
        """Dialogs live here, not in a row that a redraw may delete."""
        self.rows: dict[str, ui.item] = {}
        self._menu: tuple[tuple[str, str, Callable[[Any], Any]], ...] = (
            ("Rename…", "session-rename", self.rename),
            ("Export as Markdown", "session-export-markdown", lambda i: self.export(i, "markdown")),
            ("Export as JSON", "session-export-json", lambda i: self.export(i, "json")),
            ("Delete…", "session-delete", self.confirm_delete),
        )
        """Each chat's menu: an entry's label, its mark, and what it does with the chat."""
        self.redraw()

    def _searched(self) -> None:
        self.query = (self.search.value or "").strip()[:MAX_SEARCH_CHARS]
        self.redraw()

    def set_current(self, session_id: str | None) -> None:
        """Highlight the open chat (without redrawing: the clicked row stays as it is)."""
        self.current = session_id
        if session_id is not None and session_id not in self.rows:
            self.redraw()
            return
        for sid, row in self.rows.items():
            if sid == session_id:
                row.classes(add="docent-current")
            else:
                row.classes(remove="docent-current")

    def redraw(self) -> None:
        found = self.index.search(self.query) if self.query else self.index.list()
        today = datetime.now(UTC).astimezone().date()
        self.list.clear()
        self.rows.clear()
        with self.list:
            if not found:
                text = "No chat matches." if self.query else "No chats yet."
                ui.label(text).classes("text-sm docent-muted py-1").mark("no-sessions")
            group = None
            for info in found[:SHOWN_AT_MOST]:
                label = day_label(info.updated_at, today)
                if label != group:
                    group = label
                    ui.label(label).classes("text-xs docent-muted mt-2").mark("session-day")
                self._row(info)

    def _row(self, info: Any) -> None:
        title = plain_title(info.title)
        current = info.id == self.current
        item = ui.item(on_click=lambda sid=info.id: self.on_open(sid)).props("dense clickable")
        item.classes("w-full rounded docent-session px-2" + (" docent-current" if current else ""))
        self.rows[info.id] = item.mark("session")
        with item:
            with ui.item_section().classes("min-w-0"):
                ui.item_label(title).classes("text-sm docent-ellipsis").tooltip(title).mark(
                    "session-title"
                )
            with ui.item_section().props("side"):
                more = ui.button(icon="more_horiz").props("flat round dense size=sm")
                more.props["aria-label"] = f"More for {title}"
                more.mark("session-menu").on("click.stop", lambda: None)
                with more, ui.menu():
                    for label, mark, act in self._menu:
                        ui.menu_item(label, on_click=lambda a=act: a(info)).mark(mark)

    async def export(self, info: Any, fmt: ExportFormat) -> None:
        """Download the chat as a file: Markdown with its sources, or JSON with everything."""
        exported = await self.chat.export(info.id, fmt)
        with self.anchor:
            if exported is None:
                ui.notify("This chat is not here any more.", type="warning")
                return
            name, text = exported
            ui.download.content(text.encode("utf-8"), name, MEDIA_TYPES[fmt])

    def rename(self, info: Any) -> None:
        with (
            self.anchor,
            ui.dialog() as dialog,
            ui.card().classes("w-full max-w-md").mark("rename-dialog"),
        ):
            ui.label("Rename chat").classes("text-lg font-semibold")
            box = ui.input(value=plain_title(info.title)).props("outlined dense autofocus")
            box.classes("w-full").mark("rename-input")
            error = ui.label("").classes("text-sm text-negative")

            def save() -> None:
                try:
                    self.index.rename(info.id, box.value or "")
                except ValueError as problem:
                    error.set_text(str(problem))
                    return
                dialog.close()
                self.redraw()

            box.on("keydown.enter", save)
            with ui.row().classes("w-full justify-end"):
                ui.button("Cancel", on_click=dialog.close).props("flat")
                ui.button("Save", on_click=save).props("unelevated").mark("rename-save")
        dialog.open()

    def confirm_delete(self, info: Any) -> None:
        title = plain_title(info.title)
        with self.anchor, ui.dialog() as dialog, ui.card().mark("delete-session-dialog"):
            ui.label("Delete this chat?").classes("text-lg font-semibold")
            ui.label(f"“{title}” and its answers are deleted for good.").classes("text-sm")
            with ui.row().classes("w-full justify-end"):
                ui.button("Cancel", on_click=dialog.close).props("flat")

                async def delete() -> None:
                    dialog.close()
                    try:
                        await self.chat.delete_session(info.id)
                    except SessionBusy:
                        ui.notify("This chat is still answering; stop it first.", type="warning")
                        return
                    self.on_deleted(info.id)
                    self.redraw()
                    ui.notify("Chat deleted.")

                ui.button("Delete", on_click=delete).props("unelevated color=negative").mark(
                    "confirm-delete-session"
                )
        dialog.open()
