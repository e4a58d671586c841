"""An Ollama-protocol HTTP server on a real localhost socket, scripted by the test.

The real ``ollama`` client talks to it over TCP, so streaming (chunked NDJSON), HTTP errors
and "nothing listens there" behave as they do against ``ollama serve``::

    with FakeOllamaServer() as server:
        server.enqueue_reply("Paris is the capital.", delay=0.01)  # next /api/chat
        server.enqueue_json({"route": "retrieve"})                 # the one after
        chat = OllamaChat(server.url, "llama3.2")

Replies are served first in, first out to ``/api/chat`` whatever the request's ``format``;
when none is queued the reply echoes the last user message (``Echo: ...`` as text,
``{"echo": "..."}`` when the request has a ``format``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from tests.fakes.http_base import FakeHandler, ServedFake

DEFAULT_MODELS = ("llama3.2:latest", "nomic-embed-text:latest")
VERSION = "0.12.6"

_TOKEN = re.compile(r"\s*\S+|\s+$")
_WORD = re.compile(r"\w+")
_PIECE = re.compile(r"\w+|[^\w\s]")

MESSAGE_OVERHEAD = 4
"""Tokens a chat template adds around each message (role markers), as Llama 3's does."""


Ending = Literal["stop", "length", "none", "drop"]
"""How a scripted streamed reply ends: with its last chunk (``done``, its reason "stop" or
"length"); without one, the body closed ("none"); or the connection cut ("drop")."""


@dataclass
class _Reply:
    content: str
    delay: float | None = None
    ending: Ending = "stop"


@dataclass
class _Failure:
    status: int
    error: str
    path: str | None


def unused_url() -> str:
    """URL of a localhost port where nothing listens, for "Ollama is down" tests."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def split_tokens(text: str) -> list[str]:
    """Words with their leading whitespace, like an LLM's tokens; they join back to ``text``."""
    return _TOKEN.findall(text)


def count_tokens(messages: list[dict[str, Any]]) -> int:
    """The prompt's size as this server reports it in ``prompt_eval_count``.

    Roughly what a BPE tokenizer makes of English: a token per word or punctuation mark,
    one per character outside ASCII, plus each message's template overhead.
    """
    total = 0
    for message in messages:
        text = message.get("content") or ""
        pieces = _PIECE.findall(text)
        total += MESSAGE_OVERHEAD + len(pieces) + sum(1 for c in text if ord(c) > 127)
    return total


def fake_vector(text: str, dim: int) -> list[float]:
    """Deterministic unit vector: hashed bag of words, so shared words mean nearby vectors."""
    vec = [0.0] * dim
    for word in _WORD.findall(text.lower()) or [text]:
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vec[int.from_bytes(digest, "big") % dim] += 1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec]


