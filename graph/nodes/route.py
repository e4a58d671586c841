"""The router node: decides whether a turn searches, cheapest tier first: the mode, an empty library
or an @mention (after the whole-document rule); the rules (graph/nodes/rules.py); a vector probe;
the LLM for what is still ambiguous, any failure searching."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Literal

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.runtime import Runtime

from graph import prompts
from graph.events import Status
from graph.mentions import find_mentions, matched_paths, strip_mentions
from graph.nodes.rules import NAMES_DOCUMENTS, Verdict, judge
from graph.retrieval.turn_search import Search
from graph.scope import take_folder_mentions
from graph.state import AgentState, Mode, Route, RouteTier, SearchQuery
from graph.turn_context import TurnContext
from graph.turn_options import TurnOptions
from graph.whole.resume import asked_to_resume
from models.llm import LLMError
from models.protocols import ChatModel

LIBRARY_SAMPLE = 12
"""File names the LLM tier is shown, to know what the library is about."""


def start_early(search: Search, question: str, mode: Mode, options: TurnOptions) -> Verdict | None:
    """The rules' verdict on a new session's first message, judged before the graph runs, with its
    embedding started when it may be searched as typed; None when the router must judge it.

    Nothing starts for what is surely chat, a message naming files, or expanded queries. The library
    is not read here, on the caller's event loop: in an empty one the embedding just goes unused.
    """
    if mode == "chat" or "@" in question or options.rephrasings:
        return None
    verdict = judge(" ".join(question.split()), mentioned=0, after_search=False)
    if mode != "auto" or verdict.rule is None or verdict.rule.route == "rag":
        search.warm(question)
    return verdict


def _has_history(state: AgentState) -> bool:
    """Whether earlier messages precede the one being answered."""
    return len(state.get("messages", [])) > 1


def _passes_through(state: AgentState, options: TurnOptions) -> bool:
    """Whether the message is searched as typed: no history, no rephrasings asked for."""
    return not _has_history(state) and not options.rephrasings


async def ask_llm(context: TurnContext, state: AgentState, text: str) -> tuple[Route, str]:
    """The LLM tier of this turn: ``llm_route`` with the turn's model, library and history."""
    return await llm_route(
        context.llm,
        context.known_files()[:LIBRARY_SAMPLE],
        state.get("messages", []),
        text,
        context.options.route_timeout,
    )


async def llm_route(
    llm: ChatModel,
    files: Sequence[str],
    messages: Sequence[AnyMessage],
    text: str,
    timeout: float | None,
) -> tuple[Route, str]:
    """A JSON intent from ``llm`` for ``text``; a malformed or failed answer searches (a missed
    search is worse than an unneeded one)."""
    names = ", ".join(PurePosixPath(p).name for p in files)
    history = _last_exchange(messages)
    prompt = [
        {"role": "system", "content": prompts.ROUTE_SYSTEM.format(files=names or "none")},
        {"role": "user", "content": prompts.ROUTE_USER.format(history=history, question=text)},
    ]
    try:
        reply = await llm.complete_json(prompt, prompts.ROUTE_SCHEMA, timeout=timeout)
    except LLMError as error:
        return "rag", f"LLM failed, searching anyway: {error}"
    verdict = str(reply.get("route", "")).strip().lower()
    if verdict == "chat":
        return "chat", "LLM said chat"
    if verdict in ("document", "whole document", "summary"):
        return "document", "LLM said whole document"
    if verdict == "compare":
        return "compare", "LLM said compare"
    if verdict == "find":
        if not NAMES_DOCUMENTS.search(text):
            # A 1.5B model said find for "And what was the capital before that?": a
            # question about the set of documents names them, so this one is searched.
            return "rag", "LLM said find, but the message names no documents: searching"
        return "find", "LLM said find"
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


