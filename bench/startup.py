"""Startup: from `run.py` to /api/health, to the window, to the services, with the breakdown.

Starts `run.py --no-browser` as a separate process on a free port with a fresh data dir,
exactly as a user would (Ollama need not run), and prints the median of each figure:
- measured from outside: seconds until /api/health answers (and the CPU seconds the
  process had used by then), until the logged-in window's page is served (its message
  box takes a question from then on), until /api/status answers (the services are ready:
  the light ones, which the status and the window need), and until it says no longer
  `starting` (search, indexing and chat have loaded; a question asked before waits);
- the floor: a bare NiceGUI page (bench/bare_nicegui.py) until it answers, in the same
  run, and Docent's services-ready time as a multiple of it (target ≤ 1.5×);
- the app's own breakdown (its log's `startup:` line): `entered` = interpreter, command
  line and NiceGUI imported; `listening`, and `cpu_to_listen`, the CPU seconds the process
  spent until then (close to what an idle machine waits); then, behind the socket,
  `import` (the graph, Chroma, onnxruntime), `embedder`, `store` (Chroma, the registry,
  the keyword index), `routes` (the routers and the page), `start` (sessions, graph,
  indexer).

The machine is shared and loaded: compare the figures of one run with each other, and
read `listening` against `services_ready` (what used to come before the socket).

    uv run python bench/startup.py [--runs 3] [--baseline /tmp/main-export] [--again]

`--again` starts the app a second time on the first start's data dir and prints the
same figures, prefixed `again`: what every start after the first costs.

A baseline checkout with its own `.venv` (`uv sync --locked` in it) runs in that venv, so
a branch that changes the dependencies can be timed against main.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
STEP = re.compile(r"(\w+) ([\d.]+) s")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait(check: Callable[[], bool], timeout: float = 300) -> float:
    """Seconds until ``check`` holds (errors count as not yet)."""
    started = time.perf_counter()
    while True:
        try:
            if check():
                return time.perf_counter() - started
        except (httpx.HTTPError, OSError):
            pass
        if time.perf_counter() - started > timeout:
            raise SystemExit("timed out")
        time.sleep(0.02)


def logged_in(base: str, token: str) -> httpx.Client:
    """A client holding the window's login cookie, got through a fresh login link."""
    link = httpx.post(
        f"{base}/api/login-link", headers={"Authorization": f"Bearer {token}"}
    ).json()["url"]
    return httpx.Client(base_url=base, cookies=httpx.get(link).cookies)


class Started:
    """One `run.py` process (of ``checkout``) on a fresh data dir; stop it with ``stop``."""

    def __init__(self, data: Path, checkout: Path = ROOT) -> None:
        self.data = data
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        # A checkout with a venv of its own runs in it: its dependencies may differ from ours.
        venv_python = checkout / ".venv" / "bin" / "python"
        python = str(venv_python) if venv_python.is_file() else sys.executable
        cmd = [python, "run.py", "--no-browser", "--port", str(self.port)]
        cmd += ["--data-dir", str(data), "--ollama-host", "http://127.0.0.1:9"]
        self.began = time.perf_counter()
        self.proc = subprocess.Popen(cmd, cwd=checkout, stdout=subprocess.DEVNULL)

    def since(self) -> float:
        return time.perf_counter() - self.began

    def cpu(self) -> float:
        """CPU seconds the process has used so far (all its threads), from /proc."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @property
    def token(self) -> str:
        return (self.data / "api-token").read_text().strip()

    def breakdown(self) -> dict[str, float]:
        """The last start's `startup:` line in the log (a data dir may have had several)."""
        log = (self.data / "logs" / "docent.log").read_text()
        line = [line for line in log.splitlines() if "startup:" in line][-1]
        return {name: float(seconds) for name, seconds in STEP.findall(line)}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


def one_run(again: bool = False) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="security-bench-") as tmp:
        figures = first_start(Path(tmp) / "data")
        if again:
            figures.update(second_start(Path(tmp) / "data"))
    return figures


