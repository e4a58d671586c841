"""Citations that tell the truth: an answer's marks rewritten from its support check.

A mark survives only if every number in it is a source given this turn. A supported sentence keeps
the cited sources that support it, else gets its best span's; an unsupported one keeps none; an
unjudged one keeps its valid marks. A mark used as a noun ("Both [1] and [2] mention leave") becomes
its file's name. Only marks and their lead-ins change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from graph.citations import cited_numbers
from graph.support.verdicts import CHECKED, SentenceSupport

_BRACKETS = re.compile(r"\[[^\[\]\n]{1,40}\](?!\()")
"""Anything in square brackets that is not a Markdown link; ``cited_numbers`` decides."""
_TAIL = ".!?…:;\"'”’»)*_"
"""Stops and closers a sentence's own mark goes before: "in 1856 [1]."."""
_LEAD_IN = re.compile(
    r"(?:,\s*)?\b(?:according to|as (?:stated|noted|mentioned|described|shown|explained|"
    r"reported|given) in|see)\s*$",
    re.IGNORECASE,
)
"""Words that make a mark the object of a phrase; they go with it."""
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n\s*(?:[-*+]\s+|\d+[.)]\s+)?)$")
_BEFORE_A_NOUN = re.compile(
    r"\b(?:both|either|neither|in|from|of|between|than|unlike|like|with|by|only)\s*$",
    re.IGNORECASE,
)
"""Words after which a mark stands for its document: "Both [1] and [2] mention …"."""
_JOINED = re.compile(r"\s*(?:,|\band\b|\bor\b|\bnor\b)\s*$", re.IGNORECASE)
_GOES_ON = re.compile(r"[ \t]*(?:,|\w)")
"""A sentence that goes on after its first mark: the mark is its subject."""


@dataclass(frozen=True)
class Mark:
    """One citation mark as written, e.g. "[2, 3]" at ``text[start:end]``."""

    start: int
    end: int
    numbers: tuple[int, ...]


@dataclass(frozen=True)
class CitedAnswer:
    """The answer with its marks corrected, and each checked sentence's final sources."""

    text: str
    cited: tuple[tuple[int, ...], ...]
    """One entry per ``SentenceSupport`` given, in order: the sources it now cites."""
    edits: tuple[tuple[int, int, str], ...] = ()
    """What changed, in order: ``answer[start:end]`` became the inserted text."""

    def position(self, at: int, *, end: bool = False) -> int:
        """Where offset ``at`` of the answer as written is in ``text``. A mark inserted exactly at
        ``at`` counts as before it for an ``end``, after it for a start."""
        shift = 0
        for start, stop, insert in self.edits:
            if start < at < stop:
                return start + shift  # inside a removed mark: where it was
            if stop < at or (stop == at and (start < stop or end)):
                shift += len(insert) - (stop - start)
        return at + shift

    def moved(self, support: Sequence[SentenceSupport]) -> list[SentenceSupport]:
        """``support`` with its offsets and texts moved into ``text``."""
        out = []
        for sentence in support:
            start = self.position(sentence.start)
            stop = self.position(sentence.end, end=True)
            out.append(replace(sentence, start=start, end=stop, text=self.text[start:stop]))
        return out


def citation_marks(text: str) -> list[Mark]:
    """Every citation-like mark in ``text``: [1], [2][3] (two marks), [1, 2], [1-3]."""
    marks = []
    for match in _BRACKETS.finditer(text):
        numbers = cited_numbers(match.group(0))
        if numbers:
            marks.append(Mark(match.start(), match.end(), tuple(numbers)))
    return marks


