"""Peak memory and CPU of a process's descendants, sampled from Linux's /proc.

A benchmark's child indexes files; the parser processes it starts are its grandchildren
(forked by multiprocessing's fork server), which ``getrusage`` never sees, and they may
be killed and replaced mid-run. This samples every descendant of a root process from
the outside: each one's peak RSS (VmHWM, which only grows, so the last sample before
it exits is close to its true peak) and its CPU seconds.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass
class Seen:
    """What was last read of one process."""

    parent: int
    depth: int
    """1 for the root's children (the fork server), 2 for theirs (the parser workers)."""
    peak_kb: int = 0
    cpu: float = 0.0


@dataclass
class TreeSampler:
    """Samples the descendants of ``root`` every ``every`` seconds until stopped."""

    root: int
    every: float = 0.05
    seen: dict[int, Seen] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> TreeSampler:
        self._thread = threading.Thread(target=self._run, name="tree-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.every)

    def sample(self) -> None:
        """Read every descendant of the root once."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                parent = _parent(entry)
                if parent is not None:
                    parents[int(entry.name)] = parent
        depth = {self.root: 0}
        for pid in sorted(parents):  # a child's pid is usually above its parent's
            _depth_of(pid, parents, depth)
        for pid, level in depth.items():
            if level == 0:
                continue
            peak, cpu = _peak_kb(pid), _cpu(pid)
            if peak is None or cpu is None:
                continue  # it exited between the listing and the read
            known = self.seen.setdefault(pid, Seen(parents[pid], level))
            known.peak_kb = max(known.peak_kb, peak)
            known.cpu = max(known.cpu, cpu)

    def at_depth(self, depth: int) -> list[Seen]:
        """The processes seen at this depth below the root."""
        return [seen for seen in self.seen.values() if seen.depth == depth]


def _depth_of(pid: int, parents: dict[int, int], depth: dict[int, int]) -> int | None:
    chain = []
    current: int | None = pid
    while current is not None and current not in depth:
        chain.append(current)
        current = parents.get(current)
        if len(chain) > 64:
            return None
    if current is None:
        return None
    level = depth[current]
    for pid_ in reversed(chain):
        level += 1
        depth[pid_] = level
    return depth[pid]


def _parent(entry: Path) -> int | None:
    try:
        stat = (entry / "stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _peak_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return 0  # a zombie has no memory left


def _cpu(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime
