"""The chat page: header with the Ollama banner, sidebar, conversation and input."""

from __future__ import annotations

from nicegui import ui

from app.container import Container
from ui import theme
from ui.chat_view import ChatView
from ui.sidebar import Sidebar

OLLAMA_CHECK_SECONDS = 5.0


def chat_page(container: Container) -> None:
    """Build the whole window for one browser tab."""
    theme.apply()

    with ui.header().classes("items-center bg-white text-slate-800 shadow-sm"):
        ui.button(icon="menu", on_click=lambda: drawer.toggle()).props("flat round")
        ui.label("Docent").classes("text-lg font-semibold")
        ui.label(f"· {container.llm.model}").classes("text-sm text-gray-500")

    banner = ui.row().classes("w-full justify-center")

    with ui.left_drawer(value=True).classes("bg-white p-4") as drawer:
        sidebar = Sidebar(container, on_open_session=lambda sid: view.show_session(sid),
                          on_new_chat=lambda: view.clear())

    view = ChatView(container.chat)

    async def check_ollama() -> None:
        health = await container.llm.health()
        banner.clear()
        if health.reachable and any(_same_model(m, container.llm.model) for m in health.models):
            return
        if health.reachable:
            fix = (f"The model '{container.llm.model}' is not installed. "
                   f"Run `ollama pull {container.llm.model}`.")
        else:
            fix = health.error or f"Ollama is not running at {health.host}. Start it with `ollama serve`."
        with banner:
            with ui.card().classes("bg-amber-50 border border-amber-300 w-full max-w-3xl").mark(
                "ollama-banner"
            ):
                ui.markdown(f"**Answers are limited.** {fix} Until then, Docent shows the most "
                            "relevant passages from your documents.").classes("text-sm")

    async def send() -> None:
        text = box.value or ""
        if not text.strip():
            return
        box.value = ""
        send_button.disable()
        try:
            await view.send(text, mode.value)
        finally:
            send_button.enable()
            sidebar.sessions_view.refresh()

    with ui.footer().classes("bg-slate-50 p-3"):
        with ui.row().classes("w-full max-w-3xl mx-auto items-end no-wrap gap-2"):
            box = ui.textarea(placeholder="Ask about your documents… (@file.pdf to aim at one)").props(
                "autogrow outlined dense rows=1 bg-color=white"
            ).classes("flex-grow").mark("message-input")
            box.on("keydown.enter.exact.prevent", send)
            mode = ui.select({"auto": "Auto", "rag": "Documents", "chat": "Chat"}, value="auto")
            mode.props("dense outlined bg-color=white").classes("w-32").mark("mode")
            send_button = ui.button(icon="send", on_click=send).props("round unelevated")
            send_button.mark("send")

    ui.timer(OLLAMA_CHECK_SECONDS, check_ollama)
    ui.timer(0.1, check_ollama, once=True)


def _same_model(installed: str, wanted: str) -> bool:
    """'llama3.2:latest' is what 'llama3.2' means."""
    return installed == wanted or installed == f"{wanted}:latest"
