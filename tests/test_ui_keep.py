"""Chats people can keep, in the window: their own address, regenerate versions, edit and
send again, thumbs, Copy with sources, export."""

from __future__ import annotations

import asyncio

from nicegui.testing import User

from app.container import Services
from tests.running import eventually
from tests.test_ui import FOUND, send
from tests.test_ui_sessions import _menu
from tests.ui_parts import answer_shows, contents, llm, text_of

OTHER = "Under the blue flowerpot: that is where the spare key is [1]."


async def test_a_chat_address_reopens_it_and_follows_an_answer_still_written(
    user: User, container: Services, page: None
) -> None:
    gate = asyncio.Event()
    llm(container).midway_gate = gate
    llm(container).enqueue("Held " + FOUND)
    turn = container.chat.start_turn("held", "Where is the spare key?")
    await eventually(lambda: bool(turn._events), what="the turn under way")
    await user.open("/chat/held")  # a reload, or a second tab, mid-answer
    # The question is shown although it is saved only with its answer.
    await eventually(
        lambda: [text_of(t) for t in contents(user, "user-text")] == ["Where is the spare key?"],
        what="the question",
    )
    await eventually(lambda: answer_shows(user, "Held"), what="the answer so far")
    assert container.chat.running_turn("held") is not None  # still being written
    gate.set()
    await eventually(lambda: answer_shows(user, "blue flowerpot"), what="the rest of it")
    await user.should_see(marker="source")
    await eventually(lambda: "held" not in container.chat._running, what="the turn's end")


async def test_an_unknown_chat_address_says_so(user: User, page: None) -> None:
    await user.open("/chat/gone")
    await user.should_see("That chat is not here any more")
    await user.should_see(marker="empty-hint")


async def test_regenerate_keeps_the_earlier_answer_to_flip_back_to(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue(FOUND + " [1]", OTHER)
    await user.open("/")
    await send(user, "Where is the spare key?")
    await finished(user, "The spare key is under")
    user.find(marker="regenerate").click()
    await finished(user, "that is where")
    await eventually(lambda: contents(user, "version-label") == ["2/2"], what="the versions")
    assert len(contents(user, "answer")) == 1  # one card, two versions
    user.find(marker="version-back").click()
    await eventually(lambda: contents(user, "version-label") == ["1/2"], what="flipped back")
    assert answer_shows_now(user, "The spare key is under")
    user.find(marker="version-next").click()
    await eventually(lambda: contents(user, "version-label") == ["2/2"], what="flipped on")
    assert answer_shows_now(user, "that is where")
    sid = container.sessions.list()[0].id
    saved = (await container.chat.messages(sid))[-1]
    (earlier,) = saved["versions"]
    assert earlier["content"].startswith("The spare key is under") and earlier["sources"]


async def finished(user: User, needle: str) -> None:
    """Wait for the last answer to show ``needle`` and be done (its actions are shown)."""

    def done() -> bool:
        answers = contents(user, "answer")
        return (
            bool(answers) and needle in text_of(answers[-1]) and bool(_marked(user, "copy-answer"))
        )

    await eventually(done, what=f"a finished answer with {needle!r}")


def answer_shows_now(user: User, needle: str) -> bool:
    return needle in text_of(contents(user, "answer")[-1])


async def test_an_edited_question_is_answered_in_a_branch(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue(FOUND + " [1]", OTHER)
    await user.open("/")
    await send(user, "Where is the key?")
    await finished(user, "The spare key is under")
    original = container.sessions.list()[0].id
    user.find(marker="edit-question").click()
    await user.should_see(marker="edit-dialog")
    user.find(marker="edit-input").clear().type("Where is the spare key kept?")
    user.find(marker="edit-send").click()
    await finished(user, "that is where")
    assert [text_of(t) for t in contents(user, "user-text")] == ["Where is the spare key kept?"]
    assert len(container.sessions.list()) == 2
    kept = [m["content"] for m in await container.chat.messages(original)]
    assert kept[0] == "Where is the key?" and len(kept) == 2  # the original is as it was
    assert kept[1].startswith("The spare key is under")


async def test_thumbs_are_kept_with_the_answer(user: User, container: Services, page: None) -> None:
    llm(container).enqueue(FOUND + " [1]")
    await user.open("/")
    await send(user, "Where is the spare key?")
    await finished(user, "The spare key is under")
    user.find(marker="rate-up").click()
    sid = container.sessions.list()[0].id

    async def feedback() -> object:
        return (await container.chat.messages(sid))[-1].get("feedback")

    await eventually(lambda: bool(_marked(user, "rated")), what="the thumb shown")
    assert await feedback() == "up"
    user.find(marker="rate-up").click()  # a second click takes it back
    await eventually(lambda: not list(_marked(user, "rated")), what="the thumb gone")
    assert await feedback() is None


def _marked(user: User, marker: str) -> list[object]:
    from nicegui import ElementFilter

    with user:
        return list(ElementFilter(marker=marker))


async def test_copy_carries_the_sources(user: User, container: Services, page: None) -> None:
    llm(container).enqueue(FOUND + " [1]")
    await user.open("/")
    await send(user, "Where is the spare key?")
    await finished(user, "The spare key is under")
    (copy,) = user.find(marker="copy-answer").elements
    copied = copy.props["data-copy"]
    assert copied.startswith("The spare key is under the blue flowerpot")
    assert "\n\nSources:\n- [1] notes.md" in copied


async def test_export_from_the_chat_menu(user: User, container: Services, page: None) -> None:
    llm(container).enqueue(FOUND + " [1]")
    await user.open("/")
    await send(user, "Where is the spare key?")
    await finished(user, "The spare key is under")
    await user.should_see("Where is the spare key?", marker="session-title")
    _menu(user, "Where is the spare key?", "session-export-markdown")
    markdown = (await user.download.next(timeout=5)).text
    assert markdown.startswith("# Where is the spare key?")
    assert "## Answer\n\nThe spare key is under" in markdown
    assert "\n\nSources:\n- [1] notes.md" in markdown
    _menu(user, "Where is the spare key?", "session-export-json")
    document = (await user.download.next(timeout=5)).json()
    assert document["messages"][1]["sources"][0]["file"] == "notes.md"
