"""What one search looks for: each question's vector (maybe embedded early in a helper thread) and
its nearest chunks, searched once and shared by the router's probe and the retrieval."""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from graph.retrieval.ports import Reader
from graph.retrieval.scored import Key
from graph.retrieval.settings import RetrievalSettings

MAX_QUERY_CHARS = 4_000
"""Text past this is not searched for: it bounds the work any query can cause."""


@dataclass
class _Question:
    """One text this search looks for: its vector, and its nearest chunks once searched."""

    vector: Future[list[float]] = field(default_factory=Future)
    nearest: list[tuple[Key, float]] | None = None
    """The ``pool`` chunks of the whole library nearest the vector, best first."""


class Questions:
    """The texts one search looks for through one reader, each vector and nearest made once."""

    def __init__(self, reader: Reader, settings: RetrievalSettings) -> None:
        self.reader = reader
        self.settings = settings
        """As they were when the search began: a settings change applies to the next."""
        self._questions: dict[str, _Question] = {}
        """The texts searched for: the message, or the rewriter's queries."""
        self._lock = threading.Lock()

    def warm(self, text: str) -> None:
        """Start embedding ``text`` in the background; a later probe or retrieval takes it up."""
        text = searched(text)
        if not text:
            return
        with self._lock:
            if text in self._questions:
                return
            question = self._questions[text] = _Question()
        helper_threads().submit(self._embed, text, question)

    def probe(self, text: str) -> float:
        """The best cosine of any library chunk to ``text``; a retrieval of it reuses the search."""
        text = searched(text)
        if not text:
            return 0.0
        nearest = self._library_nearest(text, self._vector(text))
        return max((score for _, score in nearest), default=0.0)

    def vector(self, text: str) -> list[float]:
        """The embedding of ``text`` as searched, made once per search (find reads it)."""
        return self._vector(searched(text))

    def known_vector(self, text: str) -> list[float] | None:
        """``text``'s vector if this search has made it already; never embeds."""
        with self._lock:
            question = self._questions.get(searched(text))
        if question is None or not question.vector.done() or question.vector.exception():
            return None
        return question.vector.result()

    def _vector(self, text: str) -> list[float]:
        while True:
            with self._lock:
                question = self._questions.get(text)
                mine = question is None
                if question is None:
                    question = self._questions[text] = _Question()
            if mine:
                self._embed(text, question)
            try:
                return question.vector.result()
            except Exception:
                if mine:
                    raise
                # An early embedding failed: this search embeds the text itself, and
                # reports its own failure if there is one.

    def _embed(self, text: str, question: _Question) -> None:
        try:
            vector = self.reader.embedder.embed([text])[0]
        except BaseException as error:
            with self._lock:  # a later probe or retrieval embeds it again
                if self._questions.get(text) is question:
                    del self._questions[text]
            question.vector.set_exception(error)
            return
        question.vector.set_result(vector)

    def _library_nearest(self, text: str, vector: Sequence[float]) -> list[tuple[Key, float]]:
        """The whole library's nearest chunks to ``text``, searched once per question."""
        question = self._questions[text]  # made by ``_vector``, which gave ``vector``
        if question.nearest is None:
            question.nearest = self.reader.dense.nearest(vector, self.settings.pool)
        return question.nearest

    def _nearest(
        self, text: str, vector: Sequence[float], doc_ids: Collection[str] | None
    ) -> list[tuple[Key, float]]:
        if doc_ids is None:
            return self._library_nearest(text, vector)
        return self.reader.dense.nearest(vector, self.settings.pool, doc_ids)


_helper_pool: ThreadPoolExecutor | None = None
_helper_lock = threading.Lock()


def helper_threads() -> ThreadPoolExecutor:
    """The shared threads for keyword search and early embedding, made on first use."""
    global _helper_pool
    with _helper_lock:
        if _helper_pool is None:
            _helper_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="search")
        return _helper_pool


def searched(query: str) -> str:
    """The text a query is searched (and embedded) as."""
    return " ".join(query[:MAX_QUERY_CHARS].split())
