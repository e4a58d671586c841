"""Ollama down: the window shows the passages themselves, clean, without their markup."""

from __future__ import annotations

from nicegui.testing import User

from app.container import Services
from graph.readable import readable, readable_markdown
from tests.running import eventually
from tests.ui_parts import add_file, answer_shows, contents, llm, settled, text_of
from ui.library.viewer import without_template_markup

PAGE = """# Wiki page

{% include "header.html" %}
The <b>spare key</b> is kept by [the caretaker](https://example.org/caretaker) on {{ floor }}.
<div class="note">Ask at the desk.</div>
"""


async def test_degraded_passages_show_no_raw_links_html_or_template_tags(
    user: User, container: Services, page: None
) -> None:
    await add_file(container, "wiki.md", PAGE.encode())
    await settled(container, "wiki.md")
    llm(container).reachable = False
    await user.open("/")
    user.find(marker="message-input").type("@wiki.md who keeps the spare key")
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})
    await eventually(lambda: answer_shows(user, "caretaker"), what="the passages")
    html = contents(user, "answer")[-1]
    shown = " ".join(text_of(html).split())
    assert "The spare key is kept by the caretaker on . Ask at the desk." in shown
    # The passage's Markdown is rendered, set apart in a quote, without heading marks.
    assert "<blockquote>" in html and "Wiki page" in shown
    for raw in ("# Wiki", "](", "example.org", "<b>", "&lt;", "{%", "{{", "<div", "\\"):
        assert raw not in shown, raw


def test_readable_markdown_keeps_lines_and_drops_heading_marks() -> None:
    assert readable_markdown("## Setup\n\n**Bold** [docs](x.md) {% raw %}") == (
        "Setup\n\n**Bold** docs"
    )


def test_readable_keeps_the_words_of_links_images_and_entities() -> None:
    assert readable("See ![a map](m.png) and [docs][ref] or <https://x.org>.") == (
        "See a map and docs or https://x.org."
    )
    assert readable("## Setup\n**Bold** &amp; <i>it</i> {# note #}") == "## Setup **Bold** & it"
    assert readable("2 < 3 and a_b") == "2 < 3 and a_b"  # not markup: kept


def test_previews_hide_front_matter_and_template_tags_where_they_were() -> None:
    text = "---\ntitle: Keys\nlayout: page\n---\n# Keys\n\n{% include nav.html %}The key is here.\n"
    shown = without_template_markup(text)
    assert len(shown) == len(text)  # a passage's offsets still point at its words
    assert shown.index("The key is here.") == text.index("The key is here.")
    assert "title:" not in shown and "{%" not in shown and "---" not in shown
    assert "# Keys" in shown
    assert without_template_markup("No front matter --- here.") == "No front matter --- here."
