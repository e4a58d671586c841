"""What the window says about Ollama."""

from __future__ import annotations

from models.llm import ModelNotFound, OllamaUnavailable, same_model
from models.protocols import Health


def ollama_problem(health: Health, model: str) -> str | None:
    """What is wrong with Ollama and how to fix it, or None when answers can be written."""
    if not health.reachable:
        return health.error or str(OllamaUnavailable(health.host))
    if not any(same_model(name, model) for name in health.models):
        return str(ModelNotFound(health.host, model))
    return None
