"""The router node: decides whether a turn searches the documents, cheapest tier first.

1. the user's mode, an empty library, or a resolved @mention decide outright;
2. keyword and pattern rules (graph/rules.py);
3. a vector probe: the best chunk far from the question means chat, close means rag;
4. only what is still ambiguous asks the LLM for a JSON intent; any failure searches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Literal

from langchain_core.messages import AnyMessage, HumanMessage

from graph import prompts
from graph.deps import GraphDeps
from graph.events import report_status
from graph.mentions import find_mentions, matched_paths, strip_mentions
from graph.prefetch import PrefetchingSearch
from graph.rules import apply_rules
from graph.state import AgentState, Mode, Route, RouteTier, SearchQuery
from models.llm import LLMError

LIBRARY_SAMPLE = 12
"""File names the LLM tier is shown, to know what the library is about."""


def pass_through_queries(text: str, mentions: Sequence[str]) -> list[SearchQuery]:
    """The searches for a message taken as it is: one per mentioned file, else one."""
    if mentions:
        return [SearchQuery(text=text, files=[path]) for path in mentions]
    return [SearchQuery(text=text, files=[])]


def has_history(state: AgentState) -> bool:
    """Whether earlier messages precede the one being answered."""
    return len(state.get("messages", [])) > 1


def passes_through(state: AgentState, deps: GraphDeps) -> bool:
    """Whether the rewriter searches for the message as it is (no history to resolve
    against, no rephrasings asked for): then the router may start on it already."""
    return not has_history(state) and not deps.options.rephrasings


def warm_opening_question(deps: GraphDeps, text: str, mode: Mode) -> None:
    """Start embedding the first message of a new session, before the graph runs, when it
    may be searched as it is: the embedding then overlaps the graph's set-up and the
    steps up to the search (or the probe), which take it up where it is.

    Nothing starts for what is surely chat (the mode, a small-talk or writing rule), for
    a message naming files (the router resolves those), or when queries are expanded
    (the rewriter embeds its variants instead). The library is not read here, on the
    caller's event loop: in an empty one the embedding is merely not used."""
    if deps.retriever is None or mode == "chat" or "@" in text or deps.options.rephrasings:
        return
    rule = apply_rules(text, after_search=False) if mode == "auto" else None
    if rule is None or rule.route == "rag":
        deps.retriever.warm(text)


async def probe(deps: GraphDeps, text: str) -> float:
    """The best similarity of any chunk to ``text``.

    The search is started as a prefetch: when the turn goes on to search the same text
    with the same search, the retriever takes these hits instead of searching again.
    """
    search = deps.probe or deps.search
    if isinstance(search, PrefetchingSearch):
        hits = await asyncio.wrap_future(search.prefetch(text, deps.options.probe_k, None))
    else:
        hits = await asyncio.to_thread(search.search, text, deps.options.probe_k, None)
    return max((hit.score for hit in hits), default=0.0)


async def ask_llm(deps: GraphDeps, state: AgentState, text: str) -> tuple[Route, str]:
    """The LLM tier: a JSON intent; malformed or failed answers search (a missed search is
    worse than an unneeded one)."""
    files = ", ".join(PurePosixPath(p).name for p in deps.known_files()[:LIBRARY_SAMPLE])
    history = _last_exchange(state.get("messages", []))
    messages = [
        {"role": "system", "content": prompts.ROUTE_SYSTEM.format(files=files or "none")},
        {"role": "user", "content": prompts.ROUTE_USER.format(history=history, question=text)},
    ]
    try:
        reply = await deps.llm.complete_json(
            messages, prompts.ROUTE_SCHEMA, timeout=deps.options.route_timeout
        )
    except LLMError as error:
        return "rag", f"LLM failed, searching anyway: {error}"
    verdict = str(reply.get("route", "")).strip().lower()
    if verdict == "chat":
        return "chat", "LLM said chat"
    if verdict in ("documents", "rag", "search", "docs"):
        return "rag", "LLM said documents"
    return "rag", f"LLM answered {reply!r}, searching anyway"


def _last_exchange(messages: Sequence[AnyMessage]) -> str:
    earlier = list(messages[:-1])[-2:]
    lines = [
        f"{'User' if isinstance(m, HumanMessage) else 'Assistant'}: {str(m.content)[:300]}"
        for m in earlier
    ]
    return "Earlier:\n" + "\n".join(lines) + "\n\n" if lines else ""


async def route(state: AgentState, deps: GraphDeps) -> AgentState:
    """Pick the route, say which tier decided it, and resolve @mentions."""
    report_status("router", prompts.STATUS_ROUTE)
    question = state["question"]
    # The library is read only when needed: small talk settles without it.
    known = deps.known_files() if "@" in question else None
    mentioned = find_mentions(question, known) if known is not None else []
    mentions = matched_paths(mentioned)
    text = strip_mentions(question, mentioned) or question
    after_search = has_history(state) and state.get("route") == "rag"
    mode = state.get("mode", "auto")
    score: float | None = None
    chosen: Route
    tier: RouteTier
    rule = apply_rules(text, after_search=after_search) if mode == "auto" else None
    if mode in ("rag", "chat"):
        chosen, tier, reason = ("rag" if mode == "rag" else "chat"), "mode", f"mode {mode}"
    elif mentions:
        chosen, tier, reason = "rag", "mention", "names " + ", ".join(mentions)
    elif rule is not None and rule.route == "chat":
        chosen, tier, reason = "chat", "rules", rule.name
    elif not (known if known is not None else deps.known_files()):
        chosen, tier, reason = "chat", "library", "no documents to search"
    elif rule is not None:
        chosen, tier, reason = rule.route, "rules", rule.name
    else:
        score = await probe(deps, text)
        tier = "probe"
        if score < deps.options.probe_chat_below:
            chosen, reason = "chat", f"best chunk {score:.2f} is far from the question"
        elif score >= deps.options.probe_rag_above:
            chosen, reason = "rag", f"best chunk {score:.2f} is close to the question"
        else:
            tier = "llm"
            chosen, reason = await ask_llm(deps, state, text)
    if chosen == "rag" and deps.retriever is not None and passes_through(state, deps):
        # The question's embedding overlaps the steps between here and the search.
        deps.retriever.warm(text)
    # Sources belong to one turn; a chat turn must not inherit the last search's.
    return {
        "route": chosen,
        "routed_by": tier,
        "route_reason": reason,
        "probe_score": score,
        "mentions": mentions,
        "mentioned": mentioned,
        "sources": [],
        "passages": [],
        "queries": [],
        "candidates": [],  # a chat turn's trace must not show the last search's
    }


def after_route(state: AgentState) -> Literal["rewriter", "generator"]:
    """Conditional edge: chat goes straight to the generator."""
    return "rewriter" if state["route"] == "rag" else "generator"
