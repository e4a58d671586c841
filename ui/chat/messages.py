"""One question and one answer as the window shows them: bubble, card, sources, actions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nicegui import ui

from app.check_line import checked
from app.records import (
    Coverage,
    Feedback,
    Searched,
    SentenceSupportPublic,
    StoppedReading,
    Trace,
)
from app.services.chat import (
    ClientEvent,
    Done,
    Failed,
    Progress,
    Sources,
    Status,
    Suggestions,
    Token,
)
from ui.answer import markdown
from ui.answer.claim_marks import claim_wraps
from ui.answer.coverage_line import show_coverage
from ui.answer.resume_actions import show_resume
from ui.answer.searched import show_draft, show_searched, show_summary
from ui.answer.source_chips import show_source_chips
from ui.chat.answer_actions import AnswerActions, show_actions
from ui.chat.waiting import StatusLine

STOPPED_EARLY = "*Stopped before the answer began.*"
RENDER_EVERY_SECONDS = 0.06
"""How often a streaming answer is re-rendered: smooth, without a message per token."""


@dataclass
class AnswerView:
    """An answer card: streamed text, its sources, and its actions once it is done."""

    actions: AnswerActions
    turn_id: str
    text: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)
    trace: Trace | None = None
    stopped: bool = False
    regen: ui.button | None = None
    """Regenerate, on the last answer only."""
    suggestions: ui.row | None = None
    """Follow-up questions, once they arrive."""
    support: list[SentenceSupportPublic] | None = None
    """Each sentence's check, once the answer is done (None: not checked)."""
    searched: Searched | None = None
    """What was searched, when the documents don't cover the question."""
    coverage: Coverage | None = None
    """How much of the library the answer read (None: it searched nothing)."""
    resume: StoppedReading | None = None
    """A reading stopped or cut short: what it read and its follow-ups (None otherwise)."""
    resume_row: ui.row | None = None
    draft: str | None = None
    """The model's answer, unchecked, when the check set it aside."""
    misses_question: bool = False
    """The answer doesn't seem to address the question."""
    versions: list[dict[str, Any]] = field(default_factory=list)
    """The answers a Regenerate replaced, oldest first (``‹ 1/2 ›`` flips through them)."""
    shown: int | None = None
    """Which of ``all_versions()`` is on show; None: the latest."""
    latest: dict[str, Any] | None = None
    """The latest answer, while an earlier version is on show."""
    message_id: str | None = None
    """The saved message's id, once known (rating it needs it)."""
    feedback: Feedback | None = None
    retired: bool = False
    arrows: tuple[ui.button, ...] = ()
    """The versions' arrows (back, on) as last drawn; a step puts focus on one."""
    _rendered_at: float = 0.0
    _trailing: asyncio.TimerHandle | None = None
    """The render due at the end of the current interval, for text that came within it."""

    def build(self, *, streaming: bool) -> None:
        with ui.column().classes("w-full gap-1 min-w-0") as self.box:
            self.line = StatusLine(visible=streaming)
            # Reading whole documents takes a while: how far it is, section by section.
            self.progress = ui.linear_progress(value=0.0, show_value=False)
            self.progress.props("rounded size=6px").classes("docent-progress").mark("progress")
            self.progress.set_visibility(False)
            with ui.card().classes("docent-answer-card shadow-sm").props("flat bordered"):
                self.body = ui.html("", sanitize=False).classes("docent-md").mark("answer")
                self.body.props(f'data-turn="{self.turn_id}"')
            self.footer = ui.column().classes("w-full gap-1 min-w-0")
        if streaming:
            self.body.classes("docent-streaming")
        else:
            self.finish()

    @property
    def is_gone(self) -> bool:
        return self.box.is_deleted

    def add_token(self, text: str) -> None:
        self.line.writing()
        self.text += text
        wait = self._rendered_at + RENDER_EVERY_SECONDS - time.monotonic()
        if wait <= 0:
            self._render_streamed()
        elif self._trailing is None:
            # Text that comes within the interval shows at its end, even when the model
            # then pauses (a slow next token), not only with the next token.
            self._trailing = asyncio.get_running_loop().call_later(wait, self._render_streamed)

    def _render_streamed(self) -> None:
        self._stop_trailing()
        if self.is_gone:
            return
        self._rendered_at = time.monotonic()
        self.body.set_content(markdown.render(self.text, self.sources))
        self.body.client.run_javascript("window.docent && docent.follow()")

    def _stop_trailing(self) -> None:
        if self._trailing is not None:
            self._trailing.cancel()
            self._trailing = None

    def show(self, event: ClientEvent, *, latest: bool) -> None:
        """Show a turn's event in this card; follow-ups only if it is the ``latest`` answer."""
        if isinstance(event, Status):  # a new step: what it waits for, timed from now
            self.line.waiting_for(event.text)
        elif isinstance(event, Progress):
            self.set_progress(event.done, event.total, event.text)
        elif isinstance(event, Sources):
            self.sources = [dict(s) for s in event.sources]
            self.show_sources()
        elif isinstance(event, Token):
            self.add_token(event.text)
        elif isinstance(event, Done):
            self.take(event.answer, vars(event))
            self.coverage = event.coverage
            self.resume = event.resume
            self.finish()
        elif isinstance(event, Suggestions) and latest:
            self.show_suggestions(event.suggestions)
        elif isinstance(event, Failed):
            self.fail(event.message)

    def set_progress(self, done: int, total: int, text: str) -> None:
        """A long reading's progress: the status says which section, the bar how far."""
        self.line.step(text)
        self.progress.set_value(done / total if total else 1.0)
        self.progress.set_visibility(done < total)

    def show_sources(self) -> None:
        """The sources under the card while it is written; ``finish`` puts the cited first."""
        self.footer.clear()
        with self.footer:
            show_source_chips(self.sources, lambda s: self.actions.open_source(self.located(s)))

    def fail(self, message: str) -> None:
        self._stop_trailing()
        self.line.failed(message)
        self.progress.set_visibility(False)
        self.body.classes(remove="docent-streaming")
        if not self.text:
            self.body.set_content(markdown.render(f"*{message}*"))

    def finish(self) -> None:
        """Final render: full text, sources grouped by file, and the action buttons."""
        self._stop_trailing()
        self.line.end()
        self.progress.set_visibility(False)
        self.body.classes(remove="docent-streaming")
        wraps = claim_wraps(self.support or [])
        # A reading stopped before its answer began has nothing to show but the stop.
        shown = self.text if self.text or not self.stopped else STOPPED_EARLY
        self.body.set_content(markdown.render(shown, self.sources, wraps))
        self.footer.clear()
        with self.footer:
            if checked(self.support or []):  # an answer of "Thanks!" alone has no line
                show_summary(self.support or [], misses_question=self.misses_question)
            if self.draft:
                show_draft(self.draft)
            if self.searched:
                show_searched(self.searched, self.actions.open_source)
            show_coverage(self.coverage, len(self.sources))
            show_source_chips(self.sources, lambda s: self.actions.open_source(self.located(s)))
            if self.resume and not self.retired:
                send = self.actions.send_suggestion
                self.resume_row = show_resume(self.resume, self.stopped, send)
            show_actions(self)
        self.body.client.run_javascript("window.docent && docent.follow()")

    def located(self, source: dict[str, Any], sentence: int | None = None) -> dict[str, Any]:
        """``source`` with the span supporting ``sentence`` (else its first) for the viewer."""
        support = self.support or []
        spans = [span for s in support if (span := s["source"]) is not None]
        if sentence is not None and 0 <= sentence < len(support):
            own = support[sentence]["source"]
            spans = [own, *spans] if own is not None else spans
        span = next((x for x in spans if int(x["n"]) == int(source["n"])), None)
        return {**source, "span": span} if span else source

    def sentence_source(self, sentence: int) -> dict[str, Any] | None:
        """The source of a checked sentence's span, with the span; None if it has none."""
        support = self.support or []
        span = support[sentence]["source"] if 0 <= sentence < len(support) else None
        if span is None:
            return None
        n = int(span["n"])
        source = next((s for s in self.sources if int(s["n"]) == n), None)
        return self.located(source, sentence) if source is not None else None

    def snapshot(self) -> dict[str, Any]:
        """The answer on show as a version: what a Regenerate keeps of it."""
        version: dict[str, Any] = {
            "content": self.text,
            "sources": self.sources,
            "trace": self.trace,
        }
        if self.stopped:
            version["stopped"] = True
        for shown in ("support", "searched", "draft", "misses_question"):
            if getattr(self, shown) is not None:
                version[shown] = getattr(self, shown)
        return version

    def take(self, text: str, kept: Mapping[str, Any]) -> None:
        """Hold an answer kept elsewhere (a saved message, a version, a turn's ``done``)."""
        self.text = text
        self.sources = [dict(s) for s in kept.get("sources") or []]
        self.trace = kept.get("trace")
        self.stopped = bool(kept.get("stopped"))
        self.support = kept.get("support")
        self.searched = kept.get("searched")
        self.draft = kept.get("draft")
        self.misses_question = bool(kept.get("misses_question"))

    def all_versions(self) -> list[dict[str, Any]]:
        """Every version, oldest first, the latest last."""
        latest = self.latest if self.latest is not None else self.snapshot()
        return [*self.versions, latest]

    def show_version(self, index: int) -> None:
        """Show version ``index`` of ``all_versions()`` in this card."""
        every = self.all_versions()
        if not 0 <= index < len(every):
            return
        if self.latest is None:
            self.latest = self.snapshot()
        self.take(every[index]["content"], every[index])
        self.shown = None if index == len(every) - 1 else index
        if self.shown is None:
            self.latest = None
        self.finish()

    def retire(self) -> None:
        """A newer answer exists: only the last one can be regenerated or followed up."""
        self.retired = True
        if self.regen is not None and not self.regen.is_deleted:
            self.regen.set_visibility(False)
        if self.suggestions is not None and not self.suggestions.is_deleted:
            self.suggestions.delete()
        if self.resume_row is not None and not self.resume_row.is_deleted:
            self.resume_row.delete()  # a follow-up takes up the last answer's reading only

    def show_suggestions(self, suggestions: list[str]) -> None:
        if not suggestions or self.is_gone:
            return
        with self.footer, ui.row().classes("gap-1 w-full").mark("suggestions") as self.suggestions:
            for text in suggestions[:4]:
                chip = ui.chip(
                    text,
                    icon="arrow_forward",
                    on_click=lambda t=text: self.actions.send_suggestion(t),
                )
                chip.props("clickable dense outline").classes(
                    "text-xs docent-source-chip docent-suggestion"
                )
                chip.mark("suggestion")
