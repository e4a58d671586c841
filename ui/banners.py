"""Banners over the conversation: what limits Docent, how to fix it, and a Retry.

Driven by the app's one health check (``container.health``), which tells every window
when something changes; the Retry asks again at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.health import HealthMonitor, HealthReport, Problem

TITLES = {
    "ollama_down": "Answers are limited.",
    "model_missing": "The chat model is missing.",
    "reranker_unavailable": "Reranking is off.",
    "embedding_rebuild": "The index is being rebuilt.",
}
DEGRADED = " Until then, Docent shows the most relevant passages from your documents."


BRIEF_CHARS = 160


def brief(message: str) -> str:
    """A long technical message cut to its first clause: the banner says what, the tooltip how."""
    message = message[:1].upper() + message[1:]
    if len(message) <= BRIEF_CHARS:
        return message
    cut = min((i for i in (message.find(" ("), message.find(": ")) if i > 20), default=-1)
    if cut < 0 or cut > BRIEF_CHARS:
        cut = message.rfind(" ", 0, BRIEF_CHARS)
    return message[:cut].rstrip(" .:") + "."


class Banners:
    """The banner strip of one window."""

    def __init__(self, health: HealthMonitor, on_pull: Callable[[str], Any]) -> None:
        self.health = health
        self.on_pull = on_pull
        self.strip = ui.column().classes("w-full items-center gap-2 px-4 pt-2")
        self.strip.mark("banners")
        self._shown: list[Problem] | None = None
        self.unsubscribe = health.subscribe(self._changed)
        self.show(health.report)

    def _changed(self, report: HealthReport) -> None:
        if self.strip.is_deleted:
            self.unsubscribe()
            return
        self.show(report)

    def show(self, report: HealthReport) -> None:
        if report.problems == self._shown:
            return
        self._shown = list(report.problems)
        self.strip.clear()
        with self.strip:
            for problem in report.problems:
                self._banner(problem)

    def _banner(self, problem: Problem) -> None:
        with (
            ui.card()
            .classes(
                "docent-banner w-full max-w-3xl bg-amber-50 border border-amber-300 "
                "text-amber-950 py-2 px-3"
            )
            .props("flat")
            .mark(f"banner-{problem.kind}")
        ):
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                ui.icon("warning_amber", color="warning").classes("text-xl")
                text = f"**{TITLES.get(problem.kind, 'Heads up.')}** {brief(problem.message)}"
                if problem.kind == "ollama_down":
                    text += DEGRADED
                elif problem.kind == "reranker_unavailable":
                    text += " Answers still come, ranked by search scores alone."
                shown = ui.markdown(text).classes("text-sm flex-grow min-w-0").mark("banner-text")
                if len(problem.message) > BRIEF_CHARS:
                    shown.tooltip(problem.message)  # the whole technical story, on hover
                if problem.kind == "model_missing" and problem.model:
                    ui.button(
                        "Pull", icon="download", on_click=lambda m=problem.model: self.on_pull(m)
                    ).props("flat dense no-caps").mark("banner-pull")
                ui.button("Retry", icon="refresh", on_click=self.retry).props(
                    "flat dense no-caps"
                ).mark("banner-retry")

    async def retry(self) -> None:
        report = await self.health.check_now()
        self.show(report)
        if not report.problems:
            ui.notify("All good now.", type="positive")
