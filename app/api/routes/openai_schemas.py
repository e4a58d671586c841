"""The OpenAI chat-completions wire format, as much of it as Docent speaks."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graph.records import SentenceSupportPublic, Source
from graph.state import Mode

DOCENT_MODEL = "docent"
"""The model name that means "the chat model Docent is configured with"."""


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class ChatMessageIn(BaseModel):
    """One message of the history; fields other clients send (name, tool calls) are ignored."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(part.text or "" for part in self.content if part.type == "text")
        return self.content or ""


class ChatCompletionRequest(BaseModel):
    """Sampling options (temperature, max_tokens, ...) are accepted and left to the model
    server's defaults for the model."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(
        min_length=1,
        description=f"'{DOCENT_MODEL}' for the configured chat model, or a model of its server.",
    )
    messages: list[ChatMessageIn] = Field(
        min_length=1, description="The conversation so far; the last one is the question."
    )
    stream: bool = False
    mode: Mode = Field(
        "auto",
        description="Docent extension: 'rag' always searches, 'chat' never does, 'document' reads "
        "the named files whole.",
    )


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    sources: list[Source] = Field(
        description="Docent extension: the passages the answer cites as [n]."
    )
    session_id: str = Field(description="Docent extension: the session that holds the turn.")
    support: list[SentenceSupportPublic] | None = Field(
        None,
        description="Docent extension: each sentence of the answer checked against the "
        "sources (as `POST /api/verify` gives it); null when not checked (a chat answer).",
    )


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]
