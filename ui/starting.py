"""What a tab shows while the services load (a second or two after the server listens): the
page's frame and a message box whose one question the chat page sends once built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nicegui import ui

from app.startup import ServicesFailed, Starting
from ui.frame import theme

if TYPE_CHECKING:
    from app.api.guard.guard import Access

PLACEHOLDER = "Ask about your documents…"

# Enter sends, Shift+Enter is a new line, and IME composition is never interrupted (as in
# the chat page's composer).
ENTER_JS = """(e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    emit({});
  }
}"""


class StartingPage:
    """The header, a "starting" line and the message box; ``close`` hands over the text."""

    def __init__(self) -> None:
        self.dark = theme.apply()
        self.held: str | None = None
        """The question sent while starting: the chat page sends it once it is built."""
        with ui.header().classes(
            "docent-header items-center no-wrap gap-1 px-2 py-1 shadow-sm"
        ) as self.header:
            # Where the chat page puts its sidebar button: the title does not move when it comes.
            ui.button(icon="menu").props('flat round disable aria-label="Sidebar"')
            ui.html("Docent", sanitize=False, tag="h1").classes("text-lg font-semibold")
        with ui.column().classes("docent-messages gap-3 p-4") as self.body:
            with ui.row().classes("w-full justify-end"):
                self.question = ui.label().classes("docent-bubble").mark("held")
                self.question.set_visibility(False)
            with ui.row().classes("items-center gap-2").props("role=status aria-live=polite"):
                ui.spinner(size="lg")
                self.note = ui.label("Docent is starting…").mark("starting")
        with ui.footer().classes("docent-footer bg-transparent p-2 pt-0") as self.footer:
            with ui.card().classes("docent-composer p-2 shadow-md").props("flat bordered"):
                with ui.row().classes("w-full items-end no-wrap gap-2"):
                    self.box = ui.textarea(placeholder=PLACEHOLDER)
                    self.box.props('autogrow outlined dense rows=1 autofocus aria-label="Message"')
                    self.box.classes("flex-grow min-w-0").mark("message-input")
                    self.box.on("keydown", self.hold, js_handler=ENTER_JS)
                    self.send_button = ui.button(icon="arrow_upward", on_click=self.hold)
                    self.send_button.props('round unelevated aria-label="Send"').mark("send")

    def hold(self) -> None:
        """Keep the box's one question (the page sends one at a time) for the chat page."""
        text = (self.box.value or "").strip()
        if not text or self.held is not None:
            return
        self.held = text
        self.box.set_value("")
        self.question.set_text(text)
        self.question.set_visibility(True)
        self.note.set_text("Docent is starting… it answers as soon as it is ready.")
        self.send_button.disable()

    def close(self) -> str:
        """Remove the frame; what is left in the message box (the chat page's draft)."""
        draft = self.box.value or ""
        for part in (self.header, self.body, self.footer):
            part.delete()
        return draft


async def open_window(lifespan: Starting, access: Access) -> None:
    """The window for one tab: the starting frame while the services load, then the chat."""
    starting: StartingPage | None = None
    if not lifespan.ready:
        starting = StartingPage()
        await ui.context.client.connected()
    try:
        services = await lifespan.services()
    except ServicesFailed as error:
        if starting is not None:
            starting.close()
        ui.label(f"Docent could not start: {error}").classes("text-negative p-4")
        return
    from ui.page import ChatPage  # imported by then: the build imports it

    if starting is None:
        ChatPage(services, access)
        return
    draft = starting.close()
    page = ChatPage(services, access, dark=starting.dark)
    page.composer.box.set_value(draft)
    if starting.held is not None:
        with page.anchor:
            await page.send(starting.held)
