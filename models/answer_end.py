"""How a streamed answer ended: finished, stopped at the token cap, cut short, or empty.

A server can end a stream without an error or the answer (llama-cpp-python's server sends
``data: [DONE]`` with no ``finish_reason`` when another request arrives; a dying server drops
the connection), which reads as a short answer; ``AnswerWatch`` tells it apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.llm import LLMError
from models.protocols import Usage


class AnswerCutShort(LLMError):
    """The server ended a streamed answer before the model finished it."""


class EmptyAnswer(LLMError):
    """The model finished its answer without writing anything."""


ONE_AT_A_TIME = (
    "A server that serves one request at a time stops its answer when another request "
    "reaches it (llama-cpp-python's server does, unless started with "
    "`--interrupt_requests false`): was another app or another Docent using it? "
    "Ask again."
)


def cut_short(url: str, wrote: int, *, closed: str | None = None) -> AnswerCutShort:
    """The error for a stream that ended before its finish reason; ``closed`` is what the
    connection said when it dropped (None: the server ended the stream itself)."""
    if closed is not None:
        return AnswerCutShort(
            f"The connection to the model server at {url} broke "
            f"{'part-way through the answer' if wrote else 'before the answer began'} "
            f"({closed}). Check that the server is still running, then ask again.",
            host=url,
        )
    where = f"after {wrote} characters" if wrote else "before the model wrote anything"
    return AnswerCutShort(
        f"The model server at {url} ended the answer {where}, without an error and "
        f"without saying it was finished. {ONE_AT_A_TIME}",
        host=url,
    )


@dataclass
class AnswerWatch:
    """What one stream has shown so far, to tell at its end whether the answer is whole."""

    url: str
    model: str
    wrote: int = 0
    """Characters of answer text received."""
    finish: str | None = None
    """The finish reason the stream gave (OpenAI's ``finish_reason``, Ollama's
    ``done_reason``, or 'stop' for an Ollama ``done`` without one)."""

    def text(self, piece: str) -> None:
        self.wrote += len(piece)

    def ended(self, usage: Usage | None) -> None:
        """The stream is over: raise if the answer is not whole; mark ``usage`` when the
        answer stopped at the token cap."""
        if self.finish is None:
            raise cut_short(self.url, self.wrote)
        if self.finish == "length" and usage is not None:
            usage.hit_limit = True
        if not self.wrote:
            raise EmptyAnswer(
                f"The model '{self.model}' at {self.url} finished without writing anything "
                f"(finish reason '{self.finish}'). Ask again, or put the question another "
                "way; a small model sometimes stops at once.",
                host=self.url,
            )

    def broke(self, problem: object) -> AnswerCutShort:
        """The error for a connection that dropped mid-stream."""
        return cut_short(self.url, self.wrote, closed=str(problem) or type(problem).__name__)
