"""The conversation in the window, driven in-process with NiceGUI's simulated user."""

from __future__ import annotations

import asyncio

from nicegui.testing import User

from app.container import Services
from tests.network_guard import only_loopback
from tests.running import eventually
from tests.ui_parts import SUGGESTIONS, answer_shows, contents, emit, llm, text_of

FOUND = "The spare key is under the blue flowerpot."
"""A sentence notes.md says: an answer with it is shown, not set aside as not covered."""
SECOND = "Second answer. " + FOUND


async def send(user: User, text: str) -> None:
    user.find(marker="message-input").type(text)
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})


async def test_enter_streams_an_answer_with_its_sources_grouped_by_file(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue("The key is under the blue flowerpot [1]. Also see [2].")
    with only_loopback() as outward:  # the window reaches nothing beyond this machine
        await user.open("/")
        await user.should_see("notes.md")
        await send(user, "Where is the spare key?")
        await user.should_see("Where is the spare key?")
        await eventually(lambda: answer_shows(user, "blue flowerpot [1]"), what="the answer")
        await user.should_see(marker="source")
        await user.should_see("Where is the spare key?", marker="session-title")
    assert outward == []
    html = contents(user, "answer")[-1]
    assert 'class="docent-cite" href="#" data-n="1"' in html  # [n] is a link
    chips = contents(user, "source")
    assert len(chips) == 1 and chips[0].startswith("notes.md")  # one chip per file
    assert user.find(marker="message-input").elements.pop().value == ""


async def test_a_message_typed_during_an_answer_is_kept_and_sent_after(
    user: User, container: Services, page: None
) -> None:
    llm(container).hold_tokens(4)  # the answer stops at word3 until released
    llm(container).enqueue(" ".join(f"word{i}" for i in range(40)), SECOND)
    await user.open("/")
    await send(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "word3"), what="streaming")
    await send(user, "Which flowerpot is the key under?")
    await user.should_see("Sends when this answer ends.")
    box = user.find(marker="message-input").elements.pop()
    assert box.value == "Which flowerpot is the key under?"  # kept, not cleared
    llm(container).release_tokens()
    await eventually(lambda: answer_shows(user, "Second answer."), timeout=20, what="2nd answer")
    assert box.value == ""
    bubbles = [text_of(t) for t in contents(user, "user-text")]
    assert bubbles == ["Where is the spare key?", "Which flowerpot is the key under?"]
    for shown in contents(user, "queued") + contents(user, "status"):
        assert container.sessions.list()[0].id not in shown  # no internal id shown


async def test_a_queued_message_goes_when_the_answer_ends_not_after_the_follow_ups(
    user: User, container: Services, page: None
) -> None:
    model = llm(container)
    model.hold_tokens(4)  # the answer stops at word3 until released
    model.enqueue(" ".join(f"word{i}" for i in range(30)), SECOND)
    model.json_gate = asyncio.Event()  # the follow-up suggestions are slow to come
    await user.open("/")
    await send(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "word3"), what="streaming")
    await send(user, "Which flowerpot is the key under?")
    await user.should_see("Sends when this answer ends.")
    model.release_tokens()
    await eventually(lambda: answer_shows(user, "Second answer."), timeout=20, what="2nd answer")
    await user.should_not_see(marker="suggestion")  # still held: not waited for
    model.json_gate.set()
    await eventually(lambda: len(contents(user, "suggestion")) == 3, what="the follow-ups")
    bubbles = [text_of(t) for t in contents(user, "user-text")]
    assert bubbles == ["Where is the spare key?", "Which flowerpot is the key under?"]


async def test_a_follow_up_chip_sends_it_and_only_the_last_answer_keeps_chips(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue("Under the flowerpot [1].", "Nobody else [1].")
    await user.open("/")
    await send(user, "Where is the spare key?")
    await eventually(lambda: len(contents(user, "suggestion")) == 3, what="the follow-ups")
    user.find(marker="suggestion", content=SUGGESTIONS[0]).click()
    await eventually(lambda: answer_shows(user, "Nobody else"), what="the second answer")
    await eventually(lambda: len(contents(user, "user-text")) == 2, what="two questions")
    assert text_of(contents(user, "user-text")[1]) == SUGGESTIONS[0]
    await eventually(lambda: len(contents(user, "suggestion")) == 3, what="the new follow-ups")
    assert len(contents(user, "suggestions")) == 1  # under the last answer only


async def test_the_status_chip_follows_the_graph(
    user: User, container: Services, page: None
) -> None:
    llm(container).json_gate = asyncio.Event()  # a follow-up: the rewriter is held
    llm(container).gated_property = "query"
    llm(container).enqueue(
        "Under the flowerpot [1].", " ".join(f"word{i}" for i in range(30)) + ". " + FOUND
    )
    await user.open("/")
    await send(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "flowerpot"), what="the first answer")
    llm(container).hold_tokens(1)  # the second answer stops at its first word
    await send(user, "And the back door?")
    # The held call is the rewriter's: the line says so (and its clock runs).
    await eventually(
        lambda: contents(user, "status")[-1:] == ["Rewriting the follow-up as a search…"]
    )
    llm(container).json_gate.set()
    await eventually(lambda: contents(user, "status")[-1:] == ["Writing the answer…"])
    await eventually(lambda: answer_shows(user, "word0"), what="the answer's first word")
    llm(container).release_tokens()
    await eventually(lambda: answer_shows(user, "word29"), what="the answer")
    await eventually(lambda: len(contents(user, "check")) == 2, what="the answer checked")
    assert contents(user, "status") == []  # gone once the answer is written


