"""Reading whole documents for one question: in one piece when they fit the context, else section by
section (map), the notes combined by the answer (reduce). ``Reading`` is the turn's one object for
this work."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from graph.budget import MESSAGE_OVERHEAD, cut_to, estimate_tokens, message_tokens
from graph.records import NumberedPassage
from graph.runaway import RunawayGuard
from graph.state import Source
from graph.turn_options import TurnOptions
from graph.whole import reading_prompts as prompts
from graph.whole.answer import guarded
from graph.whole.pace import Pace
from graph.whole.reading_progress import done_progress, read_so_far, section_progress
from graph.whole.section_notes import SectionNotes
from graph.whole.sections import (
    Document,
    Note,
    Section,
    cite_sources,
    sections_of,
    span_of,
)
from graph.whole.table import Point, points_of
from models.protocols import ChatModel, Message

SNIPPET_CHARS = 240
MAP_FRAME = 400
"""Tokens a map call's instructions and headings take, with room to spare."""
MIN_SECTION = 256
"""Fewest tokens of text a map call is given, whatever the context left for it."""
NOTE_WORDS = (60, 300)
"""Fewest and most words a section's note may take; the budget decides in between."""
NOTE_CHARS_PER_WORD = 8
"""A note ends past this many characters a word asked for (a third over): a small model that copies
its section or loops would write on to its token limit, a quarter hour on a busy CPU."""


