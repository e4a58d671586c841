"""What a whole reading did, told after it: what it skipped, ``done``'s coverage and the trace."""

from __future__ import annotations

from graph.records import Coverage, StoppedReading
from graph.trace_records import ReadingTrace
from graph.whole import reading_prompts
from graph.whole.reading import Reading
from graph.whole.reading_progress import where_read
from graph.whole.resume import actions


def skipped_text(reading: Reading) -> str:
    """What was not read, for the answer's opening line ("" when everything was)."""
    if not reading.skipped:
        return ""
    if reading.only_read:
        return reading_prompts.PARTIAL_READ.format(read=where_read(reading.documents, reading.kept))
    parts = []
    for document, sections in reading.skipped:
        spans = ", ".join(s.where for s in sections)
        parts.append(f"{spans} of `{document.units[0].file}`")
    return reading_prompts.SKIPPED.format(
        calls=reading.options.max_calls_per_question, skipped="; ".join(parts)
    )


def unfinished(reading: Reading, question: str) -> StoppedReading | None:
    """What was read and the follow-up that reads on, when sections were left unread; else None."""
    if not reading.skipped:
        return None
    sections = sum(len(d.sections) for d in reading.documents)
    return {
        "question": question,
        "route": "compare" if reading.compare else "document",
        "documents": [d.path for d in reading.documents],
        "aspect": reading.aspect,
        "sections_read": len(reading.kept),
        "sections": sections,
        "read": where_read(reading.documents, reading.kept),
        "actions": actions(sections, sections),  # it summed up what it read already
    }


def coverage(reading: Reading) -> Coverage:
    """``done``'s coverage: documents read, pages whose text reached the model, pages they have."""
    skipped = {
        (u.path, u.page) for _, sections in reading.skipped for s in sections for u in s.units
    }
    pages = {(u.path, u.page) for d in reading.documents for u in d.units}
    return {
        "documents_read": len(reading.documents),
        "documents_matched": None,
        "documents_in_scope": len(reading.documents),
        "pages_read": len(pages - skipped),
        "pages_total": len(pages),
        "whole": True,
    }


def summary(reading: Reading) -> ReadingTrace:
    """The reading's part of the trace."""
    return {
        "documents": [d.path for d in reading.documents],
        "pages": sum(len(d.units) for d in reading.documents),
        "sections": sum(len(d.sections) for d in reading.documents),
        "note_calls": reading.calls,
        "notes_cached": reading.cached,
        "tokens_sent_for_notes": reading.tokens_sent,
        "skipped": [
            {"path": d.path, "sections": [s.where for s in sections]}
            for d, sections in reading.skipped
        ],
        "notes_cut": reading.notes_cut,
    }
