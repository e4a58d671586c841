"""Banners over the conversation: what limits Docent, how to fix it, and a Retry.

Driven by the app's one health check (``container.health``), which tells every window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.services.embedding_models import EmbeddingModels, EmbeddingState
from app.services.health import HealthMonitor, HealthReport, Problem
from ui.answer import markdown

TITLES = {
    "server_down": "Answers are limited.",
    "model_missing": "The chat model is not available.",
    "embedding_rebuild": "The index is being rebuilt.",
    "embedding_failed": "The embedding model was not changed.",
}
QUIET = {"reranker_unavailable"}
"""Optional features that are off: a line in Settings says so, not a warning here."""
DEGRADED = " Until then, Docent shows the most relevant passages from your documents."


BRIEF_CHARS = 160


def banner_text(text: str) -> ui.html:
    """A banner's Markdown, rendered as answers are so a server's words load no images."""
    return ui.html(markdown.render(text), sanitize=False).classes(
        "docent-banner-text text-sm flex-grow min-w-0"
    )


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

    def __init__(
        self,
        health: HealthMonitor,
        on_pull: Callable[[str], Any] | None,
        embedding: EmbeddingModels | None = None,
    ) -> None:
        self.health = health
        self.on_pull = on_pull
        """Offers a missing model's download; None when the server can't download models."""
        with ui.column().classes("w-full items-center gap-2 px-4 pt-2") as self.strip:
            self.strip.mark("banners")
            self.rebuild = RebuildBanner(embedding) if embedding is not None else None
            self.problems = ui.column().classes("w-full items-center gap-2")
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
        self.problems.clear()
        with self.problems:
            for problem in report.problems:
                if problem.kind not in QUIET:
                    self._banner(problem)

    def _banner(self, problem: Problem) -> None:
        with banner_card(problem.kind):
            with ui.row().classes("w-full items-center no-wrap gap-2"):
                ui.icon("warning_amber", color="warning").classes("text-xl")
                text = f"**{TITLES.get(problem.kind, 'Heads up.')}** {brief(problem.message)}"
                if problem.kind == "server_down":
                    text += DEGRADED
                shown = banner_text(text).mark("banner-text")
                if len(problem.message) > BRIEF_CHARS:
                    shown.tooltip(problem.message)  # the whole technical story, on hover
                if problem.kind == "model_missing" and problem.model and self.on_pull:
                    pull = self.on_pull
                    ui.button(
                        "Pull", icon="download", on_click=lambda m=problem.model: pull(m)
                    ).props("flat dense no-caps").mark("banner-pull")
                ui.button("Retry", icon="refresh", on_click=self.retry).props(
                    "flat dense no-caps"
                ).mark("banner-retry")

    async def retry(self) -> None:
        report = await self.health.check_now()
        self.show(report)
        if not report.problems:
            ui.notify("All good now.", type="positive")


def banner_card(kind: str) -> ui.card:
    """The card every banner sits in."""
    card = ui.card().classes(
        "docent-banner w-full max-w-3xl bg-amber-50 border border-amber-300 "
        "text-amber-950 py-2 px-3"
    )
    return card.props("flat").mark(f"banner-{kind}")


def rebuild_text(state: EmbeddingState) -> str:
    """What the rebuild banner says: which model, how far, and what answers meanwhile."""
    if state.loading:
        loading = f"**Loading the embedding model {state.loading}…**"
        return f"{loading} {state.answering} answers meanwhile."
    done = f"{state.done:,} of {state.total:,} documents" if state.total else "starting"
    return (
        f"**{TITLES['embedding_rebuild']}** Switching searches to {state.building}: {done}. "
        f"{state.answering} answers until it is done."
    )


class RebuildBanner:
    """The embedding switch in one window: loading, rebuild progress, or why it failed.

    Updated in place from the switch's events (one per document copied), not redrawn."""

    def __init__(self, embedding: EmbeddingModels) -> None:
        self.embedding = embedding
        self.box = ui.column().classes("w-full items-center gap-2")
        self._busy = False
        self._problem: str | None = None
        self._building: str | None = None
        """The model this window saw being built: its swap is worth a notice."""
        self._text: Any = None
        self._bar: Any = None
        self.unsubscribe = embedding.subscribe(self.show)
        self.show(embedding.state())

    def show(self, state: EmbeddingState) -> None:
        if self.box.is_deleted:
            self.unsubscribe()
            return
        busy = bool(state.building or state.loading)
        finished = not busy and self._building is not None and self._building == state.answering
        if busy != self._busy or state.problem != self._problem:
            self._draw(state, busy)
        self._building = state.building or (self._building if busy else None)
        if finished:
            with self.box:
                ui.notify(f"Searches now use {state.answering}.", type="positive")
        if busy and self._text is not None and self._bar is not None:
            self._text.set_content(markdown.render(rebuild_text(state)))
            value = state.done / state.total if state.total else 0.0
            self._bar.set_value(value)
            self._bar.props(f"data-value={value:.3f}")

    def _draw(self, state: EmbeddingState, busy: bool) -> None:
        self._busy, self._problem = busy, state.problem
        self.box.clear()
        self._text = self._bar = None
        with self.box:
            if busy:
                with banner_card("embedding_rebuild"):
                    with ui.row().classes("w-full items-center no-wrap gap-2"):
                        ui.icon("autorenew", color="warning").classes("text-xl animate-spin")
                        self._text = banner_text(rebuild_text(state))
                        self._text.mark("banner-text rebuild-text")
                    self._bar = ui.linear_progress(value=0.0, show_value=False)
                    self._bar.props("rounded size=6px").classes("docent-progress")
                    self._bar.mark("rebuild-progress")
            if state.problem:
                with banner_card("embedding_failed"):
                    with ui.row().classes("w-full items-center no-wrap gap-2"):
                        ui.icon("warning_amber", color="warning").classes("text-xl")
                        text = f"**{TITLES['embedding_failed']}** {state.problem}"
                        banner_text(text).mark("banner-text")
                        ui.button("Retry", icon="refresh", on_click=self.embedding.retry).props(
                            "flat dense no-caps"
                        ).mark("banner-retry-embedding")
                        ui.button("Dismiss", icon="close", on_click=self.embedding.dismiss).props(
                            "flat dense no-caps"
                        ).mark("banner-dismiss")
