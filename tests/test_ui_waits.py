"""The window while the model is slow: the sources before its first word, a clock on each
wait, the time left of a long reading, and a stopped reading's notes put to use."""

from __future__ import annotations

import asyncio
import re

from nicegui.testing import User

from app.container import Services
from graph.whole import reading_prompts
from tests.running import eventually
from tests.test_ui_whole import long_text, notes_or_side_calls
from tests.ui_parts import add_file, answer_shows, contents, llm, settled, text_of


async def send(user: User, text: str) -> None:
    user.find(marker="message-input").type(text)
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})


def map_calls(container: Services) -> int:
    return sum("You read one section of a" in call[0]["content"] for call in llm(container).history)


async def test_the_sources_show_before_the_first_word_and_the_wait_is_timed(
    user: User, container: Services, page: None
) -> None:
    model = llm(container)
    gate = asyncio.Semaphore(0)
    model.stream_gate = gate  # the model is reading the prompt: no word yet
    model.enqueue("The spare key is under the blue flowerpot [1].")
    await user.open("/")
    await send(user, "Where is the spare key?")
    await eventually(lambda: model.waiting == 1, what="the answer's call held")

    await eventually(lambda: bool(contents(user, "source")), what="the sources, before a word")
    assert "notes.md" in text_of(contents(user, "source")[0])
    assert not text_of(contents(user, "answer")[-1]).strip()
    status = contents(user, "status")
    assert len(status) == 1 and re.fullmatch(
        r"Reading the (\d+ passages|passage) found…", status[0]
    )
    # The clock beside it counts the seconds of this wait.
    await eventually(
        lambda: re.fullmatch(r"[1-9]\d* s", "".join(contents(user, "elapsed"))) is not None,
        what="the clock ticking",
    )

    gate.release()
    await eventually(lambda: answer_shows(user, "flowerpot"), what="the answer")
    await eventually(lambda: bool(contents(user, "check")), what="the answer done")
    assert contents(user, "elapsed") == [] and contents(user, "status") == []
    assert "notes.md" in text_of(contents(user, "source")[0])  # still there, cited


async def test_a_stopped_summary_keeps_its_notes_for_both_follow_ups(
    user: User, container: Services, page: None
) -> None:
    path = await add_file(container, "long.md", long_text())
    await settled(container, path)
    model = llm(container)
    model.responder = notes_or_side_calls
    gate = asyncio.Semaphore(0)
    model.stream_gate = gate
    await user.open("/")
    box = user.find(marker="message-input")
    box.type("Summarise @lon")
    await user.should_see("long.md", marker="mention-option")
    box.trigger("keydown", {"key": "Enter"})  # picks the file
    box.trigger("keydown", {"key": "Enter"})  # sends
    await eventually(lambda: model.waiting == 1, what="the first section's call")
    assert "left" not in contents(user, "status")[0]
    gate.release()
    await eventually(lambda: container.notes.count() == 1, what="the first note")
    await eventually(lambda: model.waiting == 1, what="the second section's call")
    # Once a note was timed, the line says how long the rest should take.
    await eventually(
        lambda: "left" in "".join(contents(user, "status")), what="the time left shown"
    )
    assert contents(user, "status")[0].startswith("Reading section 2 of ")
    user.find(marker="stop").click()
    await user.should_see(marker="stopped")

    read = text_of("".join(contents(user, "resume-read")))
    assert re.search(
        r"Read before the stop: parts? 1(–\d+)? of \d+ of long\.md\. Its notes are kept", read
    )
    actions = contents(user, "resume-action")
    assert actions == [reading_prompts.SUMMARISE_READ, reading_prompts.CONTINUE_READING]

    model.stream_gate = None
    written = map_calls(container)
    model.enqueue("Paragraph 0 lists terms [1].")
    user.find(marker="resume-action", content=reading_prompts.SUMMARISE_READ).click()
    await eventually(lambda: answer_shows(user, "Written from the notes on part"))
    await eventually(lambda: answer_shows(user, "lists terms"), what="the partial answer")
    assert map_calls(container) == written  # from the kept note alone
    assert text_of(contents(user, "user-text")[-1]) == reading_prompts.SUMMARISE_READ
    await eventually(
        lambda: contents(user, "resume-action") == [reading_prompts.CONTINUE_READING],
        what="reading on still offered",
    )

    model.enqueue("Paragraph 39 ends the notes [2].")
    user.find(marker="resume-action", content=reading_prompts.CONTINUE_READING).click()
    await eventually(lambda: answer_shows(user, "ends the notes"), what="the whole answer")
    await eventually(lambda: bool(contents(user, "check")) and not contents(user, "status"))
    assert map_calls(container) > written
    assert contents(user, "resume-action") == []  # everything is read
    session = container.sessions.list()[0].id
    saved = await container.chat.messages(session)
    assert saved[-1]["trace"]["reading"]["skipped"] == [] and "resume" not in saved[-1]
