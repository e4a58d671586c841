"""What an empty conversation says: how to begin, and (once) the reranker's offer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.services.reranking import Reranking


def show_empty_hint(file_count: int, add_files: Callable[[], Any], reranking: Reranking) -> None:
    """How to begin: add files first when the library is empty, else ask."""
    with ui.column().classes("w-full items-center gap-3 mt-16 text-center").mark("empty-hint"):
        ui.icon("auto_stories", size="3rem", color="primary")
        if file_count == 0:
            ui.label(
                "Add PDFs, Markdown or text files, then ask about them: Docent answers "
                "from them, with citations, on this computer."
            ).classes("max-w-md docent-muted").mark("first-start")
            ui.button("Add files", icon="upload_file", on_click=add_files).props(
                "unelevated no-caps"
            ).mark("first-start-add")
            ui.label("…or drop files and folders anywhere in this window.").classes(
                "text-xs docent-muted"
            )
        else:
            ui.label("Ask about your documents. Type @ to aim the question at one file.").classes(
                "max-w-md docent-muted"
            )
        if reranking.offer_pending:
            _rerank_offer(reranking)


def _rerank_offer(reranking: Reranking) -> None:
    """Asked once, at first start: fetching the reranker is the user's choice."""
    with ui.card().classes("max-w-md mt-4 p-3 gap-2 text-left").props("flat bordered") as card:
        card.mark("rerank-offer")
        ui.label("Better-ordered sources (optional)").classes("font-semibold")
        ui.label(
            f"Docent can reorder the passages it finds with a small reranking model, "
            f"{reranking.model} ({reranking.size}), downloaded once from Hugging Face. "
            "Until you say yes, Docent connects to nothing but your model server."
        ).classes("text-sm")

        def answer(download: bool) -> None:
            if download:
                reranking.download()  # its banner shows how far it is
            else:
                reranking.decline()
            client = ui.context.client  # the button's slot goes with the card
            card.delete()  # and focus with it: it goes to the message box instead
            client.run_javascript("docent.focusInput()")

        with ui.row().classes("w-full justify-end gap-1"):
            ui.button("Not now", on_click=lambda: answer(False)).props("flat no-caps").mark(
                "rerank-offer-no"
            )
            ui.button(f"Download ({reranking.size})", on_click=lambda: answer(True)).props(
                "unelevated no-caps"
            ).mark("rerank-offer-yes")
