"""The window 420 pixels wide, as on a phone or a window at the screen's edge, against an
OpenAI-compatible model server (whose model names are long): the model's name and the
message box's placeholder are read whole, "Latest" shows only when there is something
below to scroll to, and Esc closes the sidebar that covers the conversation. Screenshots go
to artifacts/browser/narrow/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import fresh_shots, running_app, skip_without_chromium
from tests.browser.serve import OPENAI_MODEL
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pdfs import make_pdf
from tests.running import eventually

pytestmark = skip_without_chromium

REPORT = ["Revenue. Revenue in the third quarter rose to 12 million euros, up 8 percent."]
LONG_ANSWER = "Revenue rose to 12 million euros [1].\n\n" + "It rose by 8 percent [1].\n\n" * 40


def reply(body: dict[str, Any]) -> str:
    format_ = body.get("response_format") or {}
    properties = (format_.get("json_schema") or {}).get("schema", {}).get("properties", {})
    if "suggestions" in properties:
        return json.dumps({"suggestions": ["Why?", "Since when?", "And costs?"]})
    if "route" in properties:
        return json.dumps({"route": "documents"})
    if "query" in properties:
        return json.dumps({"query": "revenue in the third quarter"})
    return LONG_ANSWER


@pytest.fixture
def login_link(tmp_path: Path) -> Iterator[str]:
    data = tmp_path / "data"
    make_pdf(data / "documents" / "report.pdf", REPORT)
    with FakeOpenAIServer() as server:
        server.responder = reply
        with running_app(data, server, documents=1) as link:
            yield link


WHOLE = """(text) => {
  const button = text.closest('.q-btn').getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(text);
  const words = range.getBoundingClientRect();
  const inside = words.left >= button.left - 0.5 && words.right <= button.right + 0.5
    && words.top >= button.top - 0.5 && words.bottom <= button.bottom + 0.5;
  const uncut = text.scrollWidth <= text.clientWidth + 1
    && text.scrollHeight <= text.clientHeight + 1;
  return inside && uncut && words.left >= 0 && words.right <= window.innerWidth;
}"""
"""Whether an element's text is shown whole: not cut by the button it is in, nor by itself."""
PLACEHOLDER_FITS = """(box) => {
  const style = getComputedStyle(box);
  const context = document.createElement('canvas').getContext('2d');
  context.font = style.font;
  const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return {text: box.placeholder, width: context.measureText(box.placeholder).width, room};
}"""
JUMP_SHOWN = "() => getComputedStyle(document.querySelector('.docent-jump')).display !== 'none'"
DRAWER_OPEN = "() => document.querySelector('.q-drawer--left').getBoundingClientRect().right > 0"


async def test_the_window_at_420_pixels(login_link: str, browser: object) -> None:
    from playwright.async_api import Browser

    assert isinstance(browser, Browser)
    shots = fresh_shots("narrow")
    context = await browser.new_context(viewport={"width": 420, "height": 860})
    page = await context.new_page()
    await page.goto(login_link)
    box = page.locator("textarea")
    await box.wait_for()

    # The model's name, whole, inside the window and clear of the buttons beside it.
    model = page.locator(".docent-header .q-btn", has_text=OPENAI_MODEL)
    name = model.locator(".q-btn__content > .block")
    assert (await name.inner_text()).strip() == OPENAI_MODEL
    assert await name.evaluate(WHOLE)
    shown = await name.bounding_box()
    theme = await page.get_by_role("button", name=re.compile("^Theme")).bounding_box()
    assert shown and theme and 0 <= shown["x"] and shown["x"] + shown["width"] <= theme["x"]

    # The placeholder on the box's one line (once the window has told its width).
    async def placeholder_fits() -> bool:
        fits = await box.evaluate(PLACEHOLDER_FITS)
        print("placeholder:", fits)
        return bool(fits["width"] <= fits["room"])

    await eventually(placeholder_fits, what="the placeholder on one line")
    await page.screenshot(path=shots / "01-start-420.png")
    assert not await page.evaluate(JUMP_SHOWN)  # nothing below

    await box.fill("What was the revenue in the third quarter?")
    await box.press("Enter")
    await page.locator(".docent-md[data-turn]").first.wait_for(timeout=60_000)
    await page.locator(".docent-streaming").wait_for(state="detached", timeout=60_000)
    await eventually(lambda: _not(page.evaluate(JUMP_SHOWN)), what="followed to the end")
    await page.screenshot(path=shots / "02-answer-420.png")
    await page.evaluate("window.scrollTo(0, 0)")
    await eventually(lambda: page.evaluate(JUMP_SHOWN), what="Latest, with the answer below")
    await page.screenshot(path=shots / "03-scrolled-up-420.png")

    # The sidebar covers the conversation; Esc closes it; then a new, empty chat.
    await page.get_by_role("button", name="Show or hide the sidebar").click()
    await eventually(lambda: page.evaluate(DRAWER_OPEN), what="the sidebar open")
    await page.screenshot(path=shots / "04-sidebar-420.png")
    await page.keyboard.press("Escape")
    await eventually(lambda: _not(page.evaluate(DRAWER_OPEN)), what="the sidebar closed by Esc")
    await page.get_by_role("button", name="Show or hide the sidebar").click()
    await page.get_by_role("button", name="New chat").click()
    await page.locator(".docent-md[data-turn]").first.wait_for(state="detached")
    await eventually(lambda: _not(page.evaluate(JUMP_SHOWN)), what="no Latest in an empty chat")
    await page.screenshot(path=shots / "05-new-chat-420.png")
    await context.close()


async def _not(value: Any) -> bool:
    return not await value
