"""An OpenAI-compatible model server (as LM Studio, llama-server or vLLM serve one) on a
real localhost socket, scripted by the test::

    with FakeOpenAIServer() as server:             # server.url ends in /v1
        server.enqueue_reply("Paris is the capital.", delay=0.01)
        server.response_formats = {"json_schema"}  # as LM Studio: json_object is refused
        chat = OpenAIChat(server.url, "qwen2.5-7b-instruct")

Replies are served first in, first out to ``/v1/chat/completions``; with none queued the
reply echoes the last user message (``Echo: ...`` as text, ``{"echo": "..."}`` when the
request has a ``response_format``). Streams are server-sent events ending in
``data: [DONE]``, with a last ``usage`` chunk when ``stream_options.include_usage`` asks.

``python -m tests.fakes.openai_server [PORT]`` serves until stopped, answering every
question with a short cited sentence, to try the window against it by hand.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakes.http_base import FakeHandler, ServedFake
from tests.fakes.ollama_server import count_tokens, fake_vector, split_tokens

DEFAULT_MODELS = ("qwen2.5-7b-instruct", "text-embedding-nomic-embed-text-v1.5")
"""What LM Studio lists with one chat and one embedding model loaded."""

RESPONSE_FORMATS = frozenset({"json_schema", "json_object"})
"""What vLLM, llama-server and Ollama's /v1 accept; LM Studio takes json_schema only."""


@dataclass
class _Reply:
    content: str
    delay: float | None = None


@dataclass
class _Failure:
    status: int
    message: str
    path: str | None


class FakeOpenAIServer(ServedFake):
    """Speaks enough of the OpenAI API for Docent's adapter and the ``openai`` client."""

    name = "FakeOpenAIServer"

    def __init__(
        self,
        models: list[str] | None = None,
        *,
        token_delay: float = 0.0,
        embed_dim: int = 64,
    ) -> None:
        super().__init__()
        self.models: list[str] = list(DEFAULT_MODELS if models is None else models)
        """Loaded models, as ``/v1/models`` lists them; tests may assign or append."""
        self.strict_models = True
        """Refuse (404, as vLLM and LM Studio do) a model that is not loaded; False answers
        with the one loaded whatever is asked, as llama-server does."""
        self.response_formats: set[str] = set(RESPONSE_FORMATS)
        """The ``response_format`` types accepted; any other gets a 400 naming the field."""
        self.sends_usage = True
        """Whether a stream asked for ``include_usage`` ends with a ``usage`` chunk."""
        self.token_delay = token_delay
        """Default seconds between streamed tokens."""
        self.reply_gate: threading.Event | None = None
        """When given, a chat reply waits for this event before it answers at all (a model
        busy for as long as the test wants)."""
        self.embed_dim = embed_dim
        self.api_key: str | None = None
        """When set, requests without ``Authorization: Bearer <api_key>`` get 401."""
        self.requests: list[tuple[str, Any]] = []
        """Every request as ``(path, json body or None)``, in arrival order."""
        self.responder: Callable[[dict[str, Any]], str | None] | None = None
        """Picks a chat reply from the request body before the queue is used; None falls
        through to the queue (as ``FakeOllamaServer.responder``)."""
        self._replies: deque[_Reply] = deque()
        self._failures: deque[_Failure] = deque()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The base URL clients are given, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.root}/v1"

    # -- scripting -------------------------------------------------------------------

    def enqueue_reply(self, text: str, *, delay: float | None = None) -> None:
        """Queue the content of a later chat reply (streamed word by word)."""
        with self._lock:
            self._replies.append(_Reply(text, delay))

    def enqueue_json(self, obj: Any) -> None:
        """Queue a reply whose content is ``obj`` as JSON."""
        self.enqueue_reply(json.dumps(obj))

    def fail_next(
        self, status: int = 500, message: str = "internal error", *, path: str | None = None
    ) -> None:
        """Answer the next request (to ``path``, e.g. ``/v1/models``, if given) with
        ``status`` and an OpenAI-style error body."""
        with self._lock:
            self._failures.append(_Failure(status, message, path))

    def requests_to(self, path: str) -> list[Any]:
        """Bodies of the recorded requests to ``path`` (``/v1/chat/completions``, ...)."""
        with self._lock:
            return [body for p, body in self.requests if p == path]

    def chat_requests(self) -> list[dict[str, Any]]:
        return self.requests_to("/v1/chat/completions")

    # -- used by the handler ---------------------------------------------------------

    def _record(self, path: str, body: Any) -> _Failure | None:
        with self._lock:
            self.requests.append((path, body))
            for failure in self._failures:
                if failure.path in (None, path):
                    self._failures.remove(failure)
                    return failure
        return None

    def _next_reply(self, body: dict[str, Any]) -> _Reply:
        if self.responder is not None and (text := self.responder(body)) is not None:
            return _Reply(text)
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        messages = body.get("messages") or []
        last = next((m.get("content") or "" for m in reversed(messages) if m["role"] == "user"), "")
        if "response_format" in body:
            return _Reply(json.dumps({"echo": last}))
        return _Reply(f"Echo: {last}")


