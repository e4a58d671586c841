"""The row under the message box: how Docent answers (the mode), and the chat's scope."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

MODES = {
    "auto": ("Auto", "Searches your documents when the question needs them."),
    "rag": ("Documents", "Always answers from your documents, with citations."),
    "chat": ("Chat", "Talks with the model only; documents are not searched."),
    "document": (
        "Whole documents",
        "Reads the named files from first page to last: summaries, outlines, comparisons.",
    ),
}


class ComposerTools:
    """The mode's menu and the scope's chip."""

    def __init__(self) -> None:
        self.mode = "auto"
        self._on_scope_cleared: Callable[[], Any] | None = None
        with ui.row().classes("w-full items-center gap-1 no-wrap"):
            self._mode_menu()
            self.scope_chip = ui.chip(
                "", icon="folder", removable=True, on_value_change=self._scope_removed
            )
            self.scope_chip.props("dense outline color=primary").classes("text-xs")
            self.scope_chip.mark("scope-chip")
            self.scope_chip.set_visibility(False)

    def show_scope(self, scope: list[str], on_clear: Callable[[], Any]) -> None:
        """The chat's scope as a chip (none for the whole library); its cross clears it."""
        self._on_scope_cleared = on_clear
        if not scope:
            self.scope_chip.set_visibility(False)
            return
        text = scope[0] if len(scope) == 1 else f"{scope[0]} +{len(scope) - 1}"
        self.scope_chip.set_text(text)
        self.scope_chip.tooltip("This chat only reads: " + ", ".join(scope))
        self.scope_chip.value = True
        self.scope_chip.set_visibility(True)

    def _scope_removed(self) -> None:
        if not self.scope_chip.value and self._on_scope_cleared is not None:
            self._on_scope_cleared()

    def _mode_menu(self) -> None:
        self.mode_button = ui.button(MODES[self.mode][0], icon="tune").props(
            "flat dense no-caps size=sm"
        )
        self.mode_button.mark("mode")
        with self.mode_button:
            # Beside the button, not above it: the menu opens upwards, and a tooltip there
            # covered its last entry.
            ui.tooltip("How Docent answers").props("anchor='center right' self='center left'").mark(
                "mode-tip"
            )
        with self.mode_button, ui.menu().props("anchor='top left' self='bottom left'"):
            for key, (title, caption) in MODES.items():
                item = ui.item(on_click=lambda k=key: self.set_mode(k)).props("role=menuitem")
                with item.mark(f"mode-{key}"), ui.item_section():
                    ui.item_label(title)
                    ui.item_label(caption).props("caption")

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.mode_button.set_text(MODES[mode][0])
