"""`run.py status` beside a running Docent asks the app, not the model server: on a server
that cancels a streaming answer at any other request (llama-cpp-python's), asking it from
another process would cut the answer the app is writing."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import httpx

from tests.fakes.openai_server import FakeOpenAIServer
from tests.running import eventually, run_py, served_process

MODEL = "qwen2.5-coder-1.5b-instruct"
ANSWER = "Docent answers questions about the documents in your folder."


def test_status_beside_a_running_app_leaves_its_answer_whole(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer([MODEL], habits="llama-cpp-python") as llama:
        llama.responder = lambda body: ANSWER if not body.get("response_format") else None
        held = threading.Event()
        llama.reply_gate = held
        flags = ("--llm-api", "openai", "--llm-url", llama.url, "--chat-model", MODEL)
        with served_process(data, *flags, "--no-suggestions") as app:
            headers = {"Authorization": f"Bearer {app.token}"}
            result: dict[str, Any] = {}
            body = {"message": "What can you do?", "mode": "chat", "stream": False}

            def chat() -> None:
                result["reply"] = httpx.post(
                    f"{app.url}/api/chat", json=body, headers=headers, timeout=120
                )

            asking = threading.Thread(target=chat)
            asking.start()
            try:
                # A deadline against a hang, not a measure: the first question waits for
                # search and chat to finish loading behind the ready window, which took
                # 14 s on a machine loaded five-fold (bench/startup.py), and CI's 10 s
                # default ran out once there.
                asked = eventually(
                    lambda: bool(llama.chat_requests()), timeout=60, what="the answer asked for"
                )
                asyncio.run(asked)
                status = run_py("status", "--data-dir", str(data), *flags, timeout=60)
            finally:
                held.set()
                asking.join(timeout=120)
    assert status.returncode == 0, status.stderr
    assert "Docent: running at" in status.stdout
    assert f"Model server (OpenAI API): reachable at {llama.url}" in status.stdout
    assert llama.cut_short == 0
    assert result["reply"].status_code == 200, result["reply"].text
    assert result["reply"].json()["answer"] == ANSWER
