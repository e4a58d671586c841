"""ChatService: runs turns detached from their callers and fans their events out."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from typing import Any, cast

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.checkpoint.base import BaseCheckpointSaver

from app.services.answering import Answering
from app.services.chat_export import ExportFormat, export_text, file_name
from app.services.chat_record import (
    Feedback,
    earlier_versions,
    kept_messages,
    message_dicts,
    rated,
    thread,
    write_messages,
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
    Progress,
    Sources,
    Status,
    Suggestions,
    Token,
)
from graph.graph import TurnGraph
from graph.mentions import MENTION
from graph.records import KeptMessage
from graph.state import Mode
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
        self._sessions = sessions
        self._max_chars = max_message_chars
        self._running: dict[str, Turn] = {}
        self._answering = Answering(
            graph,
            sessions,
            self._running,
            FollowUps(suggest, suggest_within),
            deps,
            max_message_chars,
            llm_for_model,
        )

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
        messages = await kept_messages(self._graph, session_id)
        last = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
        if last < 0:
            raise EmptyMessage("This session has no message to answer again.")
        text = str(messages[last].content)
        kept = [v for m in messages[last:] if isinstance(m, AIMessage) for v in earlier_versions(m)]
        drop = [RemoveMessage(id=m.id) for m in messages[last:] if m.id]
        await write_messages(self._graph, session_id, {"messages": drop})
        return self.start_turn(session_id, text, mode, _versions=kept)

    async def ask_again(self, session_id: str, message_id: str) -> Turn:
        """Ask the session's question ``message_id`` again, in the mode it was asked in: it
        leaves its place (an interrupted one has no answer to keep) and is answered last."""
        if session_id in self._running:
            raise SessionBusy(session_id)
        messages = await kept_messages(self._graph, session_id)
        at = next((i for i, m in enumerate(messages) if m.id == message_id), -1)
        asked = messages[at] if at >= 0 else None
        if not isinstance(asked, HumanMessage):
            raise MessageRejected("That question is not in this chat any more.")
        if at + 1 < len(messages) and isinstance(messages[at + 1], AIMessage):
            raise MessageRejected("That question has its answer; Regenerate answers it anew.")
        mode = cast(Mode, asked.additional_kwargs.get("mode", "auto"))
        await write_messages(self._graph, session_id, {"messages": [RemoveMessage(id=message_id)]})
        return self.start_turn(session_id, str(asked.content), mode)

    async def branch(
        self, session_id: str, message_id: str, text: str, mode: Mode = "auto"
    ) -> Turn:
        """Send ``text`` in place of the session's message ``message_id``, in a new session
        that holds the conversation up to that message; the original stays as it was."""
        messages = await kept_messages(self._graph, session_id)
        at = next((i for i, m in enumerate(messages) if m.id == message_id), -1)
        if at < 0 or not isinstance(messages[at], HumanMessage):
            raise MessageRejected("That message is not in this chat any more.")
        check_text(text, self._max_chars)
        new_id = uuid.uuid4().hex
        info = self._sessions.get(session_id)
        title = info.title if info is not None and at > 0 else text
        await asyncio.to_thread(self._sessions.create, new_id, title)
        if at > 0:
            await write_messages(self._graph, new_id, {"messages": list(messages[:at])})
        return self.start_turn(new_id, text, mode)

    async def rate(self, session_id: str, message_id: str, feedback: Feedback | None) -> bool:
        """Keep a thumbs up or down (None: neither) in the answer's trace; False if there is
        no such answer. It stays in the sessions store: Docent sends it nowhere."""
        messages = await kept_messages(self._graph, session_id)
        answer = next((m for m in messages if m.id == message_id), None)
        if not isinstance(answer, AIMessage):
            return False
        await write_messages(self._graph, session_id, {"messages": [rated(answer, feedback)]})
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
        # A new session's first message has nothing to be rewritten against: its search
        # may start on it now.
        opening = session_id is None and not history
        return self._answering.start(
            session_id or uuid.uuid4().hex,
            text,
            mode,
            opening=opening,
            history=history or (),
            model=model,
            scope=scope,
            versions=list(_versions or ()),
        )

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
        return message_dicts(await kept_messages(self._graph, session_id), asking)

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

    async def aclose(self) -> None:
        """Let running turns finish (they are saved by the checkpointer), briefly."""
        tasks = [t.task for t in self._running.values() if t.task] + list(self._answering.tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=10)
