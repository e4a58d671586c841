"""The model's part of a whole reading's answer: streamed through the runaway guard, and
checked sentence by sentence as it is written, as a search turn's answer is."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass, field

from graph.nodes.streamed import StreamedAnswer
from graph.runaway import RunawayGuard, Stop
from graph.support.live import LiveCheck
from models.llm import LLMError
from models.protocols import ChatModel, Message, Usage


@dataclass
class Written:
    """What the model wrote, as shown."""

    text: str = ""
    usage: Usage = field(default_factory=Usage)
    failure: LLMError | None = None
    stopped: Stop | None = None
    """Why the guard ended it early, if it did."""


async def stream_answer(
    llm: ChatModel,
    messages: Sequence[Message],
    answer: StreamedAnswer,
    guard: RunawayGuard,
    live: LiveCheck | None,
) -> Written:
    """Stream the model's reply into ``answer`` via ``guard``, telling ``live`` what is shown."""
    written = Written()
    shown: list[str] = []
    try:
        async for text in guarded(llm, messages, guard, written.usage):
            shown.append(text)
            answer.say(text)
            if live is not None:
                live.wrote(text)
    except LLMError as error:
        written.failure = error
    except BaseException:  # stopped: nothing waits for the check any more
        if live is not None:
            live.cancel()
        raise
    written.text = "".join(shown)
    written.stopped = guard.stopped
    return written


async def guarded(
    llm: ChatModel, messages: Sequence[Message], guard: RunawayGuard, usage: Usage | None = None
) -> AsyncIterator[str]:
    """The model's reply as ``guard`` lets it through; once the guard ends it, the stream is closed
    at once so the server stops writing."""
    stream = llm.stream_chat(messages, usage)
    try:
        async for piece in stream:
            if text := guard.feed(piece):
                yield text
            if guard.stopped is not None:
                return
        if text := guard.flush():
            yield text
    finally:
        if isinstance(stream, AsyncGenerator):
            await stream.aclose()
