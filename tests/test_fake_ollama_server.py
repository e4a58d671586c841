"""The fake Ollama behaves like Ollama for the real ``ollama`` client."""

from __future__ import annotations

import asyncio
import threading

import ollama
import pytest

from tests.fakes.ollama_server import FakeOllamaServer, split_tokens, unused_url

USER = [{"role": "user", "content": "Where is the Eiffel tower?"}]


@pytest.fixture
def client(ollama_server):
    with ollama.Client(host=ollama_server.url) as client:
        yield client


async def test_streamed_chat_arrives_in_several_chunks_one_at_a_time(ollama_server):
    # The server sends the first token, then holds the rest: if the reply came all at once
    # at the end, the first chunk could not be read while the rest is held.
    ollama_server.stream_gate = threading.Event()
    ollama_server.enqueue_reply("It stands in Paris, France.")
    async with ollama.AsyncClient(host=ollama_server.url) as client:
        stream = await client.chat(model="llama3.2", messages=USER, stream=True)
        try:  # read while the rest is held; the bound only turns a hang into a failure
            first = await asyncio.wait_for(anext(stream), timeout=30)
        finally:
            ollama_server.stream_gate.set()
        rest = [chunk.message.content or "" async for chunk in stream]

    pieces = [text for text in [first.message.content or "", *rest] if text]
    assert len(pieces) > 1
    assert "".join(pieces) == "It stands in Paris, France."


async def test_the_first_token_gate_holds_back_the_first_chunk(ollama_server):
    ollama_server.first_token_gate = threading.Event()
    ollama_server.enqueue_reply("Loaded.")
    async with ollama.AsyncClient(host=ollama_server.url) as client:
        stream = await client.chat(model="llama3.2", messages=USER, stream=True)
        first = asyncio.ensure_future(anext(stream))
        try:  # the bound only turns a hang into a failure
            assert await asyncio.to_thread(ollama_server.holding.wait, 30)
            assert not first.done()  # the server waits before it sends anything
        finally:
            ollama_server.first_token_gate.set()
        assert (await asyncio.wait_for(first, timeout=30)).message.content == "Loaded."
        await stream.aclose()


async def test_the_token_gate_lets_a_reply_out_one_token_at_a_time(ollama_server):
    ollama_server.hold_tokens(1)
    ollama_server.enqueue_reply("It stands in Paris, France.")
    async with ollama.AsyncClient(host=ollama_server.url) as client:
        stream = await client.chat(model="llama3.2", messages=USER, stream=True)
        try:  # the bound only turns a hang into a failure
            first = await asyncio.wait_for(anext(stream), timeout=30)
            assert ollama_server.tokens_sent == 1  # the second waits for its release
            ollama_server.release_tokens(1)
            second = await asyncio.wait_for(anext(stream), timeout=30)
            assert ollama_server.tokens_sent == 2
        finally:
            ollama_server.release_tokens()
        rest = [chunk.message.content or "" async for chunk in stream]

    assert [first.message.content, second.message.content] == ["It", " stands"]
    assert "".join([first.message.content, second.message.content, *rest]) == (
        "It stands in Paris, France."
    )


async def test_stream_false_returns_one_message_with_the_whole_reply(ollama_server):
    ollama_server.enqueue_reply("Paris.")
    async with ollama.AsyncClient(host=ollama_server.url) as client:
        response = await client.chat(model="llama3.2:latest", messages=USER, stream=False)

    assert response.message.content == "Paris."
    assert response.done and response.done_reason == "stop"


def test_format_requests_get_the_queued_json_and_a_default_echo(ollama_server, client):
    ollama_server.enqueue_json({"route": "retrieve"})
    first = client.chat(model="llama3.2", messages=USER, format="json")
    second = client.chat(model="llama3.2", messages=USER, format={"type": "object"})

    assert first.message.content == '{"route": "retrieve"}'
    assert second.message.content == '{"echo": "Where is the Eiffel tower?"}'
    assert ollama_server.requests_to("/api/chat")[1]["format"] == {"type": "object"}


def test_unknown_model_is_a_404_worded_like_ollama(ollama_server, client):
    with pytest.raises(ollama.ResponseError) as chat_error:
        client.chat(model="mistral", messages=USER)
    with pytest.raises(ollama.ResponseError) as embed_error:
        client.embed(model="mistral", input="x")

    assert chat_error.value.status_code == 404
    assert chat_error.value.error == 'model "mistral" not found, try pulling it first'
    assert embed_error.value.status_code == 404


def test_pull_streams_progress_and_adds_the_model(ollama_server, client):
    statuses = [part.status for part in client.pull("qwen3:4b", stream=True)]

    assert statuses[0] == "pulling manifest" and statuses[-1] == "success"
    assert "qwen3:4b" in [m.model for m in client.list().models]
    assert client.show("qwen3:4b").capabilities == ["completion"]
    client.chat(model="qwen3:4b", messages=USER)


def test_tags_version_and_show(ollama_server, client):
    ollama_server.models = ["gemma3:1b"]
    assert [m.model for m in client.list().models] == ["gemma3:1b"]
    assert client._client.get("/api/version").json()["version"]
    with pytest.raises(ollama.ResponseError) as error:
        client.show("llama3.2")
    assert error.value.status_code == 404


def test_embed_is_deterministic_unit_vectors_for_str_or_list(ollama_server, client):
    ollama_server.embed_dim = 16
    single = client.embed(model="nomic-embed-text", input="red apples").embeddings
    many = client.embed(model="nomic-embed-text", input=["red apples", "blue sky"]).embeddings

    assert len(single) == 1 and len(single[0]) == 16
    assert list(many[0]) == list(single[0])
    assert abs(sum(v * v for v in many[1]) - 1.0) < 1e-9


def test_fail_next_answers_one_request_with_the_error(ollama_server, client):
    ollama_server.fail_next(503, "server busy", path="/api/chat")
    client.list()  # another path: not failed
    with pytest.raises(ollama.ResponseError) as error:
        client.chat(model="llama3.2", messages=USER)
    client.chat(model="llama3.2", messages=USER)

    assert (error.value.status_code, error.value.error) == (503, "server busy")
    assert [path for path, _ in ollama_server.requests] == ["/api/tags"] + ["/api/chat"] * 2


def test_stopped_server_refuses_connections_and_can_come_back():
    with FakeOllamaServer() as server, ollama.Client(host=server.url) as client:
        client.list()  # leaves a keep-alive connection open

        server.stop()
        with pytest.raises(ConnectionError):
            client.list()

        server.start()
        assert client.list().models


def test_unused_url_has_nothing_listening():
    with ollama.Client(host=unused_url()) as client, pytest.raises(ConnectionError):
        client.list()


def test_split_tokens_keeps_every_character():
    text = "  Two  words\nand a line.\n"
    assert split_tokens(text) == ["  Two", "  words", "\nand", " a", " line.", "\n"]
    assert "".join(split_tokens(text)) == text
