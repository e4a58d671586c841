"""The message box: Enter sends, Shift+Enter adds a line, @ picks a file, Stop cancels."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui
from nicegui.events import GenericEventArguments

from ui.answer.source_groups import file_icon, middle_ellipsis
from ui.chat.composer_tools import ComposerTools
from ui.chat.mention_picker import (
    LIMIT,
    Candidate,
    MentionIndex,
    Picked,
    active_query,
    remove_query,
    shift_anchor,
    with_mentions,
)
from ui.frame import shortcuts

PLACEHOLDER = "Ask about your documents…  (@ to pick a file or a folder)"
SHORT_PLACEHOLDER = "Ask about your documents…"
"""Below ``SHORT_BELOW_PX`` the whole placeholder no longer fits on the box's one line (the
empty window says how @ works)."""
SHORT_BELOW_PX = 640

# Keys the @ picker takes while it is open; Enter sends otherwise. Shift+Enter is left
# to the textarea (a new line), and IME composition is never interrupted.
KEYDOWN_JS = """(e) => {
  const popup = document.querySelector('.docent-mention-popup');
  const open = popup && popup.offsetParent !== null;
  if (open && ['ArrowUp', 'ArrowDown', 'Enter', 'Tab', 'Escape'].includes(e.key)) {
    e.preventDefault();
    emit({key: e.key});
  } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    emit({key: 'Enter'});
  }
}"""
CARET_JS = "(e) => emit({caret: e.target.selectionStart, value: e.target.value})"
CHIP_CHARS = 24
"""A picked file's chip shows at most this much of its name; the tooltip has the whole path."""


