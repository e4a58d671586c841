"""The reranking model's download in the window: how far it is, or why it failed and a Retry
(before, the offer's card went and nothing said what became of the download)."""

from __future__ import annotations

from typing import Any

from nicegui import ui

from app.services.reranking import DownloadProgress, Reranking, megabytes
from ui.answer import markdown
from ui.frame.banners import banner_card, banner_text


def download_text(reranking: Reranking, progress: DownloadProgress) -> str:
    """What the banner says of the download now."""
    name = f"**Downloading the reranking model** {reranking.model}"
    if progress.state == "unpacking":
        return f"**Unpacking the reranking model** {reranking.model}…"
    if progress.total:
        return f"{name}: {megabytes(progress.done)} of {megabytes(progress.total)}."
    if progress.done:
        return f"{name}: {megabytes(progress.done)} so far."
    return f"{name}: connecting…"


class DownloadBanner:
    """Shown while the model downloads and when the download failed; updated in place."""

    def __init__(self, reranking: Reranking) -> None:
        self.reranking = reranking
        self.box = ui.column().classes("w-full items-center gap-2")
        self._shown: str | None = None
        """What is drawn: "downloading", "failed" or None."""
        self._text: Any = None
        self._bar: Any = None
        self.unsubscribe = reranking.subscribe(self.show)
        self.show(reranking.progress)

    def show(self, progress: DownloadProgress) -> None:
        if self.box.is_deleted:
            self.unsubscribe()
            return
        busy = progress.state in ("downloading", "unpacking")
        wanted = "downloading" if busy else "failed" if self.reranking.failure else None
        if progress.state == "done" and self._shown == "downloading":
            with self.box:
                ui.notify(
                    f"Reranking is on: {self.reranking.model} is downloaded.", type="positive"
                )
        if wanted != self._shown:
            self._draw(wanted)
        if busy and self._text is not None and self._bar is not None:
            self._text.set_content(markdown.render(download_text(self.reranking, progress)))
            if progress.total:
                value = min(progress.done / progress.total, 1.0)
                self._bar.props(remove="indeterminate")
                self._bar.set_value(value)
                self._bar.props(f"data-value={value:.3f}")
            else:
                self._bar.props("indeterminate")

    def _draw(self, wanted: str | None) -> None:
        self._shown = wanted
        self.box.clear()
        self._text = self._bar = None
        with self.box:
            if wanted == "downloading":
                with banner_card("rerank_download"):
                    with ui.row().classes("w-full items-center no-wrap gap-2"):
                        ui.icon("downloading", color="primary").classes("text-xl")
                        self._text = banner_text(download_text(self.reranking, DownloadProgress()))
                        self._text.mark("banner-text download-text")
                    self._bar = ui.linear_progress(value=0.0, show_value=False)
                    self._bar.props("rounded size=6px indeterminate").classes("docent-progress")
                    self._bar.mark("download-progress")
            elif wanted == "failed":
                with banner_card("rerank_failed"):
                    with ui.row().classes("w-full items-center no-wrap gap-2"):
                        ui.icon("warning_amber", color="warning").classes("text-xl")
                        text = (
                            f"**The reranking model was not downloaded:** "
                            f"{self.reranking.failure}. Passages are ranked by search scores "
                            "alone until it is."
                        )
                        banner_text(text).mark("banner-text download-failed-text")
                        ui.button("Retry", icon="refresh", on_click=self.reranking.retry).props(
                            "flat dense no-caps"
                        ).mark("banner-retry-download")
                        ui.button("Dismiss", icon="close", on_click=self.reranking.dismiss).props(
                            "flat dense no-caps"
                        ).mark("banner-dismiss-download")
