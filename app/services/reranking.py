"""Reranking as the window tells it: on or off in one sentence, the one offer, at first
start, to download its model (nothing is fetched without that yes or the Settings switch),
and that download as it goes: bytes, then done, or why it failed with a retry."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

from app.services.listeners import Listeners
from app.services.preferences import Preferences
from models.download import DownloadProgress
from models.protocols import Reranker
from models.reranker import FlashRankReranker, PassThroughReranker, reranking_active

__all__ = ["DownloadProgress", "Reranking", "megabytes"]


OFFER_KEY = "rerank_offer"
"""Where the answer to the first-start offer is kept: "yes" or "no"."""


def megabytes(count: int) -> str:
    """A byte count as the window says it: "1.2 MB", or "3.5 kB" below a megabyte."""
    if count < 1_000_000:
        return f"{count / 1000:.1f} kB"
    return f"{count / 1_000_000:.1f} MB"


class Reranking:
    """Whether passages are reranked, why not, and downloading the model on request."""

    def __init__(self, reranker: Reranker, preferences: Preferences) -> None:
        self._reranker = reranker
        self._preferences = preferences
        self._flashrank = reranker if isinstance(reranker, FlashRankReranker) else None
        """The reranker whose model can be downloaded, if that is the one in use."""
        self._listeners = Listeners[DownloadProgress]("a reranking listener failed")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._dismissed = False
        if self._flashrank is not None:
            self._flashrank.watch(self._from_thread)

    @property
    def on(self) -> bool:
        return reranking_active(self._reranker)

    @property
    def model(self) -> str | None:
        return self._flashrank.model if self._flashrank is not None else None

    @property
    def size(self) -> str:
        """'about 4 MB', or 'a small download' when the size is not known."""
        mb = self._flashrank.download_mb if self._flashrank is not None else None
        return f"about {mb} MB" if mb else "a small download"

    @property
    def can_download(self) -> bool:
        """A model is missing that a download would bring."""
        return self._flashrank is not None and not self.on and not self._flashrank.installed()

    @property
    def progress(self) -> DownloadProgress:
        """The model's download: idle, downloading (bytes), unpacking, failed or done."""
        return self._flashrank.progress if self._flashrank is not None else DownloadProgress()

    @property
    def failure(self) -> str | None:
        """Why the download asked for failed, until it is tried again (or dismissed)."""
        progress = self.progress
        if progress.state != "failed" or self._dismissed:
            return None
        return progress.error or "the download failed"

    @property
    def offer_pending(self) -> bool:
        """The first-start offer is still to be made: no answer yet, and nothing said yes."""
        return (
            self.can_download
            and not self._preferences.settings.search.rerank_download
            and self._preferences.remembered(OFFER_KEY) is None
        )

    def download(self) -> None:
        """Yes: fetch the model once, in the background (the setting, saved, says so)."""
        self._preferences.remember(OFFER_KEY, "yes")
        if self._preferences.settings.search.rerank_download:
            self.prepare(True)  # said before: the switch does not change, the try is anew
        else:
            self._preferences.update({"rerank_download": True})

    def retry(self) -> None:
        """Try the download that failed again."""
        self.prepare(True)

    def dismiss(self) -> None:
        """Stop showing a failed download (Settings still says it)."""
        self._dismissed = True
        self._listeners.tell(self.progress)

    def decline(self) -> None:
        """Not now: the offer is not made again; Settings still has it."""
        self._preferences.remember(OFFER_KEY, "no")

    def prepare(self, download: bool) -> None:
        """Load the reranking model in a background thread, downloading it only when the
        user said yes (the setting, the offer, a retry). Never in a turn: a turn without
        the model keeps the fused order."""
        if self._flashrank is None:
            return
        with contextlib.suppress(RuntimeError):  # no loop: nobody watches yet
            self._loop = asyncio.get_running_loop()
        self._dismissed = False
        threading.Thread(
            target=self._flashrank.prepare,
            kwargs={"download": download},
            name="reranker-prepare",
            daemon=True,
        ).start()

    def subscribe(self, listener: Callable[[DownloadProgress], None]) -> Callable[[], None]:
        """Call ``listener`` on the event loop as the download goes; returns the unsubscribe."""
        return self._listeners.subscribe(listener)

    def _from_thread(self, progress: DownloadProgress) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._listeners.tell, progress)

    def status(self) -> str:
        """One sentence for Settings."""
        if self.on:
            return f"Reranking is on: {self.model or 'the reranker'} reorders the passages found."
        if isinstance(self._reranker, PassThroughReranker):
            return "Reranking is off: passages are ranked by search scores alone."
        progress = self.progress
        if progress.state == "downloading":
            got = megabytes(progress.done)
            of = f" of {megabytes(progress.total)}" if progress.total else ""
            return f"Downloading the reranking model ({self.size}): {got}{of} so far."
        if progress.state == "unpacking":
            return "Unpacking the reranking model; it is used once that is done."
        if progress.state == "failed":
            return (
                f"Reranking is off: the model {self.model} could not be downloaded "
                f"({progress.error}). Passages are ranked by search scores alone."
            )
        if self.can_download:
            return (
                f"Reranking is off: its model, {self.model} ({self.size}, from Hugging Face), "
                "is not downloaded. Passages are ranked by search scores alone."
            )
        problem = self._reranker.problem or "the reranking model is not loaded"
        return f"Reranking is off: {problem}."
