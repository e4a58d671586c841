"""ChatService: runs turns detached from their callers and fans their events out."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langsmith import tracing_context

from app.services.chat_export import ExportFormat, export_text, file_name
from app.services.chat_record import (
    Feedback,
    earlier_versions,
    message_dicts,
    rated,
    with_extra,
)
from app.services.follow_ups import SUGGEST_WITHIN, FollowUps, Suggester
from app.services.sessions import SessionIndex
from app.services.turn import (
    EmptyMessage,
    MessageRejected,
    MessageTooLong,
    SessionBusy,
    Turn,
    check_text,
)
from graph.deps import GraphDeps
from graph.events import (
    ClientEvent,
    Done,
    Failed,
    NodeTimed,
    Progress,
    ReadSoFar,
    Recorded,
    Sources,
    Status,
    Suggestions,
    Token,
    TurnEvent,
)
from graph.graph import TurnGraph
from graph.mentions import MENTION
from graph.records import KeptMessage, StoppedReading, Trace, TraceNode
from graph.state import AgentState, Mode, Source
from graph.turn_context import TurnContext
from graph.whole.resume import resume_record
from models.protocols import ChatModel, Message

__all__ = [
    "MENTION",
    "ChatService",
    "ClientEvent",
    "Done",
    "EmptyMessage",
    "Failed",
    "MessageRejected",
    "MessageTooLong",
    "Progress",
    "SessionBusy",
    "Sources",
    "Status",
    "Suggestions",
    "Token",
    "Turn",
]

log = logging.getLogger(__name__)


class ChatService:
    """Starts turns for the UI and the API alike; one running turn per session."""

    def __init__(
        self,
        graph: TurnGraph,
        sessions: SessionIndex,
        deps: GraphDeps,
        *,
        max_message_chars: int = 16_000,
        llm_for_model: Callable[[str], ChatModel] | None = None,
        suggest: Suggester | None = None,
        suggest_within: float = SUGGEST_WITHIN,
    ) -> None:
        self._graph = graph
        self._deps = deps
        """What each turn's context is made from (``GraphDeps.begin``)."""
        self._sessions = sessions
        self._max_chars = max_message_chars
        self._llm_for_model = llm_for_model
        """Another chat model, by name, to answer one turn with."""
        self._follow_ups = FollowUps(suggest, suggest_within)
        self._running: dict[str, Turn] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        """Every turn's task until it ends, suggestions included."""

    def is_busy(self, session_id: str) -> bool:
        return session_id in self._running

    def running_turn(self, session_id: str) -> Turn | None:
        """The session's turn still being answered, if any (a window reopening it follows it)."""
        return self._running.get(session_id)

    def cancel(self, session_id: str) -> bool:
        """Stop the session's running turn; its partial answer is saved, marked stopped.

        False when nothing is running. The turn still ends with ``done`` (``"stopped": true``).
        """
        turn = self._running.get(session_id)
        if turn is None or turn.task is None or turn.task.done():
            return False
        turn.stopping = True
        if turn.begun:  # else it sees `stopping` as it begins, and ends as stopped
            turn.task.cancel()
        return True

    async def regenerate(self, session_id: str, mode: Mode = "auto") -> Turn:
        """Answer the session's last message again; the answers it had are kept as the new
        answer's earlier ``versions``."""
        if session_id in self._running:
            raise SessionBusy(session_id)
        messages = await self._kept(session_id)
        last = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
        if last < 0:
            raise EmptyMessage("This session has no message to answer again.")
        text = str(messages[last].content)
        kept = [v for m in messages[last:] if isinstance(m, AIMessage) for v in earlier_versions(m)]
        drop = [RemoveMessage(id=m.id) for m in messages[last:] if m.id]
        await self._write(session_id, {"messages": drop})
        return self.start_turn(session_id, text, mode, _versions=kept)

    async def ask_again(self, session_id: str, message_id: str) -> Turn:
        """Ask the session's question ``message_id`` again, in the mode it was asked in: it
        leaves its place (an interrupted one has no answer to keep) and is answered last."""
        if session_id in self._running:
            raise SessionBusy(session_id)
        messages = await self._kept(session_id)
        at = next((i for i, m in enumerate(messages) if m.id == message_id), -1)
        asked = messages[at] if at >= 0 else None
        if not isinstance(asked, HumanMessage):
            raise MessageRejected("That question is not in this chat any more.")
        if at + 1 < len(messages) and isinstance(messages[at + 1], AIMessage):
            raise MessageRejected("That question has its answer; Regenerate answers it anew.")
        mode = cast(Mode, asked.additional_kwargs.get("mode", "auto"))
        await self._write(session_id, {"messages": [RemoveMessage(id=message_id)]})
        return self.start_turn(session_id, str(asked.content), mode)

    async def branch(
        self, session_id: str, message_id: str, text: str, mode: Mode = "auto"
    ) -> Turn:
        """Send ``text`` in place of the session's message ``message_id``, in a new session
        that holds the conversation up to that message; the original stays as it was."""
        messages = await self._kept(session_id)
        at = next((i for i, m in enumerate(messages) if m.id == message_id), -1)
        if at < 0 or not isinstance(messages[at], HumanMessage):
            raise MessageRejected("That message is not in this chat any more.")
        check_text(text, self._max_chars)
        new_id = uuid.uuid4().hex
        info = self._sessions.get(session_id)
        title = info.title if info is not None and at > 0 else text
        await asyncio.to_thread(self._sessions.create, new_id, title)
        if at > 0:
            await self._write(new_id, {"messages": list(messages[:at])})
        return self.start_turn(new_id, text, mode)

    async def rate(self, session_id: str, message_id: str, feedback: Feedback | None) -> bool:
        """Keep a thumbs up or down (None: neither) in the answer's trace; False if there is
        no such answer. It stays in the sessions store: Docent sends it nowhere."""
        answer = next((m for m in await self._kept(session_id) if m.id == message_id), None)
        if not isinstance(answer, AIMessage):
            return False
        await self._write(session_id, {"messages": [rated(answer, feedback)]})
        return True

    def diagram(self) -> str:
        """The compiled graph as Mermaid source, for the window's help; its start and end
        read as what they are, not as LangGraph's ``__start__`` and ``__end__``."""
        source = str(self._graph.get_graph().draw_mermaid())
        return source.replace("<p>__start__</p>", "<p>Your message</p>").replace(
            "<p>__end__</p>", "<p>The answer</p>"
        )

    def start_turn(
        self,
        session_id: str | None,
        text: str,
        mode: Mode = "auto",
        *,
        history: Sequence[Message] | None = None,
        model: str | None = None,
        scope: Sequence[str] | None = None,
        _versions: list[dict[str, Any]] | None = None,
    ) -> Turn:
        """Start answering ``text`` in the session (a new one when None) and return at once.

        ``history`` (user/assistant messages, oldest first) is put before ``text`` in the
        session, for callers that keep the conversation themselves (the OpenAI API);
        ``model`` names another chat model for this turn only; ``scope`` (folders and
        files, empty for the whole library) becomes the session's scope, which it keeps
        for later turns (None leaves it as it was).
        """
        check_text(text, self._max_chars)
        llm = None
        if model is not None and self._llm_for_model is not None:
            llm = self._llm_for_model(model)
        sid = session_id or uuid.uuid4().hex
        if sid in self._running:
            raise SessionBusy(sid)
        # The model server answers one request at a time: suggestions still being written
        # would hold the new question up for as long as they take.
        self._follow_ups.drop()
        asked = HumanMessage(content=text, id=uuid.uuid4().hex, additional_kwargs={"mode": mode})
        turn = Turn(
            sid,
            question=text,
            question_id=str(asked.id),
            versions=list(_versions or ()),
            model=model,
        )
        self._running[sid] = turn
        # A new session's first message has nothing to be rewritten against: its search
        # may start on it now.
        opening = session_id is None and not history
        context = self._deps.begin(
            text, mode, opening=opening, llm=llm, ask_model=not self._follow_ups.is_slow(model)
        )
        # The row's commit waits on the disk (about 20 ms): it runs in a thread beside the
        # graph instead of holding up the event loop, and `done` waits for it.
        touched = asyncio.create_task(
            asyncio.to_thread(self._sessions.touch, sid, _first_user_text(history) or text)
        )
        asking = [*_to_messages(history or ()), asked]
        inputs: AgentState = {"question": text, "mode": mode}
        if scope is not None:
            inputs["scope"] = list(scope)
        # Detached from the caller: a closed tab or dropped client doesn't cancel it.
        turn.task = asyncio.create_task(
            self._run(turn, context, asking, inputs, touched), name=f"turn-{sid}"
        )
        self._tasks.add(turn.task)
        turn.task.add_done_callback(self._tasks.discard)
        # Also when the task is cancelled before it ever ran.
        turn.task.add_done_callback(lambda _task: context.search.close())
        return turn

    async def _run(
        self,
        turn: Turn,
        context: TurnContext,
        asking: list[AnyMessage],
        inputs: AgentState,
        touched: asyncio.Future[None],
    ) -> None:
        # LangSmith tracing, if the user's environment turns it on for other work, would
        # send every prompt and passage to a cloud: Docent's turns are never traced.
        turn.begun = True
        with tracing_context(enabled=False):
            try:
                answer = await self._answer(turn, context, asking, inputs, touched)
                await self._follow_ups.after(turn, inputs["question"], answer)
            finally:
                turn.close()

    async def _answer(
        self,
        turn: Turn,
        context: TurnContext,
        asking: list[AnyMessage],
        inputs: AgentState,
        touched: asyncio.Future[None],
    ) -> str | None:
        """Run the graph, emit its events and ``done`` (or ``error``); the answer or None."""
        config = thread(turn.session_id)
        text = inputs["question"]
        graph = self._graph
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
            await self._write(turn.session_id, {"messages": asking})
            if turn.stopping:  # stopped before it began: kept as a stopped empty answer
                raise asyncio.CancelledError
            # Then one checkpoint when the turn ends (also on an error or a Stop), not one
            # per step: each step's save serialised the growing state on the event loop
            # while the retriever searched, about 14 ms of a search turn's first token.
            stream = graph.astream(
                inputs, config, context=context, stream_mode="custom", durability="exit"
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
                await self._write(turn.session_id, update)
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
            await asyncio.to_thread(self._sessions.add_text, turn.session_id, text, done.answer)
            turn.emit(done)
            return done.answer
        except asyncio.CancelledError:
            if not turn.stopping:
                raise  # shutting down: the checkpointer keeps what was saved
            answer = "".join(written)
            resume = resume_record(kept) if kept is not None else None
            await self._save_stopped(turn.session_id, text, answer, sources, turn.versions, resume)
            await asyncio.to_thread(self._sessions.add_text, turn.session_id, text, answer)
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
            self._running.pop(turn.session_id, None)
            if not touched.done():  # the graph failed first: the row still gets written
                await asyncio.wait([touched])

    async def _save_stopped(
        self,
        session_id: str,
        text: str,
        answer: str,
        sources: list[Source],
        versions: list[dict[str, Any]],
        resume: StoppedReading | None = None,
    ) -> None:
        """Checkpoint a stopped turn: the question (if the graph had not saved it yet) and the
        partial answer, so the session shows what the user saw; a stopped reading keeps
        ``resume`` (what it read: its notes are kept), which the follow-ups take up."""
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()  # the Stop is handled; saving must not be cancelled too
        messages = await self._kept(session_id)
        new: list[Any] = []
        if not messages or not (
            isinstance(messages[-1], HumanMessage) and messages[-1].content == text
        ):
            new.append(HumanMessage(content=text))
        extra: dict[str, Any] = {"sources": sources, "stopped": True}
        if versions:
            extra["versions"] = versions
        update: dict[str, Any] = {"answer": answer}
        if resume is not None:
            extra["resume"] = resume
            update["documents"] = resume["documents"]  # "this document" next means them
        new.append(AIMessage(content=answer, additional_kwargs=extra))
        update["messages"] = new
        await self._write(session_id, update, as_node="generator")

    async def scope(self, session_id: str) -> list[str]:
        """The scope the session keeps (folders and files); empty for the whole library."""
        return list((await self._graph.aget_state(thread(session_id))).values.get("scope") or [])

    async def messages(self, session_id: str) -> list[KeptMessage]:
        """The session's conversation as ``{"role", "id", "content", "sources", "trace"}``
        dicts (``trace`` is None for the user's messages); a checked answer adds
        ``support``, one that found nothing ``searched``, a regenerated one ``versions``
        (the earlier answers), a rated one ``feedback``. A question a crash cut off is
        followed by an answer marked ``interrupted`` (not while its turn still runs)."""
        running = self._running.get(session_id)
        asking = running.question_id if running is not None else None
        return message_dicts(await self._kept(session_id), asking)

    async def export(self, session_id: str, fmt: ExportFormat) -> tuple[str, str] | None:
        """(file name, text) of the chat written out as ``fmt``; None if there is no such chat."""
        info = self._sessions.get(session_id)
        if info is None:
            return None
        messages = await self.messages(session_id)
        # Making a long chat's Markdown inert parses it a few times: not on the event loop.
        text = await asyncio.to_thread(export_text, info, messages, fmt)
        return file_name(info, fmt), text

    async def delete_session(self, session_id: str) -> bool:
        """Forget the session: its row and its checkpointed conversation. False if unknown."""
        if session_id in self._running:
            raise SessionBusy(session_id)
        known = self._sessions.get(session_id) is not None
        checkpointer = self._graph.checkpointer
        if isinstance(checkpointer, BaseCheckpointSaver):
            known = known or await checkpointer.aget_tuple(thread(session_id)) is not None
            await checkpointer.adelete_thread(session_id)
        self._sessions.delete(session_id)
        return known

    async def _kept(self, session_id: str) -> list[AnyMessage]:
        """The session's checkpointed messages."""
        return list((await self._graph.aget_state(thread(session_id))).values.get("messages", []))

    async def _write(self, session_id: str, update: Any, as_node: str = "recorder") -> None:
        await self._graph.aupdate_state(thread(session_id), update, as_node=as_node)

    async def aclose(self) -> None:
        """Let running turns finish (they are saved by the checkpointer), briefly."""
        tasks = [t.task for t in self._running.values() if t.task] + list(self._tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=10)


def thread(session_id: str) -> RunnableConfig:
    """The graph's config for the session's conversation."""
    return {"configurable": {"thread_id": session_id}}


def _to_messages(history: Sequence[Message]) -> list[AnyMessage]:
    """User and assistant messages as the graph keeps them; system prompts are Docent's own."""
    out: list[AnyMessage] = []
    for message in history:
        if message["role"] == "user":
            out.append(HumanMessage(content=message["content"]))
        elif message["role"] == "assistant":
            out.append(AIMessage(content=message["content"]))
    return out


def _first_user_text(history: Sequence[Message] | None) -> str | None:
    return next((m["content"] for m in history or () if m["role"] == "user"), None)
