"""The library's words and numbers: a file's status, the whole library's progress."""

from __future__ import annotations

from app.services.documents import DocumentView, LibraryProgress

ADVICE_WORDS = ("save", "try again", "check", "reinstall", "repair", "remove", "split", "raise")
"""A reason that already says what to do (the loaders' reasons mostly do) gets no more."""

WHAT_TO_DO = {
    "empty": "Add it again once it has content.",
    "no text": "Scanned pages need OCR (for example ocrmypdf) before Docent can read them.",
    "scanned": "Scanned pages need OCR (for example ocrmypdf) before Docent can read them.",
    "time budget": "Split the file, then Reindex.",
    "outside the documents folder": "Copy the file into the folder instead of linking it.",
}


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def what_to_do(reason: str) -> str:
    """The fix to suggest after ``reason``, or "" when the reason says it already."""
    lowered = reason.lower()
    if any(word in lowered for word in ADVICE_WORDS):
        return ""
    return next((fix for key, fix in WHAT_TO_DO.items() if key in lowered), "Then Reindex.")


def detail(doc: DocumentView) -> str:
    """The caption under a file: its status in words a person reads at a glance."""
    if doc.status == "error":
        reason = (doc.error or "it could not be read").strip().rstrip(".") + "."
        reason = reason[:1].upper() + reason[1:]
        return f"{reason} {what_to_do(reason)}".strip()
    if doc.status == "indexing":
        parts = ["Indexing"]
        if doc.pages_done is not None:
            total = doc.pages_total or doc.pages
            pages = f"{doc.pages_done:,} of {plural(total, 'page')}" if total else None
            parts.append(pages or f"{plural(doc.pages_done, 'page')} read")
        if doc.chunks_done:
            parts.append(plural(doc.chunks_done, "chunk"))
        return " · ".join(parts) if len(parts) > 1 else "Indexing…"
    if doc.status == "queued":
        return "Waiting to be indexed"
    parts = [plural(doc.pages, "page")] if doc.pages else []
    parts.append(plural(doc.chunks, "chunk"))
    if doc.note:
        parts.append(doc.note)
    return " · ".join(parts)


def progress_line(progress: LibraryProgress, chunks_in_progress: int = 0) -> str:
    """'12 of 25 files done · 1 failed · 1,234 chunks written · 40 chunks/s · about 2 min left'.

    Says what is done, never what is left (which reads the same); a failed file counts as
    done, so the bar reaches the end when nothing is left to do."""
    parts = [f"{progress.files_done:,} of {plural(progress.files_total, 'file')} done"]
    if progress.failed:
        parts.append(f"{progress.failed:,} failed")
    # The tracker counts a file's chunks when it is ready; a long PDF's go in batch by batch.
    parts.append(plural(progress.chunks_done + chunks_in_progress, "chunk") + " written")
    if progress.chunks_per_second:
        parts.append(f"{progress.chunks_per_second:,.0f} chunks/s")
    eta = progress.eta_seconds
    if eta and eta >= 1:  # "about 0 s left" says nothing
        parts.append("about " + (f"{eta / 60:.0f} min" if eta >= 90 else f"{eta:.0f} s") + " left")
    line = " · ".join(parts)
    if progress.ocr is not None and progress.ocr.pages_done < progress.ocr.pages_total:
        line += f" — {progress.ocr.summary()}"  # scans are slow: their pages, their rate
    return line


def progress_value(progress: LibraryProgress, docs: list[DocumentView]) -> float:
    """How far indexing is, 0 to 1: files done plus the pages done of those being indexed,
    so the bar moves page by page through a long PDF."""
    partial = 0.0
    for doc in docs:
        pages = doc.pages_total or doc.pages
        if doc.status == "indexing" and doc.pages_done and pages:
            partial += min(1.0, doc.pages_done / pages)
    return min(1.0, (progress.files_done + partial) / max(progress.files_total, 1))
