"""The window's keyboard shortcuts: one table, read by Help and by the page's key handler.

The keys are those of other chat apps (ChatGPT's new chat and focus, Ctrl+K search); Ctrl
stands for Cmd on a Mac.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Shortcut:
    action: str
    """What the page does (``ChatPage.shortcut``), or ``focus-input``, done in the browser."""
    keys: str
    """As Help shows them."""
    what: str
    key: str
    """``KeyboardEvent.key``, lower case."""
    mod: bool = False
    """Ctrl, or Cmd on a Mac."""
    shift: bool = False


SHORTCUTS = (
    Shortcut("new-chat", "Ctrl+Shift+O", "New chat", "o", mod=True, shift=True),
    Shortcut("focus-input", "Shift+Esc", "Focus the message box", "escape", shift=True),
    Shortcut("search", "Ctrl+K", "Search chats", "k", mod=True),
    Shortcut("stop", "Esc", "Stop the answer being written", "escape"),
    Shortcut("sidebar", "Ctrl+Shift+S", "Show or hide the sidebar", "s", mod=True, shift=True),
)


def keys(action: str) -> str:
    """The keys of ``action``, as Help shows them (for tooltips)."""
    return next(s.keys for s in SHORTCUTS if s.action == action)


def script() -> str:
    """The table for docent.js's key handler."""
    table = json.dumps([asdict(s) for s in SHORTCUTS])
    return "window.docent = window.docent || {}; docent.shortcuts = " + table + ";"
