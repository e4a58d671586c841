"""Smaller things in the window: the mode menu's tooltip beside its button (the menu opens
upwards), the help diagram's start and end in words, a timeline with room for its labels."""

from __future__ import annotations

from nicegui.testing import User

from app.container import Services
from ui.dialogs.trace_dialog import timeline_options


async def test_the_mode_tooltip_is_beside_the_button_not_over_the_menu(
    user: User, page: None
) -> None:
    await user.open("/")
    (tip,) = user.find(marker="mode-tip").elements
    assert tip.props["anchor"] == "center right" and tip.props["self"] == "center left"
    assert tip.text == "How Docent answers"
    (menu_button,) = user.find(marker="mode").elements
    assert "tooltip" not in menu_button.props  # no second tooltip of its own


async def test_the_help_diagram_names_its_start_and_end_in_words(
    user: User, container: Services, page: None
) -> None:
    diagram = container.chat.diagram()
    assert "<p>__start__</p>" not in diagram and "<p>__end__</p>" not in diagram
    assert "<p>Your message</p>" in diagram and "<p>The answer</p>" in diagram
    await user.open("/")
    user.find(marker="help").click()
    (graph,) = user.find(marker="help-graph").elements
    assert "Your message" in graph.content and "<p>__start__</p>" not in graph.content


def test_the_trace_timeline_leaves_room_for_its_labels() -> None:
    options = timeline_options([{"node": "router", "ms": 12.5}, {"node": "generator", "ms": 900}])
    assert options["grid"]["containLabel"] and options["grid"]["right"] >= 60
    assert options["xAxis"]["axisLabel"]["hideOverlap"]
