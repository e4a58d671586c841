"""The library in the drawer: live status per file, overall progress, add/open/delete/reindex.

Events from the DocumentService mark the view stale and one redraw follows, however many came
(nothing polls). A redraw with the same rows changes only the changed statuses: rebuilding
every row while a few hundred files indexed kept the event loop busy for seconds at a time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.services.documents import (
    DocumentError,
    DocumentService,
    DocumentView,
    IngestEvent,
)
from ui.answer.source_groups import middle_ellipsis
from ui.library.document_row import DocumentRow, RowMenu
from ui.library.status_text import progress_line, progress_value

REDRAW_AFTER_SECONDS = 0.25
REDRAW_SHARE = 0.2
"""At most this share of the event loop goes to redrawing: a redraw that took t seconds
is followed by the next one no sooner than t / REDRAW_SHARE."""
SHOWN_AT_MOST = 300
"""Rows drawn at once; a search narrows a larger library."""


def folder_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


class Library:
    """The documents part of the drawer."""

    def __init__(
        self,
        documents: DocumentService,
        *,
        on_open: Callable[[str], Any],
        on_mention: Callable[[str], Any],
        on_change: Callable[[list[str]], Any],
        on_folder_chat: Callable[[str], Any] | None = None,
    ) -> None:
        self.documents = documents
        self.on_folder_chat = on_folder_chat
        """Starts a new chat about one folder ("tax/2024/")."""
        self.on_open = on_open
        self.on_mention = on_mention
        self.on_change = on_change
        self.query = ""
        self.sort = "name"
        self.by_folder = True
        self.collapsed: set[str] = set()
        self._pending: asyncio.TimerHandle | None = None
        self._paths: list[str] | None = None
        self._rows: dict[str, DocumentRow] = {}
        self._layout: tuple[Any, ...] | None = None
        """What the last full draw laid out: rows, folder headers and notes, in order."""
        self._redraw_cost = 0.0
        self._menu: RowMenu = (
            ("Open", "document-open", lambda d: self.on_open(d.path)),
            ("Mention", "document-mention", lambda d: self.on_mention(d.path)),
            ("Reindex", "document-reindex", lambda d: self.reindex(d.id)),
            ("Delete…", "document-delete", self.confirm_delete),
        )
        with ui.row().classes("w-full items-center no-wrap gap-1 mt-4"):
            ui.label("Documents").classes("text-xs uppercase docent-muted")
            self.count = ui.label("").classes("text-xs docent-muted").mark("document-count")
            ui.space()
            sort = ui.button(icon="sort").props('flat round dense size=sm aria-label="Sort"')
            sort.tooltip("Sort")
            with sort, ui.menu():
                for key, label in (
                    ("name", "By name"),
                    ("status", "By status"),
                    ("recent", "Newest first"),
                ):
                    ui.menu_item(label, on_click=lambda k=key: self.set_sort(k)).mark(f"sort-{key}")
            folders = ui.button(icon="account_tree", on_click=self.toggle_folders)
            folders.props('flat round dense size=sm aria-label="Group by folder"')
            folders.tooltip("Group by folder").mark("by-folder")
        self.search = ui.input(placeholder="Search documents", on_change=self._searched)
        self.search.props("dense outlined clearable").classes("w-full").mark("document-search")
        self.progress = ui.column().classes("w-full gap-0")
        self.list = ui.column().classes("docent-doclist w-full gap-0 no-wrap").mark("document-list")
        self.list.props('role=list aria-label="Documents"')
        self.anchor = ui.element("div")
        """Dialogs and notices live here, not in a row that the next event redraws away."""
        self.unsubscribe = documents.subscribe(self._on_event)
        ui.context.client.on_delete(self.close)
        self.redraw()

    def close(self) -> None:
        self.unsubscribe()
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _on_event(self, _event: IngestEvent) -> None:
        if self.list.is_deleted:
            self.close()
            return
        if self._pending is None:
            loop = asyncio.get_running_loop()
            delay = max(REDRAW_AFTER_SECONDS, self._redraw_cost / REDRAW_SHARE)
            self._pending = loop.call_later(delay, self._redraw_now)

    def _redraw_now(self) -> None:
        self._pending = None
        # A redraw already timed when the app shut down would read closed stores.
        if not self.list.is_deleted and not self.documents.closed:
            started = time.perf_counter()
            self.redraw()
            self._redraw_cost = time.perf_counter() - started

    def set_sort(self, key: str) -> None:
        self.sort = key
        self.redraw()

    def toggle_folders(self) -> None:
        self.by_folder = not self.by_folder
        self.redraw()

    def _searched(self) -> None:
        self.query = (self.search.value or "").strip().lower()
        self.redraw()

    def redraw(self) -> None:
        docs = self.documents.list()
        paths = [d.path for d in docs]
        if paths != self._paths:  # the @ picker's index is rebuilt only when names change
            self._paths = paths
            self.on_change(paths)
        self.count.set_text(f"· {len(docs)}" if docs else "")
        self._draw_progress(docs)
        shown = [d for d in docs if self.query in d.path.lower()] if self.query else docs
        shown = self._sorted(shown)
        layout = self._lay_out(docs, shown)
        if layout == self._layout:
            for doc in shown[:SHOWN_AT_MOST]:
                row = self._rows.get(doc.path)
                if row is not None:
                    row.update(doc)
            return
        self._layout = layout
        self._rows = {}
        by_path = {doc.path: doc for doc in shown}
        self.list.clear()
        with self.list:
            for entry in layout:
                kind = entry[0]
                if kind == "row":
                    self._rows[entry[1]] = DocumentRow(by_path[entry[1]], self._menu)
                elif kind == "folder":
                    self._folder_header(entry[1], entry[2])
                elif kind == "empty":
                    ui.label("No documents yet.").classes("text-sm docent-muted py-2").mark(
                        "no-documents"
                    )
                elif kind == "no-match":
                    ui.label("No document matches.").classes("text-sm docent-muted py-2")
                else:
                    ui.label(f"Showing {SHOWN_AT_MOST} of {entry[1]}; search to narrow.").classes(
                        "text-xs docent-muted py-1"
                    )

    def _lay_out(self, docs: list[DocumentView], shown: list[DocumentView]) -> tuple[Any, ...]:
        """The list's entries in order, without statuses: a status change keeps the layout."""
        if not docs:
            return (("empty",),)
        entries: list[tuple[Any, ...]] = [] if shown else [("no-match",)]
        folder = None
        headers = self.by_folder and len({folder_of(d.path) for d in shown}) > 1
        for doc in shown[:SHOWN_AT_MOST]:
            here = folder_of(doc.path)
            if headers and here != folder:
                folder = here
                count = sum(folder_of(d.path) == here for d in shown)
                entries.append(("folder", here, count, here in self.collapsed))
            if headers and here in self.collapsed:
                continue
            entries.append(("row", doc.path))
        if len(shown) > SHOWN_AT_MOST:
            entries.append(("more", len(shown)))
        return tuple(entries)

    def _folder_header(self, folder: str, count: int) -> None:
        closed = folder in self.collapsed
        with ui.row().classes("w-full items-center no-wrap gap-0 mt-2").props("role=listitem"):
            with ui.row().classes(
                "flex-grow min-w-0 items-center no-wrap gap-1 cursor-pointer"
            ) as header:
                ui.icon("chevron_right" if closed else "expand_more").classes("docent-muted")
                ui.label(folder or "(top folder)").classes("text-xs docent-muted docent-ellipsis")
                ui.label(str(count)).classes("text-xs docent-muted")
            header.on("click", lambda f=folder: self.toggle_folder(f))
            header.on("keydown.enter", lambda f=folder: self.toggle_folder(f))
            header.props(f'role=button tabindex=0 aria-expanded="{str(not closed).lower()}"')
            header.mark("folder")
            if folder and self.on_folder_chat is not None:
                about = ui.button(
                    icon="forum", on_click=lambda f=folder: self.on_folder_chat(f + "/")
                )
                about.props(
                    'flat round dense size=xs color=grey-7 aria-label="New chat about this folder"'
                ).mark("folder-chat")
                about.tooltip("New chat about this folder")

    def toggle_folder(self, folder: str) -> None:
        """Collapse or open one folder of the list."""
        self.collapsed.symmetric_difference_update({folder})
        self.redraw()

    def _sorted(self, docs: list[DocumentView]) -> list[DocumentView]:
        order = {"error": 0, "indexing": 1, "queued": 2, "ready": 3}
        if self.sort == "recent":
            return sorted(docs, key=lambda d: d.updated_at or "", reverse=True)

        def key(d: DocumentView) -> Any:
            name = d.name.lower()
            return (order.get(d.status, 9), name) if self.sort == "status" else name

        if self.by_folder:
            return sorted(docs, key=lambda d: (folder_of(d.path).lower(), key(d)))
        return sorted(docs, key=key)

    def _draw_progress(self, docs: list[DocumentView]) -> None:
        self.progress.clear()
        busy = any(d.status in ("queued", "indexing") for d in docs)
        if not busy:
            return
        progress = self.documents.progress()
        value = progress_value(progress, docs)
        live_chunks = sum(d.chunks_done or 0 for d in docs if d.status == "indexing")
        with self.progress:
            bar = ui.linear_progress(value=value, show_value=False)
            bar.props("rounded size=8px").classes("mt-2 docent-progress").mark("library-progress")
            bar._props["data-value"] = f"{value:.3f}"
            ui.label(progress_line(progress, live_chunks)).classes("text-xs docent-muted").mark(
                "library-progress-text"
            )
            full = self.documents.disk_full()
            if full is not None:  # files wait: say why, and what frees them
                ui.label(f"Indexing waits. {full}").classes("text-xs text-negative").mark(
                    "library-disk-full"
                )

    async def reindex(self, doc_id: str | None) -> None:
        with self.anchor:
            try:
                await self.documents.reindex(doc_id)
            except DocumentError as error:  # it went away meanwhile: say so
                ui.notify(str(error), type="warning")
                return
            ui.notify("Indexing again.")

    def confirm_delete(self, doc: DocumentView) -> None:
        name = middle_ellipsis(doc.name, 48)
        with self.anchor, ui.dialog() as dialog, ui.card().mark("delete-dialog"):
            ui.label(f"Delete {name}?").classes("text-lg font-semibold")
            ui.label("The file is removed from the documents folder and from the index.").classes(
                "text-sm"
            )
            with ui.row().classes("w-full justify-end"):
                ui.button("Cancel", on_click=dialog.close).props("flat")

                async def delete() -> None:
                    dialog.close()
                    try:
                        await self.documents.remove(doc.id)
                    except DocumentError as error:  # DocumentNotFound says what happened
                        ui.notify(str(error), type="warning")
                        return
                    ui.notify(f"Deleted {name}.")

                ui.button("Delete", on_click=delete).props("unelevated color=negative").mark(
                    "confirm-delete"
                )
        dialog.open()
