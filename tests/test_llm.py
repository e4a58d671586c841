"""OllamaChat against the fake Ollama over a real socket, through the real client."""

from __future__ import annotations

import httpx
import ollama
import pytest

from models.answer_end import AnswerCutShort, EmptyAnswer
from models.llm import (
    LLMError,
    ModelNotFound,
    OllamaUnavailable,
    same_model,
    to_llm_error,
)
from models.ollama_chat import OllamaChat
from models.protocols import ChatModel, Usage
from tests.fakes.chat import FakeChatModel
from tests.fakes.ollama_server import unused_url

USER = [{"role": "user", "content": "What does the report say about rivers?"}]


@pytest.fixture
async def chat(ollama_server):
    model = OllamaChat(ollama_server.url, "llama3.2")
    yield model
    await model.aclose()


async def collect(model: ChatModel, messages=USER) -> list[str]:
    return [piece async for piece in model.stream_chat(messages)]


def test_implements_the_protocol_and_builds_without_network(ollama_server):
    model = OllamaChat(ollama_server.url, "llama3.2")

    assert isinstance(model, ChatModel)
    assert ollama_server.requests == []


async def test_stream_chat_yields_several_pieces_that_join_to_the_reply(chat, ollama_server):
    ollama_server.enqueue_reply("Rivers flood in spring, says page 4.")

    pieces = await collect(chat)

    assert len(pieces) > 1
    assert "".join(pieces) == "Rivers flood in spring, says page 4."
    assert all(pieces)  # the empty final chunk is skipped
    body = ollama_server.requests_to("/api/chat")[0]
    assert body["stream"] is True and body["model"] == "llama3.2"
    assert body["messages"] == USER


async def test_stream_chat_can_stop_early_and_chat_again(chat, ollama_server):
    ollama_server.enqueue_reply("one two three four five six", delay=0.02)
    ollama_server.enqueue_reply("again")

    stream = chat.stream_chat(USER)
    assert await anext(stream) == "one"
    await stream.aclose()

    assert await collect(chat) == ["again"]


async def test_options_and_keep_alive_are_sent(ollama_server):
    model = OllamaChat(
        ollama_server.url, "llama3.2", keep_alive="10m", options={"temperature": 0.1}
    )

    await collect(model)
    await model.complete_json(USER)
    await model.aclose()

    for body in ollama_server.requests_to("/api/chat"):
        assert body["keep_alive"] == "10m"
        assert body["options"]["temperature"] == 0.1


async def test_complete_json_parses_the_reply_in_json_mode(chat, ollama_server):
    ollama_server.enqueue_json({"route": "retrieve", "query": "rivers"})

    assert await chat.complete_json(USER) == {"route": "retrieve", "query": "rivers"}
    body = ollama_server.requests_to("/api/chat")[0]
    assert body["format"] == "json" and body["stream"] is False


async def test_complete_json_sends_the_schema_as_format(chat, ollama_server):
    schema = {"type": "object", "properties": {"route": {"type": "string"}}}
    ollama_server.enqueue_json({"route": "chat"})

    assert await chat.complete_json(USER, schema) == {"route": "chat"}
    assert ollama_server.requests_to("/api/chat")[0]["format"] == schema


@pytest.mark.parametrize("reply", ["not json at all", "[1, 2]"])
async def test_complete_json_rejects_anything_but_a_json_object(chat, ollama_server, reply):
    ollama_server.enqueue_reply(reply)

    with pytest.raises(LLMError, match="JSON") as error:
        await chat.complete_json(USER)
    assert "llama3.2" in str(error.value)


async def test_health_lists_the_models(chat, ollama_server):
    health = await chat.health()

    assert health.reachable and health.error is None
    assert health.host == ollama_server.url
    assert health.models == ["llama3.2:latest", "nomic-embed-text:latest"]


