"""The generator node: writes the answer from the numbered sources, or chats without them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from graph import prompts
from graph.budget import MESSAGE_OVERHEAD, cut_to, estimate_tokens, fit_blocks, history_window
from graph.checking import CheckedAnswer, new_check, nothing_found, settle, start_check
from graph.citations import order_by_citation
from graph.coverage import coverage_of
from graph.events import Status
from graph.excerpt import excerpt
from graph.focus import shown_passages
from graph.nodes.find import find_header
from graph.nodes.streamed import StreamedAnswer
from graph.readable import readable_markdown
from graph.records import NumberedPassage
from graph.scope import describe, in_scope
from graph.state import AgentState, Generation, Source
from graph.support import SupportCheck
from graph.turn_context import TurnContext
from graph.turn_options import TurnOptions
from models.llm import LLMError
from models.protocols import Message, Usage

HISTORY_SHARE_RAG = 4
"""On a search turn earlier messages get at most 1/4 of the free context: passages first."""


def _page_label(page: int | None) -> str:
    return f", page {page}" if page is not None else ""


def _quoted(text: str) -> str:
    """A passage as a Markdown quote: it renders as the file's Markdown does, set apart."""
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def _degraded(error: LLMError, passages: list[NumberedPassage], state: AgentState) -> str:
    """The passages instead of an answer, each by its part that bears on the question."""
    if not passages:
        return prompts.DEGRADED_CHAT.format(error=error)
    asked = " ".join([state["question"], *(q["text"] for q in state.get("queries") or [])])
    body = "".join(
        prompts.DEGRADED_SOURCE.format(
            n=p["source"]["n"],
            file=p["source"]["file"],
            page=_page_label(p["source"]["page"]),
            snippet=_quoted(excerpt(readable_markdown(p["text"]), asked)),
        )
        for p in passages
    )
    return prompts.DEGRADED_HEADER.format(error=error) + body.rstrip()


def _reading(rag: bool, passages: int) -> str:
    if not rag:
        return prompts.STATUS_GENERATE_CHAT
    if passages == 1:
        return prompts.STATUS_READ_PASSAGE
    if passages:
        return prompts.STATUS_READ_PASSAGES.format(count=passages)
    return prompts.STATUS_GENERATE


def unmatched_notice(state: AgentState) -> str:
    """One line per @mention that named no document, with the closest names."""
    lines = []
    for mention in state.get("mentioned") or []:
        if mention["paths"]:
            continue
        line = prompts.UNMATCHED_MENTION.format(said=f"`{mention['said']}`")
        if mention["closest"]:
            names = ", ".join(f"`{PurePosixPath(p).name}`" for p in mention["closest"])
            line += prompts.UNMATCHED_CLOSEST.format(names=names)
        else:
            line += prompts.UNMATCHED_EMPTY
        lines.append(line)
    return "\n".join(lines)


@dataclass
class Prompt:
    """The messages for one answer, fitted to the context budget."""

    messages: list[Message]
    sources: list[Source]
    """The sources whose passages made it into the prompt."""
    trimmed: int
    """Passages left out because they did not fit."""


def _fit_question(question: str, room: int) -> str:
    if estimate_tokens(question) <= room:
        return question
    marker = prompts.TRIMMED_QUESTION
    return cut_to(question, max(room - estimate_tokens(marker), 0)) + marker


