"""The window in a real browser: Debian's Chromium driven by Playwright, against the real app.

The app runs in its own process (as `run.py` starts it) and the browser logs in with the
one-time link it prints; the fake Ollama server answers. Each step saves a screenshot
under artifacts/browser/window/.
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.harness import fresh_shots, running_app, skip_without_chromium
from tests.fakes.ollama_server import FakeOllamaServer
from tests.pdfs import make_pdf
from tests.running import eventually

pytestmark = skip_without_chromium

REPORT_PAGES = [
    "Introduction. This report covers the company's third quarter.",
    "Staff. The team grew to forty people across two offices.",
    "Revenue. Revenue in the third quarter rose to 12 million euros, up 8 percent.",
    "Outlook. The board expects steady growth next year.",
]


ANSWER = (
    "## Revenue\n\nRevenue rose to **12 million euros** in the third quarter [1], "
    "up 8 percent.\n\n| Quarter | Revenue | Change |\n|---|---|---|\n"
    "| Q2 | 11.1 M€ | +3% |\n| Q3 | 12.0 M€ | +8% |\n\n"
    '```python\ngrowth = (12.0 - 11.1) / 11.1\nprint(f"{growth:.0%}")\n```\n\n'
    # Paragraphs, not one long one: the answer must grow taller than the window while it
    # streams, whatever the width its text wraps at.
    + "The board expects steady growth next year [2].\n\n"
    * 40
)


@pytest.fixture
def login_link(tmp_path: Path, ollama: FakeOllamaServer) -> Iterator[str]:
    """The app in its own process with report.pdf indexed; its one-time login link."""
    data = tmp_path / "data"
    make_pdf(data / "documents" / "report.pdf", REPORT_PAGES)
    with running_app(data, ollama, documents=1) as link:
        yield link


@pytest.fixture
def shots() -> Path:
    return fresh_shots("window")


async def test_the_window_in_chromium(
    login_link: str, browser: object, ollama: FakeOllamaServer, shots: Path, tmp_path: Path
) -> None:
    from playwright.async_api import Browser, Page

    assert isinstance(browser, Browser)
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page: Page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    opened = time.monotonic()
    await page.goto(login_link)  # the one-time link sets the login cookie, then shows /
    app_url = login_link.split("/login", 1)[0]
    assert page.url.rstrip("/") == app_url
    cookies = await context.cookies()
    assert any(c["httpOnly"] and c["name"].startswith("docent-") for c in cookies)
    box = page.locator("textarea")
    await box.wait_for()
    await page.locator(".docent-doclist [data-status='ready']").first.wait_for(timeout=60_000)
    print(f"window interactive {time.monotonic() - opened:.1f} s after the page was requested")
    await page.screenshot(path=shots / "01-start.png")

    # Pick a file from the @ popup with the keyboard, then send.
    await box.click()
    await box.press_sequentially("What does @rep", delay=20)
    option = page.locator(".docent-mention-option", has_text="report.pdf")
    await option.wait_for()
    await page.screenshot(path=shots / "02-mention-popup.png")
    await box.press("Enter")
    await page.locator(".docent-mention-popup").wait_for(state="hidden")
    assert await box.input_value() == "What does "  # the pick is a chip, sent in its place
    await page.locator(".docent-composer-chip", has_text="report.pdf").wait_for()
    await box.press_sequentially("say about revenue?", delay=5)
    await box.press("Shift+Enter")  # a new line, not a send
    assert (await box.input_value()).endswith("\n")
    ollama.enqueue_reply(ANSWER, delay=0.03)
    await box.press("Enter")
    await page.locator(".docent-mention-chip").wait_for()

    # Tokens stream in; text typed meanwhile stays in the box.
    streaming = page.locator(".docent-streaming")
    await streaming.wait_for()
    first = len(await streaming.inner_text())
    await eventually(lambda: _longer(streaming, first), timeout=30, what="more tokens to arrive")
    await box.press_sequentially("typed during the stream", delay=5)
    await page.screenshot(path=shots / "03-streaming.png")
    # Scrolled up to read, the reader stays where they are while the answer goes on.
    await eventually(lambda: _scrollable(page), timeout=60, what="a long answer")
    await page.evaluate("window.scrollTo(0, 0)")
    grown = len(await streaming.inner_text())
    await eventually(lambda: _longer(streaming, grown + 40), timeout=30, what="more tokens")
    assert await page.evaluate("window.scrollY") < 40
    await page.screenshot(path=shots / "03b-scrolled-up-while-streaming.png")
    await streaming.wait_for(state="detached", timeout=90_000)
    assert await box.input_value() == "typed during the stream"
    answer = page.locator(".docent-md[data-turn]").last
    assert await answer.locator("h2").count() == 1
    assert await answer.locator(".docent-table table").count() == 1
    assert await answer.locator(".docent-code .docent-copy-code").count() == 1
    await page.screenshot(path=shots / "04-answer.png")
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    await page.screenshot(path=shots / "04b-answer-end.png")

    # A citation opens the PDF inside the window, at the cited page.
    # (a marker citing a page past the first, so "at that page" shows on the screenshot)
    cites = page.locator(".docent-md[data-turn] .docent-cite[data-page]:not([data-page='1'])")
    assert await cites.count()
    cite = cites.first
    cited_page = await cite.get_attribute("data-page")
    assert cited_page and "report.pdf, page" in (await cite.get_attribute("title") or "")
    await cite.click()
    viewer = page.locator(".docent-pdf")
    await viewer.wait_for()
    await eventually(lambda: _attribute(viewer, "data-shown"), timeout=30, what="the PDF drawn")
    assert await viewer.get_attribute("data-shown") == cited_page
    assert await viewer.locator(".docent-pdf-label").inner_text() == f"Page {cited_page} of 4"
    await page.screenshot(path=shots / "05-pdf-viewer.png")
    await page.keyboard.press("Escape")
    await viewer.wait_for(state="detached")

    # Dropping files adds them; they go from indexing to ready, the bar moving on the way.
    for name in ("minutes.pdf", "budget.pdf"):
        filler = f"{name} says the meeting moved to the second floor. " * 45
        make_pdf(tmp_path / name, [f"Page {i}. {filler}" for i in range(1, 13)])
    ollama.embed_delay = 1.0  # two batches of chunks each: indexing can be watched
    await _drop(page, [tmp_path / "minutes.pdf", tmp_path / "budget.pdf"])
    seen_values: set[str] = set()
    seen_details: set[str] = set()
    minutes = page.locator(".docent-doclist [data-path='minutes.pdf']")
    deadline = time.monotonic() + 60
    shot_taken = False
    while time.monotonic() < deadline:
        # One read that never waits: the bar may go between a count and a second look.
        seen_values.update(
            await page.locator(".docent-progress").evaluate_all(
                "bars => bars.slice(0, 1).map(bar => bar.getAttribute('data-value') || '')"
            )
        )
        if await minutes.count():
            seen_details.add(await minutes.inner_text())
            if not shot_taken and await minutes.get_attribute("data-status") == "indexing":
                await page.screenshot(path=shots / "06-indexing.png")
                shot_taken = True
        ready = page.locator(".docent-doclist [data-status='ready']")
        if await ready.count() == 3:
            break
        await page.wait_for_timeout(100)
    assert await page.locator(".docent-doclist [data-status='ready']").count() == 3
    assert len(seen_values) >= 2, seen_values  # the bar moved
    assert any(re.search(r"Indexing · \d+ of 12 pages", d) for d in seen_details), seen_details
    await page.screenshot(path=shots / "07-ready.png")

    # At 420px nothing scrolls sideways, and the drawer closes after a pick.
    narrow = await context.new_page()  # the same login
    await narrow.set_viewport_size({"width": 420, "height": 860})
    await narrow.goto(app_url)
    await narrow.locator("textarea").wait_for()
    await narrow.wait_for_timeout(500)
    await narrow.locator("header button").first.click()  # the menu button opens the drawer
    session = narrow.locator(".docent-session").first
    await session.wait_for()
    await narrow.screenshot(path=shots / "08-narrow-drawer.png")
    await session.click()
    await narrow.locator(".docent-md[data-turn]").first.wait_for()
    await narrow.wait_for_timeout(800)
    drawer_right = await narrow.evaluate(
        "document.querySelector('.q-drawer--left').getBoundingClientRect().right"
    )
    assert drawer_right <= 0  # the drawer closed after the pick
    widths = await narrow.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    await narrow.screenshot(path=shots / "09-narrow-answer.png")
    assert widths[0] <= widths[1], widths
    await narrow.close()

    # Settings: another embedding model rebuilds the index at once, the old one answering
    # meanwhile, with the progress in a banner; then searches use the new model.
    ollama.models = [*ollama.models, "mxbai-embed-large:latest"]
    ollama.embed_delay = 0.7  # a document a step: the banner stays long enough to be seen
    await page.locator("header button:has(i:text-is('settings'))").click()
    field = page.locator(".q-dialog .q-field:has-text('Embedding model')")
    await field.locator("input").fill("mxbai-embed-large")
    await field.locator("input").press("Enter")
    await page.locator(".q-dialog button:has-text('Save')").click()
    await page.locator(".q-dialog :text('Rebuilding the index with')").wait_for(timeout=30_000)
    await page.screenshot(path=shots / "10-settings-embedding.png")
    await page.locator(".q-dialog button:has(i:text-is('close'))").first.click()
    await page.locator(".q-dialog").wait_for(state="detached")
    rebuild = page.locator(".docent-banner:has-text('The index is being rebuilt')")
    await rebuild.locator(":text-matches('[0-9] of 3 documents')").wait_for(timeout=30_000)
    await page.evaluate("window.scrollTo(0, 0)")
    await rebuild.scroll_into_view_if_needed()
    await page.screenshot(path=shots / "11-embedding-rebuild.png")
    assert not await page.locator(":text('Searches now use ollama-nomic')").count()
    await page.locator(":text('Searches now use ollama-mxbai-embed-large')").wait_for(
        timeout=60_000
    )
    await rebuild.wait_for(state="detached")
    await page.screenshot(path=shots / "12-embedding-swapped.png")
    ollama.embed_delay = 0.0
    assert errors == []


async def _scrollable(page: object) -> bool:
    return bool(
        await page.evaluate(  # type: ignore[attr-defined]
            "document.documentElement.scrollHeight > window.innerHeight + 200"
        )
    )


async def _longer(locator: object, than: int) -> bool:
    """More text streamed in, or the stream ended (its last render must not yank either)."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        text = await locator.inner_text(timeout=2000)  # type: ignore[attr-defined]
    except PlaywrightTimeout:  # no streaming answer any more: it ended
        return not await locator.count()  # type: ignore[attr-defined]
    return len(text) > than


async def _attribute(locator: object, name: str) -> bool:
    return bool(await locator.get_attribute(name))  # type: ignore[attr-defined]


async def _drop(page: object, files: list[Path]) -> None:
    """Drop files on the window as a file manager would (a DataTransfer with real files)."""
    payload = [{"name": f.name, "data": base64.b64encode(f.read_bytes()).decode()} for f in files]
    await page.evaluate(  # type: ignore[attr-defined]
        """(files) => {
            const dt = new DataTransfer();
            for (const f of files) {
                const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
                dt.items.add(new File([bytes], f.name, {type: 'application/pdf'}));
            }
            for (const type of ['dragenter', 'dragover', 'drop']) {
                document.body.dispatchEvent(
                    new DragEvent(type, {dataTransfer: dt, bubbles: true, cancelable: true}));
            }
        }""",
        payload,
    )
