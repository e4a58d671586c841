"""Nothing leaves the machine: `run.py` with its defaults, every connection beyond this
machine refused and recorded, starts, indexes, answers and stops without attempting one."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import ROOT, free_port, user_environment


def test_run_py_with_its_defaults_reaches_nothing_beyond_this_machine(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "documents").mkdir(parents=True)
    (data / "documents" / "notes.md").write_text("The spare key is under the blue flowerpot.\n")
    attempts = tmp_path / "outbound.log"
    attempts.touch()
    env = {
        k: v
        for k, v in user_environment().items()
        if not k.startswith("DOCENT_") and k != "OLLAMA_HOST"  # the user's defaults
    }
    env |= {
        "PYTHONPATH": str(ROOT / "tests" / "outbound"),  # its sitecustomize guards sockets
        "DOCENT_TEST_REPO": str(ROOT),
        "DOCENT_TEST_OUTBOUND_LOG": str(attempts),
        "LANGSMITH_TRACING": "true",  # even a user who traces other work is not traced
    }
    port = free_port()
    with FakeOllamaServer() as ollama:
        ollama.enqueue_reply("It is under the blue flowerpot [1].")
        process = subprocess.Popen(
            [sys.executable, "run.py", "--no-browser", "--port", str(port)]
            + ["--data-dir", str(data), "--ollama-host", ollama.url],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            token = _wait_for(lambda: (data / "api-token").read_text().strip())
            headers = {"Authorization": f"Bearer {token}"}
            _wait_for(lambda: _ready(base, headers))
            answer = httpx.post(
                f"{base}/api/chat",
                json={"message": "Where is the spare key?", "mode": "rag", "stream": False},
                headers=headers,
                timeout=120,
            )
            assert answer.status_code == 200, answer.text
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=60)
    assert attempts.read_text() == ""  # not one attempt beyond this machine


def _ready(base: str, headers: dict[str, str]) -> bool:
    documents = httpx.get(f"{base}/api/documents", headers=headers).json()["documents"]
    return [d["status"] for d in documents] == ["ready"]


def _wait_for(check, timeout: float = 180):  # type: ignore[no-untyped-def]
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            value = check()
        except (OSError, httpx.HTTPError, KeyError, ValueError):
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")
