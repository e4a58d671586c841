"""/v1 with the official openai client, on a real socket: Docent as a model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import openai
import pytest

from models.ollama_chat import OllamaChat
from tests.api_app import api_app, error_code
from tests.fakes.chat import FakeChatModel
from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import RunningApp

RECIPES = "# Recipes\n\nThe pancake batter needs two eggs and a pinch of salt.\n"


@pytest.fixture
def llm() -> FakeChatModel:
    return FakeChatModel(token_delay=0.002)


@pytest.fixture
async def app(tmp_path: Path, llm: FakeChatModel) -> AsyncIterator[RunningApp]:
    async with api_app(tmp_path, llm=llm, files={"recipes.md": RECIPES}) as running:
        yield running


def client_for(app: RunningApp, token: str | None = None) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=f"{app.url}/v1", api_key=token or app.container.token, max_retries=0
    )


async def test_completion_answers_with_citations_and_sources(
    app: RunningApp, llm: FakeChatModel
) -> None:
    llm.enqueue("It is under the blue flowerpot [1].")
    completion = await client_for(app).chat.completions.create(
        model="docent", messages=[{"role": "user", "content": "Where is the spare key?"}]
    )
    choice = completion.choices[0]
    assert choice.message.role == "assistant" and choice.finish_reason == "stop"
    assert choice.message.content == "It is under the blue flowerpot [1]."
    extra = completion.model_extra or {}
    assert extra["sources"][0]["n"] == 1 and extra["sources"][0]["file"] == "notes.md"
    assert completion.model == "docent" and completion.object == "chat.completion"
    # The turn is a session like any other, kept on this machine.
    messages = await app.container.chat.messages(extra["session_id"])
    assert [m["content"] for m in messages] == [
        "Where is the spare key?",
        "It is under the blue flowerpot [1].",
    ]


async def test_streaming_gives_chunks_and_sources_in_the_last_one(
    app: RunningApp, llm: FakeChatModel
) -> None:
    llm.enqueue("Two eggs and a pinch of salt [1].")
    stream = await client_for(app).chat.completions.create(
        model="docent",
        messages=[{"role": "user", "content": "What is in the pancake batter?"}],
        stream=True,
    )
    chunks = [chunk async for chunk in stream]
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == "Two eggs and a pinch of salt [1]."
    assert len([c for c in chunks if c.choices[0].delta.content]) > 3  # token by token
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert [c.choices[0].finish_reason for c in chunks[:-1]] == [None] * (len(chunks) - 1)
    assert (last.model_extra or {})["sources"][0]["file"] == "recipes.md"
    assert len({c.id for c in chunks}) == 1 and chunks[0].object == "chat.completion.chunk"


async def test_messages_are_the_history(app: RunningApp, llm: FakeChatModel) -> None:
    await client_for(app).chat.completions.create(
        model="docent",
        messages=[
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Where is the spare key?"},
            {"role": "assistant", "content": "Under the blue flowerpot [1]."},
            {
                "role": "user",
                "content": [{"type": "text", "text": "Is the spare key under the blue flowerpot?"}],
            },
        ],
    )
    prompt = llm.history[-1]
    said = [(m["role"], m["content"]) for m in prompt]
    assert ("user", "Where is the spare key?") in said
    assert ("assistant", "Under the blue flowerpot [1].") in said
    assert "Is the spare key under the blue flowerpot?" in prompt[-1]["content"]
    assert all("helpful assistant" not in m["content"] for m in prompt)  # Docent's own prompt


async def test_mention_in_the_last_message_targets_that_file(app: RunningApp) -> None:
    completion = await client_for(app).chat.completions.create(
        model="docent",
        messages=[
            {"role": "user", "content": "Tell me about @notes.md"},
            {"role": "assistant", "content": "It is about a key."},
            {"role": "user", "content": "What does @recipes.md say about eggs and keys?"},
        ],
    )
    sources = (completion.model_extra or {})["sources"]
    assert sources and {s["file"] for s in sources} == {"recipes.md"}


async def test_models_lists_docent_and_ollamas_models(app: RunningApp) -> None:
    models = await client_for(app).models.list()
    assert [m.id for m in models.data] == ["docent", "fake-chat"]


async def test_wrong_token_is_refused_by_the_client(app: RunningApp) -> None:
    with pytest.raises(openai.AuthenticationError) as refused:
        await client_for(app, token="wrong").chat.completions.create(
            model="docent", messages=[{"role": "user", "content": "hi"}]
        )
    assert refused.value.status_code == 401
    with pytest.raises(openai.AuthenticationError):
        await client_for(app, token="wrong").models.list()


@pytest.mark.parametrize("path", ["/v1/models", "/v1/chat/completions"])
async def test_foreign_host_gets_403(app: RunningApp, path: str) -> None:
    body = {"model": "docent", "messages": [{"role": "user", "content": "hi"}]}
    method = "GET" if path.endswith("models") else "POST"
    response = await app.client.request(method, path, json=body, headers={"Host": "evil.test"})
    assert response.status_code == 403 and error_code(response) == "forbidden_host"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, "model"),
        ({"model": "docent"}, "messages"),
        ({"model": "docent", "messages": []}, "messages"),
        ({"model": "docent", "messages": [{"role": "wizard", "content": "hi"}]}, "role"),
        ({"model": "docent", "messages": [{"role": "assistant", "content": "hi"}]}, "messages"),
    ],
)
async def test_invalid_body_gets_422_naming_the_field(
    app: RunningApp, body: dict, field: str
) -> None:
    response = await app.client.post("/v1/chat/completions", json=body)
    assert response.status_code == 422 and error_code(response) == "invalid_request"
    assert field in response.json()["error"]["message"]


async def test_too_long_message_gets_413(app: RunningApp) -> None:
    with pytest.raises(openai.APIStatusError) as refused:
        await client_for(app).chat.completions.create(
            model="docent", messages=[{"role": "user", "content": "x" * 16_001}]
        )
    assert refused.value.status_code == 413
    assert "16,000" in refused.value.message


@pytest.fixture
def ollama() -> Iterator[FakeOllamaServer]:
    with FakeOllamaServer(["llama3.2:latest", "mistral:7b", "nomic-embed-text:latest"]) as fake:
        yield fake


async def test_model_names_an_ollama_model_for_the_turn(
    tmp_path: Path, ollama: FakeOllamaServer
) -> None:
    async with api_app(
        tmp_path, llm=OllamaChat(ollama.url, "llama3.2"), ollama_host=ollama.url
    ) as app:
        client = client_for(app)
        question = [{"role": "user", "content": "Where is the spare key?"}]
        await client.chat.completions.create(model="mistral:7b", messages=question)
        await client.chat.completions.create(model="docent", messages=question)
        await client.chat.completions.create(model="llama3.2:latest", messages=question)
        used = [body["model"] for path, body in ollama.requests if path == "/api/chat"]
        assert used == ["mistral:7b", "llama3.2", "llama3.2"]

        with pytest.raises(openai.NotFoundError) as missing:
            await client.chat.completions.create(model="gpt-4o", messages=question)
        assert "ollama pull gpt-4o" in missing.value.message
        listed = [m.id for m in (await client.models.list()).data]
        assert listed == ["docent", "llama3.2:latest", "mistral:7b", "nomic-embed-text:latest"]
