"""Adding documents from the window: Add files, the drop zone, and Open folder.

Every file goes through ``DocumentService.add`` — the same checks as the API's upload
(name, type, size, stays inside the folder). Nothing here writes a file itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import defaultdict, deque
from pathlib import Path

from nicegui import ui
from nicegui.events import GenericEventArguments, UploadEventArguments

from app.services.documents import DocumentError, DocumentService


def file_manager() -> list[str] | None:
    """The command that opens a folder in this platform's file manager, if there is one."""
    if sys.platform == "darwin":
        return ["open"]
    if sys.platform.startswith("win"):
        return ["explorer"]
    opener = shutil.which("xdg-open")
    return [opener] if opener else None


class Uploads:
    """The hidden uploader that the Add button, the drop zone and folder drops feed."""

    def __init__(self, documents: DocumentService, docs_dir: Path, *, local: bool) -> None:
        self.documents = documents
        self.docs_dir = docs_dir
        self.local = local
        self._folders: dict[tuple[str, int], deque[str]] = defaultdict(deque)
        self.uploader = ui.upload(multiple=True, auto_upload=True, on_upload=self._uploaded)
        self.uploader.classes("docent-uploader").mark("uploader")
        # A file chosen twice is refused by the uploader as a duplicate until it is reset.
        self.uploader.on("finish", lambda: self.uploader.reset())
        self.uploader.props(f'accept="{",".join(sorted(documents.supported_suffixes))}"')
        # Files the chooser or a drop refuses for their type would vanish without a word.
        self.uploader.on(
            "rejected",
            self._rejected,
            js_handler="(entries) => emit(entries.map((e) => e.file && e.file.name))",
        )
        ui.on("docent_upload_folders", self._remember_folders)
        with ui.element("div").classes("docent-drop-overlay"):
            with ui.card().classes("items-center p-6"):
                ui.icon("upload_file", size="3rem", color="primary")
                ui.label("Drop files or folders to add them").classes("text-lg")

    def pick(self) -> None:
        """Open the browser's file chooser."""
        self.uploader.run_method("pickFiles")

    @property
    def can_open_folder(self) -> bool:
        return self.local and file_manager() is not None

    def open_folder(self) -> None:
        command = file_manager()
        if command is None:
            ui.notify(f"The documents folder is {self.docs_dir}", type="info")
            return
        try:
            subprocess.Popen(  # noqa: S603 - a fixed program and our own folder
                [*command, os.fspath(self.docs_dir)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:
            ui.notify(f"Couldn't open {self.docs_dir}: {error}", type="warning")

    def _remember_folders(self, event: GenericEventArguments) -> None:
        for item in event.args or []:
            if isinstance(item, dict) and item.get("folder"):
                self._folders[(str(item.get("name")), int(item.get("size") or 0))].append(
                    str(item["folder"])
                )

    def _rejected(self, event: GenericEventArguments) -> None:
        for name in event.args or []:
            refused = self.documents.refusal(str(name))
            if refused is not None:
                ui.notify(refused, type="warning", multi_line=True)

    async def _uploaded(self, event: UploadEventArguments) -> None:
        file = event.file
        key = (file.name, file.size())
        folder = self._folders[key].popleft() if self._folders.get(key) else None
        try:
            await self.documents.add(file.name, file.iterate(), folder=folder)
        except DocumentError as error:  # BadFileName, UnsupportedType, FileTooLarge: all say why
            ui.notify(f"{file.name}: {error}", type="warning", multi_line=True)
        else:
            ui.notify(f"Added {file.name}; indexing it now.", type="positive")
