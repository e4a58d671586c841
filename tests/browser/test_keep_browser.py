"""Chats people can keep, in the real window: a reload mid-answer comes back to the chat's
own address and follows the answer; regenerated versions flip; an edited question is
answered in a branch; a chat exports as Markdown. Screenshots: artifacts/browser/keep/."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import fresh_shots, open_window, running_app, skip_without_chromium
from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import eventually

pytestmark = skip_without_chromium

NOTES = "# Notes\n\nThe spare key is under the blue flowerpot by the back door.\n"
ANSWERS = [
    "The spare key is under the **blue flowerpot** by the back door [1].",
    "Under the blue flowerpot by the back door: that is where the spare key is [1].",
    "The spare key is kept under the blue flowerpot, by the back door [1].",
]


class Replies:
    """The fake model's replies by kind of call; answers in turn, from ANSWERS."""

    def __init__(self) -> None:
        self.answered = 0

    def __call__(self, body: dict[str, Any]) -> str | None:
        properties = (body.get("format") or {}).get("properties", {})
        last = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        if "suggestions" in properties:
            return json.dumps({"suggestions": []})
        if "route" in properties:
            return json.dumps({"route": "documents"})
        if "query" in properties:
            return json.dumps({"query": last.rsplit("Last message:", 1)[-1].strip()})
        if "Question:" not in last:
            return None
        answer = ANSWERS[self.answered % len(ANSWERS)]
        self.answered += 1
        return answer


@pytest.fixture
def login_link(tmp_path: Path, ollama: FakeOllamaServer) -> Iterator[str]:
    data = tmp_path / "data"
    (data / "documents").mkdir(parents=True)
    (data / "documents" / "notes.md").write_text(NOTES, encoding="utf-8")
    ollama.responder = Replies()
    ollama.token_delay = 0.02
    with running_app(data, ollama, documents=1, embed="minilm") as link:
        yield link


async def test_reload_mid_answer_versions_edit_and_export(
    login_link: str, browser: object, ollama: FakeOllamaServer, tmp_path: Path
) -> None:
    from playwright.async_api import Browser

    assert isinstance(browser, Browser)
    shots = fresh_shots("keep")
    page, errors = await open_window(browser, login_link)
    box = page.locator("textarea")
    answers = page.locator(".docent-md[data-turn]")

    # 1. A reload mid-answer: the chat's own address brings it back, still being written.
    gate = threading.Event()
    ollama.stream_gate = gate
    await box.fill("Where is the spare key?")
    await box.press("Enter")
    await page.locator(".docent-streaming").wait_for(timeout=60_000)
    await eventually(lambda: _url_is_chat(page), timeout=30, what="the chat's address")
    address = page.url
    await eventually(lambda: _has_text(answers.first), timeout=30, what="the first words")
    await page.reload()
    await box.wait_for()
    assert page.url == address
    await page.locator(".docent-streaming").wait_for(timeout=30_000)  # re-attached
    bubbles = await page.locator(".docent-bubble").all_inner_texts()
    assert [b.strip() for b in bubbles] == ["Where is the spare key?"]
    await page.screenshot(path=shots / "reloaded-mid-answer.png")
    gate.set()
    ollama.stream_gate = None
    await page.locator(".docent-streaming").wait_for(state="detached", timeout=60_000)
    assert "blue flowerpot" in await answers.first.inner_text()

    # 2. Regenerate keeps the first answer: ‹ 1/2 › flips between them. Pressed from the
    # keyboard, focus goes to the message box, not to the page (its button is gone).
    await _icon_button(page, "refresh").last.focus()
    await page.keyboard.press("Enter")
    await page.get_by_text("2/2", exact=True).wait_for(timeout=60_000)
    await eventually(lambda: _focus_in(page, ".docent-composer"), what="focus in the box")
    await page.locator(".docent-streaming").wait_for(state="detached", timeout=60_000)
    assert "that is where" in await answers.last.inner_text()
    # Flipped from the keyboard, focus stays on the arrows though their row is rebuilt: at
    # 1/2 the earlier arrow is disabled, so it goes to the later one.
    await _icon_button(page, "chevron_left").last.focus()
    await page.keyboard.press("Enter")
    await page.get_by_text("1/2", exact=True).wait_for(timeout=10_000)
    later = '[aria-label="Later answer"]'
    await eventually(lambda: _focus_in(page, later), what="focus on the later arrow")
    assert "that is where" not in await answers.last.inner_text()
    assert "blue flowerpot" in await answers.last.inner_text()
    await page.screenshot(path=shots / "versions.png")
    await _icon_button(page, "chevron_right").last.click()
    await page.get_by_text("2/2", exact=True).wait_for(timeout=10_000)

    # 3. Export from the chat's menu: Markdown with the sources.
    await page.locator(".docent-session").first.hover()
    await page.locator(".docent-session").first.locator("button").click()
    async with page.expect_download() as download_info:
        await page.get_by_text("Export as Markdown").click()
    download = await download_info.value
    exported = Path(await download.path()).read_text(encoding="utf-8")
    assert download.suggested_filename == "Where is the spare key.md"
    assert exported.startswith("# Where is the spare key?")
    assert "### Earlier answer 1 of 2" in exported and "## Answer (2 of 2)" in exported
    assert "Sources:\n- [1] notes.md" in exported

    # 4. Edit the question and send it again: a branch, at its own address.
    await _icon_button(page, "edit").first.click()
    editor = page.locator(".q-dialog textarea")
    await editor.fill("Where exactly is the spare key kept?")
    await page.locator(".q-dialog").get_by_role("button", name="Send").click()
    await eventually(lambda: page.url != address and _url_is_chat(page), what="the branch")
    # The pencil stayed behind in the first chat: focus goes where the next message is typed.
    await eventually(lambda: _focus_in(page, ".docent-composer"), what="focus in the box")
    await page.locator(".docent-streaming").wait_for(state="detached", timeout=60_000)
    bubbles = await page.locator(".docent-bubble").all_inner_texts()
    assert [b.strip() for b in bubbles] == ["Where exactly is the spare key kept?"]
    assert "blue flowerpot" in await answers.last.inner_text()
    assert await page.locator(".docent-session").count() == 2  # the original is kept
    await page.screenshot(path=shots / "branched.png")
    await page.emulate_media(color_scheme="dark")
    await page.screenshot(path=shots / "branched-dark.png")
    assert errors == []


