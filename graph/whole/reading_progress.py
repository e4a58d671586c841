"""What a long reading tells while it works: ``Progress`` lines to every caller, and ``ReadSoFar``
to the service, which saves it with an answer the user stops (graph/whole/resume.py)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from graph.events import Progress, ReadSoFar
from graph.whole import reading_prompts
from graph.whole.pace import Pace, time_left
from graph.whole.sections import Document, Section, Unit


class Reading(Protocol):
    """What progress reads of a reading (graph/whole/reading.py, which tells it)."""

    # Read-only properties, so the reading's dataclass fields match them and the
    # arrow runs from the reading to here only.
    @property
    def documents(self) -> Sequence[Document]: ...
    @property
    def pace(self) -> Pace: ...
    @property
    def question(self) -> str: ...
    @property
    def aspect(self) -> str: ...
    @property
    def compare(self) -> bool: ...


def section_progress(
    reading: Reading, index: int, total: int, document: Document, section: Section, calls: int
) -> Progress:
    """Section ``index`` of ``total`` starts; ``calls`` model calls are left, the answer's included,
    with their time once one call was timed."""
    text = reading_prompts.PROGRESS_SECTION.format(
        index=index, total=total, file=document.units[0].file, where=section.where
    )
    return Progress(index - 1, total, text + _left(reading, calls))


def done_progress(reading: Reading, total: int) -> Progress:
    """Every section is read; the answer's call is left."""
    return Progress(
        total, total, reading_prompts.PROGRESS_DONE.format(total=total) + _left(reading, 1)
    )


def answer_status(reading: Reading, sections: int) -> str:
    """What the model reads before the answer's first token, and the time it should take."""
    if not sections:
        pages = sum(len(d.units) for d in reading.documents)
        files = ", ".join(d.units[0].file for d in reading.documents)
        what = f"{pages} page" + ("" if pages == 1 else "s")
        return reading_prompts.STATUS_READ_WHOLE.format(pages=what, files=files)
    what = f"{sections} section" + ("" if sections == 1 else "s")
    return reading_prompts.STATUS_READ_NOTES.format(sections=what) + _left(reading, 1)


def _left(reading: Reading, calls: int) -> str:
    seconds = reading.pace.left(calls)
    return (
        reading_prompts.PROGRESS_LEFT.format(left=time_left(seconds)) if seconds is not None else ""
    )


def read_so_far(reading: Reading, kept: Collection[str]) -> ReadSoFar:
    """How far the reading has got: the sections whose digests are in ``kept``."""
    sections = [s for d in reading.documents for s in d.sections]
    done = [s for s in sections if s.digest in kept]
    return ReadSoFar(
        question=reading.question,
        route="compare" if reading.compare else "document",
        documents=[d.path for d in reading.documents],
        aspect=reading.aspect,
        sections_read=len(done),
        sections=len(sections),
        read=where_read(reading.documents, kept),
    )


def where_read(documents: Sequence[Document], kept: Collection[str]) -> str:
    """ "pages 1–18 of 66 of `long.pdf`", per document with notes kept; "" for none."""
    parts = []
    for document in documents:
        units = [u for s in document.sections if s.digest in kept for u in s.units]
        if not units:
            continue
        total = len({u.label for u in document.units})
        parts.append(
            reading_prompts.READ_WHERE.format(
                pages=spans_of(units), total=total, file=f"`{document.units[0].file}`"
            )
        )
    return "; ".join(parts)


def spans_of(units: Sequence[Unit]) -> str:
    """ "pages 1–18, 25" (or "parts 2–3") for units in reading order, runs merged."""
    numbers = list(dict.fromkeys(_number(u) for u in units))
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        elif not runs or n != runs[-1][-1]:
            runs.append([n])
    said = ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in runs)
    paged = units[0].page is not None
    one = len(numbers) == 1
    return ("page " if one else "pages ") + said if paged else ("part " if one else "parts ") + said


def _number(unit: Unit) -> int:
    return unit.page if unit.page is not None else int(unit.label[1:])
