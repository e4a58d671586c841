"""What `ask` writes to a terminal: its progress line, rewritten in place."""

from __future__ import annotations

import io

from app.cli.terminal import StatusLine

CLEAR = "\r\033[2K"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_progress_is_one_line_taken_off_when_the_answer_starts() -> None:
    screen = Terminal()
    line = StatusLine(screen)
    line.show("Searching 3 documents…")
    line.show("Reading the 2 passages found…")
    line.answering()
    line.answering()  # each token says so: the line is cleared once
    line.show("a late note")  # would erase the answer's line: not shown
    assert screen.getvalue() == (
        f"{CLEAR}Searching 3 documents…{CLEAR}Reading the 2 passages found…{CLEAR}"
    )


def test_in_a_file_the_progress_is_a_plain_line_each() -> None:
    log = io.StringIO()
    line = StatusLine(log)
    line.show("Searching 3 documents…")
    line.answering()
    line.show("a late note")
    assert log.getvalue() == "Searching 3 documents…\na late note\n"
