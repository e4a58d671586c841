"""An answer's status line: what it is waiting for, and for how long.

A CPU model reads a long prompt for a minute or more before its first word, and an empty
card for that long looks like a hang: so the step and a clock counting since it began show.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from nicegui import ui

WRITING = "Writing the answer…"
"""The line once the model's words arrive."""


def elapsed(seconds: float) -> str:
    """ "42 s", "3 min 05 s", "1 h 02 min"."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class StatusLine:
    """The status chip and its clock, in the answer card being written."""

    def __init__(self, *, visible: bool, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._since = clock()
        self._waiting = visible
        with ui.row().classes("items-center gap-2 no-wrap min-w-0") as self.row:
            self.chip = ui.chip("Starting…", icon="hourglass_top").props(
                "dense outline color=primary"
            )
            self.chip.classes("text-xs").mark("status")
            self.clock = ui.label(elapsed(0)).classes("text-xs docent-muted").mark("elapsed")
            self.clock.props('aria-live="off"')  # read out every second it would drown the rest
        self._show(visible)
        self.timer: ui.timer | None = None
        """Ticking while an answer waits; none on a finished one (a chat may show many)."""
        if visible:
            self._start_timer()

    def waiting_for(self, text: str) -> None:
        """A new step: say it, and count its seconds from now until the first word."""
        self._show(True)
        self.chip.set_text(text)
        self._since = self._clock()
        self._waiting = True
        self.clock.set_text(elapsed(0))
        self.clock.set_visibility(True)
        self._start_timer()

    def step(self, text: str) -> None:
        """The same wait, further on (a long reading's next section): the clock runs on."""
        self.chip.set_text(text)
        if not self._waiting:
            self.waiting_for(text)

    def writing(self) -> None:
        """The answer's words are arriving: nothing to wait for, no clock."""
        if self._waiting:
            self._waiting = False
            self.chip.set_text(WRITING)
            self.clock.set_visibility(False)
            self._stop_timer()

    def failed(self, message: str) -> None:
        self.end()
        self.row.set_visibility(True)
        self.chip.set_visibility(True)
        self.chip.set_text(message)
        self.chip.props("color=negative icon=error")

    def end(self) -> None:
        """The answer is done: the line goes."""
        self._waiting = False
        self._stop_timer()
        self._show(False)

    def _show(self, visible: bool) -> None:
        for element in (self.row, self.chip, self.clock):
            element.set_visibility(visible)

    @property
    def text(self) -> str:
        return str(self.chip.text)

    def _start_timer(self) -> None:
        if self.timer is None:
            with self.row:
                self.timer = ui.timer(1.0, self._tick, immediate=False)

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _tick(self) -> None:
        if self._waiting and not self.clock.is_deleted:
            self.clock.set_text(elapsed(self._clock() - self._since))
