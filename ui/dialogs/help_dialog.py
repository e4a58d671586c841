""" "How Docent works": the live graph, drawn from the compiled LangGraph."""

from __future__ import annotations

from nicegui import ui

from ui.frame.shortcuts import SHORTCUTS

STEPS = (
    ("Router", "decides whether the question needs your documents, and reads @mentions."),
    ("Rewriter", "turns a follow-up (and the conversation so far) into searches."),
    ("Retriever", "finds the best passages by meaning and by keyword, then reranks them."),
    ("Generator", "writes the answer from those passages, citing each as [n]."),
)


def show_help(diagram: str) -> None:
    """Open the help dialog; ``diagram`` is the compiled graph as Mermaid source."""
    with ui.dialog() as dialog, ui.card().classes("w-full max-w-2xl gap-3").mark("help-dialog"):
        with ui.row().classes("w-full items-center justify-between no-wrap"):
            ui.html("How Docent works", sanitize=False, tag="h2").classes("text-lg font-semibold")
            ui.button(icon="close", on_click=dialog.close).props(
                'flat round dense aria-label="Close"'
            )
        ui.label(
            "Every message goes through a small graph. This picture is drawn from the graph "
            "the app is running now."
        ).classes("text-sm docent-muted")
        ui.mermaid(diagram).classes("w-full flex justify-center").mark("help-graph")
        with ui.column().classes("gap-1"):
            for name, text in STEPS:
                with ui.row().classes("gap-1 no-wrap text-sm"):
                    ui.label(name).classes("font-semibold")
                    ui.label(text)
        ui.html("Keyboard", sanitize=False, tag="h3").classes("text-base font-semibold")
        with ui.element("dl").classes("docent-shortcuts text-sm").mark("shortcuts"):
            # Our own constants, not text from outside: no sanitising needed.
            for shortcut in SHORTCUTS:
                ui.html(f"<kbd>{shortcut.keys}</kbd>", sanitize=False, tag="dt")
                ui.html(shortcut.what, sanitize=False, tag="dd").mark("shortcut")
            ui.html("<kbd>↑</kbd> <kbd>↓</kbd> <kbd>Enter</kbd>", sanitize=False, tag="dt")
            ui.html("Move through a menu or the @ list, and pick", sanitize=False, tag="dd")
        ui.label("On a Mac, Cmd works where Ctrl is written.").classes("text-xs docent-muted")
        ui.label(
            "Everything runs on this computer: the index lives in the data folder, and answers "
            "come from the model server you chose (your local Ollama, unless you chose another)."
        ).classes("text-sm docent-muted")
    dialog.open()
