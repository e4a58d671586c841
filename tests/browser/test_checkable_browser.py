"""An answer a reader can check, in a real Chromium: the model (the fake Ollama server)
gets a number wrong; the window marks that sentence, its tooltip names the number the
document has, and clicking the sentence opens the PDF at the page where PDF.js draws the
true passage highlighted. No CSP violation on the way. Screenshots go to
artifacts/browser/checkable/.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import fresh_shots, open_window, running_app, skip_without_chromium
from tests.fakes.ollama_server import FakeOllamaServer
from tests.pdfs import make_pdf
from tests.running import eventually

pytestmark = skip_without_chromium

TAX = [
    "Tax guide 2024. This guide explains the changes to value added tax for small firms.",
    "Rates. The standard VAT rate rose to 12% in 2024, after ten years at 10%. Reduced "
    "rates still apply to food, books and public transport. Firms must file their returns "
    "every quarter, by the last day of the following month.",
    "Penalties. A late return costs 50 euros, and 5 euros more for every week it is late.",
]
ANSWER = (
    "The standard VAT rate rose to 15% in 2024 [1]. Reduced rates still apply to food, "
    "books and public transport [1]. Firms file their returns every quarter [1]."
)
REPORTED = """
document.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`));
"""


@pytest.fixture
def library(tmp_path: Path, ollama: FakeOllamaServer) -> Iterator[str]:
    data = tmp_path / "data"
    make_pdf(data / "documents" / "tax" / "vat-guide.pdf", TAX)

    def reply(body: dict[str, Any]) -> str | None:
        properties = (body.get("format") or {}).get("properties", {})
        if "suggestions" in properties:
            return json.dumps({"suggestions": ["What about penalties?", "Who files?", "When?"]})
        if "route" in properties:
            return json.dumps({"route": "documents"})
        if "query" in properties:
            return json.dumps({"query": "standard VAT rate 2024"})
        return ANSWER

    ollama.responder = reply
    ollama.token_delay = 0.02
    with running_app(data, ollama, documents=1) as link:
        yield link


async def test_a_wrong_number_is_marked_and_its_passage_highlighted_in_the_pdf(
    library: str, browser: object
) -> None:
    from playwright.async_api import Browser

    assert isinstance(browser, Browser)
    shots = fresh_shots("checkable")
    page, errors = await open_window(browser, library)
    console: list[str] = []
    await page.context.add_init_script(REPORTED)
    await page.reload()
    await page.locator("textarea").wait_for()
    page.context.on("console", lambda message: console.append(message.text))

    await page.locator("textarea").fill("What is the standard VAT rate in 2024?")
    await page.locator("textarea").press("Enter")
    summary = page.locator(".docent-md[data-turn]").last.locator("xpath=../../..")
    # A wrong number is a contradiction: the Check line leads with it, then the tally.
    await page.get_by_text("2 of 3 found").wait_for(timeout=60_000)
    answer = page.locator(".docent-md[data-turn]").last
    marked = answer.locator(".docent-claim-partly").first
    why = await marked.get_attribute("data-why")
    assert why == "The passage says 12%, not 15%."
    assert "15%" in await marked.inner_text()
    assert await answer.locator(".docent-claim-supported").count() >= 1
    assert "The first sentence contradicts the sources · 2 of 3 found" in (
        await summary.inner_text()
    )
    await page.screenshot(path=shots / "01-answer-checked.png")
    await marked.hover()
    await page.wait_for_timeout(300)  # the tooltip is CSS :hover, drawn on the next frame
    await page.screenshot(path=shots / "02-tooltip.png")

    # The sentence opens the PDF at its page, the true passage marked in PDF.js's text layer.
    await marked.click()
    viewer = page.locator(".docent-pdf")
    await viewer.wait_for()
    took = await eventually(lambda: _marked(viewer), timeout=60, what="the PDF drawn and marked")
    print(f"first PDF (PDF.js loaded too) drawn and marked {took:.2f} s after the dialog")
    assert await viewer.get_attribute("data-shown") == "2"
    assert await viewer.get_attribute("data-marked") == "whole"  # all of it, found as is
    highlighted = " ".join(await viewer.locator(".docent-pdf-mark").all_inner_texts())
    assert "12%" in highlighted and "15%" not in highlighted
    assert "standard VAT rate" in highlighted.replace("  ", " ")
    assert await _in_view(page, viewer.locator(".docent-pdf-mark").first)
    await page.screenshot(path=shots / "03-pdf-highlight.png")

    # Its [n] opens the same span; the other pages draw without a mark.
    await page.keyboard.press("Escape")
    await viewer.wait_for(state="detached")
    await answer.locator(".docent-claim-partly .docent-cite").first.click()
    took = await eventually(lambda: _marked(viewer), timeout=60, what="the PDF again")
    print(f"the PDF again drawn and marked {took:.2f} s after the dialog")
    assert await viewer.get_attribute("data-shown") == "2"
    await viewer.locator("button[title='Next page']").click()
    await eventually(lambda: _shown(viewer, "3"), timeout=30, what="page 3")
    assert await viewer.locator(".docent-pdf-mark").count() == 0
    await page.screenshot(path=shots / "04-next-page.png")

    assert not [line for line in console if "CSP violation" in line], console
    assert errors == []


async def _marked(viewer: Any) -> bool:
    return bool(await viewer.get_attribute("data-marked"))


async def _shown(viewer: Any, number: str) -> bool:
    return bool(await viewer.get_attribute("data-shown") == number)


async def _in_view(page: Any, locator: Any) -> bool:
    box = await locator.bounding_box()
    size = page.viewport_size
    return bool(box and 0 <= box["y"] <= size["height"] and 0 <= box["x"] <= size["width"])
