"""Colours, styles and the browser-side script every page of the window needs."""

from __future__ import annotations

from pathlib import Path

from nicegui import ui

from ui.answer.markdown import code_css
from ui.frame import shortcuts

PRIMARY = "#4f46e5"
SCRIPT = (Path(__file__).parents[1] / "static" / "docent.js").read_text(encoding="utf-8")
PAGE_SCRIPT = f"<script>{shortcuts.script()}{SCRIPT}</script>"
"""Built once: the shortcut table and the script are the same on every page."""

CSS = (Path(__file__).parents[1] / "static" / "docent.css").read_text(encoding="utf-8")
"""The window's own styles, kept beside its script as a style sheet."""

STATUS_ICONS = {
    "queued": ("schedule", "grey"),
    "indexing": ("autorenew", "primary"),
    "ready": ("check_circle", "positive"),
    "error": ("error", "negative"),
}


def apply() -> ui.dark_mode:
    """Colours, dark mode (following the system), styles and script for the current page."""
    ui.colors(primary=PRIMARY)
    # Items in a menu are its menu items (Quasar's items call themselves list items, which
    # a screen reader then looks for a list around).
    ui.menu_item.default_props("role=menuitem")
    dark = ui.dark_mode(None)  # None: follow the operating system's setting
    ui.add_css(CSS + code_css())
    # The shortcut table rides in the page's own script: sent over the socket instead, it
    # landed after the page was drawn, and a key pressed in between did nothing.
    ui.add_body_html(PAGE_SCRIPT)
    return dark


THEMES: dict[str, tuple[bool | None, str, str]] = {
    "auto": (None, "brightness_auto", "Theme: as the system (click for light)"),
    "light": (False, "light_mode", "Theme: light (click for dark)"),
    "dark": (True, "dark_mode", "Theme: dark (click to follow the system)"),
}


class ThemeToggle:
    """The header's theme button: system, light, dark in turn; this browser remembers it."""

    def __init__(self, dark: ui.dark_mode) -> None:
        self.dark = dark
        self.choice = "auto"
        self.button = ui.button(icon="brightness_auto", on_click=self.next).props("flat round")
        self.button.props["aria-label"] = THEMES["auto"][2]
        self.button.mark("theme")
        with self.button:
            self.tip = ui.tooltip(THEMES["auto"][2])
        ui.on("docent_theme", lambda e: self.choose(str(e.args), remember=False))
        ui.run_javascript(
            "emitEvent('docent_theme', localStorage.getItem('docent-theme') || 'auto')"
        )

    def next(self) -> None:
        names = list(THEMES)
        self.choose(names[(names.index(self.choice) + 1) % len(names)], remember=True)

    def choose(self, choice: str, *, remember: bool) -> None:
        if choice not in THEMES:
            return
        self.choice = choice
        value, icon, tip = THEMES[choice]
        self.dark.set_value(value)
        self.button.props(f"icon={icon}")
        self.button.props["aria-label"] = tip
        self.tip.set_text(tip)
        if remember:
            ui.run_javascript(f"localStorage.setItem('docent-theme', '{choice}')")
