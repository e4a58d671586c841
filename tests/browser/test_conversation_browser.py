"""A five-turn conversation in the real window (Chromium, logged in with the link): typed
questions and clicked follow-ups, a citation opening a Markdown file at the passage, the
whole conversation back after a reload, dark mode and 420px. Screenshots go to
artifacts/browser/conversation/.

The fake Ollama server answers by the kind of call (route, rewrite, suggestions, answer)
and, for answers, by what the question is about, so follow-ups can come in any order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import (
    fresh_shots,
    open_window,
    running_app,
    skip_without_chromium,
    turn_routes,
)
from tests.fakes.ollama_server import FakeOllamaServer
from tests.pdfs import make_pdf
from tests.running import eventually

pytestmark = skip_without_chromium

REPORT = [
    "Introduction. This report covers the company's third quarter.",
    "Staff. The team grew to forty people across two offices.",
    "Revenue. Revenue in the third quarter rose to 12 million euros, up 8 percent.",
    "Outlook. The board expects steady growth next year.",
]
HANDBOOK = """# Staff handbook

## Hours

The office opens at nine and closes at five.

## Holidays

Everyone has twenty-five days of paid holiday a year, plus public holidays.
Ask your manager two weeks ahead.
"""

ANSWERS = [  # (words in the question, the answer)
    ("revenue", "Revenue rose to **12 million euros** in the third quarter [1], up 8 percent."),
    ("people", "The team grew to **forty people** across two offices [1]."),
    (
        "holiday",
        "Everyone has **twenty-five days** of paid holiday a year [1]; ask two weeks ahead.",
    ),
    ("board", "The board expects **steady growth** next year [1]."),
    ("summar", "- Revenue: 12 million euros, up 8 percent [1].\n- Staff: forty people [2]."),
    ("12*7", "12 × 7 is **84**."),
]
ARITHMETIC = re.compile(r"\d\s*[-+*/x×]\s*\d")
FOLLOW_UPS = ["How many people work there?", "What does the board expect?", "Any holidays?"]


def answer_by_kind(body: dict[str, Any]) -> str | None:
    """The fake model's reply for one /api/chat call, chosen by its JSON schema or topic."""
    properties = (body.get("format") or {}).get("properties", {})
    last = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    if "suggestions" in properties:
        return json.dumps({"suggestions": FOLLOW_UPS})
    if "route" in properties:  # as the router's prompt asks: arithmetic is chat
        message = last.rsplit("Message:", 1)[-1]
        return json.dumps({"route": "chat" if ARITHMETIC.search(message) else "documents"})
    if "query" in properties:  # the rewriter: the last message, standing alone
        message = last.rsplit("Last message:", 1)[-1].strip()
        if "summarise" in message.lower():  # "all that": what the conversation was about
            message = "Summarise the revenue and the number of people"
        return json.dumps({"query": message})
    question = last.rsplit("Question:", 1)[-1].lower()
    return next((text for key, text in ANSWERS if key in question), "I can't tell from these.")


