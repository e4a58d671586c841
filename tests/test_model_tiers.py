"""The router benchmark's real-model mode, against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench import router_eval
from tests.fakes.openai_server import DEFAULT_MODELS, FakeOpenAIServer

ROUTES = {"hey": json.dumps({"route": "chat"}), "Hello there!": json.dumps({"route": "chat"})}
"""The first three labelled messages are small talk; the third gets no JSON at all."""
REWRITES = {
    "and what about meals?": json.dumps({"query": "meal costs on a travel claim"}),
    "What's the deadline for that?": json.dumps({"query": "What's the deadline for that?"}),
}


def _responder(body: dict[str, Any]) -> str:
    user = body["messages"][-1]["content"]
    if user.startswith("Question:"):  # the follow-up suggestions
        return json.dumps({"suggestions": ["Who signs it?"]}) if "travel" in user else "None."
    if user.startswith("Conversation:"):  # the rewriter
        return REWRITES.get(user.rsplit("Last message: ", 1)[1], "I can't.")
    return ROUTES.get(user.rsplit("Message: ", 1)[1], "Sounds like chat to me.")


async def test_real_model_mode_reports_each_model_call(capsys: pytest.CaptureFixture[str]) -> None:
    model = DEFAULT_MODELS[0]
    with FakeOpenAIServer(habits="llama-cpp-python") as server:
        server.responder = _responder
        await router_eval.main(["--url", server.url, "--model", model, "--limit", "3"])
        chats = server.chat_requests()
    out = capsys.readouterr().out
    # 3 routes, 3 rewrites, 3 suggestions, and the one json_schema the server refused.
    assert len(chats) == 10
    assert f"model {model} at {server.url}; load average before" in out
    router, rewriter, suggestions = out.split("\n\n")[1:4]
    # The server refuses json_schema, so every call settled on the next mode down.
    assert "JSON parsed 2/3 (67%); asked as: json_object+schema 3" in router
    assert "model tier alone 0.667 | rules alone (undecided → rag) 1.000" in router
    assert "seconds per call: p50 " in router
    assert "JSON parsed 2/3 (67%)" in rewriter
    assert "expected scope: model 1/3 | message as typed 0/3" in rewriter
    assert "JSON parsed 1/3 (33%)" in suggestions
    assert "at least one suggestion: 1/3; e.g. ['Who signs it?']" in suggestions
    assert "load average after" in out
