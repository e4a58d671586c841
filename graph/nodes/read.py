"""The reader node: summarises, outlines or compares whole documents (the @mentions, else the last
such turn's, else the only one, else the best match), from their full text when it fits, else from
section notes (graph/whole/reading.py)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from graph import prompts
from graph.checking import CheckedAnswer, settle, start_check
from graph.citations import order_by_citation
from graph.events import Sources, Status
from graph.nodes.generate import unmatched_notice
from graph.nodes.streamed import StreamedAnswer
from graph.records import Coverage, SentenceSupportPublic, StoppedReading
from graph.runaway import RunawayGuard
from graph.state import AgentState, Generation, Source
from graph.support import SentenceSupport
from graph.support.words import STOP
from graph.trace_records import NoReading, ReadingTrace
from graph.turn_context import TurnContext
from graph.whole import reading_prompts as whole_prompts
from graph.whole.answer import Written, stream_answer
from graph.whole.reading import Reading
from graph.whole.reading_progress import answer_status
from graph.whole.report import coverage, skipped_text, summary, unfinished
from graph.whole.sections import Document, Note, units_of
from graph.whole.table import Table, comparison_table
from graph.whole.table_check import check_table
from models.llm import LLMError

CANDIDATES = 8
"""Passages searched to guess which documents an unnamed request means."""
PROSE_CHARS = 600
"""A comparison's prose under its table: three sentences, with a little room to spare."""
CHARS_PER_TOKEN = 4
"""A summary may run to about the answer's tokens; the guard counts characters."""


def aspect_of(state: AgentState) -> str:
    """What a comparison reads for: the question without its @mentions (so notes outlive a rename)
    and comparison words; "" for a bare "compare @a and @b"."""
    text = state["question"]
    for mention in state.get("mentioned") or []:
        text = text.replace(mention["said"], " ")
    words = [w.strip(_EDGES) for w in text.lower().split()]
    return " ".join(w for w in words if w and w not in STOP and not _ASKING.fullmatch(w))


_EDGES = "\"'.,;:!?()[]"
_ASKING = re.compile(
    r"compar(?:e[sd]?|ing|isons?)|contrast(?:s|ing)?|differ(?:s|ent|ently|ences?)?|vs\.?|"
    r"versus|similar(?:ity|ities)?|documents?|files?|pages?|side|please|tell|show|give|two|both"
)
"""Words that ask for a comparison rather than name what to compare."""


def _targets(state: AgentState, context: TurnContext, wanted: int) -> list[str]:
    """The paths of the documents to read, at least ``wanted`` where they can be found."""
    paths = list(state.get("mentions") or [])
    known = context.known_files()
    if len(paths) < wanted:
        earlier = [p for p in state.get("documents") or [] if p in known and p not in paths]
        paths += earlier[: wanted - len(paths)]
    if len(paths) < wanted and len(known) == 1:
        paths = list(dict.fromkeys([*paths, *known]))
    if len(paths) < wanted:
        found = context.search.retrieve(state["question"], k=CANDIDATES)
        for passage in found.passages:
            if passage.path not in paths and len(paths) < wanted:
                paths.append(passage.path)
    return paths


def _load(context: TurnContext, paths: list[str]) -> list[Document]:
    """Each document's pages in order, from the chunks the store holds."""
    documents = []
    search = context.search
    for path in paths:
        keys = search.library.keys_for([path])
        if not keys:
            continue
        units = units_of(search.reader.dense.document_chunks(keys[0]), path)
        documents.append(Document(path, keys[0], units))
    return documents