class Composer:
    """The input row under the conversation, with the @ picker above it."""

    def __init__(
        self,
        on_send: Callable[[str], Awaitable[bool]],
        on_stop: Callable[[], Any],
    ) -> None:
        self._on_send = on_send
        self.index = MentionIndex([])
        self.matches: list[Candidate] = []
        self.active = 0
        self._mention: tuple[int, str] | None = None
        self._caret: tuple[int, str] | None = None
        self._dismissed: tuple[int, str] | None = None
        """The mention Esc closed the picker on: it stays closed until the query changes."""
        self.picked: list[Picked] = []
        """Files picked into this message, shown as chips and sent as @"path" where picked."""
        self._last_value = ""
        self.queued = False
        self.streaming = False
        with ui.column().classes("docent-composer gap-1 relative"):
            self.popup = ui.card().classes("docent-mention-popup p-1 gap-0 shadow-lg")
            self.popup.mark("mention-popup").props('role=listbox aria-label="Files"')
            self.popup.set_visibility(False)
            with ui.row().classes("w-full items-center gap-2 text-xs docent-muted") as self.note:
                self.note_label = ui.label("").mark("queued")
                # The stop ends the stream; set_streaming(False) then sends what is queued.
                ui.button("Send now", on_click=on_stop).props("flat dense no-caps size=sm").mark(
                    "queued-send-now"
                )
                ui.button("Don't send", on_click=self._unqueue).props(
                    "flat dense no-caps size=sm"
                ).mark("queued-cancel")
            self.note.set_visibility(False)
            self.chips = ui.row().classes("w-full items-center gap-1 min-w-0").mark("picked")
            self.chips.set_visibility(False)
            with ui.row().classes("w-full items-end no-wrap gap-2"):
                self.box = ui.textarea(placeholder=PLACEHOLDER, on_change=self._changed)
                self.box.props('autogrow outlined dense rows=1 autofocus aria-label="Message"')
                self.box.classes("flex-grow min-w-0").mark("message-input")
                self.box.props(f"aria-controls=c{self.popup.id}")  # the @ list it fills
                self.box.on("keydown", self._key, js_handler=KEYDOWN_JS)
                self.box.on("keyup", self._caret_moved, js_handler=CARET_JS)
                self.box.on("click", self._caret_moved, js_handler=CARET_JS)
                self.send_button = ui.button(icon="arrow_upward", on_click=self.submit)
                self.send_button.props('round unelevated aria-label="Send"').mark("send")
                self.send_button.tooltip("Send (Enter)")
                self.stop_button = ui.button(icon="stop", on_click=on_stop)
                self.stop_button.props('round unelevated color=negative aria-label="Stop"')
                self.stop_button.mark("stop").tooltip(f"Stop ({shortcuts.keys('stop')})")
                self.stop_button.set_visibility(False)
            self.tools = ComposerTools()

    def fit_width(self, width: int) -> None:
        """Fit the placeholder to a window ``width`` pixels wide."""
        wanted = SHORT_PLACEHOLDER if width < SHORT_BELOW_PX else PLACEHOLDER
        if self.box.props.get("placeholder") != wanted:
            self.box.props["placeholder"] = wanted
            self.box.update()

    # -- streaming, queueing -------------------------------------------------------------

    def set_streaming(self, streaming: bool) -> None:
        """Swap Send for Stop while an answer is written; send what waited when it ends."""
        self.streaming = streaming
        self.send_button.set_visibility(not streaming)
        self.stop_button.set_visibility(streaming)
        if not streaming and self.queued:
            with self.note:
                ui.timer(0, self._send_queued, once=True)

    async def _send_queued(self) -> None:
        if self.queued and not self.streaming:
            self._unqueue()
            await self.submit()

    def _unqueue(self) -> None:
        self.queued = False
        self.note.set_visibility(False)

    async def submit(self) -> None:
        """Send the box's text, or keep it for when the answer being written ends."""
        typed = self.box.value or ""
        if not typed.strip() and not self.picked:
            return
        self.close_popup()
        if self.streaming:
            self.queued = True
            self.note_label.set_text("Sends when this answer ends.")
            self.note.set_visibility(True)
            return
        text, picked = with_mentions(typed, self.picked), self.picked
        self._set_picked([])
        self.box.value = ""
        if not await self._on_send(text) and not (self.box.value or "").strip():
            self.box.value = typed  # never lose what was typed
            self._set_picked(picked)

    # -- keys and the @ picker ----------------------------------------------------------

    async def _key(self, event: GenericEventArguments) -> None:
        key = (event.args or {}).get("key")
        if self.popup.visible:
            if key == "ArrowDown":
                self._highlight(self.active + 1)
            elif key == "ArrowUp":
                self._highlight(self.active - 1)
            elif key in ("Enter", "Tab"):
                self.pick(self.active)
            elif key == "Escape":
                self._dismissed = self._mention
                self.close_popup()
            return
        if key == "Enter":
            await self.submit()

    def _caret_moved(self, event: GenericEventArguments) -> None:
        args = event.args or {}
        if isinstance(args.get("caret"), int):
            self._caret = (args["caret"], args.get("value", ""))
            self._update_popup()

    def _changed(self) -> None:
        value = self.box.value or ""
        if self.picked and value != self._last_value:
            self.picked = [shift_anchor(p, self._last_value, value) for p in self.picked]
        self._last_value = value
        self._update_popup()

    def caret(self) -> int:
        value = self.box.value or ""
        if self._caret is not None and self._caret[1] == value:
            return self._caret[0]
        return len(value)

    def set_files(self, paths: list[str]) -> None:
        """The library's files, for the @ picker."""
        self.index = MentionIndex(paths)
        if self.popup.visible:
            self._mention = None  # the same query, new files: list them again
            self._update_popup()

    def _update_popup(self) -> None:
        value = self.box.value or ""
        found = active_query(value, self.caret())
        if found is None:
            self.close_popup()
            return
        if found == self._dismissed:
            return  # Esc closed it here; typing on (a new query) opens it again
        self._dismissed = None
        if found == self._mention and self.popup.visible:
            return  # the caret moved (an arrow key's keyup): keep the highlight where it is
        self._mention = found
        self.matches = self.index.search(found[1], LIMIT)
        if not self.matches and " " in found[1]:
            self.close_popup()  # a space and no match: the user went on writing
            return
        self.active = 0
        self._draw_popup()

    def _draw_popup(self) -> None:
        self.popup.clear()
        with self.popup:
            if not self.matches:
                text = "No file matches." if len(self.index) else "No documents yet."
                ui.label(text).classes("text-sm docent-muted p-2").mark("mention-empty")
            for i, match in enumerate(self.matches):
                option = ui.item(on_click=lambda i=i: self.pick(i)).props("dense clickable")
                here = i == self.active
                option.props(f"role=option aria-selected={str(here).lower()}")
                option.classes("w-full docent-mention-option" + (" docent-active" if here else ""))
                if here:  # a screen reader follows the highlight while focus stays in the box
                    self.box.props(f"aria-activedescendant=c{option.id}")
                with option.mark("mention-option"):
                    with ui.item_section().props("avatar").classes("min-w-0"):
                        ui.icon(file_icon(match.path))
                    with ui.item_section().classes("min-w-0"):
                        ui.item_label(match.name).classes("docent-ellipsis")
                        if match.folder:
                            folder = ui.item_label(match.folder).props("caption")
                            folder.classes("docent-ellipsis")
        if not self.matches:
            self.box.props(remove="aria-activedescendant")
        self.popup.set_visibility(True)

    def _highlight(self, index: int) -> None:
        if self.matches:
            self.active = index % len(self.matches)
            self._draw_popup()

    def close_popup(self) -> None:
        self._mention = None
        self.matches = []
        self.box.props(remove="aria-activedescendant")
        self.popup.set_visibility(False)

    def pick(self, index: int) -> None:
        """Replace what was typed after @ by the file's chip; it is sent as @"name"."""
        if self._mention is None or not (0 <= index < len(self.matches)):
            return
        at, _ = self._mention
        chosen = self.matches[index]
        text, caret = remove_query(self.box.value or "", self.caret(), at)
        self.close_popup()
        self._caret = (caret, text)
        self.box.value = text
        if not self._has(chosen.path):  # picked again: the one chip stands for both
            self._set_picked([*self.picked, Picked(chosen.path, self.index.token(chosen), caret)])
        self.box.run_method("focus")
        self.box.client.run_javascript(
            f"(() => {{ const el = getHtmlElement({self.box.id}).querySelector('textarea');"
            f" if (el) {{ el.setSelectionRange({caret}, {caret}); }} }})()"
        )

    def mention(self, path: str) -> None:
        """Add ``path`` to the message as a chip at its end (the library's Mention button)."""
        if self._has(path):
            self.box.run_method("focus")
            return
        candidate = next((c for c in self.index.candidates if c.path == path), None)
        token = self.index.token(candidate) if candidate else f'@"{path}"'
        value = self.box.value or ""
        self._set_picked([*self.picked, Picked(path, token, len(value))])
        self.box.run_method("focus")

    def _has(self, path: str) -> bool:
        return any(p.path == path for p in self.picked)

    def _set_picked(self, picked: list[Picked]) -> None:
        self.picked = picked
        self._last_value = self.box.value or ""
        self.chips.clear()
        with self.chips:
            for i, p in enumerate(picked):
                name = p.path.rsplit("/", 1)[-1]
                chip = ui.chip(
                    middle_ellipsis(name, CHIP_CHARS),
                    icon=file_icon(name),
                    removable=True,
                    on_value_change=lambda _, i=i: self._unpick(i),
                )
                chip.props("dense outline color=primary").tooltip(p.path)
                chip.props["aria-label"] = p.path  # the whole name, as the tooltip shows it
                chip.classes("docent-composer-chip text-xs").mark("picked-file")
        self.chips.set_visibility(bool(picked))

    def _unpick(self, index: int) -> None:
        self._set_picked([p for i, p in enumerate(self.picked) if i != index])
        self.box.run_method("focus")
