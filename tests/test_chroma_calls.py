"""Chroma and a full disk: a write the disk has no room for never reaches Chroma, and one
that fails for want of space all the same leaves the store working, not stuck.

Both run the store in a child process (tests/chroma_full_child.py) on a real tmpfs that
fills up: a stuck Chroma write holds the GIL, so only another process can give it a
deadline. They need root to mount the tmpfs (CI runs as root) and are skipped elsewhere.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.running import ROOT
from tests.small_disk import small_disk

DEADLINE = 120
"""Seconds the child may take: about 10 when nothing hangs; a hung write never returns."""


def run_child(mode: str, small: Path) -> dict[str, Any]:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tests.chroma_full_child", mode, str(small)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=DEADLINE,
        )
    except subprocess.TimeoutExpired as late:
        raise AssertionError(f"a Chroma write never returned ({mode}): {late}") from None
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_write_the_disk_has_no_room_for_is_refused_before_chroma_sees_it(
    tmp_path: Path,
) -> None:
    with small_disk(tmp_path / "small", 64) as disk:
        seen = run_child("refused", disk.path)
    assert seen["before"] == "ok"
    assert seen["full"] == ["DiskFull"] * 5
    assert seen["freed"] == ["ok"] * 5
    assert seen["reopened"] == 0  # Chroma never failed: it never saw those writes
    assert seen["stored"] == ["before"] + [f"freed{n}" for n in range(5)]


def test_a_write_chroma_fails_for_want_of_space_leaves_the_store_working(
    tmp_path: Path,
) -> None:
    with small_disk(tmp_path / "small", 64) as disk:
        seen = run_child("failed", disk.path)
    assert seen["full"] == ["DiskFull"] * 5  # typed, whatever words Chroma used
    assert seen["freed"] == ["ok"] * 5  # and the next write neither hung nor failed
    assert seen["reopened"] == 5
    # A failed write may still land once there is room (Chroma keeps a log of writes to
    # apply): the caller writes it again, and an upsert of the same ids changes nothing.
    assert {"before", *(f"freed{n}" for n in range(5))} <= set(seen["stored"])
