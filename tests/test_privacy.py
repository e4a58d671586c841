"""Nothing leaves the machine: `run.py` with its defaults, every connection beyond this
machine refused and recorded, starts, indexes, answers and stops without attempting one;
and whichever of our packages a process imports first, ONNX Runtime's telemetry is off
in it (tests/test_privacy_syscalls.py watches the system calls of the whole app)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import ROOT, eventually, served_process


def test_run_py_with_its_defaults_reaches_nothing_beyond_this_machine(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "documents").mkdir(parents=True)
    (data / "documents" / "notes.md").write_text("The spare key is under the blue flowerpot.\n")
    attempts = tmp_path / "outbound.log"
    attempts.touch()
    env = {
        "PYTHONPATH": str(ROOT / "tests" / "outbound"),  # its sitecustomize guards sockets
        "DOCENT_TEST_REPO": str(ROOT),
        "DOCENT_TEST_OUTBOUND_LOG": str(attempts),
        "LANGSMITH_TRACING": "true",  # even a user who traces other work is not traced
    }
    with FakeOllamaServer() as ollama:
        ollama.enqueue_reply("It is under the blue flowerpot [1].")
        # With the user's defaults: no DOCENT_* or OLLAMA_HOST of the developer's.
        with served_process(data, "--ollama-host", ollama.url, env=env) as app:
            headers = {"Authorization": f"Bearer {app.token}"}
            ready = eventually(lambda: _ready(app.url, headers), timeout=180, what="notes.md")
            asyncio.run(ready)
            answer = httpx.post(
                f"{app.url}/api/chat",
                json={"message": "Where is the spare key?", "mode": "rag", "stream": False},
                headers=headers,
                timeout=120,
            )
            assert answer.status_code == 200, answer.text
    assert attempts.read_text() == ""  # not one attempt beyond this machine


def _ready(base: str, headers: dict[str, str]) -> bool:
    documents = httpx.get(f"{base}/api/documents", headers=headers, timeout=60).json()["documents"]
    return [d["status"] for d in documents] == ["ready"]


@pytest.mark.parametrize("first", ["app", "ingest", "ingest.parsing.worker", "models"])
def test_onnx_runtime_keeps_no_telemetry_after_any_of_our_packages(
    tmp_path: Path, first: str
) -> None:
    # ONNX Runtime creates its event queue (and a device id) in the user's cache as it
    # loads, and sends from it when it can; with its telemetry off it creates neither.
    cache = tmp_path / "cache"
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(cache)}
    subprocess.run(
        [sys.executable, "-c", f"import {first}, onnxruntime"],
        cwd=ROOT,
        env=environment,
        check=True,
    )
    assert sorted(str(p.relative_to(tmp_path)) for p in cache.rglob("*")) == []
