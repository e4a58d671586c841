"""What the window is told of the embedding model: its state, and why a chosen model
can't be used."""

from __future__ import annotations

from dataclasses import dataclass


class EmbeddingUnavailable(Exception):
    """The chosen embedding model can't be used; the message says why and what answers."""


@dataclass(frozen=True)
class EmbeddingState:
    """What the window shows about the embedding model."""

    answering: str
    """The model whose collection answers searches now."""
    building: str | None = None
    """The model whose collection is being built, if one is."""
    done: int = 0
    total: int = 0
    """Documents in the new collection, of those to copy."""
    loading: str | None = None
    """A chosen model being loaded (before its rebuild can start)."""
    problem: str | None = None
    """Why the last chosen model can't be used."""
