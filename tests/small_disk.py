"""A real full disk for tests: a small tmpfs, filled up and emptied again on demand.

Mounting needs root (CI runs as root). Where the test may not mount, it is skipped; the
same paths are covered by fault-injected tests in tests/test_disk_full.py, which run
everywhere.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


class SmallDisk:
    """A mounted tmpfs at ``path``; ``fill`` takes every free byte, ``free`` gives it back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._filler = path / "filler.bin"

    def fill(self, leave: int = 0) -> None:
        """Write until the disk refuses, or until only ``leave`` bytes are free: a later
        write that needs more than those fails."""
        fd = os.open(self._filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for size in (1 << 20, 64 << 10, 4 << 10, 512, 1):
                try:
                    while shutil.disk_usage(self.path).free - size >= leave:
                        os.write(fd, b"\0" * size)
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error
        finally:
            os.close(fd)

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)


@contextlib.contextmanager
def small_disk(path: Path, size_mb: int) -> Iterator[SmallDisk]:
    """A tmpfs of ``size_mb`` MB at ``path`` for the block; skips the test if it can't mount."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0700", "tmpfs", os.fspath(path)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip()}); see test_disk_full")
    try:
        yield SmallDisk(path)
    finally:
        subprocess.run(["umount", "-l", os.fspath(path)], capture_output=True)
