"""Many clients at once: detached turns, one turn per session, no crossed answers."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from tests.api_app import api_app, error_code
from tests.fakes.chat import FakeChatModel
from tests.running import eventually, read_sse, unmarked


async def test_two_concurrent_turns_on_one_session_get_one_429(tmp_path: Path) -> None:
    async with api_app(tmp_path, llm=FakeChatModel(token_delay=0.01)) as app:
        body = {"message": "Where is the spare key?", "session_id": "same", "stream": False}
        first, second = await asyncio.gather(
            app.client.post("/api/chat", json=body), app.client.post("/api/chat", json=body)
        )
        statuses = sorted([first.status_code, second.status_code])
        assert statuses == [200, 429]
        refused = first if first.status_code == 429 else second
        assert error_code(refused) == "session_busy"
        messages = (await app.client.get("/api/sessions/same")).json()["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant"]  # only one turn ran


async def test_twenty_concurrent_sessions_complete_without_crossed_tokens(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with api_app(tmp_path, llm=FakeChatModel(token_delay=0.002)) as app:

        async def converse(n: int) -> tuple[str, tuple[str, str]]:
            body = {"message": f"Where is the spare key? Codeword kilo{n}x.", "session_id": f"s{n}"}
            async with app.client.stream("POST", "/api/chat", json=body) as response:
                assert response.status_code == 200
                events = await read_sse(response)
            assert events[-1][0] == "done", events[-1]
            streamed = "".join(data["text"] for kind, data in events if kind == "token")
            done = events[-1][1]
            # The answer shown is the draft streamed, checked (its marks corrected, or
            # set aside as not covered).
            draft = (done.get("searched") or {}).get("draft", done["answer"])
            assert unmarked(streamed) == unmarked(draft)
            return f"s{n}", (streamed, done["answer"])

        answers = dict(await asyncio.gather(*(converse(n) for n in range(20))))
        for n in range(20):
            streamed, answer = answers[f"s{n}"]
            assert f"kilo{n}x" in streamed
            assert not any(f"kilo{m}x" in streamed for m in range(20) if m != n)
            saved = (await app.client.get(f"/api/sessions/s{n}")).json()["messages"]
            assert [m["content"] for m in saved][1] == answer
        assert len((await app.client.get("/api/sessions")).json()["sessions"]) == 20
    assert not [r for r in caplog.records if "database is locked" in r.getMessage()]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("route", ["/api/chat", "/v1/chat/completions"])
async def test_disconnect_mid_stream_keeps_the_answer(tmp_path: Path, route: str) -> None:
    async with api_app(tmp_path, llm=FakeChatModel(token_delay=0.02)) as app:
        question = "Where is the spare key?"
        if route == "/api/chat":
            body: dict = {"message": question, "session_id": "gone"}
        else:
            body = {
                "model": "docent",
                "stream": True,
                "messages": [{"role": "user", "content": question}],
            }
        session_id = "gone"
        async with app.client.stream("POST", route, json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data:") and "chatcmpl-" in line:
                    session_id = json.loads(line[5:])["id"].removeprefix("chatcmpl-")
                if "Echo" in line:
                    break  # hang up once the answer has started
        await eventually(
            lambda: not app.container.chat.is_busy(session_id), what="the turn to finish"
        )
        saved = (await app.client.get(f"/api/sessions/{session_id}")).json()["messages"]
        assert [m["role"] for m in saved] == ["user", "assistant"]
        assert saved[1]["content"].startswith("Echo:") and saved[1]["sources"]
        assert len(saved[1]["content"]) > 40  # the whole answer, not what was sent before
