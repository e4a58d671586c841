"""The mode menu opens upwards from its button: the button's tooltip sits beside it, so
that it never covers the menu's last entry."""

from __future__ import annotations

from nicegui.testing import User


async def test_the_mode_tooltip_is_beside_the_button_not_over_the_menu(
    user: User, page: None
) -> None:
    await user.open("/")
    (tip,) = user.find(marker="mode-tip").elements
    assert tip.props["anchor"] == "center right" and tip.props["self"] == "center left"
    assert tip.text == "How Docent answers"
    (menu_button,) = user.find(marker="mode").elements
    assert "tooltip" not in menu_button.props  # no second tooltip of its own
