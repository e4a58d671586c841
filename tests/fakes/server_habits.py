"""Where the OpenAI-compatible servers differ, as the fake in openai_server.py can behave:
what ``/models`` says in ``owned_by``, which ``response_format`` types each takes and how it
refuses the others, whether a request waits for the one in flight and cuts its stream
short, usage, pings."""

from __future__ import annotations

from dataclasses import dataclass

RESPONSE_FORMATS = frozenset({"json_schema", "json_object"})
"""What vLLM, llama-server and Ollama's /v1 accept; LM Studio takes json_schema only."""


@dataclass(frozen=True)
class Habits:
    """How one real server behaves where the servers differ."""

    owned_by: str
    """What ``/v1/models`` says each model is owned by."""
    response_formats: frozenset[str]
    refused_with: int = 400
    """The status a ``response_format`` type it doesn't take gets."""
    one_at_a_time: bool = False
    """Chat requests and ``/v1/models`` wait for the request in flight to end."""
    interrupts: bool = False
    """A request that arrives while an answer streams ends that stream at its next chunk
    with ``data: [DONE]``, no finish reason and no error."""
    sends_usage: bool = True
    pings: bool = False
    """Streams carry ``: ping - <date>`` comment lines."""
    strict_models: bool = True


HABITS = {
    # What the fake did before it knew of habits: every JSON mode, usage, side by side.
    "plain": Habits("local", RESPONSE_FORMATS),
    # Measured on llama-cpp-python 0.3.36's server with its defaults (interrupt_requests
    # on): json_schema fails its request validation with a 500; a request arriving, even
    # GET /v1/models, waits for the model and cuts a streaming answer short.
    "llama-cpp-python": Habits(
        "me",
        frozenset({"json_object"}),
        refused_with=500,
        one_at_a_time=True,
        interrupts=True,
        sends_usage=False,
        pings=True,
        strict_models=False,
    ),
    # LM Studio refuses json_object with a 400 naming response_format.
    "lm-studio": Habits("organization_owner", frozenset({"json_schema"})),
    # vLLM batches requests side by side and takes every JSON mode.
    "vllm": Habits("vllm", RESPONSE_FORMATS),
}