def _with_tag(name: str) -> str:
    name = name.strip().lower()
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class FakeOllamaServer(ServedFake):
    """Speaks enough of Ollama's HTTP API for the real client; see the module docstring."""

    name = "FakeOllamaServer"

    def __init__(
        self,
        models: list[str] | None = None,
        *,
        embed_dim: int = 64,
        token_delay: float = 0.0,
    ) -> None:
        super().__init__()
        self.models: list[str] = list(DEFAULT_MODELS if models is None else models)
        """Installed models, as ``/api/tags`` lists them; tests may assign or append."""
        self.embed_dim = embed_dim
        self.token_delay = token_delay
        """Default seconds between streamed tokens."""
        self.first_token_gate: threading.Event | None = None
        """When given, a chat reply waits for this event before its first token (think:
        a model loading for as long as the test wants); ``holding`` says it is waiting."""
        self.holding = threading.Event()
        """Set while a reply waits at ``first_token_gate``."""
        self.stream_gate: threading.Event | None = None
        """When set, a streamed reply sends its first token, then waits for this event
        before the rest (holds an answer mid-way while a test reloads the page)."""
        self.tokens_allowed: int | None = None
        """The per-token gate: None lets tokens stream freely; a number is how many more
        streamed tokens may be sent before the next waits (``hold_tokens``,
        ``release_tokens``)."""
        self.tokens_sent = 0
        """Streamed tokens sent so far, all replies together."""
        self._token_turn = threading.Condition()
        self.embed_delay = 0.0
        """Seconds each ``/api/embed`` request takes (lets a test watch indexing go by)."""
        self.requests: list[tuple[str, Any]] = []
        """Every request as ``(path, json body or None)``, in arrival order."""
        self.responder: Callable[[dict[str, Any]], str | None] | None = None
        """Picks a ``/api/chat`` reply from the request body before the queue is used;
        returning None falls through to the queue. Lets a test answer by the kind of call
        (rewrite, answer, suggestions) whatever their order."""
        self.takes_schemas = True
        """Whether ``format`` may be a JSON schema (Ollama 0.5 and later); False answers one
        with the 400 an older Ollama gives."""
        self._replies: deque[_Reply] = deque()
        self._failures: deque[_Failure] = deque()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``; stays the same across ``stop()`` / ``start()``."""
        return self.root

    # -- scripting -------------------------------------------------------------------

    def enqueue_reply(
        self, text: str, *, delay: float | None = None, ending: Ending = "stop"
    ) -> None:
        """Queue the content of a later ``/api/chat`` reply (streamed word by word), its
        stream ending as ``ending`` says."""
        with self._lock:
            self._replies.append(_Reply(text, delay, ending))

    def enqueue_json(self, obj: Any, *, delay: float | None = None) -> None:
        """Queue a reply whose content is ``obj`` as JSON (for ``format`` requests)."""
        self.enqueue_reply(json.dumps(obj), delay=delay)

    def fail_next(
        self, status: int = 500, error: str = "internal server error", *, path: str | None = None
    ) -> None:
        """Answer the next request (to ``path`` if given) with ``status`` and ``{"error": ...}``."""
        with self._lock:
            self._failures.append(_Failure(status, error, path))

    def hold_tokens(self, allowed: int = 0) -> None:
        """From now on each streamed token waits at the gate; ``allowed`` pass first. A test
        holds an answer at a known token for as long as it needs, then releases it."""
        with self._token_turn:
            self.tokens_allowed = allowed

    def release_tokens(self, count: int | None = None) -> None:
        """Let ``count`` more streamed tokens through, or open the gate (None)."""
        with self._token_turn:
            if count is None or self.tokens_allowed is None:
                self.tokens_allowed = None
            else:
                self.tokens_allowed += count
            self._token_turn.notify_all()

    def stop(self) -> None:
        """Stop, then open the token gate: a reply held at it finds its connection cut."""
        super().stop()
        self.release_tokens()

    def _pass_token(self) -> None:
        """Wait at the per-token gate (if closed) and count the token as sent."""
        with self._token_turn:
            self._token_turn.wait_for(lambda: self.tokens_allowed != 0)
            if self.tokens_allowed is not None:
                self.tokens_allowed -= 1
            self.tokens_sent += 1

    def requests_to(self, path: str) -> list[Any]:
        """Bodies of the recorded requests to ``path``."""
        with self._lock:
            return [body for p, body in self.requests if p == path]

    def has_model(self, name: str) -> bool:
        return any(_with_tag(m) == _with_tag(name) for m in self.models)

    # -- used by the handler ---------------------------------------------------------

    def _record(self, path: str, body: Any) -> _Failure | None:
        with self._lock:
            self.requests.append((path, body))
            for failure in self._failures:
                if failure.path in (None, path):
                    self._failures.remove(failure)
                    return failure
        return None

    def _add_model(self, name: str) -> None:
        with self._lock:
            if not self.has_model(name):
                self.models.append(name)

    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of the ``/api/chat`` requests, each with ``prompt_tokens`` added: the
        prompt's size as ``count_tokens`` measures it (what ``prompt_eval_count`` says)."""
        return [
            {**body, "prompt_tokens": count_tokens(body.get("messages") or [])}
            for body in self.requests_to("/api/chat")
        ]

    def _next_reply(self, body: dict[str, Any], json_mode: bool) -> _Reply:
        messages = body.get("messages") or []
        responder = self.responder
        if responder is not None and (text := responder(body)) is not None:
            return _Reply(text)
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        last_user = next(
            (m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), ""
        )
        if json_mode:
            return _Reply(json.dumps({"echo": last_user}))
        return _Reply(f"Echo: {last_user}")


