"""An OpenAI-compatible model server (as LM Studio, llama-server or vLLM serve one) on a
real localhost socket, scripted by the test::

    with FakeOpenAIServer() as server:             # server.url ends in /v1
        server.enqueue_reply("Paris is the capital.", delay=0.01)
        server.response_formats = {"json_schema"}  # as LM Studio: json_object is refused
        chat = OpenAIChat(server.url, "qwen2.5-7b-instruct")

    with FakeOpenAIServer(habits="llama-cpp-python") as server: ...

Replies are served first in, first out to ``/v1/chat/completions``; with none queued the
reply echoes the last user message (``Echo: ...`` as text, ``{"echo": "..."}`` when the
request has a ``response_format``). Streams are server-sent events ending in
``data: [DONE]``, with a last ``usage`` chunk when ``stream_options.include_usage`` asks.

Where real servers differ, ``habits`` names one to behave like (see
tests/fakes/server_habits.py): what ``/models`` says in ``owned_by``, how a
``response_format`` it doesn't take is refused, whether a request waits for the one in
flight and cuts its stream short, usage, pings.

``python -m tests.fakes.openai_server [PORT]`` serves until stopped, answering every
question with a short cited sentence, to try the window against it by hand.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from tests.fakes.http_base import FakeHandler, ServedFake
from tests.fakes.ollama_server import count_tokens, fake_vector, split_tokens
from tests.fakes.server_habits import HABITS

DEFAULT_MODELS = ("qwen2.5-7b-instruct", "text-embedding-nomic-embed-text-v1.5")
"""What LM Studio lists with one chat and one embedding model loaded."""

Ending = Literal["stop", "length", "done", "drop"]
"""How a scripted reply ends: with its finish reason ("stop", "length"); with
``data: [DONE]`` and no finish reason ("done", as an interrupted llama-cpp-python stream
does); or with the connection cut mid-answer ("drop", as a server that dies)."""


@dataclass
class _Reply:
    content: str
    delay: float | None = None
    ending: Ending = "stop"

    @property
    def finish(self) -> str | None:
        return self.ending if self.ending in ("stop", "length") else None


def _usage(body: dict[str, Any], tokens: list[str]) -> dict[str, int]:
    prompt = count_tokens(body.get("messages") or [])
    return {
        "prompt_tokens": prompt,
        "completion_tokens": len(tokens),
        "total_tokens": prompt + len(tokens),
    }


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
        habits: str = "plain",
    ) -> None:
        super().__init__()
        self.habits = HABITS[habits]
        self.models: list[str] = list(DEFAULT_MODELS if models is None else models)
        """Loaded models, as ``/v1/models`` lists them; tests may assign or append."""
        self.strict_models = self.habits.strict_models
        """Refuse (404, as vLLM and LM Studio do) a model that is not loaded; False answers
        with the one loaded whatever is asked, as llama-server does."""
        self.response_formats: set[str] = set(self.habits.response_formats)
        """The ``response_format`` types accepted; any other is refused (a 400 naming the
        field, or as ``habits`` say)."""
        self.sends_usage = self.habits.sends_usage
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
        self.ignores_stream = False
        """Answer a streamed request with one JSON completion, as an endpoint that does not
        stream does (a proxy, or an address that is not the model server's)."""
        self.cut_short = 0
        """Streams ended early because another request arrived (``habits.interrupts``)."""
        self._replies: deque[_Reply] = deque()
        self._failures: deque[_Failure] = deque()
        self._lock = threading.Lock()
        self._model_lock = threading.Lock()
        """Held by the request the model works on (``habits.one_at_a_time``)."""
        self._queued = 0
        self._answering = 0

    @property
    def url(self) -> str:
        """The base URL clients are given, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.root}/v1"

    # -- scripting -------------------------------------------------------------------

    def enqueue_reply(
        self, text: str, *, delay: float | None = None, ending: Ending = "stop"
    ) -> None:
        """Queue the content of a later chat reply (streamed word by word), ending as
        ``ending`` says."""
        with self._lock:
            self._replies.append(_Reply(text, delay, ending))

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

    @property
    def waiting(self) -> int:
        """Requests waiting for the model (only a one-at-a-time server makes them wait)."""
        with self._lock:
            return self._queued

    @property
    def answering(self) -> int:
        """Requests the model works on now (chat completions)."""
        with self._lock:
            return self._answering

    @contextmanager
    def _model_turn(self) -> Iterator[None]:
        """Wait for the model, as a one-at-a-time server makes every request wait."""
        with self._lock:
            self._queued += 1
        if self.habits.one_at_a_time:
            self._model_lock.acquire()
        with self._lock:
            self._queued -= 1
            self._answering += 1
        try:
            yield
        finally:
            with self._lock:
                self._answering -= 1
            if self.habits.one_at_a_time:
                self._model_lock.release()

    def _interrupted(self) -> bool:
        """Whether a stream must end now: another request waits (llama-cpp-python checks
        after each chunk it sends)."""
        with self._lock:
            if self.habits.interrupts and self._queued > 0:
                self.cut_short += 1
                return True
        return False

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
            owner = self.fake.habits.owned_by
            if self.fake.habits.one_at_a_time:
                with self.fake._model_turn():  # llama-cpp-python's /v1/models waits for it
                    pass
            cards = [{"id": m, "object": "model", "owned_by": owner} for m in self.fake.models]
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
            return self._refuse_format(kind)
        if not body.get("stream") or self.fake.ignores_stream:
            with self.fake._model_turn():
                return self._complete(body, model)
        write = self.start_chunks("text/event-stream")
        if self.fake.habits.pings:
            stamp = datetime.now(UTC).isoformat(sep=" ")
            write(f": ping - {stamp}\n\n".encode())
        with self.fake._model_turn():
            self._stream(body, model, write)
        self.end_chunks()

    def _reply_to(self, body: dict[str, Any]) -> tuple[_Reply, list[str], str | None]:
        """The reply, its tokens (cut at ``max_tokens``) and its finish reason."""
        reply = self.fake._next_reply(body)
        if self.fake.reply_gate is not None:
            self.fake.reply_gate.wait()
        tokens = split_tokens(reply.content)
        limit = body.get("max_tokens")
        if isinstance(limit, int) and len(tokens) > limit:
            return reply, tokens[:limit], "length"
        return reply, tokens, reply.finish

    def _complete(self, body: dict[str, Any], model: str) -> None:
        reply, tokens, finish = self._reply_to(body)
        delay = self.fake.token_delay if reply.delay is None else reply.delay
        time.sleep(delay * len(tokens))
        message = {"role": "assistant", "content": "".join(tokens)}
        choice = {"index": 0, "message": message, "finish_reason": finish or "stop"}
        chunk = {**self._common(model), "object": "chat.completion", "choices": [choice]}
        self.send_json({**chunk, "usage": _usage(body, tokens)})

    def _stream(self, body: dict[str, Any], model: str, write: Callable[[bytes], bool]) -> None:
        common = self._common(model)

        def event(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bool:
            """Send one chunk; False when the stream must end (the client left, or, on a
            server that interrupts, another request is waiting: then with [DONE])."""
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            choices = [] if delta is None else [choice]
            chunk = {**common, "object": "chat.completion.chunk", "choices": choices, **extra}
            if not write(b"data: " + json.dumps(chunk).encode() + b"\n\n"):
                return False
            if finish is None and self.fake._interrupted():
                write(b"data: [DONE]\n\n")
                return False
            return True

        reply, tokens, finish = self._reply_to(body)
        delay = self.fake.token_delay if reply.delay is None else reply.delay
        if not event({"role": "assistant"}):
            return
        for index, token in enumerate(tokens):
            if index:
                time.sleep(delay)
            if not event({"content": token}):
                return
        if reply.ending == "drop":  # the server died mid-answer: no end of the chunked body
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if finish is not None and not event({}, finish):
            return
        wants_usage = (body.get("stream_options") or {}).get("include_usage")
        if wants_usage and self.fake.sends_usage:
            event(None, usage=_usage(body, tokens))
        write(b"data: [DONE]\n\n")

    def _common(self, model: str) -> dict[str, Any]:
        return {"id": "chatcmpl-fake", "created": int(time.time()), "model": model}

    def _refuse_format(self, kind: str) -> None:
        if self.fake.habits.refused_with == 500:
            # llama-cpp-python's server: its request validation, wrapped as a 500.
            accepted = " or ".join(f"'{t}'" for t in ["text", *sorted(self.fake.response_formats)])
            detail = {
                "type": "literal_error",
                "loc": ("body", "response_format", "type"),
                "msg": f"Input should be {accepted}",
                "input": kind,
                "ctx": {"expected": accepted},
            }
            message = f"1 validation error:\n  {detail!r}"
            return self.send_json(error_body(message, "internal_server_error"), 500)
        # LM Studio's words for a type it doesn't take.
        accepted = " or ".join(f"'{t}'" for t in sorted(self.fake.response_formats | {"text"}))
        message = f"'response_format.type' must be {accepted}"
        self.send_json(error_body(message, "invalid_request_error"), 400)

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