async def test_health_names_a_missing_model_and_how_to_pull_it(ollama_server):
    model = OllamaChat(ollama_server.url, "qwen3:4b")

    health = await model.health()
    await model.aclose()

    assert health.reachable
    assert "`ollama pull qwen3:4b`" in (health.error or "")


async def test_health_never_raises_when_ollama_is_down(ollama_server):
    model = OllamaChat(ollama_server.url, "llama3.2")
    assert (await model.health()).reachable
    ollama_server.stop()

    health = await model.health()
    await model.aclose()

    assert not health.reachable and health.models == []
    assert (
        health.error
        == f"Ollama is not running at {ollama_server.url}. Start it with `ollama serve`."
    )


async def test_health_reports_a_server_error_as_reachable(chat, ollama_server):
    ollama_server.fail_next(500, "disk full")

    health = await chat.health()

    assert health.reachable and "disk full" in (health.error or "")


async def test_unreachable_host_raises_ollama_unavailable_with_the_fix():
    host = unused_url()
    model = OllamaChat(host, "llama3.2")

    with pytest.raises(OllamaUnavailable) as streamed:
        await collect(model)
    with pytest.raises(OllamaUnavailable) as completed:
        await model.complete_json(USER)
    await model.aclose()

    for error in (streamed.value, completed.value):
        assert str(error) == f"Ollama is not running at {host}. Start it with `ollama serve`."
        assert error.host == host


async def test_unknown_model_raises_model_not_found(ollama_server):
    model = OllamaChat(ollama_server.url, "mistral")

    with pytest.raises(ModelNotFound) as streamed:
        await collect(model)
    with pytest.raises(ModelNotFound) as completed:
        await model.complete_json(USER)
    await model.aclose()

    for error in (streamed.value, completed.value):
        assert error.model == "mistral" and error.host == ollama_server.url
        assert "Install it with `ollama pull mistral`." in str(error)


async def test_server_error_becomes_llm_error_with_the_server_message(chat, ollama_server):
    ollama_server.fail_next(500, "llama runner process has terminated")
    ollama_server.fail_next(500, "out of memory")

    with pytest.raises(LLMError) as streamed:
        await collect(chat)
    with pytest.raises(LLMError) as completed:
        await chat.complete_json(USER)

    assert type(streamed.value) is LLMError and type(completed.value) is LLMError
    assert "llama runner process has terminated" in str(streamed.value)
    assert "out of memory" in str(completed.value)


async def test_error_in_the_middle_of_a_stream_is_an_llm_error(chat, ollama_server):
    ollama_server.hold_tokens(1)  # the rest waits until the server is gone
    ollama_server.enqueue_reply("a long answer that is cut off")
    stream = chat.stream_chat(USER)
    assert await anext(stream) == "a"

    ollama_server.stop()

    with pytest.raises(LLMError):
        async for _ in stream:
            pass


REQUEST = httpx.Request("POST", "http://ollama:11434/api/chat")


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (ConnectionError("refused"), OllamaUnavailable),
        (httpx.ConnectError("refused", request=REQUEST), OllamaUnavailable),
        (httpx.ConnectTimeout("slow connect", request=REQUEST), OllamaUnavailable),
        (httpx.RemoteProtocolError("closed", request=REQUEST), OllamaUnavailable),
        (httpx.ReadTimeout("slow answer", request=REQUEST), LLMError),
        (ollama.ResponseError('{"error": "model \\"x\\" not found"}', 404), ModelNotFound),
        (ollama.ResponseError("404 page not found", 404), LLMError),
        (ollama.ResponseError("boom", 500), LLMError),
        (ollama.ResponseError("runner crashed mid-stream"), LLMError),
    ],
)
def test_to_llm_error_maps_each_failure(exc, expected):
    error = to_llm_error(exc, host="http://ollama:11434", model="x")

    assert type(error) is expected
    assert error.host == "http://ollama:11434"


