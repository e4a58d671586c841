"""The user's message as the conversation shows it: a bubble, @mentions as file chips."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from nicegui import ui

from ui.answer.source_groups import file_icon, middle_ellipsis
from ui.chat.mention_picker import segments


def render_user(text: str, on_edit: Callable[[str], Any] | None = None) -> None:
    """The user's message as a bubble, @mentions as chips; ``on_edit`` offers to edit it."""
    with ui.row().classes("w-full justify-end items-start no-wrap gap-1 docent-question"):
        if on_edit is not None:
            edit = ui.button(icon="edit", on_click=lambda: on_edit(text))
            edit.props('flat dense round size=sm color=grey-7 aria-label="Edit and send again"')
            edit.classes("docent-edit").tooltip("Edit and send again").mark("edit-question")
        with ui.element("div").classes("docent-bubble").mark("user-message"):
            parts = []
            for kind, value in segments(text):
                if kind == "mention":
                    name = value if value.endswith("/") else value.rsplit("/", 1)[-1]
                    title = html.escape(value, quote=False).replace('"', "&quot;")
                    parts.append(
                        f'<span class="docent-mention-chip" title="{title}">'
                        f'<i class="q-icon material-icons" aria-hidden="true">{file_icon(value)}'
                        f"</i>{html.escape(middle_ellipsis(name, 40), quote=False)}</span>"
                    )
                else:
                    parts.append(html.escape(value, quote=False))
            ui.html("".join(parts), sanitize=False).mark("user-text")
