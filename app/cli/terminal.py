"""What `ask` writes to a terminal: the answer as plain text (Markdown's escapes and markers
taken out, since a terminal would show ``\\#\\#`` as typed), and the turn's progress."""

from __future__ import annotations

import string
from typing import TextIO

ESCAPABLE = frozenset(string.punctuation)
"""CommonMark: a backslash before ASCII punctuation makes it literal."""


class PlainText:
    """Feed tokens, print what comes back; ``flush`` at the end. A marker split across two
    tokens is held back until the next token says what it is."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        # Hold back trailing backslashes and stars: the next token says what they are.
        cut = len(text.rstrip("\\*"))
        text, self._held = text[:cut], text[cut:]
        return _plain(text)

    def flush(self) -> str:
        text, self._held = self._held, ""
        return _plain(text)


def _plain(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in ESCAPABLE:
            out.append(text[i + 1])
            i += 2
            continue
        if text.startswith("**", i):
            i += 2  # bold: the words stay, the markers go
            continue
        if char == "`":
            i += 1  # code spans and fences: the text stays
            continue
        out.append(char)
        i += 1
    return "".join(out)


class StatusLine:
    """The turn's progress on ``stream``: on a terminal one line, rewritten in place and
    gone once the answer starts; in a file or a pipe, a plain line each (no escape codes)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._live = stream.isatty()
        self._shown = False
        self._answering = False

    def show(self, text: str) -> None:
        if not self._live:
            print(text, file=self._stream, flush=True)
        elif not self._answering:  # once the answer is on the line, clearing it would erase it
            print(f"\r\033[2K{text}", end="", file=self._stream, flush=True)
            self._shown = True

    def answering(self) -> None:
        """The answer starts: take the progress off the terminal's line."""
        if self._shown:
            print("\r\033[2K", end="", file=self._stream, flush=True)
        self._shown, self._answering = False, True
