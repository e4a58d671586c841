"""What the browser tests share: Debian's Chromium, the app in its own process (as `run.py`
starts it) against the fake Ollama server, logging in with its one-time link, screenshots."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.fakes.ollama_server import FakeOllamaServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.running import eventually

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "browser"
START_TIMEOUT = 120

skip_without_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="needs Debian's chromium (.ci/run installs it)"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_app(
    data: Path,
    ollama: FakeOllamaServer | FakeOpenAIServer,
    *,
    documents: int,
    embed: str = "ollama",
) -> Iterator[str]:
    """The app serving ``data`` until the block ends; yields its login link once
    ``documents`` files are ready in its index (which answers the questions). ``embed``
    "minilm" indexes with the real MiniLM embedder instead of the fake server's vectors.
    A ``FakeOpenAIServer`` answers as LM Studio would (``--llm-api openai``; MiniLM embeds)."""
    how = ["minilm", "openai"] if isinstance(ollama, FakeOpenAIServer) else [embed]
    port = free_port()
    # Not DOCENT_* (the test's own data dir) nor PYTEST_* (NiceGUI would think it is a test).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCENT_", "PYTEST_"))}
    started = time.monotonic()
    log_path = data.parent / "app.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.browser.serve", str(port), str(data), ollama.url, *how],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        while True:  # the app prints its one-time login link once it listens
            if process.poll() is not None:
                raise AssertionError(log_path.read_text())
            found = re.search(r"Log in with (\S+)", log_path.read_text())
            if found:
                link = found.group(1)
                break
            if time.monotonic() - started > START_TIMEOUT:
                raise AssertionError("the app did not start: " + log_path.read_text())
            time.sleep(0.2)
        assert link.startswith(url + "/login?key=")
        assert httpx.get(url + "/", timeout=5).status_code == 401  # locked without the login
        print(f"app listening with its login link {time.monotonic() - started:.1f} s after start")
        token = (data / "api-token").read_text().strip()

        def indexed() -> bool:
            try:  # the API answers once the services are built behind the socket
                listing = httpx.get(
                    url + "/api/documents", headers={"Authorization": f"Bearer {token}"}, timeout=5
                ).json()
            except httpx.TimeoutException:
                return False
            return sum(d["status"] == "ready" for d in listing["documents"]) >= documents

        deadline = time.monotonic() + START_TIMEOUT
        while not indexed():
            assert time.monotonic() < deadline, "the documents were not indexed"
            time.sleep(0.3)
        yield link
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def fresh_shots(name: str) -> Path:
    """artifacts/browser/<name>/, emptied: one test's screenshots."""
    folder = ARTIFACTS / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder


def turn_routes(link: str, data: Path) -> list[dict[str, Any]]:
    """Every answer the app saved, oldest chat first: its route, the router tier that chose
    it and why, and its sources (file, page, cited), read back through the sessions API."""
    url = link.split("/login", 1)[0]
    headers = {"Authorization": f"Bearer {(data / 'api-token').read_text().strip()}"}
    listing = httpx.get(url + "/api/sessions", headers=headers, timeout=10).json()["sessions"]
    turns = []
    for info in reversed(listing):
        session = httpx.get(url + f"/api/sessions/{info['id']}", headers=headers, timeout=10)
        for message in session.json()["messages"]:
            if message["role"] != "assistant":
                continue
            trace = message.get("trace") or {}
            turns.append(
                {
                    "route": trace.get("route"),
                    "by": f"{trace.get('routed_by')}: {trace.get('route_reason')}",
                    "sources": [(s["file"], s["page"], s.get("cited")) for s in message["sources"]],
                }
            )
    return turns


async def open_window(browser: Browser, link: str, *, height: int = 900) -> tuple[Page, list[str]]:
    """A 1400-pixel-wide page logged in with ``link``, its message box ready; and the list
    its uncaught script errors collect in."""
    context = await browser.new_context(viewport={"width": 1400, "height": height})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(link)
    await page.locator("textarea").wait_for()
    return page, errors


ANSWERS = ".docent-md[data-turn]"
CHIPS = ".docent-source-chip:not(.docent-suggestion)"
"""An answer's source chips (the suggestions under it are chips too)."""


async def ask_in_new_chat(
    page: Page, shot: Path, question: str, *, patience: float = 60
) -> tuple[str, list[str]]:
    """Ask ``question`` in a new chat and wait for the whole answer and its suggestions;
    print and screenshot it (to ``shot``), and return its text and its chips' labels.
    ``patience`` is the seconds an answer may take to begin (and again to end)."""
    answers = page.locator(ANSWERS)
    await page.get_by_role("button", name="New chat").click()
    await eventually(lambda: count_is(answers, 0), timeout=patience / 2, what="a new chat")
    box = page.locator("textarea")
    await box.fill(question)
    await box.press("Enter")
    await eventually(lambda: count_is(answers, 1), timeout=patience, what=f"{shot.stem}")
    await page.locator(".docent-streaming").wait_for(state="detached", timeout=patience * 1000)
    await page.locator(".docent-suggestion").last.wait_for(timeout=patience * 500)
    text = await answers.first.inner_text()
    # a chip's text is its icon's name, then its label
    chips = await page.locator(CHIPS).all_inner_texts()
    labels = [label.strip().split("\n")[-1] for label in chips]
    print(f"{shot.stem}: {question!r}\n  answer: {text.strip()!r}\n  chips: {labels}")
    await page.screenshot(path=shot)
    return text, labels


async def count_is(locator: Any, count: int) -> bool:
    """Whether ``locator`` matches ``count`` elements now (for ``eventually``)."""
    return bool(await locator.count() == count)
