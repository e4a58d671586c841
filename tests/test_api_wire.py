"""The bytes of the two streams, /api/chat and /v1: what clients written against them parse."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.api_app import api_app
from tests.fakes.chat import FakeChatModel
from tests.running import RunningApp

QUESTION = "Where is the spare key?"
ANSWER = "Sous le pot de fleurs bleu, café [1]."
"""Not ASCII: the streams carry UTF-8 as it is, never ``\\u`` escapes."""

CHAT_FRAME = re.compile(rb"event: ([a-z_]+)\r\ndata: ([^\r\n]*)\r\n\r\n|: [^\r\n]*\r\n\r\n")
"""An event with one line of data, or a comment (a keep-alive ping), each line ending
\\r\\n, as /api/chat has always sent them."""
V1_FRAME = re.compile(rb"data: ([^\r\n]*)\n\n|: [^\r\n]*\n\n")
"""A data line, or a comment, ending \\n\\n, as OpenAI's own API sends them."""


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    async with api_app(tmp_path, llm=FakeChatModel()) as running:
        yield running


async def raw(app: RunningApp, path: str, body: dict[str, object]) -> httpx.Response:
    """The streamed response, its body read whole, byte for byte."""
    async with app.client.stream("POST", path, json=body) as response:
        await response.aread()
    return response


def frames(pattern: re.Pattern[bytes], body: bytes) -> list[re.Match[bytes]]:
    """The body cut into frames; fails unless the frames cover every byte of it."""
    found, at = [], 0
    while at < len(body):
        match = pattern.match(body, at)
        assert match is not None, f"no frame at byte {at}: {body[at : at + 80]!r}"
        found.append(match)
        at = match.end()
    return found


def as_sent(data: bytes) -> None:
    """``data`` is JSON exactly as the app has always written it: UTF-8 unescaped and
    ``json.dumps``'s default separators."""
    text = data.decode("utf-8")
    assert json.dumps(json.loads(text), ensure_ascii=False) == text


async def test_the_chat_stream_sends_events_with_crlf_lines(app: RunningApp) -> None:
    app.container.llm.enqueue(ANSWER)  # type: ignore[attr-defined]

    response = await raw(app, "/api/chat", {"message": QUESTION, "mode": "rag"})

    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-store"
    events = [m for m in frames(CHAT_FRAME, response.content) if m.group(1)]
    kinds = [m.group(1).decode() for m in events]
    assert kinds[0] == "status" and kinds[-1] == "done" and "sources" in kinds
    for event in events:
        as_sent(event.group(2))
    tokens = [json.loads(m.group(2))["text"] for m in events if m.group(1) == b"token"]
    assert "".join(tokens) == ANSWER
    assert "café".encode() in response.content


async def test_the_v1_stream_sends_chunks_with_lf_lines_and_done(app: RunningApp) -> None:
    app.container.llm.enqueue(ANSWER)  # type: ignore[attr-defined]
    body = {"model": "docent", "stream": True, "messages": [{"role": "user", "content": QUESTION}]}

    response = await raw(app, "/v1/chat/completions", body)

    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    data = [m.group(1) for m in frames(V1_FRAME, response.content) if m.group(1)]
    assert data[-1] == b"[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    for d in data[:-1]:
        as_sent(d)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert [c["choices"][0]["finish_reason"] for c in chunks][-1] == "stop"
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == ANSWER
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert "café".encode() in response.content
