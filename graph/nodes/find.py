"""The retriever's work on a find turn: every matching document, each by its best passage. The count
is code's (``graph.retrieval.find_documents``), never the model's estimate."""

from __future__ import annotations

import asyncio
import re
from pathlib import PurePosixPath

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
"""Matching documents whose best passage goes to the model; the count covers every match."""
FIND_LISTED = 30
"""Matching documents a find answer lists by name; more are counted in one line."""

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
    """What a find question looks for ("Which documents mention the travel card?" → "the travel
    card"); quotes and codes as written; the question itself when no frame is recognised."""
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


def find_header(found: FindRecord, shown: int) -> str:
    """The find answer's first line, from the code's count."""
    scope = f" in {found['scope']}" if found.get("scope") != describe([]) else ""
    topic = str(found["topic"]).strip('"\u201c\u201d')  # the header quotes it itself
    if not found["matched"]:
        return prompts.FIND_NONE.format(
            searched=found["searched"], scope=scope, topic=found["topic"]
        )
    verb = "mentions" if found["matched"] == 1 else "mention"
    line = prompts.FIND_COUNT.format(
        matched=found["matched"],
        searched=found["searched"],
        verb=verb,
        topic=topic,
        scope=scope,
    )
    if shown < found["matched"]:
        line += prompts.FIND_COUNT_READ.format(shown=shown)
    return line + "\n\n" + _find_list(found)


def _find_list(found: FindRecord) -> str:
    """The matching files and passage counts, written by code so the answer always names them."""
    paths: list[str] = found["paths"]
    hits: list[int] = found.get("hits") or []
    names = [PurePosixPath(p).name for p in paths]
    shown = [
        prompts.FIND_ITEM.format(
            name=path if names.count(name) > 1 else name,
            hits=count,
            noun="passage" if count == 1 else "passages",
        )
        for path, name, count in zip(paths, names, hits, strict=False)
    ][:FIND_LISTED]
    if len(paths) > len(shown):
        shown.append(prompts.FIND_MORE.format(more=len(paths) - len(shown)))
    return "\n".join(shown)
