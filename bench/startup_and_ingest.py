"""Startup time, and time from dropping three corpus PDFs to status ready.

Starts `run.py --no-browser` as a separate process on a free port with a fresh data dir,
exactly as a user would (Ollama need not run), and prints:
- seconds until /api/health answers and until the (logged-in) window's page is served
  (bench/startup.py breaks startup down further);
- seconds from copying the three PDFs into the documents folder until all are ready.

    uv run python bench/startup_and_ingest.py [--runs 3]
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from bench.startup import logged_in

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "pdfs"
PDFS = [
    "pysf__026-latex-multicolumn_multicolumn.pdf",
    "pysf__004-pdflatex-4-pages_pdflatex-4-pages.pdf",
    "pdfplumber__issue-33-lorem-ipsum.pdf",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait(check: Callable[[], bool], timeout: float = 120) -> float:
    started = time.perf_counter()
    while True:
        try:
            if check():
                return time.perf_counter() - started
        except httpx.HTTPError:
            pass
        if time.perf_counter() - started > timeout:
            raise SystemExit("timed out")
        time.sleep(0.02)


def one_run() -> tuple[float, float, float]:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        cmd = [
            sys.executable,
            str(ROOT / "run.py"),
            "--no-browser",
            "--port",
            str(port),
            "--data-dir",
            str(data),
            "--ollama-host",
            "http://127.0.0.1:9",
        ]
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        try:
            wait(lambda: httpx.get(f"{base}/api/health").status_code == 200)
            health = time.perf_counter() - started
            token = (data / "api-token").read_text().strip()
            with logged_in(base, token) as window:  # the window needs its login cookie
                wait(lambda: window.get("/").status_code == 200)
            page = time.perf_counter() - started
            headers = {"Authorization": f"Bearer {token}"}
            dropped = time.perf_counter()
            for name in PDFS:
                shutil.copy(CORPUS / name, data / "documents" / name)

            def all_ready() -> bool:
                docs = httpx.get(f"{base}/api/documents", headers=headers).json()["documents"]
                return sum(d["status"] == "ready" for d in docs) == len(PDFS)

            wait(all_ready)
            ready = time.perf_counter() - dropped
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    return health, page, ready


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        raise SystemExit(f"The corpus is not at {CORPUS}; this benchmark needs it.")
    results = [one_run() for _ in range(args.runs)]
    for label, index in (
        ("start → /api/health", 0),
        ("start → window page", 1),
        ("drop 3 PDFs → ready", 2),
    ):
        values = [r[index] for r in results]
        print(
            f"{label:22} median {statistics.median(values):6.2f} s   "
            f"(runs: {', '.join(f'{v:.2f}' for v in values)})"
        )


if __name__ == "__main__":
    main()
