"""One document's row in the library: drawn once, then only what shows its status changes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from nicegui import ui

from app.services.documents import DocumentView
from ui.frame import theme
from ui.library.status_text import detail

RowMenu = Sequence[tuple[str, str, Callable[[DocumentView], Any]]]
"""A row's menu: each entry's label, its mark, and what it does with the row's document."""


class DocumentRow:
    """A drawn row, with the parts of it that change with its document's status."""

    def __init__(self, doc: DocumentView, menu: RowMenu) -> None:
        icon, color = theme.STATUS_ICONS.get(doc.status, ("help", "grey"))
        with ui.item().props("dense").classes("w-full px-1 rounded").mark("document") as item:
            with ui.item_section().props("avatar").classes("min-w-0"):
                with ui.icon(icon, color=color) as self.icon:
                    self.tip = ui.tooltip(doc.status)
            with ui.item_section().classes("min-w-0"):
                ui.item_label(doc.name).classes("text-sm docent-ellipsis").tooltip(doc.path).mark(
                    "document-name"
                )
                self.caption = ui.item_label("").props("caption").mark("document-detail")
            with ui.item_section().props("side"):
                more = ui.button(icon="more_vert").props("flat round dense size=sm")
                more.props["aria-label"] = f"More for {doc.name}"
                more.mark("document-menu")
                with more, ui.menu():
                    for label, mark, act in menu:
                        ui.menu_item(label, on_click=lambda a=act: a(doc)).mark(mark)
        item._props["data-path"] = doc.path  # a hook for the browser test
        self.item = item
        self.shown = ("", "")
        """The (status, caption) it shows."""
        self.update(doc)

    def update(self, doc: DocumentView) -> None:
        """Show ``doc``'s status in its row, touching the row only when that changed."""
        status, text = doc.status, detail(doc)
        if self.shown == (status, text):
            return
        self.shown = (status, text)
        icon, color = theme.STATUS_ICONS.get(status, ("help", "grey"))
        self.icon.set_name(icon)
        self.icon.set_text_color(color)
        self.icon.classes(
            add="animate-spin" if status == "indexing" else None,
            remove=None if status == "indexing" else "animate-spin",
        )
        self.tip.set_text(status)
        self.caption.set_text(text)
        error = status == "error"
        self.caption.classes(
            add="text-negative" if error else "docent-ellipsis",
            remove="docent-ellipsis" if error else "text-negative",
        )
        self.item._props["data-status"] = status  # a hook for the browser test
        self.item.update()
