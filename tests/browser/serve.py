"""Serve the real window for the browser test: `python -m tests.browser.serve PORT DATA OLLAMA`.

The app is what `run.py` starts (container, API, window, watcher), pointed at the fake
Ollama server the test runs. Until the DocumentService is in the container, the library
is served by the in-process fake that implements its interface.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fastapi.responses import FileResponse
from nicegui import app, ui

from app.api import install_api
from app.container import Container
from app.settings import Settings
from tests.fakes.documents import FakeDocumentService
from ui.page import chat_page

FILE_ROUTE = "/api/documents/{doc_id}/file"


def serve_files(container: Container) -> None:
    """Until the API has its file route: the same route over the fake service, for the viewer."""

    @app.get(FILE_ROUTE)
    def document_file(doc_id: str) -> FileResponse:
        return FileResponse(container.documents.file_path(doc_id))  # type: ignore[attr-defined]


def main(port: int, data_dir: Path, ollama: str) -> None:
    settings = Settings(
        port=port, data_dir=data_dir, ollama_host=ollama, open_browser=False, chat_model="llama3.2"
    )
    container = Container(settings)
    if getattr(container, "documents", None) is None:
        documents = FakeDocumentService(settings.docs_dir, page_delay=0.3)
        documents.adopt_folder()
        container.documents = documents  # type: ignore[attr-defined]
    install_api(app, container)
    if not any(getattr(r, "path", "") == FILE_ROUTE for r in app.routes):
        serve_files(container)
    app.on_startup(container.start)
    app.on_shutdown(container.stop)
    ui.run(
        lambda: chat_page(container),
        host="127.0.0.1",
        port=port,
        title="Docent",
        show=False,
        reload=False,
        show_welcome_message=False,
        favicon="📚",
    )


if __name__ in {"__main__", "__mp_main__"}:
    main(int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
