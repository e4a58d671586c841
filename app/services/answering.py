"""Answering one turn: the graph's events streamed to the turn, its record written,
and what a Stop leaves saved as a stopped answer."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langsmith import tracing_context

from app.services.chat_record import (
    first_user_text,
    history_messages,
    kept_messages,
    thread,
    with_extra,
    write_messages,
)
from app.services.follow_ups import FollowUps
from app.services.sessions import SessionIndex
from app.services.turn import SessionBusy, Turn, check_text
from graph.deps import GraphDeps
from graph.events import Done, Failed, NodeTimed, ReadSoFar, Recorded, Sources, Token, TurnEvent
from graph.graph import TurnGraph
from graph.records import StoppedReading
from graph.state import AgentState, Mode, Source
from graph.trace_records import Trace, TraceNode
from graph.turn_context import TurnContext
from graph.whole.resume import resume_record
from models.protocols import ChatModel, Message

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Started:
    """A started turn, as ``Answering.start`` hands it to the task that answers it."""

    turn: Turn
    context: TurnContext
    messages: list[AnyMessage]
    """The session's history and the question, to be saved before the graph runs."""
    inputs: AgentState
    """The graph's input: the question, its mode and scope."""
    touched: asyncio.Future[None]
    """The session row's write, started beside the graph: ``done`` waits for it."""


