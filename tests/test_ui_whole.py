"""The window's "Whole documents" mode, and the progress of a long reading."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from nicegui.testing import User

from app.container import Services
from graph.whole import reading_prompts
from models.protocols import Message
from tests.running import eventually
from tests.ui_parts import add_file, answer_shows, contents, llm, settled, side_calls


def notes_or_side_calls(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | None:
    """A section's note for map calls; the queue keeps the answer."""
    if messages[0]["content"].startswith(reading_prompts.MAP_SYSTEM[:30]):
        return "Many terms are listed [s1]."
    return side_calls(messages, schema)


def long_text(parts: int = 40) -> bytes:
    """Far more than one model context of Markdown: read in several sections."""
    paragraphs = [
        f"Paragraph {i}: " + " ".join(f"term{i}x{j}" for j in range(200)) for i in range(parts)
    ]
    return ("# Long notes\n\n" + "\n\n".join(paragraphs) + "\n").encode()


async def test_whole_documents_mode_shows_the_reading_progress_then_the_answer(
    user: User, container: Services, page: None
) -> None:
    path = await add_file(container, "long.md", long_text())
    await settled(container, path)
    model = llm(container)
    model.responder = notes_or_side_calls
    gate = asyncio.Semaphore(0)
    model.stream_gate = gate
    await user.open("/")
    user.find(marker="mode").click()
    await user.should_see("Reads the named files from first page to last")
    user.find(marker="mode-document").click()
    await user.should_see("Whole documents", marker="mode")

    box = user.find(marker="message-input")
    box.type("What are the highlights of @lon")
    await user.should_see("long.md", marker="mention-option")
    box.trigger("keydown", {"key": "Enter"})  # picks the file
    box.trigger("keydown", {"key": "Enter"})  # sends
    await eventually(lambda: model.waiting == 1, what="the first section's call")
    await user.should_see("Reading section 1 of", marker="status")
    assert contents(user, "progress")  # the bar is shown while it reads

    model.enqueue("The notes list many terms [1].")
    model.stream_gate = None
    for _ in range(100):  # every waiting call goes on; later ones no longer wait
        gate.release()
    await eventually(lambda: answer_shows(user, "many terms"), what="the answer")
    await eventually(lambda: not contents(user, "progress"), what="the bar hidden")
    await eventually(lambda: bool(contents(user, "check")), what="the answer checked")
    session = container.sessions.list()[0].id
    saved = await container.chat.messages(session)
    assert saved[-1]["trace"]["route"] == "document"
    assert saved[-1]["trace"]["routed_by"] == "mode"
    user.find(marker="why-sources").click()
    await user.should_see("route: document", marker="trace-route")
    await user.should_see("Read long.md in ", marker="trace-reading")
    await user.should_see("written now, 0 from notes kept earlier.", marker="trace-reading")
