"""Ollama down: the window shows the passages themselves, clean, without their markup."""

from __future__ import annotations

from nicegui.testing import User

from app.container import Container
from graph.readable import readable
from tests.running import eventually
from tests.ui_parts import add_file, answer_shows, contents, llm, settled, text_of

PAGE = """# Wiki page

{% include "header.html" %}
The <b>spare key</b> is kept by [the caretaker](https://example.org/caretaker) on {{ floor }}.
<div class="note">Ask at the desk.</div>
"""


async def test_degraded_passages_show_no_raw_links_html_or_template_tags(
    user: User, container: Container, page: None
) -> None:
    await add_file(container, "wiki.md", PAGE.encode())
    await settled(container, "wiki.md")
    llm(container).reachable = False
    await user.open("/")
    user.find(marker="message-input").type("@wiki.md who keeps the spare key")
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})
    await eventually(lambda: answer_shows(user, "caretaker"), what="the passages")
    shown = text_of(contents(user, "answer")[-1])
    assert "The spare key is kept by the caretaker on . Ask at the desk." in shown
    assert "# Wiki page" in shown  # the file's own Markdown signs, shown as written
    for raw in ("](", "example.org", "<b>", "&lt;", "{%", "{{", "<div", "\\"):
        assert raw not in shown, raw


def test_readable_keeps_the_words_of_links_images_and_entities() -> None:
    assert readable("See ![a map](m.png) and [docs][ref] or <https://x.org>.") == (
        "See a map and docs or https://x.org."
    )
    assert readable("## Setup\n**Bold** &amp; <i>it</i> {# note #}") == "## Setup **Bold** & it"
    assert readable("2 < 3 and a_b") == "2 < 3 and a_b"  # not markup: kept
