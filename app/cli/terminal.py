"""Answers as plain text for a terminal: Markdown's escapes and markers taken out, since a
terminal would show ``\\#\\#`` as typed. Works on a stream: a marker split across two
tokens is held back until the next token says what it is."""

from __future__ import annotations

import string

ESCAPABLE = frozenset(string.punctuation)
"""CommonMark: a backslash before ASCII punctuation makes it literal."""


class PlainText:
    """Feed tokens, print what comes back; ``flush`` at the end."""

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
