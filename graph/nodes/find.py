"""The retriever's work on a find turn: every matching document, each by its best passage.

The documents are found by code (``graph.retrieval.find_documents``), so the count an answer gives
is the count of documents that match, never the model's estimate from what it was shown.
"""

from __future__ import annotations

import asyncio
import re

from langgraph.runtime import Runtime

from graph import prompts
from graph.events import Sources, Status
from graph.nodes.numbered import numbered_passage
from graph.records import NumberedPassage
from graph.retrieval.find_documents import Found, find
from graph.scope import describe
from graph.state import AgentState
from graph.trace_records import FindRecord
from graph.turn_context import TurnContext

FIND_READ = 30
"""Matching documents whose best passage goes to the model, best first; the answer still
counts and the coverage line still reports every match."""

_NOUNS = (
    r"documents?|docs?|files?|pdfs?|reports?|papers?|pages?|notes?|invoices?|contracts?|"
    r"memos?|agreements?|polic(?:y|ies)|manuals?|guides?|statements?|proposals?|articles?|"
    r"spreadsheets?|sections?|chapters?"
)
_VERBS = (
    r"mention(?:s|ing)?|contain(?:s|ing)?|talks? about|discuss(?:es|ing)?|refer(?:s|ring)? to|"
    r"cover(?:s|ing)?|includ(?:e|es|ing)|deals? with|are about|is about|says? anything about|"
    r"have|has|use[sd]?|using|cite[sd]?|name[sd]?|describe[sd]?|explain(?:s|ed)?|about|on|"
    r"regarding|concerning|with|from|for|of"
)
_FRAME = re.compile(
    r"^\W*(?:(?:please|can you|could you)\s+)?"
    r"(?:(?:in|from)\s+)?(?:which|what|how many|list|show|find|give me|count|name)\s+"
    r"(?:me\s+)?(?:all|every|each|any)?\s*(?:of\s+)?(?:the|my|our|these)?\s*"
    r"(?:\w+\s){0,2}?(?:" + _NOUNS + r")\s+(?:(?:in\s+)?(?:my|the|our)\s+\w+\s+)?"
    r"(?:(?:that|which|who)\s+)?(?:(?:do|does|are|is)\s+)?(?:(?:we|i|you)\s+have\s+)?"
    r"(?:" + _VERBS + r")?\s*",
    re.IGNORECASE,
)
_TAIL = re.compile(
    r"\s*(?:\b(?:(?:is|are)\s+)?(?:mentioned|discussed|covered|described)\s*)?"
    r"(?:\bin (?:my|the|our) (?:library|documents|files|folder)\s*)?[?.!\s]*$",
    re.IGNORECASE,
)


def topic_of(question: str) -> str:
    """What a find question looks for: "Which documents mention the travel card?" → "the
    travel card"; a quoted string or code stays as written. The question itself when no
    frame is recognised."""
    rest = _FRAME.sub("", question, count=1)
    rest = _TAIL.sub("", rest)
    rest = re.sub(r"^(?:the|a|an)\s+", "", rest.strip(), flags=re.IGNORECASE)
    return rest.strip() or question.strip()


def found_passages(found: Found) -> list[NumberedPassage]:
    """The best passage of each of the first ``FIND_READ`` documents, numbered."""
    out: list[NumberedPassage] = []
    for n, document in enumerate(found.documents[:FIND_READ], start=1):
        chunk = document.best.chunk
        if chunk is None:
            continue
        out.append(
            numbered_passage(
                n,
                chunk.text,
                file=document.file,
                path=document.path,
                page=chunk.page,
                score=document.best.score,
                scores=document.best.scores(),
                start=chunk.start,
                end=chunk.end,
            )
        )
    return out


def found_record(found: Found, topic: str, scope: list[str]) -> FindRecord:
    """What the generator and the trace need of a find: the count is the code's."""
    return {
        "topic": topic,
        "literals": found.literals,
        "scope": describe(scope),
        "searched": found.searched,
        "matched": len(found.documents),
        "paths": [d.path for d in found.documents],
        "hits": [d.hits for d in found.documents],
    }


async def find_passages(state: AgentState, runtime: Runtime[TurnContext]) -> AgentState:
    """Find every matching document in the turn's scope; hand on each one's best passage."""
    context, tell = runtime.context, runtime.stream_writer
    queries = state.get("queries") or []
    asked = queries[0]["text"] if queries else state["question"]
    topic = topic_of(asked)
    aim = list(state.get("aim") or [])
    library = context.known_files()
    tell(Status("retriever", prompts.STATUS_FIND.format(topic=topic, scope=describe(aim))))
    found = await asyncio.to_thread(find, context.search, topic, library, aim)
    passages = found_passages(found)
    tell(Sources([p["source"] for p in passages]))
    record = found_record(found, topic, aim)
    return {"passages": passages, "found": record}