def _icon_button(page: Any, icon: str) -> Any:
    return page.locator("button").filter(has=page.locator(f"i:text-is('{icon}')"))


async def _url_is_chat(page: Any) -> bool:
    return re.search(r"/chat/[0-9a-f]+$", page.url) is not None


async def _has_text(locator: Any) -> bool:
    return await locator.count() > 0 and bool((await locator.inner_text()).strip())


async def test_first_start_models_and_settings_views(login_link: str, browser: object) -> None:
    """The views part 4 and 5 changed, in both themes: the reranker's one offer, the model
    menu (chat and embedding models apart, with sizes), Settings, and a pull by Enter."""
    from playwright.async_api import Browser

    assert isinstance(browser, Browser)
    shots = fresh_shots("first-start")
    page, errors = await open_window(browser, login_link)
    offer = page.get_by_text("Better-ordered sources (optional)")
    await offer.wait_for(timeout=30_000)
    assert await page.get_by_role("button", name="Download (about 4 MB)").count() == 1
    await page.screenshot(path=shots / "offer.png")
    await page.emulate_media(color_scheme="dark")
    await page.screenshot(path=shots / "offer-dark.png")
    await page.emulate_media(color_scheme="light")
    # Answered from the keyboard: the card goes, and focus to the message box, not the page.
    await page.get_by_role("button", name="Not now").focus()
    await page.keyboard.press("Enter")
    await offer.wait_for(state="detached")
    await eventually(lambda: _focus_in(page, ".docent-composer"), what="focus in the box")
    assert await page.locator(".docent-banner").count() == 0  # no "Reranking is off" warning

    await page.locator("header button", has_text="llama3.2").click()
    menu = page.locator(".q-menu")
    await menu.get_by_text("Embedding models").wait_for(timeout=10_000)
    await menu.get_by_text("Q4_K_M").first.wait_for(timeout=10_000)
    await page.screenshot(path=shots / "model-menu.png")
    await menu.get_by_text("Pull a model…").click()
    name = page.locator(".q-dialog input")
    await name.fill("mistral")
    await name.press("Enter")
    await page.get_by_text("mistral is ready.").wait_for(timeout=30_000)
    assert "4 MB of 4 MB" in await page.locator(".q-dialog").inner_text()
    await page.screenshot(path=shots / "pull.png")
    await page.keyboard.press("Escape")

    await _icon_button(page, "settings").click()
    dialog = page.locator(".q-dialog")
    await dialog.get_by_text("Reranking is off: its model").wait_for(timeout=10_000)
    await page.screenshot(path=shots / "settings.png")
    top_k = dialog.get_by_label("Passages per answer (top-k)")
    await top_k.fill("0")
    await dialog.get_by_role("button", name="Save").click()
    await dialog.get_by_text("Top K must be at least 1").wait_for(timeout=30_000)
    await page.emulate_media(color_scheme="dark")
    await page.screenshot(path=shots / "settings-dark.png")
    assert errors == []


async def _focus_in(page: Any, selector: str) -> bool:
    found = await page.evaluate(f"!!document.activeElement.closest({json.dumps(selector)})")
    return bool(found)