class _Handler(FakeHandler):
    @property
    def fake(self) -> FakeOllamaServer:
        return self.server.fake

    # -- routing ---------------------------------------------------------------------

    def do_HEAD(self) -> None:
        self._send_bytes(200, b"", "text/plain; charset=utf-8")

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if failure := self.fake._record(path, None):
            return self._send_json({"error": failure.error}, failure.status)
        if path == "/":
            return self._send_bytes(200, b"Ollama is running", "text/plain; charset=utf-8")
        if path == "/api/version":
            return self._send_json({"version": VERSION})
        if path == "/api/tags":
            return self._send_json({"models": [self._model_entry(m) for m in self.fake.models]})
        self._not_found()

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        raw = self.read_body()
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            self.fake._record(path, raw.decode(errors="replace"))
            return self._send_json({"error": "invalid character in request body"}, 400)
        if failure := self.fake._record(path, body):
            return self._send_json({"error": failure.error}, failure.status)
        handler = {
            "/api/chat": self._chat,
            "/api/embed": self._embed,
            "/api/show": self._show,
            "/api/pull": self._pull,
        }.get(path)
        if handler is None:
            return self._not_found()
        handler(body)

    # -- endpoints -------------------------------------------------------------------

    def _chat(self, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        if not self.fake.has_model(model):
            return self._model_missing(model)
        messages = body.get("messages") or []
        if isinstance(body.get("format"), dict) and not self.fake.takes_schemas:
            error = (
                "json: cannot unmarshal object into Go struct field ChatRequest.format of "
                "type string"
            )
            return self._send_json({"error": error}, 400)
        reply = self.fake._next_reply(body, json_mode="format" in body)
        delay = self.fake.token_delay if reply.delay is None else reply.delay
        tokens = split_tokens(reply.content)
        started = time.monotonic_ns()
        final = {
            "model": model,
            "created_at": "",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "load_duration": 1_000_000,
            "prompt_eval_count": count_tokens(messages),
            "prompt_eval_duration": 1_000_000,
            "eval_count": len(tokens),
        }
        if body.get("stream", True) is False:
            self._wait_for_first_token()
            time.sleep(delay * len(tokens))
            final["message"]["content"] = reply.content
            final.update(created_at=_now(), **_durations(started))
            return self._send_json(final)
        lines = self._start_stream()
        self._wait_for_first_token()
        for index, token in enumerate(tokens):
            if index:
                time.sleep(delay)
            if index == 1 and self.fake.stream_gate is not None:
                self.fake.stream_gate.wait()
            self.fake._pass_token()
            chunk = {
                "model": model,
                "created_at": _now(),
                "message": {"role": "assistant", "content": token},
                "done": False,
            }
            if not lines(chunk):
                return
        if reply.ending == "drop":  # Ollama's runner died mid-answer
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if reply.ending != "none":
            final.update(created_at=_now(), done_reason=reply.ending, **_durations(started))
            lines(final)
        self._end_stream()

    def _embed(self, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        if not self.fake.has_model(model):
            return self._model_missing(model)
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        if self.fake.embed_delay:
            time.sleep(self.fake.embed_delay)
        dim = body.get("dimensions") or self.fake.embed_dim
        self._send_json(
            {
                "model": model,
                "embeddings": [fake_vector(text, dim) for text in texts],
                "total_duration": 1_000_000,
                "load_duration": 100_000,
                "prompt_eval_count": sum(len(_WORD.findall(t)) for t in texts),
            }
        )

    def _show(self, body: dict[str, Any]) -> None:
        model = body.get("model") or body.get("name") or ""
        if not self.fake.has_model(model):
            return self._send_json({"error": f"model '{model}' not found"}, 404)
        embedding = "embed" in model
        self._send_json(
            {
                "modelfile": f"# Modelfile generated by the fake Ollama\nFROM {model}\n",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": _details(model),
                "model_info": {
                    "general.architecture": "fake",
                    "fake.context_length": 8192,
                    "fake.embedding_length": self.fake.embed_dim,
                },
                "capabilities": ["embedding"] if embedding else ["completion"],
                "modified_at": _now(),
            }
        )

    def _pull(self, body: dict[str, Any]) -> None:
        model = _with_tag(body.get("model") or body.get("name") or "")
        digest = "sha256:" + hashlib.sha256(model.encode()).hexdigest()
        total = 4_000_000
        statuses: list[dict[str, Any]] = [{"status": "pulling manifest"}]
        statuses += [
            {"status": f"pulling {digest[7:19]}", "digest": digest, "total": total, "completed": c}
            for c in (0, total // 2, total)
        ]
        statuses += [
            {"status": "verifying sha256 digest"},
            {"status": "writing manifest"},
            {"status": "success"},
        ]
        self.fake._add_model(model)
        if body.get("stream", True) is False:
            return self._send_json({"status": "success"})
        lines = self._start_stream()
        for status in statuses:
            if not lines(status):
                return
            time.sleep(self.fake.token_delay)
        self._end_stream()

    # -- responses -------------------------------------------------------------------

    def _model_entry(self, name: str) -> dict[str, Any]:
        return {
            "name": name,
            "model": name,
            "modified_at": _now(),
            "size": 2_000_000_000,
            "digest": hashlib.sha256(name.encode()).hexdigest(),
            "details": _details(name),
        }

    def _model_missing(self, model: str) -> None:
        # Exactly what Ollama's chat and embed handlers answer.
        self._send_json({"error": f'model "{model}" not found, try pulling it first'}, 404)

    def _not_found(self) -> None:
        self._send_bytes(404, b"404 page not found", "text/plain")

    def _send_json(self, obj: Any, status: int = 200) -> None:
        self.send_json(obj, status)

    def _send_bytes(self, status: int, data: bytes, content_type: str) -> None:
        self.send_bytes(status, data, content_type)

    def _wait_for_first_token(self) -> None:
        gate = self.fake.first_token_gate
        if gate is not None:
            self.fake.holding.set()
            try:
                gate.wait()
            finally:
                self.fake.holding.clear()

    def _start_stream(self) -> Callable[[Any], bool]:
        """Send chunked NDJSON headers; return a writer of one line that says if it worked."""
        write = self.start_chunks("application/x-ndjson")
        return lambda obj: write(json.dumps(obj).encode() + b"\n")

    def _end_stream(self) -> None:
        self.end_chunks()


FakeOllamaServer.handler = _Handler


def _details(name: str) -> dict[str, Any]:
    return {
        "parent_model": "",
        "format": "gguf",
        "family": name.split(":", 1)[0].rsplit("/", 1)[-1],
        "families": None,
        "parameter_size": "3.2B",
        "quantization_level": "Q4_K_M",
    }


def _durations(started_ns: int) -> dict[str, int]:
    total = max(time.monotonic_ns() - started_ns, 1)
    return {"total_duration": total, "eval_duration": total}
