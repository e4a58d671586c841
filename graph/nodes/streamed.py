"""An answer as it streams: each piece sent at once and kept, and the time to first token."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from langgraph.types import StreamWriter

from graph.events import Token


@dataclass
class StreamedAnswer:
    tell: StreamWriter
    pieces: list[str] = field(default_factory=list)
    first_token_at: float | None = None

    def say(self, text: str) -> None:
        if self.first_token_at is None:
            self.first_token_at = time.time()
        self.pieces.append(text)
        self.tell(Token(text))

    @property
    def text(self) -> str:
        return "".join(self.pieces)
