"""Chatting in the real window through an OpenAI-compatible model server, as a user would
through LM Studio: the app started with `--llm-api openai --llm-url URL` against the fake
server, a question typed, the answer seen growing word by word and then whole with its
source; the model menu lists the server's models and offers no pull; with the server
stopped, the banner names the model server and what to start. Screenshots go to
artifacts/browser/llm-server/.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import fresh_shots, open_window, running_app, skip_without_chromium
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pdfs import make_pdf
from tests.running import eventually

pytestmark = skip_without_chromium

REPORT = [
    "Introduction. This report covers the company's third quarter.",
    "Revenue. Revenue in the third quarter rose to 12 million euros, up 8 percent.",
]
ANSWER = (
    "Revenue in the third quarter rose to **12 million euros** [1], up 8 percent on the "
    "quarter before, as the report's revenue section says."
)
FOLLOW_UPS = ["What drove the growth?", "How did costs move?", "What is the outlook?"]


def reply(body: dict[str, Any]) -> str:
    """The fake model's reply to one chat completion, chosen by the schema it asks for."""
    format_ = body.get("response_format") or {}
    properties = (format_.get("json_schema") or {}).get("schema", {}).get("properties", {})
    if "suggestions" in properties:
        return json.dumps({"suggestions": FOLLOW_UPS})
    if "route" in properties:
        return json.dumps({"route": "documents"})
    if "query" in properties:
        return json.dumps({"query": body["messages"][-1]["content"].rsplit(":", 1)[-1]})
    return ANSWER


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(token_delay=0.15) as fake:
        fake.responder = reply
        yield fake


@pytest.fixture
def login_link(tmp_path: Path, server: FakeOpenAIServer) -> Iterator[str]:
    data = tmp_path / "data"
    make_pdf(data / "documents" / "report.pdf", REPORT)
    with running_app(data, server, documents=1) as link:
        yield link


async def test_an_answer_streams_from_the_model_server(
    login_link: str, server: FakeOpenAIServer, browser: object
) -> None:
    from playwright.async_api import Browser

    assert isinstance(browser, Browser)
    shots = fresh_shots("llm-server")
    page, errors = await open_window(browser, login_link)
    assert (await page.locator(".docent-model").inner_text()).endswith("qwen2.5-7b-instruct")
    box = page.locator("textarea")
    await box.fill("What was the revenue in the third quarter?")
    await box.press("Enter")

    streaming = page.locator(".docent-streaming")
    await streaming.wait_for(timeout=60_000)
    seen: list[str] = []  # the answer's text each time it was looked at while streaming

    async def grown() -> bool:
        if await streaming.count():
            text = (await streaming.first.inner_text()).strip()
            if text and (not seen or text != seen[-1]):
                seen.append(text)
        return len(seen) >= 3

    await eventually(grown, timeout=30, what="the answer to grow while streaming")
    await page.screenshot(path=shots / "1-streaming.png")
    await streaming.wait_for(state="detached", timeout=60_000)
    answer = page.locator(".docent-md[data-turn]").last
    final = await answer.inner_text()
    assert "12 million euros" in final and "as the report's revenue section says" in final
    assert all(len(part) < len(final) for part in seen[:3])  # seen before it was whole
    await page.locator(".docent-suggestion").last.wait_for(timeout=30_000)
    await page.screenshot(path=shots / "2-answer.png")
    answers = [b for b in server.chat_requests() if "response_format" not in b]
    assert answers and answers[0]["stream"] is True

    await page.locator(".docent-model").click()  # the model menu
    await page.get_by_text("text-embedding-nomic-embed-text-v1.5").wait_for()
    assert await page.get_by_text("Pull a model…").count() == 0
    await page.wait_for_timeout(400)  # the menu's fade-in, for the picture
    await page.screenshot(path=shots / "3-model-menu.png")
    await page.keyboard.press("Escape")

    server.stop()  # LM Studio's server stopped: the next check says so
    banner = page.locator(".docent-banner", has_text="No model server answers at")
    await banner.wait_for(timeout=60_000)
    said = await banner.inner_text()
    assert f"No model server answers at {server.url}" in said and "Start LM Studio" in said
    await page.screenshot(path=shots / "4-server-down.png")
    assert errors == []
