"""The conversation: past messages, and the turn streaming into the window."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.records import Feedback, KeptMessage
from app.services.chat import ChatService, Done, Failed, MessageRejected, SessionBusy, Turn
from ui.chat.answer_actions import AnswerActions
from ui.chat.edit_question import edit_question
from ui.chat.interrupted import render_interrupted
from ui.chat.messages import AnswerView
from ui.chat.question_bubble import render_user

_turn_ids = itertools.count(1)

BUSY = "The previous answer is still being written. Your message is kept; send it when it ends."


class ChatView:
    """One window's view of one session."""

    def __init__(
        self,
        chat: ChatService,
        actions: AnswerActions,
        empty: Callable[[], None],
        on_streaming: Callable[[bool], Any],
        on_scope: Callable[[list[str]], Any] = lambda _scope: None,
    ) -> None:
        self.chat = chat
        self._on_scope = on_scope
        self.scope: list[str] = []
        """The session's scope as the window knows it; empty for the whole library."""
        self._scope_given = False
        """The user changed it here: the next message hands it to the session."""
        self.actions = actions
        self._empty = empty
        self._on_streaming = on_streaming
        self.session_id: str | None = None
        self.answers: dict[str, AnswerView] = {}
        self.last: AnswerView | None = None
        self.streaming = False
        self._following: AnswerView | None = None
        """The answer being written, which holds the composer until its ``done``."""
        self._questions = 0
        """The user's messages shown: the next one's place, for editing it."""
        self.column = ui.column().classes("docent-messages gap-4 p-4 pb-8")
        with self.column:
            self._empty()
        self.anchor = ui.element("div")
        """Dialogs and handlers that redraw the conversation live here, not in a message."""

    def set_scope(self, scope: list[str]) -> None:
        """Aim this chat at ``scope`` (folders ending in "/", files) from its next message."""
        self.scope = list(scope)
        self._scope_given = True
        self._on_scope(self.scope)

    def clear(self) -> None:
        self._reset(None, [])
        with self.column:
            self._empty()

    def _reset(self, session_id: str | None, scope: list[str]) -> None:
        """An empty conversation for ``session_id``, which reads ``scope``."""
        self.session_id = session_id
        self.scope, self._scope_given = scope, False
        self._on_scope(self.scope)
        self._questions = 0
        self.answers.clear()
        self.last = None
        self.column.clear()

    def refresh_empty(self) -> None:
        """Redraw the first-start text if no session is open; a scope chosen for it stays."""
        if self.session_id is None and not self.streaming:
            self.column.clear()
            with self.column:
                self._empty()

    async def show_session(self, session_id: str) -> None:
        """Replace the view with a saved session's messages, sources and traces."""
        messages = await self.chat.messages(session_id)
        self._reset(session_id, await self.chat.scope(session_id))
        with self.column:
            asked: KeptMessage | None = None
            for message in messages:
                if message["role"] == "user":
                    self._question(message["content"])
                    asked = message
                elif message.get("interrupted"):
                    self._interrupted(str(asked["id"] if asked is not None else None))
                else:
                    view = self._answer(streaming=False, message=message)
                    self._add(view)
        running = self.chat.running_turn(session_id)
        if running is not None:
            # The question is checkpointed as its turn starts: until then only the turn has it.
            said = [m["content"] for m in messages if m["role"] == "user"]
            if not said or said[-1] != running.question or messages[-1]["role"] != "user":
                with self.column:
                    self._question(running.question)
            await self.follow(running, running.versions)

    def _interrupted(self, question_id: str) -> None:
        """An answer a crash cut off: nothing to regenerate, its question to ask again."""
        if self.last is not None:
            self.last.retire()  # Regenerate would answer the interrupted question instead
        self.last = None
        render_interrupted(lambda: self.ask_again(question_id))

    async def ask_again(self, question_id: str) -> None:
        """Ask an interrupted question again, at the end of the chat."""
        with self.anchor:
            if self.session_id is None or self.streaming:
                ui.notify(BUSY, type="warning")
                return
            try:
                turn = await self.chat.ask_again(self.session_id, question_id)
            except (SessionBusy, MessageRejected) as error:
                ui.notify(BUSY if isinstance(error, SessionBusy) else str(error), type="warning")
                return
            await self.show_session(turn.session_id)

    def _question(self, text: str) -> None:
        """The user's message, with its Edit (which knows its place in the chat)."""
        place = self._questions
        self._questions += 1
        render_user(text, lambda said: self._open_editor(place, said))

    def _open_editor(self, place: int, text: str) -> None:
        with self.anchor:
            edit_question(text, lambda new: self.edit(place, new))

    async def edit(self, place: int, text: str) -> bool:
        """Send ``text`` instead of question ``place`` (from 0), in a new chat branched there."""
        with self.anchor:
            if self.session_id is None or self.streaming:
                ui.notify(BUSY, type="warning")
                return False
            asked = [m for m in await self.chat.messages(self.session_id) if m["role"] == "user"]
            question_id = asked[place]["id"] if place < len(asked) else None
            if question_id is None:
                ui.notify("That question is not saved yet; try again in a moment.", type="warning")
                return False
            try:
                turn = await self.chat.branch(self.session_id, question_id, text)
            except (SessionBusy, MessageRejected) as error:
                ui.notify(BUSY if isinstance(error, SessionBusy) else str(error), type="warning")
                return False
            await self.show_session(turn.session_id)
            return True

    async def rate(self, turn_id: str, feedback: Feedback | None) -> None:
        """Keep the user's thumbs up or down with the answer's trace."""
        view = self.answers.get(turn_id)
        if self.session_id is None or view is None:
            return
        if view.message_id is None and view is self.last:
            # A live answer learns its saved id here, the first time it is rated.
            answers = [m for m in await self.chat.messages(self.session_id) if m["role"] != "user"]
            view.message_id = answers[-1]["id"] if answers else None
        if view.message_id is None or not await self.chat.rate(
            self.session_id, view.message_id, feedback
        ):
            ui.notify("This answer is not saved yet; try again when it is done.", type="warning")
            return
        view.feedback = feedback
        if not view.is_gone:
            view.finish()

    def _answer(self, *, streaming: bool, message: KeptMessage | None = None) -> AnswerView:
        view = AnswerView(self.actions, f"t{next(_turn_ids)}")
        if message is not None:
            view.take(message["content"], message)
            view.coverage = message.get("coverage")
            view.resume = message.get("resume")
            view.versions = list(message.get("versions") or [])
            view.message_id = message.get("id")
            view.feedback = message.get("feedback")
        view.build(streaming=streaming)
        return view

    def _add(self, view: AnswerView) -> None:
        if self.last is not None:
            self.last.retire()
        self.answers[view.turn_id] = view
        self.last = view

    def source(self, turn_id: str, n: int, sentence: int | None = None) -> dict[str, Any] | None:
        """Source ``n``, with the span of ``sentence`` (where ``[n]`` was clicked) if any."""
        view = self.answers.get(turn_id)
        if view is None:
            return None
        source = next((s for s in view.sources if int(s["n"]) == n), None)
        return view.located(source, sentence) if source is not None else None

    def sentence_source(self, turn_id: str, sentence: int) -> dict[str, Any] | None:
        """The source that supports a checked sentence, with its span."""
        view = self.answers.get(turn_id)
        return view.sentence_source(sentence) if view is not None else None

    async def send(self, text: str, mode: str) -> bool:
        """Start a turn and stream it in; False (and a notice) when it could not start."""
        scope = self.scope if self._scope_given else None
        try:
            turn = self.chat.start_turn(
                self.session_id,
                text,
                mode,  # type: ignore[arg-type]
                scope=scope,
            )
        except (SessionBusy, MessageRejected) as error:
            with self.column:
                ui.notify(BUSY if isinstance(error, SessionBusy) else str(error), type="warning")
            return False
        self._scope_given = False  # the session keeps it now
        if self.session_id is None:
            self.column.clear()
        self.session_id = turn.session_id
        with self.column:
            self._question(text)
        self.column.client.run_javascript("window.docent && docent.toBottom()")
        await self.follow(turn)
        return True

    async def regenerate(self, mode: str) -> None:
        if self.session_id is None or self.streaming:
            return
        try:
            turn = await self.chat.regenerate(self.session_id, mode)  # type: ignore[arg-type]
        except (SessionBusy, MessageRejected) as error:
            with self.column:
                ui.notify(BUSY if isinstance(error, SessionBusy) else str(error), type="warning")
            return
        kept = turn.versions
        if self.last is not None and not self.last.is_gone:
            self.last.box.delete()
            self.answers.pop(self.last.turn_id, None)
            self.last = None
            with self.column:
                # The button pressed went with its card: focus would fall to the page, and
                # a keyboard user would start over from the top.
                ui.run_javascript("docent.focusInput()")
        await self.follow(turn, kept)

    def stop(self) -> bool:
        """Stop the answer being written; it is kept, marked stopped."""
        if self.session_id is None or not self.streaming:
            return False
        return self.chat.cancel(self.session_id)

    async def follow(self, turn: Turn, versions: list[dict[str, Any]] | None = None) -> None:
        """Stream the turn's events into a new answer card; the composer is free at ``done``.

        Follow-up suggestions may come after ``done`` and show when they arrive."""

        with self.column:
            live = self._answer(streaming=True)
        live.versions = list(versions or ())
        self._add(live)
        self._following = live
        self._set_streaming(True)
        try:
            async for event in turn.events():
                if live.is_gone:
                    # The tab closed or the view moved on; the turn runs on and is saved.
                    break
                live.show(event, latest=live is self.last)
                if isinstance(event, Done | Failed):
                    self._release(live)
        finally:
            self._release(live)

    def _release(self, live: AnswerView) -> None:
        """The answer ``live`` no longer holds the composer (unless a newer one does)."""
        if self._following is live:
            self._following = None
            self._set_streaming(False)

    def _set_streaming(self, value: bool) -> None:
        if self.streaming != value:
            self.streaming = value
            self._on_streaming(value)
