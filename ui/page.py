"""The chat page: header with the Ollama banner, sidebar, conversation and input."""

from __future__ import annotations

from nicegui import ui

from app.container import Container
from app.health import ollama_problem
from ui import theme
from ui.chat_view import ChatView
from ui.sidebar import Sidebar

OLLAMA_CHECK_SECONDS = 5.0
PLACEHOLDER = "Ask about your documents… (@file.pdf to aim at one)"


def chat_page(container: Container) -> None:
    """Build the whole window for one browser tab."""
    ChatPage(container)


class ChatPage:
    """One tab's window; its handlers keep to this tab's elements."""

    def __init__(self, container: Container) -> None:
        self.container = container
        self._problem_shown: str | None = None
        theme.apply()
        with ui.header().classes("items-center bg-white text-slate-800 shadow-sm"):
            ui.button(icon="menu", on_click=self.toggle_drawer).props("flat round")
            ui.label("Docent").classes("text-lg font-semibold")
            ui.label(f"· {container.llm.model}").classes("text-sm text-gray-500")
        self.banner = ui.row().classes("w-full justify-center")
        with ui.left_drawer(value=True).classes("bg-white p-4") as self.drawer:
            self.sidebar = Sidebar(
                container, on_open_session=self.open_session, on_new_chat=self.new_chat
            )
        self.view = ChatView(container.chat)
        with ui.footer().classes("bg-slate-50 p-3"):
            with ui.row().classes("w-full max-w-3xl mx-auto items-end no-wrap gap-2"):
                self.box = ui.textarea(placeholder=PLACEHOLDER)
                self.box.props("autogrow outlined dense rows=1 bg-color=white")
                self.box.classes("flex-grow").mark("message-input")
                self.box.on("keydown.enter.exact.prevent", self.send)
                self.mode = ui.select(
                    {"auto": "Auto", "rag": "Documents", "chat": "Chat"}, value="auto"
                )
                self.mode.props("dense outlined bg-color=white").classes("w-32").mark("mode")
                self.send_button = ui.button(icon="send", on_click=self.send)
                self.send_button.props("round unelevated").mark("send")
        ui.timer(OLLAMA_CHECK_SECONDS, self.check_ollama)
        ui.timer(0.1, self.check_ollama, once=True)

    def toggle_drawer(self) -> None:
        self.drawer.toggle()

    async def open_session(self, session_id: str) -> None:
        await self.view.show_session(session_id)

    def new_chat(self) -> None:
        self.view.clear()

    async def send(self) -> None:
        text = self.box.value or ""
        if not text.strip():
            return
        self.box.value = ""
        self.send_button.disable()
        try:
            await self.view.send(text, self.mode.value)
        finally:
            self.send_button.enable()
            self.sidebar.sessions_view.refresh()

    async def check_ollama(self) -> None:
        problem = ollama_problem(await self.container.llm.health(), self.container.llm.model)
        if problem == self._problem_shown:
            return
        self._problem_shown = problem
        self.banner.clear()
        if problem is None:
            return
        with self.banner, ui.card().classes("bg-amber-50 border border-amber-300 w-full max-w-3xl"):
            ui.markdown(
                f"**Answers are limited.** {problem} Until then, Docent shows the most "
                "relevant passages from your documents."
            ).classes("text-sm").mark("ollama-banner")
