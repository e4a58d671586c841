"""Nothing leaves the machine: `run.py` with its defaults, every connection beyond this
machine refused and recorded, starts, indexes, answers and stops without attempting one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

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
    documents = httpx.get(f"{base}/api/documents", headers=headers).json()["documents"]
    return [d["status"] for d in documents] == ["ready"]
