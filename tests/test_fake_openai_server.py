"""The fake OpenAI-compatible server, checked with the official ``openai`` client and on
the wire: if it reads as LM Studio, vLLM or llama-cpp-python's server read, the adapter's
tests against it mean something."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.running import eventually


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def client(server: FakeOpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="none", max_retries=0, timeout=10)


def test_models_and_a_streamed_reply_with_usage(server: FakeOpenAIServer) -> None:
    api = client(server)
    assert [m.id for m in api.models.list()] == server.models
    server.enqueue_reply("The ferry leaves at 07:15.")
    stream = api.chat.completions.create(
        model="qwen2.5-7b-instruct",
        messages=[{"role": "user", "content": "When?"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "The ferry leaves at 07:15."
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 5


def test_json_modes_the_server_refuses_are_a_400_naming_response_format(
    server: FakeOpenAIServer,
) -> None:
    server.response_formats = {"json_schema"}  # as LM Studio
    api = client(server)
    with pytest.raises(openai.BadRequestError, match="response_format"):
        api.chat.completions.create(
            model="qwen2.5-7b-instruct",
            messages=[{"role": "user", "content": "hi"}],
            response_format={"type": "json_object"},
        )
    reply = api.chat.completions.create(
        model="qwen2.5-7b-instruct",
        messages=[{"role": "user", "content": "hi"}],
        response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {}}},
    )
    assert reply.choices[0].message.content == '{"echo": "hi"}'


def test_a_model_not_loaded_is_a_404_and_a_stopped_server_is_down(
    server: FakeOpenAIServer,
) -> None:
    api = client(server)
    with pytest.raises(openai.NotFoundError, match="does not exist"):
        api.chat.completions.create(model="llama-70b", messages=[{"role": "user", "content": "x"}])
    server.stop()
    with pytest.raises(openai.APIConnectionError):
        api.models.list()


# The habits below are held to what the real servers did (llama-cpp-python 0.3.36's server
# with its defaults, measured; LM Studio's and vLLM's documented answers).

ASK = {
    "model": "qwen2.5-coder-1.5b-instruct",
    "messages": [{"role": "user", "content": "When does the ferry leave?"}],
    "stream": True,
    "stream_options": {"include_usage": True},
}


def chunks_of(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in lines if line.startswith("data: {")]


def test_like_llama_cpp_python_a_json_schema_is_a_500_and_json_object_takes_a_schema() -> None:
    with FakeOpenAIServer(habits="llama-cpp-python") as server:
        api = client(server)
        assert {m.owned_by for m in api.models.list()} == {"me"}
        ask = {"model": "any", "messages": [{"role": "user", "content": "hi"}]}
        with pytest.raises(openai.InternalServerError) as refused:
            api.chat.completions.create(
                **ask,  # type: ignore[arg-type]
                response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {}}},
            )
        assert isinstance(refused.value.body, dict)
        assert refused.value.body["type"] == "internal_server_error"
        assert refused.value.body["message"].startswith("1 validation error:")
        assert "'loc': ('body', 'response_format', 'type')" in refused.value.body["message"]
        assert "Input should be 'text' or 'json_object'" in refused.value.body["message"]
        schema = {"type": "object", "properties": {"echo": {"type": "string"}}}
        reply = api.chat.completions.create(
            **ask,  # type: ignore[arg-type]
            response_format={"type": "json_object", "schema": schema},  # type: ignore[typeddict-unknown-key]
        )
        assert reply.choices[0].message.content == '{"echo": "hi"}'


async def test_like_llama_cpp_python_a_request_during_a_stream_ends_it_with_the_role_chunk() -> (
    None
):
    with FakeOpenAIServer(habits="llama-cpp-python") as server:
        server.enqueue_reply("It leaves at 07:15.")
        server.reply_gate = threading.Event()  # still reading the prompt
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            async with http.stream("POST", "/chat/completions", json=ASK) as response:
                lines = response.aiter_lines()
                assert (await anext(lines)).startswith(": ping - ")
                await eventually(lambda: server.answering == 1, what="the model at work")
                listing = asyncio.create_task(http.get("/models"))
                await eventually(lambda: server.waiting == 1, what="the listing to wait")
                server.reply_gate.set()
                cut = [line async for line in lines if line]
            assert (await listing).json()["data"][0]["owned_by"] == "me"
            # The same stream, left alone: a finish reason, and no usage though asked.
            async with http.stream("POST", "/chat/completions", json=ASK) as response:
                whole = [line async for line in response.aiter_lines() if line]
    assert cut[-1] == "data: [DONE]"
    (role,) = chunks_of(cut)
    assert role["choices"] == [
        {"index": 0, "delta": {"role": "assistant"}, "logprobs": None, "finish_reason": None}
    ]
    assert server.cut_short == 1
    assert whole[0].startswith(": ping - ") and whole[-1] == "data: [DONE]"
    received = chunks_of(whole)
    assert (
        "".join(c["choices"][0]["delta"].get("content", "") for c in received)
        == "Echo: When does the ferry leave?"
    )
    assert received[-1]["choices"][0]["finish_reason"] == "stop"
    assert all("usage" not in c for c in received)


async def test_like_vllm_a_listing_during_a_stream_is_answered_and_the_stream_goes_on() -> None:
    with FakeOpenAIServer([str(ASK["model"])], habits="vllm") as server:
        server.reply_gate = threading.Event()
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            async with http.stream("POST", "/chat/completions", json=ASK) as response:
                await eventually(lambda: server.answering == 1, what="the model at work")
                listing = await http.get("/models")
                server.reply_gate.set()
                lines = [line async for line in response.aiter_lines() if line]
    assert {card["owned_by"] for card in listing.json()["data"]} == {"vllm"}
    received = chunks_of(lines)
    assert [c["choices"][0]["finish_reason"] for c in received if c["choices"]][-1] == "stop"
    assert received[-1]["choices"] == [] and received[-1]["usage"]["completion_tokens"] == 6
    assert lines[-1] == "data: [DONE]" and server.cut_short == 0


def test_like_lm_studio_json_object_is_a_400_naming_response_format() -> None:
    with FakeOpenAIServer(habits="lm-studio") as server:
        api = client(server)
        assert {m.owned_by for m in api.models.list()} == {"organization_owner"}
        with pytest.raises(openai.BadRequestError, match="response_format"):
            api.chat.completions.create(
                model="qwen2.5-7b-instruct",
                messages=[{"role": "user", "content": "hi"}],
                response_format={"type": "json_object"},
            )
