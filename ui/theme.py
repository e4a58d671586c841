"""Colours and the few styles the window needs."""

from nicegui import ui

PRIMARY = "#4f46e5"

CSS = """
.docent-answer p { margin: 0 0 0.5em 0; }
.docent-answer p:last-child { margin-bottom: 0; }
.docent-source { font-size: 0.8rem; }
.docent-messages { max-width: 52rem; margin: 0 auto; }
"""

STATUS_ICONS = {
    "queued": ("schedule", "grey"),
    "indexing": ("autorenew", "primary"),
    "ready": ("check_circle", "positive"),
    "error": ("error", "negative"),
}


def apply() -> None:
    """Set colours and styles for the current page."""
    ui.colors(primary=PRIMARY)
    ui.add_css(CSS)
    ui.query("body").classes("bg-slate-50")
