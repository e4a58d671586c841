"""The generator's last step on a search turn: each sentence checked against the passages it was
written from (graph/support), citations rewritten from that check, and a plain "not found" with
``searched`` when nothing the model wrote is in the passages."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from graph import prompts
from graph.citations import has_words
from graph.records import NearPassage, NumberedPassage, Searched, SentenceSupportPublic
from graph.retrieval.nearest import nearest_passages
from graph.retrieval.turn_search import Search
from graph.state import AgentState, Source
from graph.support import (
    CHECKED,
    SentenceSupport,
    SupportCheck,
    correct_citations,
    source_passages,
)
from graph.support.live import LiveCheck
from graph.support.windows import plain
from graph.support.words import content_terms


@dataclass(frozen=True)
class CheckedAnswer:
    """What the turn ends with: the answer as shown, and what the caller is told of it."""

    text: str
    support: list[SentenceSupportPublic] | None = None
    """Each sentence's verdict and span (None: not checked)."""
    searched: Searched | None = None
    """Set when the documents don't cover the question: what was searched."""
    check_ms: float | None = None
    """How long the check took after the answer's last token."""
    draft: str | None = None
    """The model's answer, unchecked, when the check set it aside (``text`` says why)."""
    misses_question: bool = False
    """The answer doesn't seem to address the question (graph/support/question.py)."""


def new_check(
    passages: Sequence[NumberedPassage], search: Search, state: AgentState
) -> SupportCheck:
    """A check over ``passages`` that knows the question as asked and searched, and its vectors."""
    question = [state.get("question", ""), *(q["text"] for q in state.get("queries") or [])]
    checked = source_passages(passages)
    known = {q: v for q in question if (v := search.known_vector(q)) is not None}
    return SupportCheck(checked, search.reader.embedder, question=question, known=known)


def start_check(
    passages: Sequence[NumberedPassage],
    search: Search,
    state: AgentState,
    check: SupportCheck | None = None,
) -> LiveCheck:
    """A check of the answer against the prompt's ``passages``, already embedding them; ``check``,
    made over exactly these passages, is reused."""
    check = check or new_check(passages, search, state)
    live = LiveCheck(check)
    live.start()
    return live


async def settle(
    prefix: str,
    draft: str,
    live: LiveCheck,
    sources: Sequence[Source],
    state: AgentState,
    *,
    withhold: bool = True,
) -> CheckedAnswer:
    """The answer ``prefix + draft`` with its citations corrected, or a plain "not found" saying why
    when nothing it says comes near the passages or it has no words (``draft`` kept). Without
    ``withhold`` (a summary of the user's own document) the text always stands, marked."""
    began = time.perf_counter()
    support = await live.finish(draft)
    found = state.get("found") if state.get("route") == "find" else None
    if withhold and found is None and not has_words(draft):
        # A small model sometimes answers "[2] [3]": the passages it points at say more.
        kept = draft.strip() or None
        searched = what_was_searched(state, [_shown(s) for s in sources], draft=kept)
        return CheckedAnswer(prefix + prompts.NO_WORDS, [], searched, None, kept)
    if support is None:
        return CheckedAnswer(prefix + draft)
    if found is not None:
        said = _about_the_set(state["question"], found["paths"])
        support = [_listing(s) if said(s.text) else s for s in support]
    cited = correct_citations(draft, support, {s["n"]: s["file"] for s in sources})
    ms = round((time.perf_counter() - began) * 1000, 1)
    if withhold and far_from_sources(support, live.check):
        nearest = [_shown(s) for s in sources]
        searched = what_was_searched(state, nearest, draft=cited.text)
        return CheckedAnswer(prefix + prompts.NOT_COVERED, [], searched, ms, cited.text)
    moved = [_after(prefix, s) for s in cited.moved(support)]
    # A summary or comparison answers no question of its own to be held to, and a find's
    # count and list, written by code, answer its question.
    misses = withhold and found is None and not live.check.addresses_question(support)
    shown = [s.as_dict() for s in moved]
    return CheckedAnswer(prefix + cited.text, shown, None, ms, misses_question=misses)


_SET_WORDS = (
    "document documents file files page pages mention mentions mentioned both all each "
    "every discuss discusses cover covers refer refers contain contains talk talks "
    "two three four five six seven eight nine ten"
)


def _about_the_set(question: str, paths: Sequence[str]) -> Callable[[str], bool]:
    """Whether a find answer's sentence only repeats which documents mention what was asked: the
    code's count and list above say so, and no passage could."""
    names = " ".join(PurePosixPath(p).name for p in paths)
    allowed = set(content_terms(f"{question} {_SET_WORDS} {names}"))

    def said(text: str) -> bool:
        terms = set(content_terms(plain(text)))
        return bool(terms) and terms <= allowed

    return said


def _listing(sentence: SentenceSupport) -> SentenceSupport:
    return replace(
        sentence, verdict="none", score=0.0, missing=(), found={}, source=None, supported_by=()
    )


def far_from_sources(support: Sequence[SentenceSupport], check: SupportCheck) -> bool:
    """Whether nothing the model wrote comes near the passages: every claim unsupported, none
    scoring ``NEAR``, none of its numbers, dates or codes in a passage. A right answer the check
    can't place (a count read from a spreadsheet row) is shown with its verdicts instead."""
    checked = [s for s in support if s.verdict in CHECKED]
    if not checked or any(s.verdict != "unsupported" or s.score >= NEAR for s in checked):
        return False
    return not any(check.holds_values_of(s.text) for s in checked)


NEAR = 0.4
"""A claim scoring this against its best span (the support bar is 0.52) is near the passages: the
answer is shown, marked. On bench/data/support_dev.jsonl another article's sentences scored at most
0.15, ones wearing this article's names 0.27 at p90, sentences the passages lack 0.35 (7%); every
sentence the passages say, swaps included, 0.72 and up but one."""


async def nothing_found(state: AgentState, search: Search) -> Searched:
    """``searched`` for a question nothing came near: the nearest chunks, read after the answer."""
    nearest = await asyncio.to_thread(nearest_passages, search)
    return what_was_searched(state, nearest, floor=search.settings.floor.relevance)


def what_was_searched(
    state: AgentState,
    nearest: list[NearPassage],
    *,
    draft: str | None = None,
    floor: float | None = None,
) -> Searched:
    """The queries run, the files they were limited to, and the nearest passages; the set-aside
    ``draft``, and the ``floor`` when nothing reached it (the nearest then by relevance)."""
    queries = state.get("queries") or []
    files = sorted({f for q in queries for f in q["files"]} | set(state.get("mentions") or []))
    out: Searched = {
        "queries": [q["text"] for q in queries] or [state.get("question", "")],
        "files": files,
        "nearest": nearest,
    }
    if draft is not None:
        out["draft"] = draft
    if floor is not None:
        out["floor"] = floor
    return out


def _after(prefix: str, sentence: SentenceSupport) -> SentenceSupport:
    """A sentence of the model's text placed in the answer, after its notices."""
    shift = len(prefix)
    return replace(sentence, start=sentence.start + shift, end=sentence.end + shift)


def _shown(source: Source) -> NearPassage:
    return {
        "file": source["file"],
        "path": source["path"],
        "page": source["page"],
        "text": source["snippet"],
        "score": source["score"],
    }
