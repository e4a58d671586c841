"""How long `run.py token` and `run.py status` take, as a user runs them.

Targets: `token` under 1 s, `status` under 2 s. Each command runs several times, both as
`uv run run.py …` (what the README says) and as `python run.py …` (without uv's own
start-up); the median of each is printed with its CPU time. For scale, the same run also
times importing the whole app (what every command paid before it imported only what it
uses). The machine is shared: wall times grow with its load, CPU times much less, and
ratios within one run stay comparable.

    uv run python bench/commands.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"token": 1.0, "status": 2.0}


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Median wall seconds and median CPU seconds of ``cmd``."""
    walls, cpus = [], []
    for _ in range(runs):
        cpu, wall = cpu_of_children(), time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True)
        walls.append(time.perf_counter() - wall)
        cpus.append(cpu_of_children() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def prepare(env: dict[str, str]) -> None:
    """A data dir as a user's first start leaves it: a token, an index, a registry."""
    docs = Path(env["DOCENT_DATA_DIR"]) / "documents"
    docs.mkdir(parents=True)
    for n in range(5):
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\nThe key is in drawer {n}.\n")
    subprocess.run([sys.executable, "run.py", "ingest"], cwd=ROOT, env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    uv = shutil.which("uv")
    with tempfile.TemporaryDirectory(prefix="security-bench-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")}
        env["DOCENT_DATA_DIR"] = str(Path(tmp) / "data")
        env["DOCENT_OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens: answered at once
        prepare(env)
        rows: list[tuple[str, float, float, float | None]] = []
        for command in ("token", "status"):
            if uv:
                wall, cpu = timed([uv, "run", "run.py", command], args.runs, env)
                rows.append((f"uv run run.py {command}", wall, cpu, TARGETS[command]))
            wall, cpu = timed([sys.executable, "run.py", command], args.runs, env)
            rows.append((f"python run.py {command}", wall, cpu, TARGETS[command]))
        # For scale: what every command imported before.
        wall, cpu = timed([sys.executable, "-c", "import app.container"], args.runs, env)
        rows.append(("python -c 'import app.container'", wall, cpu, None))
    print(f"median of {args.runs} runs; load average now {os.getloadavg()[0]:.1f}")
    for label, wall, cpu, target in rows:
        verdict = "" if target is None else (" ok" if wall < target else " OVER")
        goal = f"target < {target:g} s{verdict}" if target else "(every command, before)"
        print(f"{label:36} wall {wall:5.2f} s   cpu {cpu:5.2f} s   {goal}")


if __name__ == "__main__":
    main()
