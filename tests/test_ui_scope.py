"""The window's coverage line, its scope chip, a folder's new chat and @folder/."""

from __future__ import annotations

from nicegui.testing import User

from app.container import Services
from tests.running import eventually
from tests.ui_parts import add_file, answer_shows, contents, llm, settled, text_of
from ui.answer.coverage_line import coverage_line
from ui.chat.mention_picker import MentionIndex


async def send(user: User, text: str) -> None:
    user.find(marker="message-input").type(text)
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})


def test_the_coverage_line_says_what_was_read() -> None:
    found = {
        "documents_read": 12,
        "documents_matched": 12,
        "documents_in_scope": 40,
        "pages_read": 48,
    }
    assert coverage_line(found, 12) == "Read 12 of 12 matching documents (48 pages)"
    best = {
        "documents_read": 3,
        "documents_matched": None,
        "documents_in_scope": 9,
        "pages_read": 6,
    }
    assert coverage_line(best, 6) == "Read the 6 best passages from 3 documents (9 searched)"
    none = {**found, "documents_read": 0, "documents_matched": 0, "pages_read": 0}
    assert coverage_line(none, 0) == "No match in 40 documents searched"
    assert coverage_line(None, 0) is None
    whole = {**best, "documents_read": 1, "documents_in_scope": 1, "pages_read": 25}
    assert coverage_line({**whole, "whole": True}, 9) == "Read the whole document (25 pages)"
    two = {**whole, "documents_read": 2, "pages_read": 106, "whole": True}
    assert coverage_line(two, 9) == "Read 2 whole documents (106 pages)"


def test_the_picker_offers_folders_by_their_path() -> None:
    index = MentionIndex(["tax/2024/return.pdf", "notes.md"])
    (folder, *_) = [c for c in index.search("2024") if c.path.endswith("/")]
    assert folder.path == "tax/2024/" and index.token(folder) == '@"tax/2024/"'
    assert {c.path for c in index.search("tax")} >= {"tax/", "tax/2024/"}


async def test_an_answer_shows_its_coverage(user: User, container: Services, page: None) -> None:
    llm(container).enqueue("The key is under the blue flowerpot [1].")
    await user.open("/")
    await send(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "blue flowerpot"), what="the answer")
    await user.should_see(marker="coverage")
    (line,) = contents(user, "coverage")
    assert text_of(line) == "Read the best passage from 1 document (1 searched)"


async def test_a_new_chat_about_a_folder_keeps_its_scope(
    user: User, container: Services, page: None
) -> None:
    path = await add_file(container, "return.md", b"The tax return was filed in May.\n", "tax")
    await settled(container, path)
    llm(container).enqueue("In May [1].")
    await user.open("/")
    await user.should_see("tax", marker="folder")
    user.find(marker="folder-chat").click()
    await user.should_see("tax/", marker="scope-chip")
    await send(user, "When was the tax return filed?")
    await eventually(lambda: answer_shows(user, "In May"), what="the answer")
    (session,) = container.sessions.list()
    assert await container.chat.scope(session.id) == ["tax/"]
    messages = await container.chat.messages(session.id)
    assert {s["path"] for s in messages[-1]["sources"]} == {"tax/return.md"}
    user.find(marker="new-chat").click()
    await eventually(lambda: not contents(user, "scope-chip"), what="chip gone in a new chat")
    # Opened again, the session shows the scope it keeps (read from its checkpoint).
    user.find(marker="session").click()
    await user.should_see("tax/", marker="scope-chip")