def correct_citations(
    answer: str, support: Sequence[SentenceSupport], sources: Mapping[int, str]
) -> CitedAnswer:
    """Rewrite ``answer``'s marks from ``support``; ``sources``: this turn's numbers' files."""
    marks = citation_marks(answer)
    given = set(sources)
    nouns = _used_as_nouns(answer, marks)
    edits: list[tuple[int, int, str]] = []
    claimed: set[Mark] = set()
    cited: list[tuple[int, ...]] = []
    for sentence in support:
        own = [m for m in marks if sentence.start <= m.start and m.end <= sentence.end]
        valid = [m for m in own if set(m.numbers) <= given]
        said = tuple(dict.fromkeys(n for m in valid for n in m.numbers))
        if sentence.verdict not in CHECKED:  # not judged: its marks are any sentence's
            cited.append(said)
            continue
        claimed.update(own)
        final = _final(sentence, said)
        cited.append(final)
        if final == said and len(valid) == len(own):
            continue
        for mark in own:
            edits += _naming(answer, mark, sources) if mark in nouns else _removal(answer, mark)
        if final:
            at = _insertion_point(answer, sentence.start, sentence.end, own)
            edits.append((at, at, " " + "".join(f"[{n}]" for n in final)))
    for mark in marks:
        if mark not in claimed and not set(mark.numbers) <= given:
            edits += _removal(answer, mark)
    text, applied = _apply(answer, edits)
    return CitedAnswer(text, tuple(cited), applied)


def _used_as_nouns(text: str, marks: Sequence[Mark]) -> set[Mark]:
    """The marks that stand for their documents rather than cite: a subject ("[1] says …"), after
    "both", "in", "from"…, or joined by "and" or a comma to such a one."""
    nouns: set[Mark] = set()
    previous: Mark | None = None
    for mark in marks:
        before = text[: mark.start]
        joined = _JOINED.search(before)
        if (
            (_SENTENCE_START.search(before) and _GOES_ON.match(text, mark.end))
            or _BEFORE_A_NOUN.search(before)
            or (
                previous in nouns
                and joined is not None
                and previous is not None
                and len(before[: joined.start()].rstrip()) == previous.end
            )
        ):
            nouns.add(mark)
        previous = mark
    return nouns


def _naming(text: str, mark: Mark, names: Mapping[int, str]) -> list[tuple[int, int, str]]:
    """Put the file's name where a mark used as a noun was; its lead-in goes as in ``_removal``."""
    named = [names[n] for n in mark.numbers if names.get(n)]
    if not named or _LEAD_IN.search(text, 0, mark.start):
        return _removal(text, mark)
    return [(mark.start, mark.end, " and ".join(f"`{name}`" for name in named))]


def _final(sentence: SentenceSupport, said: tuple[int, ...]) -> tuple[int, ...]:
    if sentence.verdict == "unsupported" or sentence.source is None:
        return ()
    kept = tuple(n for n in said if n in sentence.supported_by)
    return kept or (sentence.source.n,)


def _removal(text: str, mark: Mark) -> list[tuple[int, int, str]]:
    """Delete a mark, the spaces before it, and its lead-in ("According to [2], the…" → "The…")."""
    lead = _LEAD_IN.search(text, 0, mark.start)
    if lead is not None:
        return _lead_in_removal(text, lead.start(), mark.end)
    start = mark.start
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    if start > 0 and text[start - 1] not in "\n":
        return [(start, mark.end, "")]
    end = mark.end
    while end < len(text) and text[end] in " \t":
        end += 1
    return [(mark.start, end, "")]


def _lead_in_removal(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """Delete a lead-in and its mark; at a sentence's start the comma too, next word capitalised."""
    if not _SENTENCE_START.search(text, 0, start):
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        return [(start, end, "")]
    while end < len(text) and text[end] in ", \t":
        end += 1
    if end < len(text) and text[end].islower():
        return [(start, end, ""), (end, end + 1, text[end].upper())]
    return [(start, end, "")]


def _insertion_point(text: str, start: int, end: int, own: Sequence[Mark]) -> int:
    """Just after the sentence's last word, before its stop, closers and old marks."""
    spans = sorted((m.start, m.end) for m in own)
    at = end
    while at > start:
        if spans and spans[-1][1] == at:
            at = spans.pop()[0]
        elif text[at - 1] in _TAIL or text[at - 1].isspace():
            at -= 1
        else:
            break
    return at


def _apply(
    text: str, edits: list[tuple[int, int, str]]
) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    """The text with ``edits`` made, and the edits as made (none overlapping)."""
    out = []
    applied = []
    position = 0
    for start, end, insert in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < position:
            start = position  # overlapping removals of neighbouring marks
        end = max(start, end)
        out.append(text[position:start])
        out.append(insert)
        applied.append((start, end, insert))
        position = max(position, end)
    out.append(text[position:])
    return "".join(out), tuple(applied)