def error_body(message: str, kind: str, code: int | str | None = None) -> dict[str, Any]:
    """An error as the OpenAI API (and vLLM, LM Studio) shape it."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _Handler(FakeHandler):
    server: Any

    @property
    def fake(self) -> FakeOpenAIServer:
        return self.server.fake  # type: ignore[no-any-return]

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if failure := self.fake._record(path, None):
            return self._fail(failure)
        if not self._authorised():
            return
        if path == "/v1/models":
            cards = [{"id": m, "object": "model", "owned_by": "local"} for m in self.fake.models]
            return self.send_json({"object": "list", "data": cards})
        self.send_json(error_body(f"Unexpected endpoint {path}", "invalid_request_error"), 404)

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        raw = self.read_body()
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            self.fake._record(path, raw.decode(errors="replace"))
            return self.send_json(error_body("Invalid JSON body", "invalid_request_error"), 400)
        if failure := self.fake._record(path, body):
            return self._fail(failure)
        if not self._authorised():
            return
        if path == "/v1/chat/completions":
            return self._chat(body)
        if path == "/v1/embeddings":
            return self._embeddings(body)
        self.send_json(error_body(f"Unexpected endpoint {path}", "invalid_request_error"), 404)

    def _chat(self, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if not self._model_loaded(model):
            return
        kind = (body.get("response_format") or {}).get("type")
        if kind is not None and kind != "text" and kind not in self.fake.response_formats:
            # LM Studio's words for a type it doesn't take.
            accepted = " or ".join(f"'{t}'" for t in sorted(self.fake.response_formats | {"text"}))
            message = f"'response_format.type' must be {accepted}"
            return self.send_json(error_body(message, "invalid_request_error"), 400)
        reply = self.fake._next_reply(body)
        if self.fake.reply_gate is not None:
            self.fake.reply_gate.wait()
        delay = self.fake.token_delay if reply.delay is None else reply.delay
        tokens = split_tokens(reply.content)
        usage = {
            "prompt_tokens": count_tokens(body.get("messages") or []),
            "completion_tokens": len(tokens),
            "total_tokens": 0,
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        common = {"id": "chatcmpl-fake", "created": int(time.time()), "model": model}
        if not body.get("stream"):
            time.sleep(delay * len(tokens))
            message = {"role": "assistant", "content": reply.content}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return self.send_json(
                {**common, "object": "chat.completion", "choices": [choice], "usage": usage}
            )
        write = self.start_chunks("text/event-stream")

        def event(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bool:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            choices = [] if delta is None else [choice]
            chunk = {**common, "object": "chat.completion.chunk", "choices": choices, **extra}
            return write(b"data: " + json.dumps(chunk).encode() + b"\n\n")

        if not event({"role": "assistant", "content": ""}):
            return
        for index, token in enumerate(tokens):
            if index:
                time.sleep(delay)
            if not event({"content": token}):
                return
        event({}, "stop")
        wants_usage = (body.get("stream_options") or {}).get("include_usage")
        if wants_usage and self.fake.sends_usage:
            event(None, usage=usage)
        write(b"data: [DONE]\n\n")
        self.end_chunks()

    def _embeddings(self, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if not self._model_loaded(model):
            return
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(t, self.fake.embed_dim)}
            for i, t in enumerate(texts)
        ]
        self.send_json({"object": "list", "data": data, "model": model, "usage": {}})

    def _model_loaded(self, model: str) -> bool:
        if not self.fake.strict_models or model in self.fake.models:
            return True
        # vLLM's words; LM Studio and OpenAI say much the same with a 404.
        message = f"The model `{model}` does not exist."
        self.send_json(error_body(message, "NotFoundError", 404), 404)
        return False

    def _authorised(self) -> bool:
        key = self.fake.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self.send_json(error_body("Incorrect API key provided", "invalid_request_error"), 401)
        return False

    def _fail(self, failure: _Failure) -> None:
        self.send_json(error_body(failure.message, "server_error", failure.status), failure.status)


FakeOpenAIServer.handler = _Handler


def _serve_until_stopped(port: int) -> None:
    """Answer every question with a cited sentence, slowly enough to watch it stream."""
    server = FakeOpenAIServer(token_delay=0.05)
    server._port = port

    def answer(body: dict[str, Any]) -> str | None:
        if "response_format" in body:
            return None  # the echo: routes and rewrites then search, as a cautious model does
        return "Here is what your documents say, from the local model server [1]."

    server.responder = answer
    with server:
        print(f"Fake OpenAI-compatible server at {server.url}; Ctrl-C stops it.", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    _serve_until_stopped(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