async def route(state: AgentState, runtime: Runtime[TurnContext]) -> AgentState:
    """Pick the route, say which tier decided it, and resolve @mentions."""
    context = runtime.context
    runtime.stream_writer(Status("router", prompts.STATUS_ROUTE))
    question = state["question"]
    if (resume := asked_to_resume(question, state.get("messages", []))) is not None:
        library = set(context.known_files())
        paths = [p for p in resume["documents"] if p in library]
        what = "summarises what was read" if resume["only_read"] else "reads on"
        return {
            **_fresh(state),
            "route": resume["route"],
            "routed_by": "rules",
            "route_reason": f"{what} of a stopped reading",
            "probe_score": None,
            "mentions": paths,
            "mentioned": [],
            "resume": resume,
        }
    # The library is read only when needed: small talk settles without it.
    known = context.known_files() if "@" in question else None
    folders: list[str] = []
    asked = question
    if known is not None:
        folders, asked = take_folder_mentions(question, known)
    mentioned = find_mentions(asked, known) if known is not None else []
    mentions = matched_paths(mentioned)
    text = strip_mentions(asked, mentioned) or asked
    after_search = _has_history(state) and state.get("route") in ("rag", "find")
    mode = state.get("mode", "auto")
    score: float | None = None
    chosen: Route
    tier: RouteTier
    verdict = context.early
    if verdict is None or not verdict.of(text, len(mentions), after_search):
        verdict = judge(text, mentioned=len(mentions), after_search=after_search)
    rule = verdict.rule if mode == "auto" else None
    whole = verdict.whole if mode == "auto" else None
    if mode == "document":
        # Two named files in "Whole documents" mode are read side by side.
        chosen = "compare" if len(mentions) >= 2 else "document"
        tier, reason = "mode", f"mode {mode}"
    elif mode in ("rag", "chat"):
        chosen, tier, reason = ("rag" if mode == "rag" else "chat"), "mode", f"mode {mode}"
    elif whole is not None and (mentions or context.known_files()):
        chosen, tier, reason = whole.route, "rules", whole.name
    elif rule is not None and rule.route == "find":
        chosen, tier, reason = "find", "rules", rule.name
    elif mentions:
        chosen, tier, reason = "rag", "mention", "names " + ", ".join(mentions)
    elif rule is not None and rule.route == "chat" and not rule.library_first:
        chosen, tier, reason = "chat", "rules", rule.name
    elif not (known if known is not None else context.known_files()):
        chosen, tier, reason = "chat", "library", "no documents to search"
    elif rule is not None and rule.library_first:
        # The user's own documents come before the model's memory: with Warsaw.md in the
        # library, a 1.5B model asked "when did Warsaw become the capital of Poland?" from
        # memory answered 1947, uncited.
        score = await asyncio.to_thread(context.search.probe, text)
        if score >= context.options.probe_rag_above:
            chosen, tier = "rag", "probe"
            reason = f"{rule.name}, but the best chunk {score:.2f} is close to the question"
        else:
            chosen, tier, reason = "chat", "rules", rule.name
    elif rule is not None:
        chosen, tier, reason = rule.route, "rules", rule.name
    else:
        # The search of the library's nearest chunks is the turn's: a retrieval of the
        # same text takes it over.
        score = await asyncio.to_thread(context.search.probe, text)
        tier = "probe"
        unsure = context.options.probe_chat_below <= score < context.options.probe_rag_above
        if (verdict.asks_for_a_set or unsure) and not context.ask_model:
            # Measured with a 1.5B model on the messages the rules leave (bench/router_eval.py
            # --url): the model was right on 57 of 130, searching on 67, at 3.4 s a call.
            chosen, reason = "rag", prompts.ROUTE_MODEL_SLOW
        elif verdict.asks_for_a_set:
            # The probe tells documents from chat, not a set of documents from their content.
            tier = "llm"
            runtime.stream_writer(Status("router", prompts.STATUS_ROUTE_ASK))
            chosen, reason = await ask_llm(context, state, text)
        elif score < context.options.probe_chat_below:
            chosen, reason = "chat", f"best chunk {score:.2f} is far from the question"
        elif score >= context.options.probe_rag_above:
            chosen, reason = "rag", f"best chunk {score:.2f} is close to the question"
        else:
            tier = "llm"
            runtime.stream_writer(Status("router", prompts.STATUS_ROUTE_ASK))
            chosen, reason = await ask_llm(context, state, text)
    update = _fresh(state)
    if chosen in ("rag", "find") and _passes_through(state, context.options):
        aims = [[path] for path in mentions] or [[]]
        update["queries"] = [SearchQuery(text=text or question, files=f) for f in aims]
        if chosen == "rag":
            # The question's embedding overlaps the steps between here and the search.
            context.search.warm(text)
    return {
        **update,
        "whole_passages": verdict.wants_whole_passages,
        "route": chosen,
        "routed_by": tier,
        "route_reason": reason,
        "probe_score": score,
        "mentions": mentions,
        "mentioned": mentioned,
        # An @folder/ aims this message; otherwise the session's scope holds.
        "aim": folders or list(state.get("scope") or []),
    }


def _fresh(state: AgentState) -> AgentState:
    """What one turn must not inherit from the last: its sources, searches and reading."""
    return {
        "aim": list(state.get("scope") or []),
        "sources": [],
        "passages": [],
        "queries": [],
        "whole_passages": False,
        "resume": None,
        "unfinished": None,
    }


async def after_route(
    state: AgentState,
) -> Literal["rewriter", "retriever", "generator", "reader"]:
    """Conditional edge: chat to the generator, whole documents to the reader; rag and find search,
    through the rewriter unless the router wrote the queries."""
    # Async, though it awaits nothing: LangGraph runs a plain function of an async run in
    # a worker thread, a hop (and a thread of the pool) for a look at two state fields.
    if state["route"] in ("document", "compare"):
        return "reader"
    if state["route"] == "chat":
        return "generator"
    return "retriever" if state.get("queries") else "rewriter"
