"""OpenAIChat against fakes that keep the habits of real servers (tests/fakes/server_habits.py
``HABITS``): llama-cpp-python's server cancels a streaming answer when any request arrives
and refuses ``json_schema`` with a 500; vLLM takes requests side by side; any server may end
a stream early."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from models.answer_end import AnswerCutShort, EmptyAnswer
from models.openai_chat import OpenAIChat
from models.protocols import Usage
from tests.fakes.openai_server import FakeOpenAIServer
from tests.running import eventually

MODEL = "qwen2.5-coder-1.5b-instruct"
ASK = [{"role": "user", "content": "When does the ferry leave?"}]
SCHEMA = {"type": "object", "properties": {"route": {"type": "string"}}}


@pytest.fixture
def llama() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer([MODEL], habits="llama-cpp-python") as fake:
        yield fake


@pytest.fixture
async def chat(llama: FakeOpenAIServer) -> AsyncIterator[OpenAIChat]:
    adapter = OpenAIChat(llama.url, MODEL, max_tokens=64)
    assert (await adapter.health()).error is None  # as the app's first check: it lists
    yield adapter
    if llama.reply_gate is not None:
        llama.reply_gate.set()
    await adapter.aclose()


async def read(chat: OpenAIChat, usage: Usage | None = None) -> str:
    return "".join([piece async for piece in chat.stream_chat(ASK, usage)])


async def test_health_during_a_stream_sends_nothing_and_the_answer_arrives_whole(
    llama: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    llama.enqueue_reply("It leaves at 07:15 from pier 2.")
    llama.reply_gate = threading.Event()  # the model is still reading the prompt
    answer = asyncio.create_task(read(chat))
    await eventually(lambda: llama.answering == 1, what="the model at work")
    during = [await chat.health() for _ in range(3)]
    llama.reply_gate.set()
    assert await answer == "It leaves at 07:15 from pier 2."
    assert all(h.reachable and h.error is None and h.models == [MODEL] for h in during)
    assert len(llama.requests_to("/v1/models")) == 1  # the first check's only
    assert llama.cut_short == 0


async def test_another_answer_waits_for_the_one_streaming_instead_of_cutting_it(
    llama: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    llama.enqueue_reply("It leaves at 07:15 from pier 2.")
    llama.enqueue_reply("The bus leaves at 08:00.")
    llama.reply_gate = threading.Event()
    first = asyncio.create_task(read(chat))
    await eventually(lambda: llama.answering == 1, what="the model at work")
    second = asyncio.create_task(read(chat))  # another session's turn
    # Sent at once, it would wait at the server and cut the answer; held, it waits here.
    await eventually(lambda: llama.waiting == 1 or chat.line.waiting == 1, what="the second")
    llama.reply_gate.set()
    assert await first == "It leaves at 07:15 from pier 2."
    assert await second == "The bus leaves at 08:00."
    assert llama.cut_short == 0


async def test_a_json_call_waits_for_the_answer_streaming_instead_of_cutting_it(
    llama: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    llama.responder = lambda body: '{"route": "chat"}' if "response_format" in body else None
    assert await chat.complete_json(ASK, SCHEMA) == {"route": "chat"}  # learns the way
    llama.enqueue_reply("It leaves at 07:15 from pier 2.")
    llama.reply_gate = threading.Event()
    answer = asyncio.create_task(read(chat))
    await eventually(lambda: llama.answering == 1, what="the model at work")
    other = asyncio.create_task(chat.complete_json(ASK, SCHEMA, timeout=30))
    await eventually(lambda: llama.waiting == 1 or chat.line.waiting == 1, what="the JSON call")
    llama.reply_gate.set()
    assert await answer == "It leaves at 07:15 from pier 2."
    assert await other == {"route": "chat"}
    assert llama.cut_short == 0


async def test_a_json_call_waits_past_its_timeout_for_a_one_at_a_time_server() -> None:
    """Given up on, the reply would still hold the server, and the next request wait for
    it: so the call waits for the reply instead of throwing it away."""
    with FakeOpenAIServer([MODEL], habits="llama-cpp-python") as llama:
        chat = OpenAIChat(llama.url, MODEL, max_tokens=64)
        try:
            assert (await chat.health()).error is None
            llama.enqueue_json({"route": "chat"})
            llama.reply_gate = threading.Event()
            # A timeout of 0 would end the call at its first wait, before it is sent.
            asking = asyncio.create_task(chat.complete_json(ASK, SCHEMA, timeout=0))
            await eventually(lambda: llama.requests_to("/v1/chat/completions"), what="sent")
            assert not asking.done()
            llama.reply_gate.set()
            assert await asking == {"route": "chat"}
        finally:
            if llama.reply_gate is not None:
                llama.reply_gate.set()
            await chat.aclose()


async def test_a_json_call_given_up_on_holds_the_line_until_the_server_is_done(
    llama: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    llama.reply_gate = threading.Event()
    asking = asyncio.create_task(chat.complete_json(ASK, SCHEMA))
    await eventually(lambda: llama.requests_to("/v1/chat/completions"), what="the JSON call")
    asking.cancel()  # a Stop
    with pytest.raises(asyncio.CancelledError):
        await asking
    # The server goes on with it: a health check now would wait for it, so it asks nothing.
    assert (await chat.health()).reachable and len(llama.requests_to("/v1/models")) == 1
    llama.reply_gate.set()
    await eventually(lambda: not chat.line.busy, what="the server to finish the JSON reply")
    assert (await chat.health()).error is None and len(llama.requests_to("/v1/models")) == 2


async def test_json_steps_down_past_a_500_to_json_object_with_the_schema_and_remembers(
    llama: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    llama.enqueue_json({"route": "documents"})
    llama.enqueue_json({"route": "chat"})
    assert await chat.complete_json(ASK, SCHEMA) == {"route": "documents"}
    assert await chat.complete_json(ASK, SCHEMA) == {"route": "chat"}
    formats = [body["response_format"] for body in llama.chat_requests()]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]
    assert formats[1] == formats[2] == {"type": "json_object", "schema": SCHEMA}


async def test_a_stream_cut_short_by_another_client_says_so(
    llama: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    llama.reply_gate = threading.Event()
    answer = asyncio.create_task(read(chat))
    await eventually(lambda: llama.answering == 1, what="the model at work")
    # Another app lists the models: the server ends Docent's answer for it.
    listing = asyncio.create_task(asyncio.to_thread(_list_models, llama.url))
    await eventually(lambda: llama.waiting == 1, what="the other app's request to wait")
    llama.reply_gate.set()
    with pytest.raises(AnswerCutShort) as cut:
        await answer
    await listing
    assert str(cut.value) == (
        f"The model server at {llama.url} ended the answer before the model wrote anything, "
        "without an error and without saying it was finished. A server that serves one "
        "request at a time stops its answer when another request reaches it "
        "(llama-cpp-python's server does, unless started with `--interrupt_requests false`): "
        "was another app or another Docent using it? Ask again."
    )


def _list_models(url: str) -> None:
    httpx.get(f"{url}/models", timeout=10).raise_for_status()


async def test_how_a_stream_ends_is_told(llama: FakeOpenAIServer, chat: OpenAIChat) -> None:
    llama.enqueue_reply("It leaves at", ending="done")
    with pytest.raises(AnswerCutShort, match="ended the answer after 12 characters"):
        await read(chat)
    llama.enqueue_reply("It leaves at", ending="drop")
    with pytest.raises(AnswerCutShort, match="broke part-way through the answer"):
        await read(chat)
    llama.enqueue_reply("")
    with pytest.raises(EmptyAnswer, match="finished without writing anything"):
        await read(chat)
    llama.enqueue_reply(" ".join(["word"] * 100))  # past max_tokens=64
    usage = Usage()
    assert await read(chat, usage) == " ".join(["word"] * 64)
    assert usage.hit_limit


async def test_a_server_that_takes_requests_side_by_side_is_asked_while_it_streams() -> None:
    with FakeOpenAIServer([MODEL], habits="vllm") as vllm:
        chat = OpenAIChat(vllm.url, MODEL)
        try:
            await chat.health()
            vllm.reply_gate = threading.Event()
            answer = asyncio.create_task(read(chat))
            await eventually(lambda: vllm.answering == 1, what="the model at work")
            health = await chat.health()
            vllm.reply_gate.set()
            assert (await answer).startswith("Echo:")
        finally:
            await chat.aclose()
    assert health.reachable and len(vllm.requests_to("/v1/models")) == 2


async def test_a_server_busy_with_another_app_s_request_reads_as_busy_not_down(
    llama: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    llama.reply_gate = threading.Event()
    body = {"model": MODEL, "messages": ASK, "stream": False}
    other = asyncio.create_task(
        asyncio.to_thread(httpx.post, llama.url + "/chat/completions", json=body, timeout=30)
    )
    await eventually(lambda: llama.answering == 1, what="the other app's request at work")
    health = await chat.health()  # its listing waits behind that request, past the limit
    llama.reply_gate.set()
    assert (await other).status_code == 200
    assert health.reachable and health.error is None and health.models == [MODEL]