@dataclass
class Reading:
    """The reading of one turn's documents."""

    documents: list[Document]
    llm: ChatModel
    notes: SectionNotes
    options: TurnOptions
    tell: Callable[[Any], None]
    aspect: str = ""
    """What a comparison reads for; "" takes notes of everything (shared by any question)."""
    compare: bool = False
    question: str = ""
    """The question read for (a resumed reading's, as first asked)."""
    only_read: bool = False
    """Take the notes kept and write none: the answer is from what was read before."""
    pace: Pace = field(default_factory=Pace)
    """The note calls, timed: how long the rest should take."""
    sources: list[Source] = field(default_factory=list)
    calls: int = 0
    """Model calls made for notes (the answer's own call is counted by the caller)."""
    cached: int = 0
    tokens_sent: int = 0
    skipped: list[tuple[Document, list[Section]]] = field(default_factory=list)
    notes_cut: bool = False
    kept: set[str] = field(default_factory=set)
    """The digests of the sections whose notes the answer is written from."""
    _numbers: dict[tuple[str, str], int] = field(default_factory=dict)
    _texts: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for document in self.documents:
            for unit in document.units:
                n = len(self.sources) + 1
                self._numbers[(document.path, unit.label)] = n
                self._texts[n] = unit.text
                self.sources.append(
                    Source(
                        n=n,
                        file=unit.file,
                        path=document.path,
                        page=unit.page,
                        snippet=unit.text[:SNIPPET_CHARS],
                        score=1.0,
                        start=unit.start,
                        end=unit.end,
                    )
                )

    @property
    def budget(self) -> int:
        """Tokens a prompt may take: the context less the answer's room."""
        return self.options.context_tokens - self.options.answer_tokens

    @property
    def section_budget(self) -> int:
        """Tokens of a document's text one map call reads."""
        return max(self.budget - MAP_FRAME, MIN_SECTION)

    @property
    def prompt_version(self) -> str:
        """The notes' prompt, as their key: a comparison's notes are written by topic."""
        return prompts.MAP_COMPARE_PROMPT_VERSION if self.compare else prompts.MAP_PROMPT_VERSION

    @property
    def _note_key(self) -> tuple[str, str, str]:
        """What a section's note is kept under, besides the section: model, prompt, aspect."""
        return self.llm.model, self.prompt_version, self.aspect

    def system(self, whole: bool) -> str:
        if self.compare:
            return prompts.COMPARE_PROSE_SYSTEM
        what = prompts.WHOLE_TEXT if whole else prompts.WHOLE_NOTES
        return prompts.WHOLE_SYSTEM.format(what=what)

    def passages(self, sources: Sequence[Source]) -> list[NumberedPassage]:
        """Each source with its full text (a page's), for checking the answer against."""
        return [{"source": s, "text": self._texts[s["n"]]} for s in sources]

    def answer_messages(self, question: str, material: str, whole: bool) -> list[Message]:
        """The answer's call: the documents' text (or notes) and the question."""
        user = prompts.WHOLE_USER.format(material=material, question=question)
        return [
            {"role": "system", "content": self.system(whole)},
            {"role": "user", "content": user},
        ]

    def whole_text(self) -> str:
        """Every page of every document, numbered as the turn's sources."""
        parts = []
        for document in self.documents:
            parts.append(prompts.WHOLE_DOCUMENT_HEADER.format(file=document.path))
            for unit in document.units:
                n = self._numbers[(document.path, unit.label)]
                where = span_of([unit])
                parts.append(prompts.WHOLE_PAGE_BLOCK.format(n=n, where=where, text=unit.text))
        return "\n\n".join(parts)

    def fits_whole(self, question: str) -> bool:
        """Whether the documents and the question go to the model in one call."""
        if sum(u.tokens for d in self.documents for u in d.units) > self.budget:
            return False  # settled without building and measuring the whole text
        messages = self.answer_messages(question, self.whole_text(), whole=True)
        return sum(message_tokens(m) for m in messages) <= self.budget

    # -- map ----------------------------------------------------------------------------

    async def take_notes(self) -> list[Note]:
        """Notes on each section the budget allows, in order: cached, or written now and cached."""
        for document in self.documents:
            document.sections = sections_of(document.units, self.section_budget)
        planned = [(d, s) for d in self.documents for s in d.sections]
        found = await asyncio.to_thread(self._cached, planned)
        unread = [(d, s) for d, s in planned if s.digest not in found]
        allowed = set() if self.only_read else self._allowed(unread)
        words = self._note_words(len(planned))
        notes: list[Note] = []
        read = [(d, s) for d, s in planned if s.digest in found or id(s) in allowed]
        self.tell(read_so_far(self, found))
        for index, (document, section) in enumerate(read, start=1):
            calls = sum(s.digest not in found for _, s in read[index - 1 :]) + 1
            self.tell(section_progress(self, index, len(read), document, section, calls))
            text = found.get(section.digest)
            if text is None:
                self.pace.begin()
                text = await self._write_note(document, section, words)
                self.pace.end()
                found[section.digest] = text  # a page repeated later is not read twice
                self.tell(read_so_far(self, found))
            else:
                self.cached += 1
            notes.append(Note(document, section, text))
        self.tell(done_progress(self, len(read)))
        self.kept = {s.digest for _, s in read}
        for document in self.documents:
            left = [s for s in document.sections if s.digest not in found and id(s) not in allowed]
            if left:
                self.skipped.append((document, left))
        return notes

    def _cached(self, planned: Sequence[tuple[Document, Section]]) -> dict[str, str]:
        notes = {s.digest: self.notes.get(s.digest, *self._note_key) for _, s in planned}
        return {digest: note for digest, note in notes.items() if note is not None}

    def _allowed(self, unread: Sequence[tuple[Document, Section]]) -> set[int]:
        """The unread sections the budget allows (one call kept for the answer), shared a call at a
        time between documents, each from its start."""
        calls = max(self.options.max_calls_per_question - 1, 0)
        pending = {id(d): [s for owner, s in unread if owner is d] for d in self.documents}
        chosen: set[int] = set()
        while calls > 0 and any(pending.values()):
            for document in self.documents:
                queue = pending[id(document)]
                if queue and calls > 0:
                    chosen.add(id(queue.pop(0)))
                    calls -= 1
        return chosen

    def _note_words(self, sections: int) -> int:
        """Words per note such that every note fits the answer's prompt together."""
        room = self.section_budget // max(sections, 1)
        return max(NOTE_WORDS[0], min(NOTE_WORDS[1], room * 3 // 4))

    async def _write_note(self, document: Document, section: Section, words: int) -> str:
        aspect = prompts.MAP_ASPECT.format(aspect=self.aspect) if self.aspect else ""
        user = prompts.MAP_USER.format(
            file=document.path,
            index=document.sections.index(section) + 1,  # its document's own count
            total=len(document.sections),
            where=section.where,
            text=section.text,
        )
        if self.compare:
            system = prompts.MAP_COMPARE_SYSTEM
            user += "\n\n" + prompts.MAP_COMPARE_ASK.format(
                aspect=aspect,
                label=section.units[0].label,
                example=prompts.MAP_COMPARE_EXAMPLE,
                words=words,
            )
        else:
            system = prompts.MAP_SYSTEM.format(aspect=aspect, words=words)
        messages: list[Message] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        self.calls += 1
        self.tokens_sent += sum(message_tokens(m) for m in messages)
        guard = RunawayGuard(max_chars=words * NOTE_CHARS_PER_WORD)
        note = "".join([piece async for piece in guarded(self.llm, messages, guard)]).strip()
        await asyncio.to_thread(self.notes.put, section.digest, *self._note_key, document.key, note)
        return note

    # -- reduce -------------------------------------------------------------------------

    def points(self, notes: Sequence[Note]) -> list[Point]:
        """A comparison's notes as points, a column per document, labels as its source numbers."""
        columns = {id(d): i for i, d in enumerate(self.documents)}
        out: list[Point] = []
        for note in notes:
            numbers = self._numbers_of(note.document)
            text = cite_sources(note.text, numbers)
            # A one-page section's uncited point can only come from that page.
            units = note.section.units
            page = numbers.get(units[0].label) if len(units) == 1 else None
            found = points_of(text, columns[id(note.document)], page)
            out.extend(p for p in found if prompts.MAP_COMPARE_EXAMPLE not in p.text)
        return out

    def _numbers_of(self, document: Document) -> dict[str, int]:
        return {label: n for (path, label), n in self._numbers.items() if path == document.path}

    def notes_text(self, notes: Sequence[Note], question: str) -> str:
        """The notes as the answer reads them, labels as source numbers, each cut to an equal share
        if they don't fit together."""
        frame = sum(message_tokens(m) for m in self.answer_messages(question, "", whole=False))
        room = self.budget - frame
        blocks: list[tuple[Document, str, str]] = []
        for note in notes:
            text = cite_sources(note.text, self._numbers_of(note.document))
            blocks.append((note.document, note.section.where, text))
        headers = len(self.documents) * (MESSAGE_OVERHEAD + 10)
        total = sum(estimate_tokens(b[2]) + 12 for b in blocks) + headers
        if total > room and blocks:
            share = max((room - headers) // len(blocks) - 12, 1)
            blocks = [(d, w, cut_to(t, share)) for d, w, t in blocks]
            self.notes_cut = True
        parts: list[str] = []
        shown: Document | None = None
        for document, where, text in blocks:
            if document is not shown:
                parts.append(prompts.WHOLE_DOCUMENT_HEADER.format(file=document.path))
                shown = document
            parts.append(prompts.WHOLE_NOTE_BLOCK.format(where=where, note=text))
        return "\n\n".join(parts)

    def read_sources(self) -> list[Source]:
        """The sources the answer was given: every page but those of skipped sections."""
        left = {
            self._numbers[(d.path, u.label)]
            for d, sections in self.skipped
            for s in sections
            for u in s.units
        }
        return [s for s in self.sources if s["n"] not in left]
