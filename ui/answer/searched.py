"""Under a checked answer: how much of it the sources hold and, when the documents don't
cover the question, what was searched (folded: the answer itself says it plainly)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.check_line import MISSES_QUESTION, checked, summary, worrying
from app.records import NearPassage, Searched, SentenceSupportPublic
from ui.answer.source_groups import middle_ellipsis


def show_summary(support: list[SentenceSupportPublic], *, misses_question: bool = False) -> None:
    """The Check line; a contradiction or an answer beside the question makes it a warning."""
    complete = all(s.get("verdict") == "supported" for s in checked(support))
    complete = complete and not misses_question
    warn = worrying(support) or misses_question
    row = ui.row().classes("items-center gap-1 text-xs")
    row.classes("docent-check-warn" if warn else "docent-muted")
    with row.mark("check"):
        icon = "task_alt" if complete else "error" if warn else "rule"
        colour = "text-positive" if complete else "text-negative" if warn else "text-warning"
        ui.icon(icon, size="1rem").classes(colour)
        ui.label("Check:").classes("font-semibold")
        if misses_question:
            ui.label(MISSES_QUESTION).mark("check-question")
        ui.label(summary(support)).mark("check-summary")


def show_draft(draft: str) -> None:
    """The answer the check set aside, folded beneath the "not found", marked unchecked."""
    with (
        ui.expansion("The model's answer (unchecked)", icon="drafts")
        .props("dense")
        .classes("w-full text-sm docent-withheld")
        .mark("draft")
    ):
        ui.label(
            "Nothing in it was found in the passages searched for your question: read it as "
            "the model's guess, not as what your documents say."
        ).classes("docent-muted")
        ui.label(draft).classes("docent-draft").mark("draft-text")


def show_searched(searched: Searched, open_source: Callable[[dict[str, Any]], Any]) -> None:
    """Folded: the queries, files in scope, nearest passages and scores (each opens there)."""
    with (
        ui.expansion("What was searched", icon="manage_search")
        .props("dense")
        .classes("w-full text-sm docent-searched")
        .mark("searched")
    ):
        for query in searched.get("queries", []):
            ui.label(f"Searched for: “{query}”").mark("searched-query")
        files = searched.get("files") or []
        where = ", ".join(middle_ellipsis(f, 40) for f in files) if files else "every document"
        ui.label(f"In: {where}").classes("docent-muted")
        if searched.get("floor") is not None:
            ui.label(
                "Nothing found came near enough the question (relevance "
                f"{searched['floor']:.2f} at least)."
            ).classes("docent-muted")
        nearest = searched.get("nearest") or []
        if nearest:
            ui.label("Nearest passages:").classes("font-semibold mt-1")
        for passage in nearest:
            _nearest(passage, open_source)
        if searched.get("draft"):
            ui.label("The model's answer, which the passages don't support:").classes(
                "font-semibold mt-1"
            )
            ui.label(searched["draft"]).classes("docent-draft").mark("searched-draft")


def _nearest(passage: NearPassage, open_source: Callable[[dict[str, Any]], Any]) -> None:
    page = f", page {passage['page']}" if passage.get("page") is not None else ""
    source = {
        "n": 0,
        "file": passage["file"],
        "path": passage["path"],
        "page": passage.get("page"),
        "snippet": passage.get("text", ""),
    }
    with ui.column().classes("gap-0 docent-nearest").mark("searched-nearest"):
        with ui.row().classes("items-center gap-1"):
            ui.button(f"{passage['file']}{page}", on_click=lambda: open_source(source)).props(
                "flat dense no-caps size=sm color=primary"
            ).classes("px-1")
            ui.label(f"score {float(passage.get('score', 0)):.2f}").classes("docent-muted")
        ui.label(passage.get("text", "")).classes("docent-muted text-xs")
