"""What the API tells of a checked answer: `support` in `done` (SSE and `stream: false`),
beside `sources` in `/v1`, saved with the session; and spans that point into the text
Docent stored for the page, in a PDF and in a text file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest

from graph import prompts
from tests.api_app import api_app
from tests.fakes.chat import FakeChatModel
from tests.running import RunningApp, read_sse

BOILER = "The boiler was serviced on 3 March 2024. It costs 120 euros a year to maintain.\n"
MANUAL = [
    "The kettle must be descaled every month.",
    "Warranty: the kettle is covered for two years from the date of purchase.",
]
ANSWER = "It costs 150 euros a year to maintain [1]. It was serviced on 3 March 2024."


@pytest.fixture
def llm() -> FakeChatModel:
    return FakeChatModel(token_delay=0.002)


@pytest.fixture
async def app(tmp_path: Path, llm: FakeChatModel) -> AsyncIterator[RunningApp]:
    async with api_app(
        tmp_path, llm=llm, files={"boiler.txt": BOILER}, pdfs={"kettle.pdf": MANUAL}
    ) as running:
        yield running


def check_support(answer: str, support: list[dict[str, Any]]) -> None:
    """The scripted answer's two sentences: a swapped number, then a supported one."""
    first, second = support
    assert answer[first["start"] : first["end"]] == first["text"]
    assert answer[second["start"] : second["end"]] == second["text"]
    assert (first["verdict"], first["missing"], first["found"]) == (
        *("partly", ["150"], {"150": "120"}),
    )
    assert second["verdict"] == "supported"
    assert first["source"]["file"] == second["source"]["file"] == "boiler.txt"
    assert {"file", "path", "page", "text", "start", "end"} <= set(first["source"])


async def test_done_carries_support_in_the_stream_and_the_session(
    app: RunningApp, llm: FakeChatModel
) -> None:
    llm.enqueue(ANSWER)
    body = {"message": "How much does the boiler cost to maintain?"}
    async with app.client.stream("POST", "/api/chat", json=body) as response:
        events = await read_sse(response)
    done = next(data for kind, data in events if kind == "done")
    assert "searched" not in done  # the documents cover it
    # The uncited supported sentence gained its mark: the answer shown is the corrected one.
    n = next(s["n"] for s in done["sources"] if s["file"] == "boiler.txt")
    assert done["answer"].endswith(f"It was serviced on 3 March 2024 [{n}].")
    check_support(done["answer"], done["support"])
    session = (await app.client.get(f"/api/sessions/{done['session_id']}")).json()
    saved = session["messages"][-1]
    assert saved["content"] == done["answer"] and saved["support"] == done["support"]


async def test_done_carries_support_without_streaming(app: RunningApp, llm: FakeChatModel) -> None:
    llm.enqueue(ANSWER)
    body = {"message": "How much does the boiler cost to maintain?", "stream": False}
    reply = (await app.client.post("/api/chat", json=body)).json()
    check_support(reply["answer"], reply["support"])
    assert "searched" not in reply and "draft" not in reply  # only where it applies


async def test_a_set_aside_answer_is_kept_in_done_as_its_draft(
    app: RunningApp, llm: FakeChatModel
) -> None:
    llm.enqueue("The moon is made of cheese [1].")
    body = {"message": "How much does the boiler cost to maintain?"}
    async with app.client.stream("POST", "/api/chat", json=body) as response:
        events = await read_sse(response)
    done = next(data for kind, data in events if kind == "done")
    assert done["answer"] == prompts.NOT_COVERED
    assert done["draft"] == "The moon is made of cheese."  # top level, beside support
    assert done["support"] == [] and done["searched"]["draft"] == done["draft"]
    session = (await app.client.get(f"/api/sessions/{done['session_id']}")).json()
    assert session["messages"][-1]["draft"] == done["draft"]
    body = {"message": "How much does the boiler cost to maintain?", "stream": False}
    llm.enqueue("The moon is made of cheese [1].")
    reply = (await app.client.post("/api/chat", json=body)).json()
    assert reply["draft"] == "The moon is made of cheese."


async def test_a_chat_answer_carries_no_support(app: RunningApp, llm: FakeChatModel) -> None:
    llm.enqueue("Hello!")
    body = {"message": "hello!", "mode": "chat", "stream": False}
    reply = (await app.client.post("/api/chat", json=body)).json()
    assert reply["answer"] == "Hello!" and "support" not in reply


async def test_v1_carries_support_beside_sources(app: RunningApp, llm: FakeChatModel) -> None:
    client = openai.AsyncOpenAI(
        base_url=f"{app.url}/v1", api_key=app.container.token, max_retries=0
    )
    question = [{"role": "user", "content": "How much does the boiler cost to maintain?"}]
    llm.enqueue(ANSWER)
    completion = await client.chat.completions.create(model="docent", messages=question)
    extra = completion.model_extra or {}
    check_support(completion.choices[0].message.content or "", extra["support"])
    assert extra["sources"][0]["file"] == "boiler.txt"

    llm.enqueue(ANSWER)
    stream = await client.chat.completions.create(model="docent", messages=question, stream=True)
    chunks = [chunk async for chunk in stream]
    last = chunks[-1].model_extra or {}
    assert last["sources"][0]["file"] == "boiler.txt"
    assert [s["verdict"] for s in last["support"]] == ["partly", "supported"]


async def test_spans_point_into_the_text_stored_for_their_page(
    app: RunningApp, llm: FakeChatModel
) -> None:
    llm.enqueue(
        "The kettle is covered for two years from the date of purchase [1]. "
        "It costs 120 euros a year to maintain [2]."
    )
    body = {"message": "What about the kettle's warranty and upkeep?", "stream": False}
    reply = (await app.client.post("/api/chat", json=body)).json()
    spans = {s["source"]["file"]: s["source"] for s in reply["support"]}
    assert set(spans) == {"kettle.pdf", "boiler.txt"}
    assert spans["kettle.pdf"]["page"] == 2 and spans["boiler.txt"]["page"] is None
    store = app.container.embedding.store
    for span in spans.values():
        record = next(d for d in app.container.registry.list() if d.path == span["path"])
        assert record.content_key is not None
        chunks = [c for c in store.document_chunks(record.content_key) if c.page == span["page"]]
        # The span sits inside a chunk of its page, at the same place as in the page's text.
        (chunk,) = [c for c in chunks if c.start <= span["page_start"] < c.end]
        at = span["page_start"] - chunk.start
        assert chunk.text[at : at + len(span["text"])] == span["text"]
        assert span["page_end"] - span["page_start"] == len(span["text"])
    # In a text file the page's text is the file's own.
    boiler = spans["boiler.txt"]
    assert BOILER[boiler["page_start"] : boiler["page_end"]] == boiler["text"]
