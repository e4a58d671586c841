"""The left drawer: sessions, the documents folder and each document's status."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from nicegui import ui

from app.container import Container
from ui import theme


class Sidebar:
    """Earlier sessions and the documents with their status, refreshed as they change."""

    def __init__(
        self,
        container: Container,
        on_open_session: Callable[[str], Awaitable[None]],
        on_new_chat: Callable[[], None],
    ) -> None:
        self.container = container
        self.on_open_session = on_open_session
        self._docs_seen: object = None
        ui.button("New chat", icon="add", on_click=on_new_chat).props("unelevated").classes(
            "w-full"
        ).mark("new-chat")
        ui.label("Sessions").classes("text-xs uppercase text-gray-500 mt-4")
        self.sessions_view()
        ui.label("Documents").classes("text-xs uppercase text-gray-500 mt-4")
        ui.label(str(container.settings.docs_dir)).classes(
            "text-xs text-gray-500 break-all"
        ).tooltip("Drop PDF, .txt or .md files here; Docent indexes them by itself.")
        self.documents_view()
        with ui.expansion("API token", icon="key").classes("w-full text-sm mt-4"):
            ui.label(container.token).classes("font-mono text-xs break-all select-all")
        ui.timer(1.0, self._refresh_if_changed)

    @ui.refreshable_method
    def sessions_view(self) -> None:
        sessions = self.container.sessions.list()
        if not sessions:
            ui.label("No sessions yet.").classes("text-sm text-gray-400")
        for info in sessions[:30]:
            ui.item(info.title, on_click=lambda sid=info.id: self.on_open_session(sid)).props(
                "dense clickable"
            ).classes("text-sm rounded").mark("session")

    @ui.refreshable_method
    def documents_view(self) -> None:
        docs = self.container.registry.list()
        busy = sum(d.status.value in ("queued", "indexing") for d in docs)
        if busy:
            with ui.row().classes("items-center gap-2 text-sm text-primary").mark("indexing"):
                ui.spinner(size="1em")
                ui.label(f"Indexing {busy} of {len(docs)} documents…")
        if not docs:
            ui.label("No documents yet.").classes("text-sm text-gray-400").mark("no-documents")
        with ui.list().props("dense").classes("w-full"):
            for doc in docs:
                icon, color = theme.STATUS_ICONS[doc.status.value]
                with ui.item().mark("document"):
                    with ui.item_section().props("avatar"):
                        ui.icon(icon, color=color).tooltip(doc.status.value)
                    with ui.item_section():
                        ui.item_label(doc.path).classes("text-sm break-all")
                        detail = doc.error if doc.error else _detail(doc.pages, doc.chunks)
                        ui.item_label(f"{doc.status.value} · {detail}").props("caption")

    def _refresh_if_changed(self) -> None:
        docs = self.container.registry.list()
        seen = [(d.path, d.status, d.chunks, d.error) for d in docs]
        if seen != self._docs_seen:
            self._docs_seen = seen
            self.documents_view.refresh()


def _detail(pages: int | None, chunks: int) -> str:
    parts = [f"{pages} pages"] if pages else []
    parts.append(f"{chunks} chunks")
    return ", ".join(parts)
