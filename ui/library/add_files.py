"""Adding documents from the window: Add files, the drop zone, and Open folder.

Every file goes through ``DocumentService.add``, the API upload's checks; nothing here writes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import defaultdict, deque
from pathlib import Path

from nicegui import background_tasks, ui
from nicegui.elements.upload_files import FileUpload
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
        self.uploader.on("finish", self._finished)
        self._adding = 0
        """Uploaded files still being added to the folder."""
        self._batch_done = False
        """The uploader has sent every file of the batch."""
        self._added: list[str] = []
        self._refused: list[str] = []
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
                self._refused.append(refused)
        if not self._adding:  # nothing of the batch was taken: no "finish" will come
            self._batch_done = True
            self._summarise()

    def _uploaded(self, event: UploadEventArguments) -> None:
        # Counted at once, before the browser's "finish" can arrive: the summary waits for it.
        self._adding += 1
        background_tasks.create(self._add(event.file), name=f"add {event.file.name}")

    async def _add(self, file: FileUpload) -> None:
        key = (file.name, file.size())
        folder = self._folders[key].popleft() if self._folders.get(key) else None
        try:
            await self.documents.add(file.name, file.iterate(), folder=folder)
        except DocumentError as error:  # BadFileName, UnsupportedType, FileTooLarge: all say why
            self._refused.append(
                f"{file.name}: {error}" if file.name not in str(error) else str(error)
            )
        else:
            self._added.append(file.name)
        finally:
            self._adding -= 1
        self._summarise()

    def _finished(self) -> None:
        self.uploader.reset()
        self._batch_done = True
        self._summarise()

    def _summarise(self) -> None:
        """One toast for the batch once every file is added or refused, clear of the box."""
        if not self._batch_done or self._adding:
            return
        added, refused = self._added, self._refused
        self._added, self._refused, self._batch_done = [], [], False
        if not added and not refused:
            return
        lines = []
        if added:
            what = added[0] if len(added) == 1 else f"{len(added)} files"
            lines.append(f"Added {what}; indexing {'it' if len(added) == 1 else 'them'} now.")
        if refused:
            lines.append(
                f"{len(refused)} not added:" if len(refused) > 1 or added else "Not added:"
            )
            lines += refused[:5] + ([f"…and {len(refused) - 5} more."] if len(refused) > 5 else [])
        with self.uploader:  # a task of its own has no element to speak from
            self._notify("\n".join(lines), bool(refused))

    def _notify(self, text: str, refused: bool) -> None:
        ui.notify(
            text,
            type="warning" if refused else "positive",
            position="top",
            multi_line=True,
            classes="docent-upload-summary whitespace-pre-line",
        )
