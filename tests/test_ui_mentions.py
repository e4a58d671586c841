"""The @ picker in the window: typing @ lists files, keys pick, the pick shows as a chip
in the message box, and is sent as @"name" where it was picked."""

from __future__ import annotations

from nicegui.testing import User

from app.container import Services
from tests.running import eventually
from tests.ui_parts import answer_shows, contents, llm, text_of


def box_value(user: User) -> str:
    return str(user.find(marker="message-input").elements.pop().value)


async def test_typing_at_opens_the_picker_and_enter_inserts_the_file(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    box = user.find(marker="message-input")
    box.type("Where is the key in @no")
    await user.should_see("notes.md", marker="mention-option")
    box.trigger("keydown", {"key": "Enter"})  # picks, does not send
    await user.should_not_see(marker="mention-option")
    await user.should_see("notes.md", marker="picked-file")
    assert box_value(user) == "Where is the key in "  # the chip stands for the name
    assert container.sessions.list() == []
    llm(container).enqueue("Under the flowerpot [1].")
    box.trigger("keydown", {"key": "Enter"})
    await eventually(lambda: answer_shows(user, "Under the flowerpot"), what="the answer")
    bubble = contents(user, "user-text")[0]
    assert "docent-mention-chip" in bubble and '@"' not in text_of(bubble)
    assert container.sessions.list()[0].title.startswith('Where is the key in @"notes.md"')
    titles = contents(user, "session-title")
    assert titles == ["Where is the key in notes.md"]  # the title without the raw syntax


async def test_arrows_move_and_escape_closes(user: User, container: Services, page: None) -> None:
    await user.open("/")
    page_composer = _composer(user)
    page_composer.set_files(["a/alpha.pdf", "b/alpine.md", "c/beta.txt", "notes.md"])
    box = user.find(marker="message-input")
    box.type("@al")
    await user.should_see("alpha.pdf", marker="mention-option")
    box.trigger("keydown", {"key": "ArrowDown"})
    box.trigger("keyup", {"caret": 3, "value": "@al"})  # the arrow's keyup keeps the highlight
    box.trigger("keydown", {"key": "Enter"})
    await user.should_not_see(marker="mention-option")
    await user.should_see("alpine.md", marker="picked-file")
    box.type("and @be")
    await user.should_see("beta.txt", marker="mention-option")
    box.trigger("keydown", {"key": "Escape"})
    await user.should_not_see(marker="mention-option")
    box.trigger("keyup", {"caret": 7, "value": "and @be"})  # Esc's keyup: it stays closed
    await user.should_not_see(marker="mention-option")
    assert box_value(user) == "and @be"  # Esc closes, the text stays
    assert _composer(user).picked[0].path == "b/alpine.md"


async def test_a_picked_chip_can_be_removed(user: User, container: Services, page: None) -> None:
    await user.open("/")
    box = user.find(marker="message-input")
    box.type("Where is the key in @no")
    await user.should_see("notes.md", marker="mention-option")
    box.trigger("keydown", {"key": "Tab"})
    await user.should_see("notes.md", marker="picked-file")
    composer = _composer(user)
    composer._unpick(0)  # what the chip's remove button does
    await user.should_not_see(marker="picked-file")
    assert composer.picked == []


async def test_the_picker_filters_five_thousand_names(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    names = [f"folder{i % 50}/document number {i}.pdf" for i in range(5000)]
    _composer(user).set_files(names)
    user.find(marker="message-input").type("@number 4321")
    await user.should_see("document number 4321.pdf", marker="mention-option")
    assert len(contents(user, "mention-option")) <= 8


def _composer(user: User):  # type: ignore[no-untyped-def]
    from ui.chat.composer import Composer

    textarea = user.find(marker="message-input").elements.pop()
    for listener in textarea._event_listeners.values():
        owner = getattr(listener.handler, "__self__", None)
        if isinstance(owner, Composer):
            return owner
    raise AssertionError("no composer on the page")


async def test_a_file_picked_twice_shows_one_chip(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    box = user.find(marker="message-input")
    box.type("Where is the key in @no")
    await user.should_see("notes.md", marker="mention-option")
    box.trigger("keydown", {"key": "Enter"})
    await user.should_see("notes.md", marker="picked-file")
    await eventually(lambda: bool(_composer(user).picked), what="the first pick")
    box.type(" and again @no")
    await user.should_see("notes.md", marker="mention-option")
    box.trigger("keydown", {"key": "Enter"})
    await user.should_not_see(marker="mention-option")
    assert box_value(user) == "Where is the key in  and again "  # the query still goes
    assert [p.path for p in _composer(user).picked] == ["notes.md"]
    assert contents(user, "picked-file") == ["notes.md"]
    _composer(user).mention("notes.md")  # the library's Mention button, for the same file
    assert [p.path for p in _composer(user).picked] == ["notes.md"]
