"""The message box: Enter sends, Shift+Enter adds a line, @ picks a file, Stop cancels."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui
from nicegui.events import GenericEventArguments

from ui.mention_picker import LIMIT, Candidate, MentionIndex, active_query, insert

PLACEHOLDER = "Ask about your documents…  (@ to pick a file)"

MODES = {
    "auto": ("Auto", "Searches your documents when the question needs them."),
    "rag": ("Documents", "Always answers from your documents, with citations."),
    "chat": ("Chat", "Talks with the model only; documents are not searched."),
}

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


class Composer:
    """The input row under the conversation, with the @ picker above it."""

    def __init__(
        self,
        on_send: Callable[[str], Awaitable[bool]],
        on_stop: Callable[[], Any],
    ) -> None:
        self._on_send = on_send
        self._on_stop = on_stop
        self.index = MentionIndex([])
        self.matches: list[Candidate] = []
        self.active = 0
        self._mention: tuple[int, str] | None = None
        self._caret: tuple[int, str] | None = None
        self.queued = False
        self.streaming = False
        self.mode = "auto"
        with ui.column().classes("docent-composer gap-1 relative"):
            self.popup = ui.card().classes("docent-mention-popup p-1 gap-0 shadow-lg")
            self.popup.mark("mention-popup")
            self.popup.set_visibility(False)
            with ui.row().classes("w-full items-center gap-2 text-xs docent-muted") as self.note:
                self.note_label = ui.label("").mark("queued")
                ui.button("Send now", on_click=self._send_now).props(
                    "flat dense no-caps size=sm"
                ).mark("queued-send-now")
                ui.button("Don't send", on_click=self._unqueue).props(
                    "flat dense no-caps size=sm"
                ).mark("queued-cancel")
            self.note.set_visibility(False)
            with ui.row().classes("w-full items-end no-wrap gap-2"):
                self.box = ui.textarea(placeholder=PLACEHOLDER, on_change=self._changed)
                self.box.props("autogrow outlined dense rows=1 autofocus")
                self.box.classes("flex-grow min-w-0").mark("message-input")
                self.box.on("keydown", self._key, js_handler=KEYDOWN_JS)
                self.box.on("keyup", self._caret_moved, js_handler=CARET_JS)
                self.box.on("click", self._caret_moved, js_handler=CARET_JS)
                self.send_button = ui.button(icon="arrow_upward", on_click=self.submit)
                self.send_button.props("round unelevated").mark("send").tooltip("Send (Enter)")
                self.stop_button = ui.button(icon="stop", on_click=self._on_stop)
                self.stop_button.props("round unelevated color=negative").mark("stop")
                self.stop_button.tooltip("Stop (Esc)")
                self.stop_button.set_visibility(False)
            self.tools = ui.row().classes("w-full items-center gap-1 no-wrap")
            with self.tools:
                self._mode_menu()

    # -- mode --------------------------------------------------------------------------

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
                with ui.item(on_click=lambda k=key: self.set_mode(k)).mark(f"mode-{key}"):
                    with ui.item_section():
                        ui.item_label(title)
                        ui.item_label(caption).props("caption")

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.mode_button.set_text(MODES[mode][0])

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

    async def _send_now(self) -> None:
        self._on_stop()
        # The stop ends the stream; set_streaming(False) then sends what is queued.

    async def submit(self) -> None:
        """Send the box's text, or keep it for when the answer being written ends."""
        text = self.box.value or ""
        if not text.strip():
            return
        self.close_popup()
        if self.streaming:
            self.queued = True
            self.note_label.set_text("Sends when this answer ends.")
            self.note.set_visibility(True)
            return
        self.box.value = ""
        if not await self._on_send(text):
            if not (self.box.value or "").strip():
                self.box.value = text  # never lose what was typed

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
            self._update_popup()

    def _update_popup(self) -> None:
        value = self.box.value or ""
        found = active_query(value, self.caret())
        if found is None:
            self.close_popup()
            return
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
                option.classes("w-full")
                active = " docent-active" if i == self.active else ""
                option.classes("docent-mention-option" + active)
                pdf = match.lower_name.endswith(".pdf")
                with option.mark("mention-option"):
                    with ui.item_section().props("avatar").classes("min-w-0"):
                        ui.icon("picture_as_pdf" if pdf else "description")
                    with ui.item_section().classes("min-w-0"):
                        ui.item_label(match.name).classes("docent-ellipsis")
                        if match.folder:
                            folder = ui.item_label(match.folder).props("caption")
                            folder.classes("docent-ellipsis")
        self.popup.set_visibility(True)

    def _highlight(self, index: int) -> None:
        if self.matches:
            self.active = index % len(self.matches)
            self._draw_popup()

    def close_popup(self) -> None:
        self._mention = None
        self.matches = []
        self.popup.set_visibility(False)

    def pick(self, index: int) -> None:
        """Insert the chosen file as @"name" where the mention was being typed."""
        if self._mention is None or not (0 <= index < len(self.matches)):
            return
        at, _ = self._mention
        token = self.index.token(self.matches[index])
        text, caret = insert(self.box.value or "", self.caret(), at, token)
        self.close_popup()
        self._caret = (caret, text)
        self.box.value = text
        self.box.run_method("focus")
        self.box.client.run_javascript(
            f"(() => {{ const el = getHtmlElement({self.box.id}).querySelector('textarea');"
            f" if (el) {{ el.setSelectionRange({caret}, {caret}); }} }})()"
        )

    def mention(self, path: str) -> None:
        """Add a mention of ``path`` to the message (the library's Mention button)."""
        candidate = next((c for c in self.index.candidates if c.path == path), None)
        token = self.index.token(candidate) if candidate else f'@"{path}"'
        value = self.box.value or ""
        self.box.value = (value.rstrip() + " " if value.strip() else "") + token + " "
        self.box.run_method("focus")
