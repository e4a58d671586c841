"""Decompression bombs: the peak memory of the app process, and of its parser processes,
while each of issue 21's five files is indexed.

Each bomb is indexed alone in a fresh child process (the Indexer with a fake embedder,
so the figures are the loaders' alone); the child's address space is capped (``--cap-gb``)
so that a run on code without limits cannot take the machine down. ``--repo`` runs the
child in another checkout (e.g. ``git worktree add /tmp/base main``) to measure before.

    uv run python bench/bombs.py [--repo PATH] [--cap-gb 8] [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # also run as a path

from bench.processes import TreeSampler  # noqa: E402
from tests.bombs import BOMBS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import asyncio, json, sys
from pathlib import Path
from ingest.pipeline.indexer import Indexer
from ingest.index.registry import Registry
from ingest.index.chroma_calls import open_chroma
from ingest.index.vectors import ChromaStore
from tests.fakes.embedder import FakeEmbedder

def kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])

docs, data = Path(sys.argv[1]), Path(sys.argv[2])
registry = Registry(data / "docent.db")
embedder = FakeEmbedder()
store = ChromaStore(open_chroma(data), embedder, lookup=registry)
indexer = Indexer(docs, registry, [store], embedder)
baseline = kb("VmRSS:")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # the peak (VmHWM) starts again from the current size
try:
    asyncio.run(indexer.index_all())
    outcome = [(r.status.value, r.error) for r in registry.list()]
except MemoryError:
    outcome = [("MemoryError", None)]
print(json.dumps({"baseline_kb": baseline, "peak_kb": kb("VmHWM:"), "outcome": outcome}))
"""


def run_one(repo: Path, bomb: Path, cap: int, timeout: float) -> dict[str, object]:
    """Index ``bomb`` (alone in its folder) in a child running ``repo``'s code."""
    docs = bomb.parent
    data = docs.parent / "data"
    data.mkdir()

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    env = {**os.environ, "PYTHONPATH": str(repo), "ANONYMIZED_TELEMETRY": "False"}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(docs), str(data)],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=cap_memory,  # the child runs no threads yet
    )
    timed_out = False
    with TreeSampler(proc.pid, every=0.01) as sampler:  # a worker may live a second
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            peak = sampler_peak_kb(proc.pid)
            proc.kill()
            out, err = proc.communicate()
    seconds = time.perf_counter() - started
    workers = sampler.at_depth(2)
    result: dict[str, object] = {
        "seconds": seconds,
        "workers_peak_mb": max((w.peak_kb for w in workers), default=0) / 1024,
        "workers": len(workers),
        "returncode": proc.returncode,
    }
    if timed_out:
        result["timed_out_at_mb"] = peak / 1024
    lines = out.decode().strip().splitlines()
    if proc.returncode == 0 and lines:
        figures = json.loads(lines[-1])
        result["app_baseline_mb"] = figures["baseline_kb"] / 1024
        result["app_peak_mb"] = figures["peak_kb"] / 1024
        result["outcome"] = figures["outcome"]
    else:
        result["stderr"] = err.decode()[-600:]
    return result


def sampler_peak_kb(pid: int) -> int:
    """The peak RSS of a process still running, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def describe(name: str, result: dict[str, object], cap_gb: float) -> str:
    if "timed_out_at_mb" in result:
        return (
            f"{name:18} still running after {result['seconds']:.0f} s, stopped;"
            f" app peak so far {result['timed_out_at_mb']:.0f} MB"
        )
    if "app_peak_mb" not in result:
        return (
            f"{name:18} child failed (exit {result['returncode']}) after"
            f" {result['seconds']:.0f} s: over {cap_gb:g} GB, stopped"
            f"\n{result.get('stderr', '')}"
        )
    outcome = result["outcome"]
    assert isinstance(outcome, list)
    status, error = outcome[0] if outcome else ("?", None)
    if status == "MemoryError" or (error and "MemoryError" in error):
        status = f"over {cap_gb:g} GB, stopped"
    base, peak = result["app_baseline_mb"], result["app_peak_mb"]
    assert isinstance(base, float) and isinstance(peak, float)
    workers = result["workers"]
    worker_peak = f"{result['workers_peak_mb']:.0f} MB" if workers else "-"
    return (
        f"{name:18} app {base:5.0f} -> {peak:5.0f} MB (+{peak - base:.0f});"
        f" workers' peak {worker_peak} ({workers} seen); {result['seconds']:.1f} s;"
        f" {status}: {error or ''}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--cap-gb", type=float, default=8.0, help="the child's address space")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per bomb")
    parser.add_argument("--only", action="append", help="just this bomb (repeatable)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    print(f"code: {repo} ({_commit(repo)}); child address space capped at {args.cap_gb:g} GB")
    with tempfile.TemporaryDirectory(prefix="docent-bench-bombs-") as tmp:
        work = Path(tmp)
        for name, build in BOMBS.items():
            if args.only and name not in args.only:
                continue
            docs = work / f"run-{name}" / "documents"
            docs.mkdir(parents=True)
            bomb = build(docs / name)
            size = bomb.stat().st_size / (1 << 20)
            result = run_one(repo, bomb, int(args.cap_gb * (1 << 30)), args.timeout)
            print(f"{describe(name, result, args.cap_gb)} [{size:.2f} MB file]", flush=True)
            bomb.unlink()


def _commit(repo: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "log", "-1", "--format=%h %s"], capture_output=True, text=True
    )
    return done.stdout.strip()


if __name__ == "__main__":
    main()
