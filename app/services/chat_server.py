"""Which chat model server the settings name, its other models by name, and how Docent
speaks of it to a person."""

from __future__ import annotations

from app.settings import ModelSettings
from graph.turn_options import TurnOptions
from models.llm import same_model
from models.ollama_chat import OllamaChat
from models.openai_chat import OpenAIChat
from models.protocols import ChatModel


def build_chat_model(models: ModelSettings, model: str | None = None) -> ChatModel:
    """The adapter for the configured server, answering with ``model`` or the configured one."""
    model = model or models.chat_model
    if models.llm_api == "openai":
        # The server keeps its own context size; the reply's share of it is capped here
        # as the generator budgets it.
        return OpenAIChat(
            models.chat_url,
            model,
            max_tokens=TurnOptions.answer_tokens,
            api_key=models.llm_api_key,
        )
    return OllamaChat(models.chat_url, model, num_ctx=models.context_tokens)


def server_name(api: str) -> str:
    """The chat model server as a sentence names it: Ollama, or the model server."""
    return "Ollama" if api == "ollama" else "the model server"


class ChatModelsByName:
    """Other models of the chat server to answer a turn with, each made once."""

    def __init__(self, models: ModelSettings, llm: ChatModel) -> None:
        self._models = models
        self._llm = llm
        self._made: dict[str, ChatModel] = {}

    def __call__(self, model: str) -> ChatModel:
        if same_model(model, self._llm.model):
            return self._llm
        llm = self._made.get(model)
        if llm is None:
            llm = self._made[model] = build_chat_model(self._models, model)
        return llm

    async def aclose(self) -> None:
        for llm in self._made.values():
            await llm.aclose()
