"""Error messages of a bounded length, for every way Docent refuses a caller (REST, MCP).
A message may repeat what the caller sent (an 889 KB error body once), so it is cut in the
middle: its start says what went wrong, its end what to do about it."""

from __future__ import annotations

MAX_ERROR_CHARS = 400
"""Longest error message a caller gets; what a message repeats of its input is less."""
_HEAD = 240
_TAIL = 120


def bounded(message: str) -> str:
    """``message``, cut in the middle when it is over ``MAX_ERROR_CHARS``."""
    if len(message) <= MAX_ERROR_CHARS:
        return message
    left_out = len(message) - _HEAD - _TAIL
    return f"{message[:_HEAD]} […{left_out:,} characters left out…] {message[-_TAIL:]}"


def listed(items: list[str], most: int = 3) -> str:
    """``items`` as "'a', 'b', 'c' and 2 more": a message names a few, and counts the rest."""
    named = ", ".join(f"'{item}'" for item in items[:most])
    return named + (f" and {len(items) - most:,} more" if len(items) > most else "")