async def read(state: AgentState, runtime: Runtime[TurnContext]) -> AgentState:
    """Read the named documents whole and answer from them, with page citations."""
    context, tell = runtime.context, runtime.stream_writer
    compare = state.get("route") == "compare"
    resume = state.get("resume")
    question = resume["question"] if resume else state["question"]
    answer = StreamedAnswer(tell)
    if notice := unmatched_notice(state):
        answer.say(notice + "\n\n")
    paths = await asyncio.to_thread(_targets, state, context, 2 if compare else 1)
    if not paths or (compare and len(paths) < 2):
        answer.say(whole_prompts.NO_TARGET_COMPARE if compare else whole_prompts.NO_TARGET)
        return _finish(answer, context, Ended(), paths)
    names = ", ".join(PurePosixPath(p).name for p in paths)
    tell(Status("reader", whole_prompts.STATUS_READ.format(files=names)))
    documents = await asyncio.to_thread(_load, context, paths)
    empty = [d.path for d in documents if not d.units]
    documents = [d for d in documents if d.units]
    if not documents:
        answer.say(whole_prompts.EMPTY_DOCUMENTS.format(files=", ".join(empty or paths)))
        return _finish(answer, context, Ended(), paths)
    aspect = resume["aspect"] if resume else aspect_of(state) if compare else ""
    reading = Reading(
        documents,
        context.llm,
        context.notes,
        context.options,
        tell,
        aspect=aspect,
        compare=compare,
        question=question,
        only_read=bool(resume and resume["only_read"]),
    )
    # A comparison's table is drawn from notes on each document, however short.
    whole = not compare and not reading.only_read and reading.fits_whole(question)
    notes: list[Note] = []
    try:
        if whole:
            material = reading.whole_text()
        else:
            notes = await reading.take_notes()
            material = reading.notes_text(notes, question)
    except LLMError as error:
        answer.say(whole_prompts.READ_FAILED.format(error=error))
        return _finish(answer, context, Ended(trace=summary(reading)), paths)
    ended = Ended(trace=summary(reading), unfinished=unfinished(reading, question))
    if not whole and not notes:
        answer.say(whole_prompts.NOTHING_READ)
        return _finish(answer, context, ended, paths)
    sources = reading.sources if whole else reading.read_sources()
    tell(Sources(sources))
    if skipped := skipped_text(reading):
        answer.say(skipped + "\n\n")
    if reading.notes_cut:
        answer.say(whole_prompts.NOTES_CUT + "\n\n")
    table = None
    if compare:
        files = [d.units[0].file for d in documents]
        table = comparison_table(reading.points(notes), files)
        answer.say(table.text + "\n\n")
    # Told after the notices: the window's clock runs from here to the model's first word.
    tell(Status("reader", answer_status(reading, 0 if whole else len(notes))))
    embedder = context.search.reader.embedder
    live = start_check(reading.passages(sources), context.search, state)
    checked_table = None
    if table is not None:
        columns = [reading.passages([s for s in sources if s["path"] == d.path]) for d in documents]
        checked_table = asyncio.create_task(
            asyncio.to_thread(check_table, table, columns, embedder)
        )
    prefix = answer.text
    guard = RunawayGuard(
        max_chars=PROSE_CHARS if compare else context.options.answer_tokens * CHARS_PER_TOKEN,
        no_tables=compare,
    )
    messages = reading.answer_messages(question, material, whole)
    try:
        written = await stream_answer(context.llm, messages, answer, guard, live)
    except BaseException:
        if checked_table is not None:
            checked_table.cancel()  # stopped: the thread's check ends unheeded
        raise
    ended.written = written
    read: ReadingTrace = {**summary(reading), "whole": whole, "calls": reading.calls + 1}
    ended.trace = read
    ended.sources, ended.coverage = sources, coverage(reading)
    if written.failure is not None:
        live.cancel()  # a cut-off answer is not checked
        if checked_table is not None:
            checked_table.cancel()
        failed = prompts.ANSWER_CUT_OFF if written.text or compare else whole_prompts.READ_FAILED
        answer.say(failed.format(error=written.failure))
        return _finish(answer, context, ended, paths)
    checked = await settle("", written.text, live, sources, state, withhold=False)
    ended.text, ended.support = _assembled(prefix, table, checked, await _table(checked_table))
    if written.stopped is not None:
        # Told after the check, so that it is not read as a sentence of the answer.
        looped = written.stopped == "repeating"
        ended.text += prompts.ANSWER_REPEATING if looped else prompts.ANSWER_LONG
    return _finish(answer, context, ended, paths)


async def _table(
    task: asyncio.Task[tuple[Table, list[SentenceSupport]] | None] | None,
) -> tuple[Table, list[SentenceSupport]] | None:
    return await task if task is not None else None


def _assembled(
    prefix: str,
    table: Table | None,
    prose: CheckedAnswer,
    checked: tuple[Table, list[SentenceSupport]] | None,
) -> tuple[str, list[SentenceSupportPublic] | None]:
    """The answer as it ends (notices, checked table, model's text) and each sentence's support."""
    head = prefix
    support: list[SentenceSupport] = []
    if table is not None and checked is not None:
        fixed, cells = checked
        at = prefix.index(table.text)
        head = prefix[:at] + fixed.text + prefix[at + len(table.text) :]
        support += [replace(s, start=s.start + at, end=s.end + at) for s in cells]
    shift = len(head)
    if prose.support is None and not support:
        return head + prose.text, None
    dicts = [s.as_dict() for s in support]
    for entry in prose.support or []:
        dicts.append({**entry, "start": entry["start"] + shift, "end": entry["end"] + shift})
    return head + prose.text, dicts


@dataclass
class Ended:
    """How the reader's turn ends, for ``_finish``."""

    trace: ReadingTrace | NoReading = field(default_factory=NoReading)
    unfinished: StoppedReading | None = None
    written: Written | None = None
    sources: list[Source] = field(default_factory=list)
    coverage: Coverage | None = None
    text: str | None = None
    """The checked answer; None: as streamed."""
    support: list[SentenceSupportPublic] | None = None


def _finish(
    answer: StreamedAnswer, context: TurnContext, ended: Ended, paths: list[str]
) -> AgentState:
    text = ended.text if ended.text is not None else answer.text
    ordered = order_by_citation(ended.sources, text)
    written = ended.written
    usage = written.usage if written is not None else None
    failure = written.failure if written is not None else None
    generation: Generation = {
        "model": context.llm.model if usage else None,
        "prompt_tokens": usage.prompt_tokens if usage else None,
        "answer_tokens": usage.answer_tokens if usage else None,
        "context_tokens": context.options.context_tokens,
        "llm_error": str(failure) if failure else None,
        "runaway": written.stopped if written is not None else None,
        "reading": ended.trace,
    }
    saved = {
        "sources": ordered,
        "support": ended.support,
        "searched": None,
        "coverage": ended.coverage,
        "resume": ended.unfinished,
    }
    return {
        "answer": text,
        "sources": ordered,
        "messages": [AIMessage(content=text, additional_kwargs=saved)],
        "generation": generation,
        "support": ended.support,
        "searched": None,
        "coverage": ended.coverage,
        "documents": paths,
        "unfinished": ended.unfinished,
    }
