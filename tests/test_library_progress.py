"""The library's progress line counts files as the list shows them."""

from __future__ import annotations

from ingest.pipeline.progress import EventBus, IngestEvent
from ui.library.status_text import progress_line


def _events(bus: EventBus, *steps: tuple[str, str]) -> None:
    for kind, path in steps:
        bus.publish(IngestEvent(kind, path, doc_id=path, chunks=2 if kind == "ready" else 0))  # type: ignore[arg-type]


def test_a_file_queued_again_or_gone_is_counted_once_by_its_latest_outcome() -> None:
    bus = EventBus()
    _events(
        bus,
        ("queued", "a.md"),
        ("queued", "b.pdf"),
        ("queued", "c.md"),
        ("queued", ".docent-upload-1.part"),
        ("error", "a.md"),  # failed once…
        ("queued", "a.md"),  # …changed, and queued again
        ("removed", ".docent-upload-1.part"),  # an upload's temporary file went away
        ("ready", "a.md"),
        ("error", "b.pdf"),
    )
    progress = bus.library()
    assert (progress.files_done, progress.files_total, progress.failed) == (2, 3, 1)
    assert progress_line(progress).startswith("2 of 3 files done · 1 failed")
    _events(bus, ("ready", "c.md"))
    progress = bus.library()
    assert (progress.files_done, progress.files_total, progress.failed) == (3, 3, 1)


def test_a_file_deleted_during_the_batch_leaves_the_count() -> None:
    bus = EventBus()
    _events(bus, ("queued", "a.md"), ("queued", "b.md"), ("ready", "a.md"), ("removed", "a.md"))
    progress = bus.library()
    assert (progress.files_done, progress.files_total) == (0, 1)
