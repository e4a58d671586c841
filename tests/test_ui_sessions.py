"""Chats in the drawer: by day, the open one highlighted, rename, delete, search."""

from __future__ import annotations

from datetime import date

from nicegui import ElementFilter
from nicegui.testing import User
from nicegui.testing.user_interaction import UserInteraction

from app.container import Services
from tests.running import eventually
from tests.ui_parts import contents, llm
from ui.chat.session_list import day_label


def test_days_read_as_a_person_says_them() -> None:
    today = date(2026, 3, 12)
    assert day_label("2026-03-12T08:00:00+00:00", today) in ("Today", "Yesterday")
    assert day_label("2026-03-10T12:00:00+00:00", today) == "Previous 7 days"
    assert day_label("2026-02-20T12:00:00+00:00", today) == "Previous 30 days"
    assert day_label("2025-11-02T12:00:00+00:00", today) == "November 2025"
    assert day_label("not a date", today) == "Older"


async def test_the_open_chat_is_highlighted_and_new_chat_clears_it(
    user: User, container: Services, page: None
) -> None:
    await container.chat.start_turn("one", "First chat").result()
    await container.chat.start_turn("two", "Second chat").result()
    await user.open("/")
    assert sorted(contents(user, "session-title")) == ["First chat", "Second chat"]
    await user.should_see("Today", marker="session-day")
    rows = user.find(marker="session").elements
    assert not any("docent-current" in row.classes for row in rows)
    _row(user, "First chat").click()
    await eventually(lambda: contents(user, "user-text") == ["First chat"], what="the chat")
    assert contents(user, "answer")
    current = [e for e in user.find(marker="session").elements if "docent-current" in e.classes]
    assert len(current) == 1
    user.find(marker="new-chat").click()
    await user.should_see(marker="empty-hint")
    assert llm(container)  # the fake answered both


def _row(user: User, title: str) -> UserInteraction:
    """The clickable row of the chat with ``title``."""
    for row in user.find(marker="session").elements:
        with user:
            labels = [
                e.text
                for e in ElementFilter(marker="session-title", local_scope=False)
                if e.parent_slot
                and e.parent_slot.parent.parent_slot
                and e.parent_slot.parent.parent_slot.parent is row
            ]
        if title in labels:
            return UserInteraction(user, {row}, None)
    raise AssertionError(f"no chat titled {title}")


async def test_rename_delete_and_search(user: User, container: Services, page: None) -> None:
    await container.chat.start_turn("one", "Where is the spare key?").result()
    await container.chat.start_turn("two", "What colour is the flowerpot?").result()
    await user.open("/")
    _menu(user, "Where is the spare key?", "session-rename")
    await user.should_see(marker="rename-dialog")
    box = user.find(marker="rename-input")
    box.clear().type("Spare key")
    user.find(marker="rename-save").click()
    await eventually(lambda: "Spare key" in contents(user, "session-title"), what="the rename")
    assert container.sessions.get("one").title == "Spare key"  # type: ignore[union-attr]
    user.find(marker="session-search").type("colour")
    await eventually(
        lambda: contents(user, "session-title") == ["What colour is the flowerpot?"],
        what="the search",
    )
    # Words of an answer find its chat too: both answers say where the key is.
    user.find(marker="session-search").clear().type("blue flowerp")
    await eventually(
        lambda: (
            sorted(contents(user, "session-title"))
            == ["Spare key", "What colour is the flowerpot?"]
        ),
        what="the search over messages",
    )
    user.find(marker="session-search").clear()
    _menu(user, "What colour is the flowerpot?", "session-delete")
    await user.should_see(marker="delete-session-dialog")
    assert container.sessions.get("two") is not None  # nothing gone before the confirmation
    user.find(marker="confirm-delete-session").click()
    await eventually(lambda: container.sessions.get("two") is None, what="the delete")
    assert await container.chat.messages("two") == []
    await eventually(lambda: contents(user, "session-title") == ["Spare key"], what="the list")


def _menu(user: User, title: str, item: str) -> None:
    """Click ``item`` in the menu of the chat titled ``title``."""
    row = next(iter(_row(user, title).elements))
    with user:
        entries = [e for e in ElementFilter(marker=item) if _inside(e, row)]
    UserInteraction(user, set(entries), None).click()


def _inside(element: object, ancestor: object) -> bool:
    node = element
    while node is not None:
        if node is ancestor:
            return True
        slot = getattr(node, "parent_slot", None)
        node = slot.parent if slot else None
    return False