@dataclass
class Answering:
    """Starts and runs turns for ``ChatService``: each graph to its ``done`` or ``error``,
    then follow-ups."""

    graph: TurnGraph
    sessions: SessionIndex
    running: dict[str, Turn]
    """ChatService's running turns: a turn leaves it at its ``done``."""
    follow_ups: FollowUps
    deps: GraphDeps
    """What each turn's context is made from (``GraphDeps.begin``)."""
    max_chars: int
    """Longest message a turn takes (``check_text``)."""
    llm_for_model: Callable[[str], ChatModel] | None
    """Another chat model, by name, to answer one turn with."""
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    """Every turn's task until it ends, suggestions included."""

    def start(
        self,
        sid: str,
        text: str,
        mode: Mode,
        *,
        opening: bool,
        history: Sequence[Message],
        model: str | None,
        scope: Sequence[str] | None,
        versions: list[dict[str, Any]],
    ) -> Turn:
        """Check ``text``, then start answering it in session ``sid`` as a task of its own.

        ``ChatService.start_turn`` says what each argument means."""
        check_text(text, self.max_chars)
        llm = None
        if model is not None and self.llm_for_model is not None:
            llm = self.llm_for_model(model)
        if sid in self.running:
            raise SessionBusy(sid)
        # The model server answers one request at a time: suggestions still being written
        # would hold the new question up for as long as they take.
        self.follow_ups.drop()
        asked = HumanMessage(content=text, id=uuid.uuid4().hex, additional_kwargs={"mode": mode})
        turn = Turn(sid, question=text, question_id=str(asked.id), versions=versions, model=model)
        self.running[sid] = turn
        context = self.deps.begin(
            text, mode, opening=opening, llm=llm, ask_model=not self.follow_ups.is_slow(model)
        )
        # The row's commit waits on the disk (about 20 ms): it runs in a thread beside the
        # graph instead of holding up the event loop, and `done` waits for it.
        touched = asyncio.create_task(
            asyncio.to_thread(self.sessions.touch, sid, first_user_text(history) or text)
        )
        inputs: AgentState = {"question": text, "mode": mode}
        if scope is not None:
            inputs["scope"] = list(scope)
        messages = [*history_messages(history), asked]
        started = Started(turn, context, messages, inputs, touched)
        # Detached from the caller: a closed tab or dropped client doesn't cancel it.
        task = asyncio.create_task(self.run(started), name=f"turn-{sid}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        turn.answer_in(task, context.search.close)
        return turn

    async def run(self, started: Started) -> None:
        """Answer the turn, offer its follow-ups, then close it."""
        # LangSmith tracing, if the user's environment turns it on for other work, would
        # send every prompt and passage to a cloud: Docent's turns are never traced.
        started.turn.begun = True
        with tracing_context(enabled=False):
            try:
                answer = await self._answer(started)
                await self.follow_ups.after(started.turn, started.inputs["question"], answer)
            finally:
                started.turn.close()

    async def _answer(self, started: Started) -> str | None:
        """Run the graph, emit its events and ``done`` (or ``error``); the answer or None."""
        turn, context, touched = started.turn, started.context, started.touched
        config = thread(turn.session_id)
        text = started.inputs["question"]
        nodes: list[TraceNode] = []
        written: list[str] = []
        sources: list[Source] = []
        kept: ReadSoFar | None = None
        """How far a reading by sections got: a Stop keeps it for the follow-ups."""
        outcome: Recorded | None = None
        try:
            # The question is saved before any of the slow work, so that a crash mid-answer
            # (a summary takes minutes on a CPU) leaves it in the session, shown as
            # interrupted (chat_record.py). One commit of the messages, about 2 ms; the
            # search a new chat's first message started runs on meanwhile.
            await write_messages(self.graph, turn.session_id, {"messages": started.messages})
            if turn.stopping:  # stopped before it began: kept as a stopped empty answer
                raise asyncio.CancelledError
            # Then one checkpoint when the turn ends (also on an error or a Stop), not one
            # per step: each step's save serialised the growing state on the event loop
            # while the retriever searched, about 14 ms of a search turn's first token.
            stream = self.graph.astream(
                started.inputs, config, context=context, stream_mode="custom", durability="exit"
            )
            async for chunk in stream:
                event = cast(TurnEvent, chunk)  # the nodes write nothing else
                if isinstance(event, NodeTimed):
                    nodes.append(TraceNode(node=event.node, ms=event.ms))
                    continue
                if isinstance(event, ReadSoFar):
                    kept = event
                    continue
                if isinstance(event, Recorded):
                    outcome = event
                    continue
                if isinstance(event, Token):
                    written.append(event.text)
                elif isinstance(event, Sources):
                    sources = event.sources
                turn.emit(event)
            if outcome is None:
                raise RuntimeError("the turn ended without its record")
            if turn.versions and outcome.message is not None:
                update = {"messages": [with_extra(outcome.message, versions=turn.versions)]}
                await write_messages(self.graph, turn.session_id, update)
            done = Done(
                session_id=turn.session_id,
                answer=outcome.answer,
                sources=outcome.sources,
                trace=outcome.trace,
                support=outcome.support,
                searched=outcome.searched,
                coverage=outcome.coverage,
                resume=outcome.unfinished,
                draft=outcome.draft,
                misses_question=outcome.misses_question,
            )
            await touched  # a session listed after `done` has its row
            await asyncio.to_thread(self.sessions.add_text, turn.session_id, text, done.answer)
            turn.emit(done)
            return done.answer
        except asyncio.CancelledError:
            if not turn.stopping:
                raise  # shutting down: the checkpointer keeps what was saved
            answer = "".join(written)
            resume = resume_record(kept) if kept is not None else None
            await self._save_stopped(turn, answer, sources, resume)
            await asyncio.to_thread(self.sessions.add_text, turn.session_id, text, answer)
            trace: Trace = {"route": None, "nodes": nodes}
            done = Done(turn.session_id, answer, sources, trace, stopped=True, resume=resume)
            turn.emit(done)
            return None
        except Exception as error:  # the turn must end with an event, whatever broke
            log.exception("turn failed in session %s", turn.session_id)
            message = f"Something went wrong while answering: {error}"
            turn.emit(Failed(message))
            return None
        finally:
            context.search.close()  # the answer is written: the search has done its work
            # The session is free at `done`: suggestions never hold up the next message.
            self.running.pop(turn.session_id, None)
            if not touched.done():  # the graph failed first: the row still gets written
                await asyncio.wait([touched])

    async def _save_stopped(
        self,
        turn: Turn,
        answer: str,
        sources: list[Source],
        resume: StoppedReading | None,
    ) -> None:
        """Checkpoint a stopped turn: the question (if the graph had not saved it yet) and the
        partial answer, so the session shows what the user saw; a stopped reading keeps
        ``resume`` (what it read: its notes are kept), which the follow-ups take up."""
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()  # the Stop is handled; saving must not be cancelled too
        messages = await kept_messages(self.graph, turn.session_id)
        new: list[Any] = []
        if not messages or not (
            isinstance(messages[-1], HumanMessage) and messages[-1].content == turn.question
        ):
            new.append(HumanMessage(content=turn.question))
        extra: dict[str, Any] = {"sources": sources, "stopped": True}
        if turn.versions:
            extra["versions"] = turn.versions
        update: dict[str, Any] = {"answer": answer}
        if resume is not None:
            extra["resume"] = resume
            update["documents"] = resume["documents"]  # "this document" next means them
        new.append(AIMessage(content=answer, additional_kwargs=extra))
        update["messages"] = new
        await write_messages(self.graph, turn.session_id, update, as_node="generator")
