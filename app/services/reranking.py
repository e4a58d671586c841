"""Reranking as the window tells it: on or off in one sentence, and the one offer, at first
start, to download its model (nothing is fetched without that yes or the Settings switch)."""

from __future__ import annotations

from app.services.preferences import Preferences
from models.protocols import Reranker
from models.reranker import FlashRankReranker, PassThroughReranker, reranking_active

OFFER_KEY = "rerank_offer"
"""Where the answer to the first-start offer is kept: "yes" or "no"."""


class Reranking:
    """Whether passages are reranked, why not, and downloading the model on request."""

    def __init__(self, reranker: Reranker, preferences: Preferences) -> None:
        self._reranker = reranker
        self._preferences = preferences
        self._flashrank = reranker if isinstance(reranker, FlashRankReranker) else None
        """The reranker whose model can be downloaded, if that is the one in use."""

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
    def downloading(self) -> bool:
        return self.can_download and self._preferences.settings.rerank_download

    @property
    def offer_pending(self) -> bool:
        """The first-start offer is still to be made: no answer yet, and nothing said yes."""
        return (
            self.can_download
            and not self._preferences.settings.rerank_download
            and self._preferences.remembered(OFFER_KEY) is None
        )

    def download(self) -> None:
        """Yes: fetch the model once, in the background (the setting, saved, says so)."""
        self._preferences.remember(OFFER_KEY, "yes")
        self._preferences.update({"rerank_download": True})

    def decline(self) -> None:
        """Not now: the offer is not made again; Settings still has it."""
        self._preferences.remember(OFFER_KEY, "no")

    def status(self) -> str:
        """One sentence for Settings."""
        if self.on:
            return f"Reranking is on: {self.model or 'the reranker'} reorders the passages found."
        if isinstance(self._reranker, PassThroughReranker):
            return "Reranking is off: passages are ranked by search scores alone."
        if self.downloading:
            return f"Downloading the reranking model ({self.size}); it is used once it is here."
        if self.can_download:
            return (
                f"Reranking is off: its model, {self.model} ({self.size}, from Hugging Face), "
                "is not downloaded. Passages are ranked by search scores alone."
            )
        problem = self._reranker.problem or "the reranking model is not loaded"
        return f"Reranking is off: {problem}."
