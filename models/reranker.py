"""Rerankers behind the ``Reranker`` protocol: FlashRank's cross-encoder, or none.

A turn never waits for FlashRank's first-use download: ``rerank`` uses a model already on
disk, and ``prepare`` fetches it with ``models.download``, which tells its progress.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from models.download import DownloadFailed, DownloadProgress, fetch_zip
from models.protocols import Reranker

log = logging.getLogger(__name__)

DEFAULT_MODEL = "ms-marco-TinyBERT-L-2-v2"
"""FlashRank's default: a 4 MB cross-encoder, fast on a CPU."""

MODEL_URL = "https://huggingface.co/prithivida/flashrank/resolve/main/{model}.zip"
"""Where FlashRank's models are (its ``Config.model_url``): one zip per model."""

DOWNLOAD_MB = {DEFAULT_MODEL: 4}
"""Each model's zip on Hugging Face in MB, rounded up, for the download offer (FlashRank's
own list has no sizes)."""


class RerankerUnavailable(Exception):
    """No reranking model is loaded; ``str(error)`` says why, for the status line."""


class PassThroughReranker:
    """``Reranker`` that keeps the input order: scores fall from 1.0 but stay above 0.99, so
    a relevance threshold downstream drops nothing."""

    problem: str | None = None

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, strictly descending, so sorting by score changes nothing."""
        count = len(passages)
        return [1.0 - index / (count * 100) for index in range(count)]


def reranking_active(reranker: Reranker) -> bool:
    """Whether ``reranker`` reorders now: not the pass-through one, nor missing its model."""
    return not isinstance(reranker, PassThroughReranker) and reranker.problem is None


def _model_file(model: str) -> str:
    from flashrank.Config import model_file_map

    return str(model_file_map[model])


class FlashRankReranker:
    """FlashRank's pairwise cross-encoder on onnxruntime, cached under ``cache_dir``."""

    def __init__(
        self,
        cache_dir: Path,
        model: str = DEFAULT_MODEL,
        max_length: int = 512,
        source: str = MODEL_URL,
    ) -> None:
        """``source``: the model zip's URL, ``{model}`` standing for its name."""
        self.cache_dir = cache_dir
        self.model = model
        self.max_length = max_length
        self.url = source.format(model=model)
        self._ranker: Any = None
        self._problem = f"the reranking model {model} is not loaded yet"
        self._lock = threading.Lock()
        self._progress = DownloadProgress()
        self._watchers: list[Callable[[DownloadProgress], None]] = []

    @property
    def download_mb(self) -> int | None:
        """The download's size in MB, when known."""
        return DOWNLOAD_MB.get(self.model)

    @property
    def model_dir(self) -> Path:
        return self.cache_dir / self.model

    @property
    def ready(self) -> bool:
        return self._ranker is not None

    @property
    def problem(self) -> str | None:
        """Why reranking is off, or None when it is on."""
        return None if self.ready else self._problem

    @property
    def progress(self) -> DownloadProgress:
        """How far the model's download is (``idle`` when none was asked for)."""
        return self._progress

    def watch(self, watcher: Callable[[DownloadProgress], None]) -> Callable[[], None]:
        """Call ``watcher`` (in the downloading thread) as the download goes; returns an unwatch."""
        self._watchers.append(watcher)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def _tell(self, progress: DownloadProgress) -> None:
        self._progress = progress
        for watcher in list(self._watchers):
            try:
                watcher(progress)
            except Exception:  # a broken watcher must not stop the download
                log.exception("a download watcher failed")

    def installed(self) -> bool:
        """Whether the model's files are on disk (then loading needs no network)."""
        return (self.model_dir / _model_file(self.model)).is_file()

    def prepare(self, *, download: bool) -> bool:
        """Load the model, downloading it first if ``download`` and it is missing.

        Blocking: call it from a background thread. Never raises; ``problem`` says why not.
        """
        with self._lock:
            if self._ranker is not None:
                return True
            if not self.installed() and not download:
                self._problem = (
                    f"the reranking model {self.model} is not in {self.cache_dir}"
                    " (downloads are off)"
                )
                return False
            fetched = not self.installed()
            if fetched:
                self._tell(DownloadProgress("downloading"))  # connecting can take a while
                try:
                    fetch_zip(self.url, self.cache_dir, self._tell)
                    if not self.installed():
                        raise DownloadFailed(f"{self.url} held no {_model_file(self.model)}")
                except DownloadFailed as error:
                    self._fail(f"was not downloaded: {error}", str(error))
                    return False
            try:
                from flashrank import Ranker

                self.cache_dir.mkdir(parents=True, exist_ok=True)
                ranker = Ranker(
                    model_name=self.model,
                    cache_dir=str(self.cache_dir),
                    max_length=self.max_length,
                    log_level="WARNING",
                )
            except Exception as error:  # zip contents and onnxruntime errors alike
                reason = f"could not be loaded ({error})"
                self._fail(reason, reason if fetched else None)
                return False
            self._ranker = ranker
            if fetched:  # told once it reranks, so what the window says then is true
                progress = self._progress
                self._tell(DownloadProgress("done", progress.done, progress.total))
            return True

    def _fail(self, why: str, download_error: str | None) -> None:
        """Reranking stays off because the model ``why``; a download asked for failed."""
        self._problem = f"the reranking model {self.model} {why}"
        log.warning("Reranking is off: %s", self._problem)
        if download_error is not None:
            self._tell(DownloadProgress("failed", self._progress.done, error=download_error))

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        """One relevance score (0..1) per passage, in the passages' order."""
        ranker = self._ranker
        if ranker is None:
            raise RerankerUnavailable(self._problem)
        from flashrank import RerankRequest

        request = RerankRequest(
            query=query, passages=[{"id": i, "text": p} for i, p in enumerate(passages)]
        )
        scores = [0.0] * len(passages)
        for item in ranker.rerank(request):
            scores[int(item["id"])] = float(item["score"])
        return scores
