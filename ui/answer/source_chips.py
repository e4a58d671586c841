"""The chips under an answer: one per file it drew on, the cited ones first in colour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from ui.answer.source_groups import file_icon, group_sources, middle_ellipsis


def show_source_chips(
    sources: list[dict[str, Any]], on_open: Callable[[dict[str, Any]], Any]
) -> None:
    """A chip per file of ``sources``; a click opens (``on_open``) the file's first source."""
    if not sources:
        return
    with ui.row().classes("gap-1 w-full min-w-0").mark("sources"):
        for group in group_sources(sources):
            label = middle_ellipsis(group.file, 30)
            if group.pages_label:
                label += f" · {group.pages_label}"
            if group.scanned:  # its words were read from a picture: they may be misread
                label += " · scanned"
            first = next(s for s in sources if int(s["n"]) == group.numbers[0])
            chip = ui.chip(
                label,
                icon=file_icon(group.file),
                on_click=lambda s=first: on_open(s),
                color="primary" if group.cited else None,  # uncited: docent-quiet's grey
            )
            chip.props("outline dense clickable").classes(
                "docent-source-chip text-xs" + ("" if group.cited else " docent-quiet")
            ).mark("source" if group.cited else "source-uncited")
            numbers = ", ".join(f"[{n}]" for n in group.numbers)
            read = f" · read pp. {', '.join(map(str, group.pages))}" if group.pages else ""
            cited = "" if group.cited else " · not cited"
            scanned = ""
            if group.confidence is not None:
                scanned = f" · read by OCR ({group.confidence:.0%} confidence)"
            chip.tooltip(f"{group.path} — {numbers}{read}{cited}{scanned}")
