"""The window and the API in one process: what `run.py` (serve) starts."""

from __future__ import annotations

from nicegui import app, ui

from app.api import install_api
from app.container import Container
from app.settings import Settings
from ui.page import chat_page


def serve(settings: Settings) -> None:
    """Run the window and the API in this process until it is stopped."""
    container = Container(settings)
    install_api(app, container)
    app.on_startup(container.start)
    app.on_shutdown(container.stop)
    print(f"Docent is at http://{settings.host}:{settings.port}  (documents: {settings.docs_dir})")
    ui.run(
        lambda: chat_page(container),
        host=settings.host,
        port=settings.port,
        title="Docent",
        native=settings.native,
        show=settings.open_browser and not settings.native,
        reload=False,
        show_welcome_message=False,
        favicon="📚",
    )