def second_start(data: Path, checkout: Path = ROOT, label: str = "again") -> dict[str, float]:
    """A start on a data dir an earlier start made (what every start after the first is)."""
    app = Started(data, checkout)
    try:
        headers = {"Authorization": f"Bearer {app.token}"}
        wait(lambda: httpx.get(f"{app.base}/api/status", headers=headers).status_code == 200)
        figures = {f"{label} → services ready": app.since(), f"  {label} cpu then": app.cpu()}
        wait(
            lambda: httpx.get(f"{app.base}/api/status", headers=headers).json()["starting"] is False
        )
        figures[f"{label} → search and chat loaded"] = app.since()
        figures[f"  {label} cpu by then"] = app.cpu()
        wait(lambda: (app.data / "logs" / "docent.log").read_text().count("startup:") == 2)
        figures.update({f"  {label} {k}": v for k, v in app.breakdown().items()})
    finally:
        app.stop()
    return figures


def first_start(data: Path) -> dict[str, float]:
    app = Started(data)
    try:
        wait(lambda: httpx.get(f"{app.base}/api/health").status_code == 200)
        figures = {"→ /api/health": app.since(), "  cpu at /api/health": app.cpu()}
        with logged_in(app.base, app.token) as window:
            wait(lambda: window.get("/").status_code == 200)
        figures["→ window page"] = app.since()
        headers = {"Authorization": f"Bearer {app.token}"}
        wait(lambda: httpx.get(f"{app.base}/api/status", headers=headers).status_code == 200)
        figures["→ services ready"] = app.since()
        wait(
            lambda: httpx.get(f"{app.base}/api/status", headers=headers).json()["starting"] is False
        )
        figures["→ search and chat loaded"] = app.since()
        wait(lambda: "startup:" in (app.data / "logs" / "docent.log").read_text())
        figures.update({f"  {k}": v for k, v in app.breakdown().items()})
    finally:
        app.stop()
    return figures


def bare_run() -> dict[str, float]:
    """A bare NiceGUI page (bench/bare_nicegui.py) until its page answers: the floor."""
    port = free_port()
    began = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "bare_nicegui.py"), str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait(lambda: httpx.get(f"http://127.0.0.1:{port}/").status_code == 200)
        return {"bare NiceGUI → page": time.perf_counter() - began}
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def baseline_run(checkout: Path, again: bool = False) -> dict[str, float]:
    """Another checkout's `run.py` (e.g. main's): until /api/health and /api/status."""
    with tempfile.TemporaryDirectory(prefix="security-bench-") as tmp:
        app = Started(Path(tmp) / "data", checkout)
        try:
            wait(lambda: httpx.get(f"{app.base}/api/health").status_code == 200)
            figures = {"baseline → /api/health": app.since()}
            figures["  baseline cpu at health"] = app.cpu()
            headers = {"Authorization": f"Bearer {app.token}"}
            wait(lambda: httpx.get(f"{app.base}/api/status", headers=headers).status_code == 200)
            figures["baseline → services ready"] = app.since()
            wait(lambda: "startup:" in (app.data / "logs" / "docent.log").read_text())
        finally:
            app.stop()
        if again:
            figures.update(second_start(Path(tmp) / "data", checkout, "baseline again"))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--again", action="store_true", help="also start a second time on the same data dir"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (e.g. an export of main) to time in the same run, interleaved",
    )
    args = parser.parse_args()
    results = []
    for _ in range(args.runs):
        # Interleaved, so a busy moment of the machine weighs on each alike.
        figures = bare_run()
        figures.update(one_run(args.again))
        if args.baseline:
            figures.update(baseline_run(args.baseline, args.again))
        figures["services ready ÷ bare page"] = (
            figures["→ services ready"] / figures["bare NiceGUI → page"]
        )
        results.append(figures)
    print("measured from outside (s since the process started), then the app's own log:")
    for label in results[0]:
        values = [r[label] for r in results if label in r]
        unit = "×" if "÷" in label else "s"
        print(
            f"{label:28} median {statistics.median(values):6.2f} {unit}   "
            f"(runs: {', '.join(f'{v:.2f}' for v in values)})"
        )
    ratio = statistics.median(r["services ready ÷ bare page"] for r in results)
    print(f"services ready within 1.5× of a bare NiceGUI page: {'yes' if ratio <= 1.5 else 'no'}")


if __name__ == "__main__":
    main()
