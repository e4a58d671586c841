"""Starting a turn from any route, with the refusals mapped to the contract's errors."""

from __future__ import annotations

from collections.abc import Sequence

from app.api.errors import ApiError
from app.services.chat import ChatService, EmptyMessage, MessageTooLong, SessionBusy, Turn
from app.services.search import scope_entries
from graph.scope import BadScope
from graph.state import Mode
from models.protocols import Message


def start_turn(
    chat: ChatService,
    session_id: str | None,
    text: str,
    mode: Mode = "auto",
    *,
    history: Sequence[Message] | None = None,
    model: str | None = None,
    scope: str | Sequence[str] | None = None,
) -> Turn:
    """``ChatService.start_turn``, raising 413, 422 or 429 as ``ApiError``; ``scope`` as
    the API takes it (a folder, or a list of folders and files)."""
    try:
        entries = None if scope is None else scope_entries(scope)
        return chat.start_turn(session_id, text, mode, history=history, model=model, scope=entries)
    except BadScope as error:
        raise ApiError(422, "invalid_request", str(error)) from error
    except MessageTooLong as error:
        raise ApiError(413, "message_too_long", str(error)) from error
    except EmptyMessage as error:
        raise ApiError(422, "empty_message", str(error)) from error
    except SessionBusy as error:
        raise ApiError(429, "session_busy", str(error)) from error
