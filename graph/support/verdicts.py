"""What the support check takes and gives: passages in, one verdict per sentence out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from graph.records import CHECKED as CHECKED
from graph.records import NumberedPassage, SentenceSupportPublic, SupportSource
from graph.records import Verdict as Verdict

"""The verdicts of a sentence that was checked against passages."""


@dataclass(frozen=True)
class SourcePassage:
    """One numbered passage the answer was written from (or a text is checked against)."""

    n: int
    """Its citation number, ``[n]``."""
    text: str
    file: str = ""
    path: str = ""
    page: int | None = None
    offset: int = 0
    """Where the passage starts in its page's text (the document's, without pages)."""


def source_passages(passages: Sequence[NumberedPassage]) -> list[SourcePassage]:
    """A turn's numbered passages as the support check takes them."""
    out = []
    for passage in passages:
        s = passage["source"]
        out.append(
            SourcePassage(
                s["n"], passage["text"], s["file"], s["path"], s["page"], s.get("start", 0)
            )
        )
    return out


@dataclass(frozen=True)
class SupportSpan:
    """Where a sentence's support is: ``passage.text[start:end] == text``."""

    n: int
    file: str
    path: str
    page: int | None
    text: str
    start: int
    end: int
    offset: int = 0
    """The passage's start in its page's text: the span is at ``offset + start`` there."""

    def as_dict(self) -> SupportSource:
        """The contract's ``source`` shape, with the span's place in the page's text."""
        return {
            "n": self.n,
            "file": self.file,
            "path": self.path,
            "page": self.page,
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "page_start": self.offset + self.start,
            "page_end": self.offset + self.end,
        }


@dataclass(frozen=True)
class SentenceSupport:
    """How well one sentence of a text is supported by the passages it was checked against."""

    text: str
    """The sentence as written: ``checked_text[start:end]``, Markdown and marks included."""
    start: int
    end: int
    verdict: Verdict
    score: float
    """0..1: how closely the best span says the same, in meaning and in words."""
    missing: tuple[str, ...] = ()
    """Numbers, dates, codes and names of the sentence that its best passage lacks."""
    found: dict[str, str] = field(default_factory=dict)
    """For a missing item, what the span has in its place: {"15%": "12%"}."""
    source: SupportSpan | None = None
    """The best supporting span; None when the sentence is unsupported."""
    supported_by: tuple[int, ...] = ()
    """Every passage number whose best span supports the sentence, best first."""

    def as_dict(self) -> SentenceSupportPublic:
        """The contract's shape (``POST /api/verify`` and ``support`` in ``done``)."""
        return {
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "verdict": self.verdict,
            "score": round(self.score, 4),
            "missing": list(self.missing),
            "found": dict(self.found),
            "source": self.source.as_dict() if self.source is not None else None,
        }
