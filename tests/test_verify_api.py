"""POST /api/verify and MCP's verify: any text checked against the library, sentence by
sentence, in the real app around fakes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from graph.retrieval.turn_search import Search
from tests.api_app import api_app, error_code
from tests.running import RunningApp

BOILER = "The boiler was serviced on 3 March 2024. It costs 120 euros a year to maintain.\n"
KETTLE = ["The kettle must be descaled every month.", "Warranty: two years from purchase."]
PASTED = (
    "The boiler was serviced on 3 March 2024. Maintaining it costs 150 euros a year.\n\n"
    "- The kettle must be descaled every month.\n"
    "- Penguins migrate south to breed in winter."
)


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    async with api_app(
        tmp_path,
        files={"home/boiler.txt": BOILER},
        pdfs={"home/kettle.pdf": KETTLE},
        verify_max_chars=2_000,
    ) as running:
        yield running


async def verify(app: RunningApp, text: str, **body: Any) -> list[dict[str, Any]]:
    response = await app.client.post("/api/verify", json={"text": text, **body})
    assert response.status_code == 200, response.text
    return list(response.json()["sentences"])


async def test_a_pasted_text_is_checked_sentence_by_sentence(app: RunningApp) -> None:
    begun: list[Search] = []
    begin = app.container.retriever.begin

    def counted() -> Search:
        begun.append(begin())
        return begun[-1]

    app.container.retriever.begin = counted  # type: ignore[method-assign]
    sentences = await verify(app, PASTED)
    assert len(begun) == 1  # one search for the whole text, not one per sentence
    assert [s["verdict"] for s in sentences] == ["supported", "partly", "supported", "unsupported"]
    for sentence in sentences:
        assert PASTED[sentence["start"] : sentence["end"]] == sentence["text"]
    serviced, cost, kettle, penguins = sentences
    assert (cost["missing"], cost["found"]) == (["150"], {"150": "120"})
    assert cost["source"]["path"] == "home/boiler.txt"
    assert cost["source"]["text"] == "It costs 120 euros a year to maintain."
    assert (
        BOILER[cost["source"]["page_start"] : cost["source"]["page_end"]]
        == (cost["source"]["text"])
    )
    assert (kettle["source"]["file"], kettle["source"]["page"]) == ("kettle.pdf", 1)
    assert penguins["source"] is None and penguins["missing"] == []


async def test_files_and_scope_limit_what_the_text_is_checked_against(app: RunningApp) -> None:
    only_kettle = await verify(app, PASTED, files=["kettle.pdf"])
    assert [s["verdict"] for s in only_kettle] == [
        *("unsupported", "unsupported", "supported", "unsupported")
    ]
    home = await verify(app, PASTED, scope="home/")
    assert [s["verdict"] for s in home][:3] == ["supported", "partly", "supported"]
    boiler = await verify(app, PASTED, scope="home", files=["boiler.txt"])  # both apply
    assert [s["verdict"] for s in boiler] == ["supported", "partly", "unsupported", "unsupported"]
    outside = await app.client.post(
        "/api/verify", json={"text": PASTED, "scope": "home/", "files": ["notes.md"]}
    )
    assert outside.status_code == 404 and error_code(outside) == "scope_empty"
    response = await app.client.post("/api/verify", json={"text": PASTED, "scope": "tax/2024/"})
    assert response.status_code == 404 and error_code(response) == "scope_empty"
    assert "tax/2024/" in response.json()["error"]["message"]


async def test_a_text_over_the_limit_is_refused_with_413(app: RunningApp) -> None:
    response = await app.client.post("/api/verify", json={"text": "word " * 500})
    assert response.status_code == 413 and error_code(response) == "text_too_long"
    assert "2,000" in response.json()["error"]["message"]


def mcp_client(app: RunningApp) -> Client:
    headers = {"Authorization": f"Bearer {app.container.token}"}
    transport = streamable_http_client(
        f"{app.url}/mcp", http_client=httpx2.AsyncClient(headers=headers, timeout=30)
    )
    return Client(transport)


async def test_the_mcp_tool_gives_what_the_route_gives(app: RunningApp) -> None:
    route = await verify(app, PASTED, scope="home/")
    async with mcp_client(app) as client:
        result = await client.call_tool("verify", {"text": PASTED, "scope": "home/"})
        empty = await client.call_tool("verify", {"text": PASTED, "scope": "tax/"})
    assert not result.is_error
    tool = result.structured_content["sentences"]
    assert [(s["text"], s["verdict"], s["missing"]) for s in tool] == [
        (s["text"], s["verdict"], s["missing"]) for s in route
    ]
    assert tool[1]["source"]["text"] == route[1]["source"]["text"]
    assert empty.is_error and "tax/" in empty.content[0].text


async def test_small_talk_has_nothing_to_check(app: RunningApp) -> None:
    text = "Ok. Thanks! The kettle must be descaled every month. Sure."
    sentences = await verify(app, text)
    assert [(s["text"], s["verdict"]) for s in sentences] == [
        ("Ok.", "none"),
        ("Thanks!", "none"),
        ("The kettle must be descaled every month.", "supported"),
        ("Sure.", "none"),
    ]


class SteppedClock:
    """The verify's clock: time moves only as the library is searched, ``step`` a search."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        return self.now


async def test_the_sentences_left_when_the_time_is_up_are_unchecked(app: RunningApp) -> None:
    clock = SteppedClock(step=0.4 * app.container.settings.search.verify_seconds)
    app.container.search.clock = clock
    begin = app.container.retriever.begin

    def stepped() -> Search:
        search = begin()
        retrieve = search.retrieve

        def slow(*args: Any, **kwargs: Any) -> Any:
            clock.now += clock.step
            return retrieve(*args, **kwargs)

        search.retrieve = slow  # type: ignore[method-assign]
        return search

    app.container.retriever.begin = stepped  # type: ignore[method-assign]
    sentences = await verify(app, PASTED)
    # Searching has 80% of the budget: a second search starts at 40%, a third would at 80%.
    assert [s["verdict"] for s in sentences] == [*("supported", "partly", "unchecked", "unchecked")]
    assert all(s["source"] is None for s in sentences[2:])
    async with mcp_client(app) as client:
        tool = (await client.call_tool("verify", {"text": PASTED})).structured_content
    assert [s["verdict"] for s in tool["sentences"]] == [s["verdict"] for s in sentences]
