"""OpenAIChat against the fake OpenAI-compatible server over a real socket."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator

import pytest

from models.llm import LLMError, json_object_in
from models.openai_chat import OpenAIChat
from models.openai_wire import ModelNotLoaded, ServerUnavailable
from models.protocols import ChatModel, PullsModels, Usage
from tests.fakes.ollama_server import unused_url
from tests.fakes.openai_server import FakeOpenAIServer

MODEL = "qwen2.5-7b-instruct"
ASK = [{"role": "user", "content": "Where does the ferry go?"}]
SCHEMA = {"type": "object", "properties": {"route": {"type": "string"}}}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
async def chat(server: FakeOpenAIServer) -> AsyncIterator[OpenAIChat]:
    adapter = OpenAIChat(server.url, MODEL, max_tokens=512)
    yield adapter
    await adapter.aclose()


async def test_it_is_a_chat_model_that_cannot_pull(chat: OpenAIChat) -> None:
    assert isinstance(chat, ChatModel) and not isinstance(chat, PullsModels)


async def test_the_answer_streams_and_usage_comes_from_the_last_chunk(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.enqueue_reply("It goes to Tarvo at 07:15.")
    usage = Usage()
    pieces = [piece async for piece in chat.stream_chat(ASK, usage)]
    assert len(pieces) > 1 and "".join(pieces) == "It goes to Tarvo at 07:15."
    assert (usage.prompt_tokens, usage.answer_tokens) == (10, 6)
    sent = server.chat_requests()[-1]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert sent["max_tokens"] == 512 and sent["model"] == MODEL


async def test_a_server_that_sends_no_usage_leaves_the_counts_unknown(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.sends_usage = False
    usage = Usage()
    assert "".join([p async for p in chat.stream_chat(ASK, usage)]).startswith("Echo:")
    assert usage == Usage()


async def test_json_asks_for_the_schema_where_the_server_takes_it(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.enqueue_json({"route": "documents"})
    assert await chat.complete_json(ASK, SCHEMA) == {"route": "documents"}
    sent = server.chat_requests()[-1]
    assert sent["stream"] is False
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": SCHEMA},
    }


async def test_a_refused_response_format_steps_down_and_the_json_is_read_from_the_text(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.response_formats = set()  # an older llama-server: no JSON modes at all
    server.enqueue_reply('Sure! Here it is:\n```json\n{"route": "chat"}\n```')
    assert await chat.complete_json(ASK, SCHEMA) == {"route": "chat"}
    asked = [r.get("response_format") for r in server.chat_requests()]
    assert [(f or {}).get("type") for f in asked] == [
        "json_schema",
        "json_object",
        "json_object",
        None,
    ]
    assert asked[1] == {"type": "json_object", "schema": SCHEMA} and asked[2] == {
        "type": "json_object"
    }
    # The adapter remembers: the next call asks without response_format at once.
    server.enqueue_reply('<think>Greeting {maybe}.</think>{"route": "chat"}')
    assert await chat.complete_json(ASK, SCHEMA) == {"route": "chat"}
    assert "response_format" not in server.chat_requests()[-1]


async def test_a_server_that_takes_only_json_schema_gets_it_without_a_schema_too(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.response_formats = {"json_schema"}  # as LM Studio
    assert await chat.complete_json(ASK) == {"echo": "Where does the ferry go?"}
    sent = server.chat_requests()[-1]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["schema"] == {"type": "object"}


async def test_a_reply_without_json_says_what_the_model_sent(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.enqueue_reply("I would search the documents.")
    with pytest.raises(LLMError, match="did not answer with valid JSON"):
        await chat.complete_json(ASK, SCHEMA)


def test_json_is_found_inside_a_sentence() -> None:
    text = 'The route is {"route": "documents"}, as asked.'
    assert json_object_in(text, "m", "u") == {"route": "documents"}
    with pytest.raises(LLMError, match="not an object"):
        json_object_in("[1, 2]", "m", "u")


async def test_a_model_that_is_not_loaded_is_named_with_the_ones_that_are(
    server: FakeOpenAIServer,
) -> None:
    chat = OpenAIChat(server.url, "llama-3.3-70b")
    try:
        with pytest.raises(ModelNotLoaded) as streamed:
            _ = [p async for p in chat.stream_chat(ASK)]
        with pytest.raises(ModelNotLoaded) as completed:
            await chat.complete_json(ASK, SCHEMA)
        health = await chat.health()
    finally:
        await chat.aclose()
    expected = (
        f"The model 'llama-3.3-70b' is not loaded in the server at {server.url}; load it, "
        f"or choose one of: {', '.join(server.models)}."
    )
    assert str(streamed.value) == str(completed.value) == health.error == expected
    assert health.reachable and health.models == server.models and health.api == "openai"


async def test_a_server_that_is_down_says_what_to_start() -> None:
    url = unused_url() + "/v1"
    chat = OpenAIChat(url, MODEL)
    try:
        with pytest.raises(ServerUnavailable) as streamed:
            _ = [p async for p in chat.stream_chat(ASK)]
        with pytest.raises(ServerUnavailable):
            await chat.complete_json(ASK)
        health = await chat.health()
    finally:
        await chat.aclose()
    assert str(streamed.value) == (
        f"No model server answers at {url}. Start LM Studio's server (Developer → Start "
        "Server) or llama-server, or set `--llm-url`."
    )
    assert not health.reachable and health.error == str(streamed.value)


async def test_health_lists_the_models_and_finds_the_chosen_one(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    health = await chat.health()
    assert health.reachable and health.error is None and health.models == server.models
    assert health.host == server.url


async def test_a_url_without_v1_is_explained(server: FakeOpenAIServer) -> None:
    chat = OpenAIChat(server.root, MODEL)
    try:
        health = await chat.health()
    finally:
        await chat.aclose()
    assert health.reachable and health.error is not None
    assert "HTTP 404" in health.error and "should be the base that ends in /v1" in health.error


async def test_a_server_error_mid_request_is_said_with_the_server_s_words(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.fail_next(503, "Model is still loading", path="/v1/chat/completions")
    with pytest.raises(LLMError) as error:
        _ = [p async for p in chat.stream_chat(ASK)]
    assert str(error.value) == (
        f"The model server at {server.url} answered with an error (HTTP 503): "
        "Model is still loading"
    )


async def test_an_api_key_is_sent_and_a_missing_one_is_explained(
    server: FakeOpenAIServer,
) -> None:
    server.api_key = "sk-local"
    without = OpenAIChat(server.url, MODEL)
    keyed = OpenAIChat(server.url, MODEL, api_key="sk-local")
    try:
        refused = await without.health()
        assert refused.error is not None and "DOCENT_LLM_API_KEY" in refused.error
        assert "HTTP 401" in refused.error
        assert (await keyed.health()).error is None
        assert "".join([p async for p in keyed.stream_chat(ASK)]).startswith("Echo:")
    finally:
        await without.aclose()
        await keyed.aclose()


async def test_a_json_call_past_its_timeout_says_so() -> None:
    # Only a server that takes requests side by side is given up on (see
    # test_model_server_habits.py for one that answers one at a time).
    with FakeOpenAIServer(habits="vllm") as server:
        chat = OpenAIChat(server.url, MODEL, max_tokens=512)
        await chat.health()
        server.enqueue_json({"route": "chat"})
        server.reply_gate = threading.Event()  # the reply waits until the end
        try:
            with pytest.raises(LLMError, match="took longer than 0.2 s"):
                await chat.complete_json(ASK, SCHEMA, timeout=0.2)
        finally:
            server.reply_gate.set()
            await chat.aclose()


async def test_a_server_that_refuses_stream_options_answers_without_token_counts(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    message = "Unrecognized request argument supplied: stream_options"
    server.fail_next(400, message, path="/v1/chat/completions")
    usage = Usage()
    assert "".join([p async for p in chat.stream_chat(ASK, usage)]).startswith("Echo:")
    assert usage == Usage()
    first, second = server.chat_requests()
    assert "stream_options" in first and "stream_options" not in second


async def test_a_reply_that_is_no_event_stream_is_said_as_such(
    server: FakeOpenAIServer, chat: OpenAIChat
) -> None:
    server.ignores_stream = True
    server.enqueue_reply("The ferry goes to the island.")

    with pytest.raises(LLMError, match="without a stream") as raised:
        async for _ in chat.stream_chat(ASK):
            pass
    assert server.url in str(raised.value)
