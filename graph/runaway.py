"""A guard that ends a streamed answer that loops or runs on, before it is shown: a small model on a
long prompt can repeat a row until its token limit (13 minutes on a CPU). A piece starting as an
earlier one did is held until it differs; the second repeat ends the answer. Past ``max_chars`` it
ends at the next sentence's end, or between words when none comes. ``no_tables`` drops table rows,
for prose beside a table Docent drew itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Stop = Literal["repeating", "long"]

REPEAT_CHARS = 24
"""Shorter pieces ("- Yes.", "Not stated.") may repeat without meaning anything."""
REPEATS = 2
"""Repeated pieces dropped before the answer is ended."""
SLACK = 200
"""Past ``max_chars``, characters a sentence may still take to reach its end."""
_ENDS = ".!?\n"


@dataclass
class RunawayGuard:
    """Feed it the model's pieces; show what ``feed`` returns; ``stopped`` ends the stream."""

    max_chars: int | None = None
    no_tables: bool = False
    stopped: Stop | None = None
    dropped: int = 0
    """Repeated pieces not shown."""
    shown: int = 0
    """Characters passed on."""
    _seen: set[str] = field(default_factory=set)
    _longest: int = 0
    _piece: list[str] = field(default_factory=list)
    """The piece since the last line or sentence end: lower case, spaces collapsed, none leading."""
    _held: str = ""
    """Its part not passed on yet."""
    _line_opens: str = ""
    """The first character of the line being written that is not white space."""

    def feed(self, text: str) -> str:
        """What of ``text`` may be shown now (possibly nothing, while a piece is held)."""
        out: list[str] = []
        for char in text:
            if self.stopped is not None:
                break
            out.append(self._take(char))
        return "".join(out)

    def flush(self) -> str:
        """At the end of the stream: the held text, unless it repeats or is a table row."""
        if self.stopped is not None or not self._held:
            return ""
        if self._is_table_line() or self._repeats(self._norm()):
            return ""
        return self._pass(self._held)

    def _take(self, char: str) -> str:
        self._held += char
        if char.isspace():
            if self._piece and self._piece[-1] != " ":
                self._piece.append(" ")
        else:
            self._piece.append(char.lower())
            if not self._line_opens:
                self._line_opens = char
        if char in _ENDS:
            return self._end_piece(line_end=char == "\n")
        if self._is_table_line() or self._may_repeat():
            return ""
        out, self._held = self._held, ""
        out = self._pass(out)
        if char.isspace() and self._over(SLACK):
            self.stopped = "long"  # a sentence with no end in sight: cut between words
        return out

    def _end_piece(self, *, line_end: bool) -> str:
        norm = self._norm()
        out = ""
        if self._is_table_line():
            if line_end:
                self._held = ""  # the whole row goes
            else:
                return ""  # a stop inside a cell: the row is still being written
        elif self._repeats(norm):
            self._held = ""
            self.dropped += 1
            if self.dropped >= REPEATS:
                self.stopped = "repeating"
        else:
            out = self._pass(self._held)
            if len(norm) >= REPEAT_CHARS:
                self._seen.add(norm)
                self._longest = max(self._longest, len(norm))
        self._piece, self._held = [], ""
        if line_end:
            self._line_opens = ""
        if self.stopped is None and self._over():
            self.stopped = "long"
        return out

    def _over(self, slack: int = 0) -> bool:
        return self.max_chars is not None and self.shown >= self.max_chars + slack

    def _norm(self) -> str:
        return "".join(self._piece).rstrip()

    def _pass(self, text: str) -> str:
        self.shown += len(text)
        return text

    def _is_table_line(self) -> bool:
        return self.no_tables and self._line_opens == "|"

    def _may_repeat(self) -> bool:
        """Whether the piece so far could still turn out an earlier one again."""
        if len(self._piece) > self._longest:
            return False
        norm = self._norm()
        return any(seen.startswith(norm) for seen in self._seen)

    def _repeats(self, norm: str) -> bool:
        return len(norm) >= REPEAT_CHARS and norm in self._seen
