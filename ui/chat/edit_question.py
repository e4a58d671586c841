"""Edit a sent question and send it again: the chat branches from there into a new one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from nicegui import ui


def edit_question(text: str, send: Callable[[str], Awaitable[bool]]) -> None:
    """Open the editor on ``text``; ``send`` gets the new text and says whether it started."""
    with ui.dialog() as dialog, ui.card().classes("w-full max-w-xl gap-2").mark("edit-dialog"):
        ui.label("Edit and send again").classes("text-lg font-semibold")
        ui.label(
            "The answer comes in a new chat that branches from here; this one stays as it is."
        ).classes("text-sm docent-muted")
        box = ui.textarea(value=text).props('outlined autogrow autofocus aria-label="Question"')
        box.classes("w-full")
        box.mark("edit-input")

        async def go() -> None:
            new = (box.value or "").strip()
            if not new:
                return
            dialog.close()
            if await send(new):
                # The pencil pressed was in the chat left behind: focus would fall to the
                # page. It goes where the next message is typed, as after any sending.
                ui.run_javascript("docent.focusInput()")

        # Enter sends, Shift+Enter breaks the line, as in the message box.
        box.on(
            "keydown.enter",
            go,
            js_handler="(e) => { if (!e.shiftKey) { e.preventDefault(); emit() } }",
        )
        with ui.row().classes("w-full justify-end"):
            ui.button("Cancel", on_click=dialog.close).props("flat")
            ui.button("Send", icon="send", on_click=go).props("unelevated").mark("edit-send")
    dialog.open()
