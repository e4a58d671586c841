"""The chat page: header, banners, drawer (chats and library), conversation and composer."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from nicegui import ui
from nicegui.events import GenericEventArguments

from app.api.guard.guard import LOOPBACK_NAMES, Access
from app.container import Services
from app.records import Feedback
from ui.chat.answer_actions import AnswerActions
from ui.chat.chat_view import ChatView
from ui.chat.composer import Composer
from ui.chat.empty_hint import show_empty_hint
from ui.chat.session_list import Sessions
from ui.dialogs.models_dialog import show_pull
from ui.dialogs.trace_dialog import show_trace
from ui.frame import shortcuts, theme
from ui.frame.banners import Banners
from ui.frame.download_banner import DownloadBanner
from ui.frame.side_drawer import NARROW_PX, SideDrawer
from ui.header import Header
from ui.library.add_files import Uploads
from ui.library.panel import Library
from ui.library.viewer import open_document

log = logging.getLogger(__name__)

CHAT_PATH = re.compile(r"^/chat/([0-9A-Za-z_-]{1,64})/?$")
"""The address of a chat; ``/`` is a new one."""


class ChatPage:
    """One tab's window; its handlers keep to this tab's elements."""

    def __init__(
        self, container: Services, access: Access, *, dark: ui.dark_mode | None = None
    ) -> None:
        """``dark``: the page's theme, when the starting frame applied it already."""
        self.container = container
        self.documents = container.documents
        self.file_count = 0
        dark = dark or theme.apply()
        self.header = Header(
            container, access, dark, on_toggle=lambda: self.drawer.toggle(), on_pull=self.pull
        )
        with ui.footer().classes("docent-footer bg-transparent p-2 pt-0"):
            with ui.card().classes("docent-composer p-2 shadow-md").props("flat bordered"):
                self.composer = Composer(self.send, self.stop)
        pull = self.pull if container.chat_models.can_pull else None
        self.banners = Banners(container.health, pull, container.embedding)
        with self.banners.strip:
            DownloadBanner(container.reranking)
        local = container.settings.server.host in LOOPBACK_NAMES
        self.uploads = Uploads(self.documents, container.settings.paths.docs_dir, local=local)
        self.file_count = len(self.documents.list())
        actions = AnswerActions(
            open_source=self.open_source,
            regenerate=self.regenerate,
            show_trace=self.show_trace,
            send_suggestion=self.send_suggestion,
            rate=self._rate,
        )
        self.view = ChatView(
            container.chat, actions, self._empty, self._streaming, on_scope=self._scope_shown
        )
        self.anchor = ui.element("div")
        """Handlers started from rows that a redraw may delete run inside this instead."""
        self._jump()
        self.drawer = SideDrawer()
        with self.drawer.element:
            self._drawer()
        ui.on("docent_cite", self._cited)
        ui.on("docent_claim", self._claimed)
        ui.on("docent_shortcut", self.shortcut)
        ui.on("docent_width", self._width)
        ui.run_javascript(
            "emitEvent('docent_width', window.innerWidth);"
            "window.addEventListener('resize', () => emitEvent('docent_width', window.innerWidth))"
        )
        self.url_session: str | None = None
        """The chat the address bar names (``/chat/<id>``)."""
        asked = CHAT_PATH.match(ui.context.client.request.url.path)
        if asked is not None:
            # A reload or a second tab: reopen the chat, following an answer still written.
            ui.timer(0, lambda: self.reopen(asked.group(1)), once=True)

    # -- layout ------------------------------------------------------------------------

    def _drawer(self) -> None:
        ui.button("New chat", icon="edit_square", on_click=self.new_chat).props(
            "unelevated no-caps"
        ).classes("w-full").tooltip(shortcuts.keys("new-chat")).mark("new-chat")
        with ui.column().classes("w-full gap-0 col-auto docent-sessions-box"):
            self.sessions = Sessions(
                self.container.sessions,
                self.container.chat,
                on_open=self.open_session,
                on_deleted=self._session_deleted,
            )
        with ui.row().classes("w-full gap-1 no-wrap mt-3"):
            ui.button("Add files", icon="upload_file", on_click=self.uploads.pick).props(
                "outline no-caps dense"
            ).classes("flex-grow").mark("add-files")
            if self.uploads.can_open_folder:
                folder = ui.button(icon="folder_open", on_click=self.uploads.open_folder)
                folder.props('outline dense aria-label="Open the documents folder"')
                folder.tooltip(f"Open {self.container.settings.paths.docs_dir}").mark("open-folder")
        self.library = Library(
            self.documents,
            on_open=lambda p: self.open_path(p, None, ""),
            on_mention=self.mention,
            on_change=self._library_changed,
            on_folder_chat=self.chat_about,
        )

    def _jump(self) -> None:
        jump = ui.button("Latest", icon="arrow_downward")
        jump.props("rounded unelevated size=sm color=primary no-caps").classes("docent-jump")
        jump.on("click", js_handler="() => docent.toBottom()")

    def _empty(self) -> None:
        show_empty_hint(self.file_count, self.uploads.pick, self.container.reranking)

    def _width(self, event: GenericEventArguments) -> None:
        try:
            width = int(event.args)
        except (TypeError, ValueError):
            return
        self.drawer.narrow = width < NARROW_PX
        self.composer.fit_width(width)

    async def shortcut(self, event: GenericEventArguments) -> None:
        """A shortcut from ui/frame/shortcuts.py, pressed in this tab."""
        action = str(event.args)
        if action == "new-chat":
            self.new_chat()
            ui.run_javascript("docent.focusInput()")
        elif action == "search":
            await self.drawer.show()
            ui.run_javascript("docent.focusSearch()")
        elif action == "stop":
            if self.drawer.covers():
                self.drawer.element.hide()  # Esc closes what covers the conversation first
            else:
                self.stop()
        elif action == "sidebar":
            await self.drawer.toggle()

    # -- conversation --------------------------------------------------------------------

    async def reopen(self, session_id: str) -> None:
        """Open the chat the address named, or say it is gone."""
        chat = self.container.chat
        if self.container.sessions.get(session_id) is None and not chat.is_busy(session_id):
            with self.anchor:
                ui.notify("That chat is not here any more; it may have been deleted.")
            self._show_url(None)
            return
        await self.open_session(session_id)

    async def open_session(self, session_id: str) -> None:
        with self.anchor:
            self.drawer.picked()
            self.sessions.set_current(session_id)
            self._show_url(session_id)
            await self.view.show_session(session_id)

    def new_chat(self) -> None:
        with self.anchor:
            self.drawer.picked()
            self.sessions.set_current(None)
            self._show_url(None)
            self.view.clear()

    def chat_about(self, folder: str) -> None:
        """A new chat that reads only ``folder`` (the library's folder menu)."""
        self.new_chat()
        self.view.set_scope([folder])

    def _scope_shown(self, scope: list[str]) -> None:
        self.composer.tools.show_scope(scope, on_clear=lambda: self.view.set_scope([]))

    def _show_url(self, session_id: str | None) -> None:
        """Put the open chat in the address bar, so a reload or a bookmark comes back to it."""
        if session_id == self.url_session:
            return
        self.url_session = session_id
        path = f"/chat/{session_id}" if session_id else "/"
        ui.run_javascript(f"history.replaceState(history.state, '', {json.dumps(path)})")

    async def _rate(self, turn_id: str, feedback: Feedback | None) -> None:
        with self.anchor:
            await self.view.rate(turn_id, feedback)

    def _session_deleted(self, session_id: str) -> None:
        if self.view.session_id == session_id:
            self.new_chat()

    async def send(self, text: str) -> bool:
        return await self.view.send(text, self.composer.tools.mode)

    async def send_suggestion(self, text: str) -> None:
        if self.view.streaming:
            return
        with self.anchor:
            await self.send(text)

    def _streaming(self, streaming: bool) -> None:
        self.composer.set_streaming(streaming)
        self._show_url(self.view.session_id)
        if self.view.session_id != self.sessions.current:
            self.sessions.set_current(self.view.session_id)
        elif not streaming:
            self.sessions.redraw()

    def stop(self) -> None:
        self.view.stop()

    async def regenerate(self) -> None:
        with self.anchor:
            await self.view.regenerate(self.composer.tools.mode)

    # -- documents ------------------------------------------------------------------------

    def _library_changed(self, paths: list[str]) -> None:
        before = self.file_count
        self.file_count = len(paths)
        self.composer.set_files(paths)
        if (before == 0) != (self.file_count == 0):
            self.view.refresh_empty()

    def mention(self, path: str) -> None:
        with self.anchor:
            self.drawer.picked()
            self.composer.mention(path)

    async def _cited(self, event: GenericEventArguments) -> None:
        args = event.args or {}
        sentence = args.get("s")
        source = self.view.source(
            str(args.get("turn", "")),
            int(args.get("n", 0)),
            int(sentence) if sentence is not None else None,
        )
        await self.open_source(source, missing="That source is not in this answer.")

    async def _claimed(self, event: GenericEventArguments) -> None:
        """A checked sentence was clicked: open the passage that supports it."""
        args = event.args or {}
        source = self.view.sentence_source(str(args.get("turn", "")), int(args.get("s", -1)))
        await self.open_source(source, missing="Nothing in the sources says this.")

    async def open_source(self, source: dict[str, Any] | None, missing: str = "") -> None:
        """Open ``source`` at its passage; ``missing`` says why when there is none."""
        if source is None:
            ui.notify(missing, type="warning")
            return
        span = source.get("span")
        await self.open_path(
            source.get("path") or source["file"],
            span["page"] if span else source.get("page"),
            source.get("snippet", ""),
            span,
        )

    async def open_path(
        self, path: str, page: int | None, snippet: str, span: dict[str, Any] | None = None
    ) -> None:
        with self.anchor:
            self.drawer.picked()
            await open_document(self.documents, path, page, snippet, span)

    # -- header ---------------------------------------------------------------------------

    def pull(self, name: str) -> None:
        with self.anchor:  # not inside the banner, which goes away once the model is there
            models = self.header.models
            show_pull(self.container.chat_models, name, on_done=lambda _: models.refresh())

    def show_trace(self, trace: dict[str, Any]) -> None:
        with self.anchor:
            show_trace(trace)
