"""A whole document over the HTTP API: the `progress` events of its reading, in the stream,
and a stopped reading taken up by a follow-up message."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from models.protocols import Message
from tests.api_app import api_app
from tests.fakes.chat import FakeChatModel
from tests.running import eventually, read_sse

PAGES = [" ".join(f"page{p} word{w}" for w in range(150)) for p in range(1, 7)]


async def test_reading_a_long_pdf_streams_progress_then_the_answer(tmp_path: Path) -> None:
    async with api_app(tmp_path, pdfs={"long.pdf": PAGES}, context_tokens=2048) as app:
        body = {"message": "Summarise @long.pdf", "mode": "document"}
        async with app.client.stream("POST", "/api/chat", json=body) as response:
            events = await read_sse(response)

    names = [name for name, _ in events]
    progress = [data for name, data in events if name == "progress"]
    assert len(progress) >= 3
    assert all(set(p) == {"done", "total", "text"} for p in progress)
    total = progress[0]["total"]
    assert [p["done"] for p in progress] == list(range(total + 1))
    assert progress[0]["text"].startswith(f"Reading section 1 of {total} (long.pdf, page")
    assert names.index("progress") < names.index("sources") < names.index("token")
    done = dict(events)["done"]
    assert done["trace"]["route"] == "document"
    assert {s["page"] for s in done["sources"]} == set(range(1, 7))


def notes_only(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | None:
    """A section's note, citing each page it was given; the queue keeps the answers."""
    if not messages[0]["content"].startswith("You read one section of a"):
        return None
    labels = re.findall(r"^\[(p\d+)\]$", messages[-1]["content"], re.MULTILINE)
    return " ".join(f"Page {label[1:]} has words [{label}]." for label in labels)


def reading_model() -> FakeChatModel:
    """A model that writes section notes, each stream held at its gate until released."""
    llm = FakeChatModel(token_delay=0.005)
    llm.responder = notes_only
    llm.stream_gate = asyncio.Semaphore(0)
    return llm


async def stop_a_reading(app: Any, llm: FakeChatModel) -> tuple[str, list[tuple[str, Any]]]:
    """Summarise long.pdf over the API and Stop it (the window's Stop) once the first
    section's note is written: the session and the stream's events."""
    assert llm.stream_gate is not None
    body = {"message": "Summarise @long.pdf", "mode": "document"}
    async with app.client.stream("POST", "/api/chat", json=body) as response:
        reading = asyncio.create_task(read_sse(response))
        await eventually(lambda: llm.waiting == 1, what="the first section's call")
        llm.stream_gate.release()
        await eventually(lambda: app.container.notes.count() == 1, what="its note")
        await eventually(lambda: llm.waiting == 1, what="the second section's call")
        session = app.container.sessions.list()[0].id
        assert app.container.chat.cancel(session)
        return session, await reading


async def test_a_stopped_reading_is_taken_up_by_a_follow_up_message(tmp_path: Path) -> None:
    llm = reading_model()
    async with api_app(tmp_path, llm=llm, pdfs={"long.pdf": PAGES}, context_tokens=1024) as app:
        session, events = await stop_a_reading(app, llm)
        done = dict(events)["done"]
        assert done["stopped"] is True
        resume = done["resume"]
        assert resume["actions"] == ["Summarise what was read", "Continue reading"]
        assert re.fullmatch(r"pages? 1(–\d)? of 6 of `long.pdf`", resume["read"])

        llm.stream_gate = None
        saved = (await app.client.get(f"/api/sessions/{session}")).json()["messages"]
        assert saved[-1]["stopped"] is True and saved[-1]["resume"] == resume
        llm.enqueue("Page 1 has words [1].")
        follow = {"message": "Summarise what was read", "session_id": session, "stream": False}
        reply = (await app.client.post("/api/chat", json=follow)).json()
        assert reply["answer"].startswith(f"*Written from the notes on {resume['read']}")
        assert reply["trace"]["route"] == "document" and reply["resume"]["actions"] == [
            "Continue reading"
        ]
        llm.enqueue("Page 6 has words [6].")
        follow["message"] = "Continue reading"
        reply = (await app.client.post("/api/chat", json=follow)).json()
    assert {s["page"] for s in reply["sources"]} == set(range(1, 7))
    assert "resume" not in reply and reply["support"]
