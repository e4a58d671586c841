"""The fake OpenAI-compatible server, checked with the official ``openai`` client: if that
client reads it as it reads LM Studio or vLLM, the adapter's tests against it mean something."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tests.fakes.openai_server import FakeOpenAIServer


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