async def test_stop_keeps_the_partial_answer_marked_stopped(
    user: User, container: Services, page: None
) -> None:
    llm(container).hold_tokens(3)  # the answer stops at word2: Stop comes mid-answer
    llm(container).enqueue(" ".join(f"word{i}" for i in range(200)))
    await user.open("/")
    await send(user, "Tell me everything about the spare key")
    await eventually(lambda: answer_shows(user, "word2"), what="streaming")
    await user.should_see(marker="stop")
    user.find(marker="stop").click()
    await user.should_see(marker="stopped")
    shown = text_of(contents(user, "answer")[-1])
    assert "word2" in shown and "word199" not in shown
    await user.should_see(marker="send")
    session = container.sessions.list()[0].id
    saved = await container.chat.messages(session)
    assert saved[-1]["stopped"] is True and saved[-1]["content"] == shown.strip()


async def test_escape_stops_too(user: User, container: Services, page: None) -> None:
    llm(container).hold_tokens(3)  # the answer stops at word2: Esc comes mid-answer
    llm(container).enqueue(" ".join(f"word{i}" for i in range(200)))
    await user.open("/")
    await send(user, "Tell me everything about the spare key")
    await eventually(lambda: answer_shows(user, "word2"), what="streaming")
    emit(user, "docent_shortcut", "stop")  # what docent.js sends for Esc
    await user.should_see(marker="stopped")


async def test_an_earlier_session_reopens_with_its_sources(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue("Under the flowerpot [1].")
    await container.chat.start_turn("old", "Where is the spare key?").result()
    await user.open("/")
    user.find(marker="session").click()
    await eventually(lambda: answer_shows(user, "Under the flowerpot"), what="the old answer")
    await user.should_see(marker="source")
    await user.should_see(marker="why-sources")


async def test_new_chat_mid_answer_keeps_the_answer(
    user: User, container: Services, page: None
) -> None:
    long_answer = " ".join(f"word{i}" for i in range(60)) + " [1]. " + FOUND
    llm(container).enqueue(long_answer)
    await user.open("/")
    await send(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "word1"), what="streaming")
    user.find(marker="new-chat").click()
    await user.should_see(marker="empty-hint")

    async def finished() -> bool:
        return not container.chat.is_busy(container.sessions.list()[0].id)

    await eventually(finished, what="the turn to finish")
    user.find(marker="session").click()
    # Its mark is gone: the notes don't say "word0 … word59".
    await eventually(lambda: answer_shows(user, "word59."), what="the whole answer")


async def test_regenerate_and_copy_are_one_click(
    user: User, container: Services, page: None
) -> None:
    first, second = "First try. " + FOUND, "Second try. " + FOUND
    llm(container).enqueue(first, second)
    await user.open("/")
    await send(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "First try."), what="the answer")
    await user.should_see(marker="copy-answer")  # the answer is done
    copy = user.find(marker="copy-answer").elements.pop()
    assert any(
        "First try." in str(listener.js_handler) for listener in copy._event_listeners.values()
    )
    user.find(marker="regenerate").click()
    await eventually(lambda: answer_shows(user, "Second try."), what="the new answer")
    session = container.sessions.list()[0].id
    await eventually(lambda: not container.chat.is_busy(session), what="the answer done")
    saved = await container.chat.messages(session)
    assert [m["content"] for m in saved][0] == "Where is the spare key?"
    assert saved[1]["content"].startswith("Second try.")
    await eventually(
        lambda: [text_of(a).strip() for a in contents(user, "answer")] == [saved[1]["content"]],
        what="only the new answer, as saved",
    )


async def test_mode_selector_explains_and_applies_each_mode(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    await user.should_see("Always answers from your documents, with citations.")
    user.find(marker="mode-chat").click()
    await user.should_see("Chat", marker="mode")
    await send(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "Echo: Where is the spare key?"), what="chat")
    assert contents(user, "source") == []  # chat mode searched nothing
    await user.should_see("How was this answered?", marker="why-sources")
    await user.should_not_see("Why these sources?")


async def test_banner_says_how_to_fix_ollama_and_retry_clears_it(
    user: User, container: Services, page: None
) -> None:
    llm(container).reachable = False
    await container.health.check_now()
    await user.open("/")
    await user.should_see("ollama serve", marker="banner-text")
    await user.should_see("most relevant passages")
    await send(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "spare key"), what="the degraded answer")
    llm(container).reachable = True
    user.find(marker="banner-retry").click()
    await user.should_not_see(marker="banner-server_down")


async def test_a_message_with_quotes_and_lines_is_shown_as_typed(
    user: User, container: Services, page: None
) -> None:
    text = 'Where is the "spare key" & <tags>\nsecond line'
    await user.open("/")
    await send(user, text)
    await eventually(lambda: bool(contents(user, "answer")), what="the answer")
    bubble = contents(user, "user-text")[0]
    assert "&quot;" not in text_of(bubble) and "&lt;tags&gt;" in bubble
    assert "second line" in bubble