def test_server_messages_are_kept_in_llm_errors():
    mid_stream = ollama.ResponseError("runner crashed")  # an {"error"} line, no status
    http_error = ollama.ResponseError('{"error": "out of memory"}', 500)

    def message(exc):
        return str(to_llm_error(exc, host="http://ollama:11434", model="llama3.2"))

    assert (
        message(mid_stream)
        == "Ollama at http://ollama:11434 answered with an error: runner crashed"
    )
    assert message(http_error).endswith("error (HTTP 500): out of memory")


def test_read_timeout_does_not_suggest_starting_ollama():
    exc = httpx.ReadTimeout("slow", request=REQUEST)

    message = str(to_llm_error(exc, host="http://ollama:11434", model="llama3.2"))

    assert "took too long" in message and "ollama serve" not in message


def test_same_model_treats_a_missing_tag_as_latest():
    assert same_model("llama3.2", "llama3.2:latest")
    assert same_model("hf.co/org/model", "hf.co/org/model:latest")
    assert not same_model("llama3.2:1b", "llama3.2:latest")


# -- the in-process fake keeps the same contract ----------------------------------


async def test_fake_chat_model_serves_queued_replies_and_records_history(fake_chat):
    fake_chat.enqueue("Rivers flood in spring.")
    fake_chat.enqueue_json({"route": "retrieve"})

    pieces = await collect(fake_chat)
    decision = await fake_chat.complete_json(USER, {"type": "object"})

    assert isinstance(fake_chat, ChatModel)
    assert len(pieces) > 1 and "".join(pieces) == "Rivers flood in spring."
    assert decision == {"route": "retrieve"}
    assert fake_chat.history == [USER, USER]
    assert fake_chat.schemas == [{"type": "object"}]
    assert "".join(await collect(fake_chat)) == f"Echo: {USER[0]['content']}"


async def test_fake_chat_model_can_be_down(fake_chat):
    fake_chat.reachable = False

    with pytest.raises(OllamaUnavailable, match="ollama serve"):
        await collect(fake_chat)
    with pytest.raises(OllamaUnavailable):
        await fake_chat.complete_json(USER)
    assert not (await fake_chat.health()).reachable


async def test_fake_chat_model_can_fail_mid_stream():
    fake = FakeChatModel()
    fake.enqueue_error(LLMError("cut off"), after="Half an")
    pieces: list[str] = []

    with pytest.raises(LLMError, match="cut off"):
        async for piece in fake.stream_chat(USER):
            pieces.append(piece)
    assert pieces == ["Half", " an"]


async def test_a_stream_that_ends_early_or_empty_says_so(chat, ollama_server):
    ollama_server.enqueue_reply("The rivers are", ending="none")
    with pytest.raises(AnswerCutShort, match="ended the answer after 14 characters"):
        await collect(chat)
    ollama_server.enqueue_reply("The rivers are", ending="drop")
    with pytest.raises(AnswerCutShort, match="broke part-way through the answer"):
        await collect(chat)
    ollama_server.enqueue_reply("")
    with pytest.raises(EmptyAnswer, match="finished without writing anything"):
        await collect(chat)
    ollama_server.enqueue_reply("The rivers are long", ending="length")
    usage = Usage()
    assert "".join([p async for p in chat.stream_chat(USER, usage)]) == "The rivers are long"
    assert usage.hit_limit


async def test_an_ollama_that_refuses_a_schema_is_asked_in_json_mode_from_then_on(
    chat, ollama_server
):
    ollama_server.takes_schemas = False  # an Ollama older than 0.5
    schema = {"type": "object", "properties": {"route": {"type": "string"}}}
    ollama_server.enqueue_json({"route": "chat"})
    ollama_server.enqueue_json({"route": "documents"})
    assert await chat.complete_json(USER, schema) == {"route": "chat"}
    assert await chat.complete_json(USER, schema) == {"route": "documents"}
    assert [body["format"] for body in ollama_server.chat_requests()] == [schema, "json", "json"]
