"""Group commit: writes that arrive during a write go out together, and each caller
returns only once its own records are written."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import pytest

from ingest.index.group_commit import GroupCommit


class SlowSink:
    """A write target whose first call waits until the test lets it finish."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.release.set()

    def hold_next(self) -> None:
        self.release.clear()

    def write(self, items: Sequence[str]) -> None:
        self.entered.set()
        assert self.release.wait(10)
        if any(item.startswith("bad") for item in items):
            raise ValueError(f"cannot store {[i for i in items if i.startswith('bad')]}")
        self.calls.append(list(items))

    @property
    def written(self) -> list[str]:
        return [item for call in self.calls for item in call]


def _submit_in_thread(
    group: GroupCommit[str], items: list[str], errors: dict[str, str]
) -> threading.Thread:
    def run() -> None:
        try:
            group.submit(items)
        except ValueError as error:
            errors[items[0]] = str(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _eventually(group: GroupCommit[str], holds: Callable[[], bool], what: str) -> None:
    """Wait until ``holds()`` is true under the group's lock (polled, at most 5 s)."""
    for _ in range(1000):
        with group._turn:
            if holds():
                return
        threading.Event().wait(0.005)
    raise AssertionError(f"never: {what}")


def _wait_until_queued(group: GroupCommit[str], count: int) -> None:
    _eventually(group, lambda: len(group._queued) == count, f"{count} callers queued")


def _one_write_under_way() -> tuple[SlowSink, GroupCommit[str], dict[str, str], threading.Thread]:
    """A group whose first write ("a1") is inside the sink, held there until released."""
    sink = SlowSink()
    group = GroupCommit(sink.write, limit=100)
    sink.hold_next()
    errors: dict[str, str] = {}
    first = _submit_in_thread(group, ["a1"], errors)
    assert sink.entered.wait(10)
    return sink, group, errors, first


def test_a_lone_write_goes_out_alone() -> None:
    sink = SlowSink()
    group = GroupCommit(sink.write, limit=100)
    group.submit(["a1", "a2"])
    assert sink.calls == [["a1", "a2"]]


def test_writes_arriving_together_share_the_first_call() -> None:
    sink = SlowSink()
    group = GroupCommit(sink.write, limit=100, linger=1.0)
    errors: dict[str, str] = {}
    first = _submit_in_thread(group, ["a1"], errors)
    _eventually(group, lambda: group._writing, "a write started")  # a waits for company
    second = _submit_in_thread(group, ["b1"], errors)
    first.join(10)
    second.join(10)
    assert not errors
    assert sink.calls == [["a1", "b1"]]


def test_writes_arriving_during_a_write_share_the_next_call() -> None:
    sink, group, errors, first = _one_write_under_way()
    others = [_submit_in_thread(group, [f"{n}1", f"{n}2"], errors) for n in "bcd"]
    _wait_until_queued(group, 3)
    sink.release.set()
    for thread in [first, *others]:
        thread.join(10)
    assert not errors
    assert sink.calls[0] == ["a1"]
    assert len(sink.calls) == 2  # b, c and d went out in one call
    assert sorted(sink.calls[1]) == ["b1", "b2", "c1", "c2", "d1", "d2"]
    assert group.calls == 2


def test_a_caller_returns_only_once_its_records_are_written() -> None:
    sink, group, errors, first = _one_write_under_way()
    second = _submit_in_thread(group, ["b1"], errors)
    _wait_until_queued(group, 1)
    second.join(0.2)
    assert second.is_alive()  # b's records wait for a's write; b waits with them
    sink.release.set()
    first.join(10)
    second.join(10)
    assert not second.is_alive() and "b1" in sink.written


def test_one_callers_bad_records_fail_that_caller_only() -> None:
    sink, group, errors, first = _one_write_under_way()
    good = _submit_in_thread(group, ["b1", "b2"], errors)
    _wait_until_queued(group, 1)
    bad = _submit_in_thread(group, ["bad1"], errors)
    _wait_until_queued(group, 2)
    sink.release.set()
    for thread in (first, good, bad):
        thread.join(10)
    assert errors == {"bad1": "cannot store ['bad1']"}
    assert sorted(sink.written) == ["a1", "b1", "b2"]


def test_a_lone_callers_error_reaches_it() -> None:
    group = GroupCommit(SlowSink().write, limit=100)
    with pytest.raises(ValueError, match="bad9"):
        group.submit(["bad9"])
    group.submit(["ok"])  # the next write is not held up by the failed one


def test_no_call_holds_more_than_the_limit() -> None:
    sink = SlowSink()
    group = GroupCommit(sink.write, limit=3)
    group.submit([f"x{i}" for i in range(8)])
    assert [len(call) for call in sink.calls] == [3, 3, 2]
    assert sink.written == [f"x{i}" for i in range(8)]
