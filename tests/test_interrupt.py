"""Ctrl-C stops the app within a few seconds, even while a big file is being indexed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _documents(base: str, token: str) -> list[dict[str, object]]:
    try:
        reply = httpx.get(f"{base}/api/documents", headers={"Authorization": f"Bearer {token}"})
        return list(reply.json()["documents"]) if reply.status_code == 200 else []
    except httpx.HTTPError:
        return []


@pytest.mark.slow
def test_sigint_while_a_big_file_indexes_stops_the_app(tmp_path: Path) -> None:
    data = tmp_path / "data"
    docs = data / "documents"
    docs.mkdir(parents=True)
    line = "A long line of text about the history of lighthouses and their keepers.\n"
    (docs / "huge.txt").write_text(line * 300_000)  # ~22 MB: minutes of embedding
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "run.py", "--no-browser", "--port", str(port), "--data-dir", str(data)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        # NiceGUI takes a process started under pytest for its own screen test.
        env={k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"},
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 600
        indexing = False
        while not indexing:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the big file never started indexing"
            time.sleep(0.2)
            token_file = data / "api-token"
            if token_file.exists():
                docs_now = _documents(base, token_file.read_text().strip())
                indexing = any(d["status"] == "indexing" and d.get("chunks_done") for d in docs_now)

        proc.send_signal(signal.SIGINT)
        # A bound on waiting, not a speed claim: before the fix it never exited (185 s+).
        code = proc.wait(timeout=30)
        assert code is not None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