@pytest.fixture
def login_link(tmp_path: Path, ollama: FakeOllamaServer) -> Iterator[str]:
    """The app with report.pdf and handbook.md indexed by the real MiniLM embedder, whose
    cosine scale the router's probe and the relevance floor are calibrated on (the fake
    server's vectors are not: its floor turned follow-ups into "nothing found"); its link."""
    data = tmp_path / "data"
    make_pdf(data / "documents" / "report.pdf", REPORT)
    (data / "documents" / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    ollama.responder = answer_by_kind
    ollama.token_delay = 0.03
    with running_app(data, ollama, documents=2, embed="minilm") as link:
        yield link


async def test_a_five_turn_conversation(login_link: str, browser: object) -> None:
    from playwright.async_api import Browser

    assert isinstance(browser, Browser)
    shots = fresh_shots("conversation")
    page, errors = await open_window(browser, login_link)
    box = page.locator("textarea")
    answers = page.locator(".docent-md[data-turn]")

    async def turn(number: int, expect: str, *, ask: str | None = None, chip: str = "") -> None:
        if ask is not None:
            await box.fill(ask)
            await box.press("Enter")
        else:  # a follow-up chip under the last answer
            await page.locator(".docent-suggestion", has_text=chip).last.click()
        await eventually(lambda: _count(answers, number), timeout=60, what=f"answer {number}")
        await page.locator(".docent-streaming").wait_for(state="detached", timeout=60_000)
        text = await answers.nth(number - 1).inner_text()
        assert expect in text and "Nothing in your documents" not in text, text
        await page.locator(".docent-suggestion").last.wait_for(timeout=30_000)
        await page.screenshot(path=shots / f"turn-{number}.png")

    await turn(1, "12 million euros", ask="What was the revenue in the third quarter?")
    await turn(2, "forty people", chip="How many people work there?")
    await turn(3, "twenty-five days", ask="And how many holiday days do we get?")

    # The holiday answer cites the handbook: it opens rendered, the passage highlighted.
    await answers.nth(2).locator(".docent-cite").first.click()
    passage = page.locator("#docent-passage")
    await passage.wait_for()
    assert "twenty-five days" in await passage.inner_text()
    await page.wait_for_timeout(300)
    await page.screenshot(path=shots / "turn-3-citation.png")
    await page.keyboard.press("Escape")
    await passage.wait_for(state="detached")

    await turn(4, "steady growth", chip="What does the board expect?")
    await turn(5, "forty people", ask="Thanks! Summarise all that in two bullets.")
    assert await answers.nth(4).locator("li").count() == 2
    bubbles = await page.locator(".docent-bubble").all_inner_texts()
    assert len(bubbles) == 5 and bubbles[1].strip() == "How many people work there?"

    # The whole conversation comes back from the drawer after a reload, in dark mode too.
    await page.emulate_media(color_scheme="dark")
    await page.reload()
    await page.locator(".docent-session").first.click()
    await eventually(lambda: _count(answers, 5), timeout=30, what="the conversation reopened")
    assert await page.evaluate("document.body.classList.contains('body--dark')")
    await page.screenshot(path=shots / "dark.png")

    # At 420px: the same conversation, nothing scrolling sideways.
    await page.set_viewport_size({"width": 420, "height": 860})
    await page.emulate_media(color_scheme="light")
    await page.wait_for_timeout(800)
    widths = await page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    await page.screenshot(path=shots / "narrow.png")
    assert widths[0] <= widths[1], widths
    assert errors == []


async def test_follow_ups_a_mention_and_a_chat_aside(
    login_link: str, browser: object, tmp_path: Path
) -> None:
    """Five turns: a typed question, a clicked follow-up, an @mention, a chat aside and a
    follow-up back to the documents. Each document turn shows sources (the mention's only
    from the mentioned file); the aside is answered as chat, with none."""
    from playwright.async_api import Browser

    assert isinstance(browser, Browser)
    shots = fresh_shots("conversation-routing")
    page, errors = await open_window(browser, login_link)
    box = page.locator("textarea")
    answers = page.locator(".docent-md[data-turn]")

    async def turn(number: int, expect: str, *, ask: str = "", chip: str = "") -> list[str]:
        """Ask or click, wait for the answer; the labels of its source chips."""
        if ask:
            await box.fill(ask)
            await box.press("Enter")
        else:
            await page.locator(".docent-suggestion", has_text=chip).last.click()
        await eventually(lambda: _count(answers, number), timeout=60, what=f"answer {number}")
        await page.locator(".docent-streaming").wait_for(state="detached", timeout=60_000)
        assert expect in await answers.nth(number - 1).inner_text()
        await page.locator(".docent-suggestion").last.wait_for(timeout=30_000)
        footer = answers.nth(number - 1).locator(
            "xpath=ancestor::*[contains(@class, 'docent-answer-card')]/following-sibling::*[1]"
        )
        chips = footer.locator(".docent-source-chip:not(.docent-suggestion)")
        labels = [t.strip().split("\n")[-1] for t in await chips.all_inner_texts()]
        print(f"turn {number}: {ask or chip!r} -> chips {labels}")
        await page.screenshot(path=shots / f"turn-{number}.png")
        return labels

    labels = await turn(1, "12 million euros", ask="What was the revenue in the third quarter?")
    assert labels and labels[0].startswith("report.pdf")  # cited first; small files: all pages
    labels = await turn(2, "forty people", chip="How many people work there?")
    assert labels and labels[0].startswith("report.pdf")
    labels = await turn(3, "twenty-five days", ask="@handbook.md how many holiday days do we get?")
    assert labels == ["handbook.md"]
    assert await page.locator(".docent-mention-chip", has_text="handbook.md").count() == 1
    labels = await turn(4, "84", ask="thanks! what's 12*7?")
    assert labels == []
    labels = await turn(5, "steady growth", chip="What does the board expect?")
    assert labels and labels[0].startswith("report.pdf")

    turns = turn_routes(login_link, tmp_path / "data")
    for number, saved in enumerate(turns, 1):
        print(f"turn {number}: route {saved['route']} ({saved['by']}) sources {saved['sources']}")
    assert [t["route"] for t in turns] == ["rag", "rag", "rag", "chat", "rag"]
    assert {file for file, _, _ in turns[2]["sources"]} == {"handbook.md"}
    assert turns[3]["sources"] == []
    cited = [next(((f, p) for f, p, c in t["sources"] if c), None) for t in turns]
    assert cited == [
        ("report.pdf", 3),
        ("report.pdf", 2),
        ("handbook.md", None),
        None,
        ("report.pdf", 4),
    ]
    assert errors == []


async def _count(locator: object, at_least: int) -> bool:
    return bool(await locator.count() >= at_least)  # type: ignore[attr-defined]
