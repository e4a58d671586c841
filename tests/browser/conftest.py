"""Fixtures of the browser tests: the fake Ollama server and Debian's Chromium."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.browser.harness import CHROMIUM, FLAGS
from tests.fakes.ollama_server import FakeOllamaServer


@pytest.fixture
def ollama() -> Iterator[FakeOllamaServer]:
    with FakeOllamaServer(token_delay=0.08) as server:
        yield server


@pytest.fixture
async def browser() -> AsyncIterator[object]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        await launched.close()
