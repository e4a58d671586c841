"""WriteBehind: files done embedding wait for one write that takes every file's chunks."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from contextlib import ExitStack

import pytest

from ingest.pipeline.write_behind import WriteBehind
from tests.running import eventually

LONG = 3600.0
"""Patience no test outlasts: the writes they see come from another rule."""


class Sink:
    """Stands in for the vector indexes: chunks held per document, written by ``flush``."""

    def __init__(self, failing: Mapping[str, BaseException] | None = None) -> None:
        self.held: list[tuple[str, int]] = []
        self.writes: list[list[tuple[str, int]]] = []
        self.failing = dict(failing or {})
        self._lock = threading.Lock()

    def hold(self, writes: WriteBehind, doc: str, count: int) -> None:
        with self._lock:
            self.held.append((doc, count))
        writes.held(count)

    def flush(self) -> dict[str, BaseException]:
        with self._lock:
            taken, self.held = self.held, []
        if taken:
            self.writes.append(taken)
        return {doc: error for doc, error in self.failing.items() if (doc, 1) in taken}


def _settle_in_thread(writes: WriteBehind, doc: str) -> tuple[threading.Thread, list[object]]:
    outcome: list[object] = []

    def run() -> None:
        try:
            writes.settle(doc)
            outcome.append("written")
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


async def test_a_file_alone_is_written_as_soon_as_it_waits() -> None:
    sink = Sink()
    writes = WriteBehind(sink.flush, hold=1000, patience=LONG)
    with writes.working():
        sink.hold(writes, "a", 3)
    _, outcome = _settle_in_thread(writes, "a")

    await eventually(lambda: outcome == ["written"], what="the lone file written")
    assert sink.writes == [[("a", 3)]]


async def test_files_that_wait_share_one_write_once_the_last_file_working_is_done() -> None:
    sink = Sink()
    writes = WriteBehind(sink.flush, hold=1000, patience=LONG)
    outcomes = []
    with ExitStack() as c_works:
        c_works.enter_context(writes.working())  # "c" works on while "a" and "b" wait
        for doc in ("a", "b"):
            with writes.working():
                sink.hold(writes, doc, 2)
            outcomes.append(_settle_in_thread(writes, doc)[1])
        sink.hold(writes, "c", 5)
        assert sink.writes == []  # nobody is written while "c" may still hold more
    outcomes.append(_settle_in_thread(writes, "c")[1])

    await eventually(
        lambda: all(outcome == ["written"] for outcome in outcomes), what="all three written"
    )
    assert sink.writes == [[("a", 2), ("b", 2), ("c", 5)]]


async def test_enough_held_chunks_are_written_without_waiting_for_anyone() -> None:
    sink = Sink()
    writes = WriteBehind(sink.flush, hold=4, patience=LONG)
    with writes.working():
        sink.hold(writes, "a", 2)
        assert sink.writes == []
        sink.hold(writes, "a", 2)
        assert sink.writes == [[("a", 2), ("a", 2)]]
        writes.settle("a")  # nothing held since: returns at once, with "a" working still
    assert len(sink.writes) == 1


async def test_a_waiting_file_writes_after_its_patience_runs_out() -> None:
    sink = Sink()
    writes = WriteBehind(sink.flush, hold=1000, patience=0.05)
    with writes.working():  # another file works on and never finishes here
        with writes.working():
            sink.hold(writes, "a", 1)
        _, outcome = _settle_in_thread(writes, "a")
        await eventually(lambda: outcome == ["written"], what="the impatient file written")
    assert sink.writes == [[("a", 1)]]


async def test_a_failed_write_fails_its_own_file_only() -> None:
    broken = ValueError("bad vector")
    sink = Sink(failing={"bad": broken})
    writes = WriteBehind(sink.flush, hold=1000, patience=LONG)
    with writes.working():
        sink.hold(writes, "bad", 1)
        sink.hold(writes, "good", 1)
    with pytest.raises(ValueError, match="bad vector"):
        writes.settle("bad")
    writes.settle("good")
    assert sink.writes == [[("bad", 1), ("good", 1)]]
