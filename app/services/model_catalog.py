"""The chat server's models as the window lists them: chat and embedding models apart,
each once (``llama3.2`` is ``llama3.2:latest``), with size and quantisation."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from models.llm import same_model
from models.protocols import ModelInfo


@dataclass(frozen=True)
class ModelCatalog:
    chat: list[ModelInfo]
    """Models that answer ('completion'), and those whose host doesn't say."""
    embedding: list[ModelInfo]
    """Models that only embed: they can't answer, so they are not offered as chat models."""


def short_name(name: str) -> str:
    """``llama3.2:latest`` → ``llama3.2``: the tag Ollama assumes is left unsaid."""
    return name[: -len(":latest")] if name.lower().endswith(":latest") else name


def deduplicated(models: Iterable[ModelInfo]) -> list[ModelInfo]:
    """Each model once, by its short name, in name order."""
    out: list[ModelInfo] = []
    for model in models:
        if not any(same_model(model.name, kept.name) for kept in out):
            out.append(replace(model, name=short_name(model.name)))
    return sorted(out, key=lambda m: m.name.lower())


def catalog(models: Iterable[ModelInfo]) -> ModelCatalog:
    """Chat and embedding models apart, by what the host says each can do."""
    unique = deduplicated(models)
    embedding = [
        m
        for m in unique
        if m.capabilities is not None
        and "completion" not in m.capabilities
        and "embedding" in m.capabilities
    ]
    chat = [m for m in unique if m not in embedding]
    return ModelCatalog(chat=chat, embedding=embedding)


def size_text(size: int | None) -> str | None:
    """'2.0 GB', '274 MB'."""
    if size is None:
        return None
    if size >= 1_000_000_000:
        return f"{size / 1e9:.1f} GB"
    return f"{size / 1e6:.0f} MB"


def details(model: ModelInfo) -> str:
    """'2.0 GB · 3.2B · Q4_K_M': what the menu shows under a model's name."""
    parts = [size_text(model.size), model.parameters, model.quantization]
    return " · ".join(p for p in parts if p)


def named(names: Iterable[str]) -> ModelCatalog:
    """A catalog of bare names (nothing said about sizes or capabilities)."""
    return catalog(ModelInfo(n) for n in names)


def is_current(name: str, current: str) -> bool:
    """Whether the menu's ``name`` is the model in use (``llama3.2`` is ``llama3.2:latest``)."""
    return same_model(name, current)


class PullMeter:
    """What a pull says as it goes: '1.2 GB of 2.0 GB · 35 MB/s · about 25 s left'.

    Ollama reports bytes per layer (``completed`` of ``total``); the speed is measured over
    the steps seen, from the times given (the caller's clock)."""

    def __init__(self) -> None:
        self._layers: dict[str, tuple[int, int]] = {}
        self._first: tuple[float, int] | None = None
        self._last: tuple[float, int] | None = None

    def step(self, layer: str, completed: int | None, total: int | None, now: float) -> str | None:
        """Count one progress step; the line to show, or None when it has no sizes."""
        if not total:
            return None
        self._layers[layer] = (completed or 0, total)
        done = sum(c for c, _ in self._layers.values())
        whole = sum(t for _, t in self._layers.values())
        if self._first is None:
            self._first = (now, done)
        self._last = (now, done)
        parts = [f"{size_text(done)} of {size_text(whole)}"]
        speed = self.speed
        if speed:
            parts.append(f"{size_text(int(speed))}/s")
            left = (whole - done) / speed
            if left > 0:
                parts.append(f"about {duration_text(left)} left")
        return " · ".join(parts)

    @property
    def speed(self) -> float | None:
        """Bytes per second since the first step, once time has passed."""
        if self._first is None or self._last is None:
            return None
        seconds = self._last[0] - self._first[0]
        return (self._last[1] - self._first[1]) / seconds if seconds > 0 else None


def duration_text(seconds: float) -> str:
    """'25 s', '3 min', '1 h 5 min'."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"