def build_prompt(
    state: AgentState,
    options: TurnOptions,
    system: str,
    rag: bool,
    user: str = prompts.RAG_USER,
    facts: dict[str, Any] | None = None,
    shown: Sequence[str] | None = None,
) -> Prompt:
    """Fit the prompt in the context less the answer's room: the question always (cut if
    it alone overflows), then on a search turn the passages best first, then as much
    recent history as its share allows. Every part is estimated on its own, which can
    only over-count the whole. ``user`` is the search turn's template, filled with the
    sources, the question and ``facts``; ``shown`` is what to show of each passage (the
    focused context; those left empty at its end are left out), else the passages."""
    budget = options.context_tokens - options.answer_tokens
    facts = facts or {}
    template = user if rag else "{question}"
    frame = 2 * MESSAGE_OVERHEAD + estimate_tokens(system)
    frame += estimate_tokens(template.format(sources="", question="", **facts))
    question = _fit_question(state["question"], budget - frame)
    spare = max(budget - frame - estimate_tokens(question), 0)
    earlier = state.get("messages", [])
    if not rag:
        history = history_window(earlier, min(options.history_tokens, spare))
        messages: list[Message] = [
            {"role": "system", "content": system},
            *history,
            {"role": "user", "content": question},
        ]
        return Prompt(messages, [], 0)
    passages = state.get("passages", [])
    sources = [p["source"] for p in passages]
    texts = [p["text"] for p in passages] if shown is None else list(shown)
    while texts and not texts[-1]:
        texts.pop()
    blocks = [
        prompts.SOURCE_BLOCK.format(n=s["n"], file=s["file"], page=_page_label(s["page"]), text=t)
        for s, t in zip(sources, texts, strict=False)
    ]
    kept, used = fit_blocks(blocks, spare - min(options.history_tokens, spare // HISTORY_SHARE_RAG))
    history = history_window(earlier, min(options.history_tokens, spare - used))
    user = template.format(sources="\n\n".join(kept), question=question, **facts)
    messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": user}]
    return Prompt(messages, sources[: len(kept)], len(sources) - len(kept))


async def generate(state: AgentState, runtime: Runtime[TurnContext]) -> AgentState:
    """Write the answer token by token from the numbered sources, or chat without them."""
    context = runtime.context
    rag = state.get("route") in ("rag", "find")
    passages = state.get("passages", []) if rag else []
    sources = [p["source"] for p in passages]
    found = state.get("found") if state.get("route") == "find" else None
    answer = StreamedAnswer(runtime.stream_writer)
    if notice := unmatched_notice(state):
        answer.say(notice + "\n\n")
    if rag and not context.known_files():
        answer.say(prompts.NO_DOCUMENTS)
        return _finish(state, context, answer, Prompt([], [], 0), None)
    aim = state.get("aim") or []
    if rag and aim and not in_scope(context.known_files(), aim):
        answer.say(prompts.EMPTY_SCOPE.format(scope=describe(aim)))
        return _finish(state, context, answer, Prompt([], [], 0), None)
    if found is not None:
        # The count is the code's, written before the model says anything.
        answer.say(find_header(found, len(sources)))
        if not found["matched"]:
            return _finish(state, context, answer, Prompt([], [], 0), None)
        answer.say("\n\n")
    system = prompts.RAG_SYSTEM if rag else prompts.CHAT_SYSTEM
    if found is not None:
        system = prompts.FIND_SYSTEM
    # The router's probe found nothing near the question: as for a search that found nothing.
    probed_away = state.get("route") == "chat" and state.get("routed_by") == "probe"
    found_nothing = (rag and not sources) or probed_away
    if found_nothing:
        # Nothing bears on the question: say so in one line, then just talk.
        answer.say(prompts.NOT_RELEVANT + "\n\n")
        rag, system = False, prompts.ADAPTIVE_SYSTEM
    check: SupportCheck | None = None
    if found is not None:
        facts = {k: found[k] for k in ("matched", "searched", "topic")}
        prompt = build_prompt(state, context.options, system, rag, prompts.FIND_USER, facts)
    elif rag:
        check = new_check(passages, context.search, state)
        shown = await shown_passages(state, context.options, check)
        prompt = build_prompt(state, context.options, system, rag, shown=shown)
    else:
        prompt = build_prompt(state, context.options, system, rag)
    # What the model reads before its first word (a minute of silence on a CPU).
    runtime.stream_writer(Status("generator", _reading(rag, len(prompt.sources))))
    # The answer is checked against the whole passages, not only what was shown of them:
    # their spans are the page's, what the reader opens, and a sentence true to the passage
    # is true to the document. A check made for focusing already holds their vectors.
    if check is not None and len(prompt.sources) < len(sources):
        check = None  # some passages did not fit: the check is of those the model saw
    live = (
        start_check(passages[: len(prompt.sources)], context.search, state, check) if rag else None
    )
    prefix = answer.text
    usage = Usage()
    streamed = 0
    failure: LLMError | None = None
    try:
        async for piece in context.llm.stream_chat(prompt.messages, usage):
            streamed += 1
            answer.say(piece)
            if live is not None:
                live.wrote(piece)
    except LLMError as error:
        failure = error
        tail = (
            prompts.ANSWER_CUT_OFF.format(error=error)
            if streamed
            else _degraded(error, passages, state)
        )
        answer.say(tail)
    except BaseException:  # stopped: nothing waits for the check any more
        if live is not None:
            live.cancel()
        raise
    if state.get("route") == "rag":
        # Where the candidates sit, for the trace: read while the answer is checked, not
        # while the event loop hands its words on.
        context.search.locate()
    checked = CheckedAnswer(answer.text)
    if live is not None and failure is None:
        draft = checked.text[len(prefix) :]
        checked = await settle(prefix, draft, live, prompt.sources, state)
    elif live is not None:
        live.cancel()  # a cut-off answer is not checked
    elif found_nothing:
        checked = CheckedAnswer(checked.text, searched=await nothing_found(state, context.search))
    if usage.hit_limit and failure is None:
        # Told after the check, so that it is not read as a sentence of the answer.
        answer.say(prompts.ANSWER_AT_LIMIT)
        checked = replace(checked, text=checked.text + prompts.ANSWER_AT_LIMIT)
    return _finish(state, context, answer, prompt, usage, failure, checked)


def _finish(
    state: AgentState,
    context: TurnContext,
    answer: StreamedAnswer,
    prompt: Prompt,
    usage: Usage | None,
    failure: LLMError | None = None,
    checked: CheckedAnswer | None = None,
) -> AgentState:
    checked = checked or CheckedAnswer(answer.text)
    text = checked.text
    sources = order_by_citation(prompt.sources, text)
    started = state.get("turn_started")
    ttft = None
    if started is not None and answer.first_token_at is not None:
        ttft = round((answer.first_token_at - started) * 1000, 1)
    generation: Generation = {
        "model": context.llm.model if usage else None,
        "prompt_tokens": usage.prompt_tokens if usage else None,
        "answer_tokens": usage.answer_tokens if usage else None,
        "ttft_ms": ttft,
        "context_tokens": context.options.context_tokens,
        "passages_trimmed": prompt.trimmed,
        # How long checking the answer's sentences took after its last token.
        "check_ms": checked.check_ms,
        # Set when the model could not write (all or part of) the answer.
        "llm_error": str(failure) if failure else None,
    }
    coverage = coverage_of(state, prompt.sources, context.known_files)
    saved = {
        "sources": sources,
        "support": checked.support,
        "searched": checked.searched,
        "coverage": coverage,
        "draft": checked.draft,
        "misses_question": checked.misses_question or None,
    }
    message = AIMessage(content=text, additional_kwargs=saved)
    return {
        "answer": text,
        "sources": sources,
        "messages": [message],
        "generation": generation,
        "support": checked.support,
        "searched": checked.searched,
        "coverage": coverage,
        "draft": checked.draft,
        "misses_question": checked.misses_question,
    }
