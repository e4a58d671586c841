"""OllamaChat: num_ctx on every request, token counts from the final chunk, JSON timeouts."""

from __future__ import annotations

import threading

import pytest

from models.llm import LLMError
from models.ollama_chat import OllamaChat
from models.protocols import Usage
from tests.fakes.ollama_server import FakeOllamaServer, count_tokens

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there!"}]


async def test_num_ctx_goes_with_every_request(ollama_server: FakeOllamaServer) -> None:
    chat = OllamaChat(ollama_server.url, "llama3.2", num_ctx=4096)
    ollama_server.enqueue_reply("Hello.")
    ollama_server.enqueue_json({"ok": True})
    try:
        _ = [piece async for piece in chat.stream_chat(MESSAGES)]
        await chat.complete_json(MESSAGES)
    finally:
        await chat.aclose()
    bodies = ollama_server.requests_to("/api/chat")
    assert [body["options"]["num_ctx"] for body in bodies] == [4096, 4096]


async def test_usage_comes_from_the_final_chunk(ollama_server: FakeOllamaServer) -> None:
    chat = OllamaChat(ollama_server.url, "llama3.2")
    ollama_server.enqueue_reply("Hello there, friend.")
    usage = Usage()
    try:
        pieces = [piece async for piece in chat.stream_chat(MESSAGES, usage)]
    finally:
        await chat.aclose()
    assert "".join(pieces) == "Hello there, friend."
    assert usage.prompt_tokens == count_tokens(MESSAGES)
    assert usage.answer_tokens == 3


async def test_a_json_call_past_its_timeout_fails_with_a_clear_error(
    ollama_server: FakeOllamaServer,
) -> None:
    chat = OllamaChat(ollama_server.url, "llama3.2")
    ollama_server.first_token_gate = threading.Event()  # the reply waits until the end
    ollama_server.enqueue_json({"query": "late"})
    try:
        with pytest.raises(LLMError, match="took longer than 0.2 s"):
            await chat.complete_json(MESSAGES, timeout=0.2)
    finally:
        ollama_server.first_token_gate.set()
        await chat.aclose()
