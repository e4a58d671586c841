"""The reader node: answers about whole documents (a summary, an outline) or compares them.

It finds the documents (the @mentions, else the ones the last such turn read, else the
library's only document, else the best match for the question), reads each whole from
its stored chunks, and writes the answer itself: from the full text when it fits the
context, else from notes taken section by section (graph/whole/reading.py).
"""

from __future__ import annotations

import asyncio
from pathlib import PurePosixPath
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from graph import prompts
from graph.citations import order_by_citation
from graph.context import TurnContext
from graph.events import Sources, Status
from graph.nodes.generate import unmatched_notice
from graph.nodes.streamed import StreamedAnswer
from graph.state import AgentState, Source
from graph.whole.reading import Document, Reading
from graph.whole.sections import units_of
from models.llm import LLMError
from models.protocols import Usage

CANDIDATES = 8
"""Passages searched to guess which documents an unnamed request means."""


def aspect_of(state: AgentState) -> str:
    """What a comparison reads for: the question without its @mentions, so that the
    notes outlive a renamed file."""
    text = state["question"]
    for mention in state.get("mentioned") or []:
        text = text.replace(mention["said"], " ")
    return " ".join(text.lower().split())


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
    context = runtime.context
    compare = state.get("route") == "compare"
    answer = StreamedAnswer(runtime.stream_writer)
    if notice := unmatched_notice(state):
        answer.say(notice + "\n\n")
    paths = await asyncio.to_thread(_targets, state, context, 2 if compare else 1)
    if not paths or (compare and len(paths) < 2):
        answer.say(prompts.NO_TARGET_COMPARE if compare else prompts.NO_TARGET)
        return _finish(answer, context, [], {}, paths, None)
    names = ", ".join(PurePosixPath(p).name for p in paths)
    runtime.stream_writer(Status("reader", prompts.STATUS_READ.format(files=names)))
    documents = await asyncio.to_thread(_load, context, paths)
    empty = [d.path for d in documents if not d.units]
    documents = [d for d in documents if d.units]
    if not documents:
        answer.say(prompts.EMPTY_DOCUMENTS.format(files=", ".join(empty or paths)))
        return _finish(answer, context, [], {}, paths, None)
    reading = Reading(
        documents,
        context.llm,
        context.notes,
        context.options,
        runtime.stream_writer,
        aspect=aspect_of(state) if compare else "",
        compare=compare,
    )
    question = state["question"]
    whole = reading.fits_whole(question)
    try:
        if whole:
            material = reading.whole_text()
        else:
            notes = await reading.take_notes()
            material = reading.notes_text(notes, question)
    except LLMError as error:
        answer.say(prompts.READ_FAILED.format(error=error))
        return _finish(answer, context, [], reading.summary(), paths, None)
    sources = reading.sources if whole else reading.read_sources()
    runtime.stream_writer(Sources(sources))
    runtime.stream_writer(Status("reader", prompts.STATUS_GENERATE))
    if skipped := reading.skipped_text():
        answer.say(skipped + "\n\n")
    if reading.notes_cut:
        answer.say(prompts.NOTES_CUT + "\n\n")
    usage = Usage()
    failure: LLMError | None = None
    streamed = 0
    try:
        messages = reading.answer_messages(question, material, whole)
        async for piece in context.llm.stream_chat(messages, usage):
            streamed += 1
            answer.say(piece)
    except LLMError as error:
        failure = error
        if streamed:
            answer.say(f"\n\n*(The answer was cut off: {error})*")
        else:
            answer.say(prompts.READ_FAILED.format(error=error))
    trace = {**reading.summary(), "whole": whole, "calls": reading.calls + 1}
    return _finish(answer, context, sources, trace, paths, usage, failure, reading.coverage())


def _finish(
    answer: StreamedAnswer,
    context: TurnContext,
    sources: list[Source],
    reading: dict[str, Any],
    paths: list[str],
    usage: Usage | None,
    failure: LLMError | None = None,
    coverage: dict[str, Any] | None = None,
) -> AgentState:
    text = answer.text
    ordered = order_by_citation(sources, text)
    generation: dict[str, Any] = {
        "model": context.llm.model if usage else None,
        "prompt_tokens": usage.prompt_tokens if usage else None,
        "answer_tokens": usage.answer_tokens if usage else None,
        "context_tokens": context.options.context_tokens,
        "llm_error": str(failure) if failure else None,
        "reading": reading,
    }
    saved = {"sources": ordered, "support": None, "searched": None, "coverage": coverage}
    return {
        "answer": text,
        "sources": ordered,
        "messages": [AIMessage(content=text, additional_kwargs=saved)],
        "generation": generation,
        "support": None,
        "searched": None,
        "coverage": coverage,
        "documents": paths,
    }
