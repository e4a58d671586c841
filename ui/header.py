"""The window's header: sidebar toggle, title, chat model, theme, help, settings, login."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.api.guard.guard import Access
from app.container import Services
from ui.dialogs.help_dialog import show_help
from ui.dialogs.settings_dialog import show_settings
from ui.frame import shortcuts, theme
from ui.frame.login_menu import LoginMenu
from ui.frame.model_menu import ModelMenu


class Header:
    """The header's buttons, and the help and settings dialogs they open."""

    def __init__(
        self,
        container: Services,
        access: Access,
        dark: ui.dark_mode,
        *,
        on_toggle: Callable[[], Any],
        on_pull: Callable[[str], Any],
    ) -> None:
        self.container = container
        with ui.header().classes("docent-header items-center no-wrap gap-1 px-2 py-1 shadow-sm"):
            ui.button(icon="menu", on_click=on_toggle).props(
                'flat round aria-label="Show or hide the sidebar"'
            ).tooltip(f"Sidebar ({shortcuts.keys('sidebar')})").mark("drawer-toggle")
            title = ui.html("Docent", sanitize=False, tag="h1").mark("title")
            title.classes("docent-title text-lg font-semibold")
            ui.space()
            self.models = ModelMenu(container.chat_models, on_pull)
            self.theme = theme.ThemeToggle(dark)
            ui.button(icon="help_outline", on_click=self.help).props(
                'flat round aria-label="How Docent works, and its shortcuts"'
            ).tooltip("How Docent works").mark("help")
            ui.button(icon="settings", on_click=self.settings).props(
                'flat round aria-label="Settings"'
            ).tooltip("Settings").mark("settings")
            LoginMenu(access)

    def help(self) -> None:
        show_help(self.container.chat.diagram())

    def settings(self) -> None:
        s = self.container.settings
        show_settings(
            self.container.preferences,
            self.models.known(),
            self.container.token,
            f"http://{s.server.host}:{s.server.port}",
            self.container.embedding,
            self.container.reranking,
        )
        self.models.fill()
