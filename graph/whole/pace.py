"""How long a long reading has left, from its own model calls' speed: a CPU takes a minute or more a
section, a GPU a second, so nothing is estimated before the first call ends."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Pace:
    """The model calls of one reading, timed: ``begin`` and ``end`` around each."""

    clock: Callable[[], float] = field(default=time.monotonic)
    spent: float = 0.0
    """Seconds the calls timed so far took, together."""
    calls: int = 0
    _began: float | None = None

    def begin(self) -> None:
        """A model call starts."""
        self._began = self.clock()

    def end(self) -> None:
        """The call begun last has ended."""
        if self._began is not None:
            self.spent += self.clock() - self._began
            self.calls += 1
            self._began = None

    def left(self, calls: int) -> float | None:
        """Seconds ``calls`` more calls should take at the speed so far; None before any."""
        if not self.calls:
            return None
        return self.spent / self.calls * calls


def time_left(seconds: float) -> str:
    """ "less than a minute left", "about 4 min left", "about 1 h 20 min left"."""
    if seconds < 60:
        return "less than a minute left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min left"
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h {minutes} min left" if minutes else f"about {hours} h left"
