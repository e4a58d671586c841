"""The router node: decides whether a turn searches the documents."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Literal

from graph import prompts
from graph.deps import GraphDeps
from graph.events import report_status
from graph.state import AgentState, Route

# @report.pdf, @notes/q3.md or @"annual report.pdf"
MENTION = re.compile(r'@"([^"]+)"|@([\w\-./]+\.[A-Za-z0-9]+)')

_SMALL_TALK = re.compile(
    r"^\s*(hi|hello|hey|hallo|bonjour|good (morning|afternoon|evening)|thanks?( you)?|"
    r"thank you|ok(ay)?|cool|great|bye|goodbye|who are you|what can you do|how are you)"
    r"\b[\s!.?,]*$",
    re.IGNORECASE,
)


def find_mentions(text: str, known_files: list[str]) -> tuple[list[str], str]:
    """Resolve @file mentions to known paths; return them and the text without them.

    A mention matches a document by relative path or by file name, ignoring case.
    Unknown mentions stay in the text, since '@' may just be part of the question.
    """
    by_key: dict[str, str] = {}
    for path in known_files:
        by_key.setdefault(path.lower(), path)
        by_key.setdefault(PurePosixPath(path).name.lower(), path)

    found: list[str] = []

    def replace(match: re.Match[str]) -> str:
        name = (match.group(1) or match.group(2)).strip()
        path = by_key.get(name.lower())
        if path is None:
            return match.group(0)
        if path not in found:
            found.append(path)
        return PurePosixPath(path).name

    cleaned = MENTION.sub(replace, text)
    return found, " ".join(cleaned.split())


def choose_route(question: str, mode: str, mentions: list[str], have_documents: bool) -> Route:
    """Mode override first, then @mentions, then a small-talk heuristic."""
    if mode == "rag":
        return "rag"
    if mode == "chat":
        return "chat"
    if mentions:
        return "rag"
    if _SMALL_TALK.match(question) or not have_documents:
        return "chat"
    return "rag"


async def route(state: AgentState, deps: GraphDeps) -> AgentState:
    """Pick the route and resolve @mentions."""
    report_status("router", prompts.STATUS_ROUTE)
    known = deps.known_files()
    mentions, _ = find_mentions(state["question"], known)
    chosen = choose_route(state["question"], state.get("mode", "auto"), mentions, bool(known))
    # Sources belong to one turn; a chat turn must not inherit the last search's.
    return {"route": chosen, "mentions": mentions, "sources": [], "passages": []}


def after_route(state: AgentState) -> Literal["rewriter", "generator"]:
    """Conditional edge: chat goes straight to the generator."""
    return "rewriter" if state["route"] == "rag" else "generator"
