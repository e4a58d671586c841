"""The window from the keyboard: the shortcuts Help lists, and names for what has only an
icon (a screen reader reads out an icon's ligature, "content_copy", otherwise)."""

from __future__ import annotations

import re

from nicegui import ui
from nicegui.testing import User

from app.container import Services
from tests.running import eventually
from tests.ui_parts import answer_shows, emit, llm
from ui.chat.composer import PLACEHOLDER, SHORT_PLACEHOLDER
from ui.frame.shortcuts import SHORTCUTS


async def test_help_lists_every_shortcut(user: User, container: Services, page: None) -> None:
    await user.open("/")
    user.find(marker="help").click()
    await user.should_see(marker="shortcuts")
    listed = [e.content for e in user.find(marker="shortcut").elements]
    assert sorted(listed) == sorted(s.what for s in SHORTCUTS)
    for shortcut in SHORTCUTS:
        await user.should_see(shortcut.keys)
    keys = {(s.key, s.mod, s.shift) for s in SHORTCUTS}
    assert len(keys) == len(SHORTCUTS)  # no two actions on one key


async def test_the_shortcuts_do_what_help_says(user: User, container: Services, page: None) -> None:
    llm(container).enqueue("Under the flowerpot [1].")
    await user.open("/")
    drawer = user.find(kind=ui.left_drawer).elements.pop()
    drawer.set_value(True)  # (it starts as the window's width decides: None)
    emit(user, "docent_shortcut", "sidebar")
    await eventually(lambda: drawer.value is False, what="the sidebar hidden")
    emit(user, "docent_shortcut", "sidebar")
    await eventually(lambda: drawer.value is True, what="the sidebar back")
    drawer.set_value(False)
    emit(user, "docent_shortcut", "search")  # search chats: the sidebar opens to its box
    await eventually(lambda: drawer.value is True, what="the sidebar opened to search")

    user.find(marker="message-input").type("Where is the spare key?")
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})
    await eventually(lambda: answer_shows(user, "Under the flowerpot"), what="the answer")
    await user.should_not_see(marker="empty-hint")
    emit(user, "docent_shortcut", "new-chat")
    await user.should_see(marker="empty-hint")  # a new, empty chat


async def test_a_shortcut_pressed_as_the_page_loads_is_not_undone(
    user: User, container: Services, page: None
) -> None:
    # NiceGUI asks the browser on connect whether the drawer is open; Ctrl+K pressed before
    # that answer landed opened the sidebar, and the late answer ("closed", in a narrow
    # window) shut it again.
    user.javascript_rules[re.compile(".*__IS_DRAWER_OPEN__")] = lambda _: False
    await user.open("/")
    drawer = user.find(kind=ui.left_drawer).elements.pop()
    assert drawer.value is None  # not answered yet
    values: list[bool] = []
    drawer.on_value_change(lambda event: values.append(event.value))
    emit(user, "docent_shortcut", "search")
    # Both land, in some order: the browser's answer (closed) and the shortcut's show.
    await eventually(lambda: len(values) == 2, what="the answer and the shortcut")
    assert values == [False, True]  # the answer first: the shortcut has the last word
    assert drawer.value is True


async def test_icon_buttons_and_menus_have_names_and_roles(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue("Under the flowerpot [1].")
    await user.open("/")
    user.find(marker="message-input").type("Where is the spare key?")
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})
    await eventually(lambda: answer_shows(user, "Under the flowerpot"), what="the answer")
    await user.should_see(marker="copy-answer")
    assert user.client is not None
    icon_only = [
        b
        for b in user.client.layout.descendants()
        if isinstance(b, ui.button) and b.props.get("icon") and not b.text
    ]
    assert len(icon_only) >= 8  # header, drawer, composer, answer
    unnamed = [b.props.get("icon") for b in icon_only if not b.props.get("aria-label")]
    assert unnamed == []
    items = [e for e in user.client.layout.descendants() if isinstance(e, ui.menu_item)]
    assert items and all(e.props.get("role") == "menuitem" for e in items)


async def test_esc_closes_the_sidebar_over_a_narrow_window_before_anything_else(
    user: User, container: Services, page: None
) -> None:
    user.javascript_rules[re.compile(".*__IS_DRAWER_OPEN__")] = lambda _: False  # 420 px
    await user.open("/")
    box = user.find(marker="message-input").elements.pop()
    drawer = user.find(kind=ui.left_drawer).elements.pop()
    await eventually(lambda: drawer.value is False, what="the browser's answer: closed")
    emit(user, "docent_width", 420)
    await eventually(lambda: box.props["placeholder"] == SHORT_PLACEHOLDER, what="420 px known")
    drawer.set_value(True)  # over the conversation, as the menu button opens it
    emit(user, "docent_shortcut", "stop")  # what docent.js sends for Esc
    await eventually(lambda: drawer.value is False, what="the sidebar closed by Esc")
    emit(user, "docent_width", 1400)  # beside the conversation: Esc leaves it be
    await eventually(lambda: box.props["placeholder"] == PLACEHOLDER, what="1400 px known")
    drawer.set_value(True)
    emit(user, "docent_shortcut", "stop")
    emit(user, "docent_shortcut", "sidebar")  # after the Esc: it closes what Esc left open
    await eventually(lambda: drawer.value is False, what="the sidebar toggled")
