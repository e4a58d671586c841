"""The generator's last step on a search turn: an answer a reader can check.

Every sentence of the model's answer is checked against the numbered passages it was
written from (graph/support): the citations are rewritten from that check, so a mark
points at a passage that says what the sentence says, and ``support`` tells the caller,
sentence by sentence, how well. When nothing was found, or nothing the model wrote is in
the passages, the answer says so plainly and ``searched`` shows what was looked at.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from graph import prompts
from graph.retrieval.nearest import nearest_passages
from graph.retrieval.search import Search
from graph.state import AgentState, Source
from graph.support import (
    CHECKED,
    SentenceSupport,
    SupportCheck,
    correct_citations,
    source_passages,
)
from graph.support.live import LiveCheck
from models.protocols import Embedder


@dataclass(frozen=True)
class CheckedAnswer:
    """What the turn ends with: the answer as shown, and what the caller is told of it."""

    text: str
    support: list[dict[str, Any]] | None = None
    """Each sentence's verdict and span (None: not checked)."""
    searched: dict[str, Any] | None = None
    """Set when the documents don't cover the question: what was searched."""
    check_ms: float | None = None
    """How long the check took after the answer's last token."""


def start_check(
    sources: Sequence[Source],
    texts: Sequence[str],
    embedder: Embedder,
    check: SupportCheck | None = None,
) -> LiveCheck:
    """A check of the answer against ``sources`` (the prompt's), already embedding them;
    ``check``, made over exactly these passages (the focused context's), is reused."""
    check = check or SupportCheck(source_passages(sources, texts[: len(sources)]), embedder)
    live = LiveCheck(check)
    live.start()
    return live


async def settle(
    prefix: str,
    draft: str,
    live: LiveCheck,
    sources: Sequence[Source],
    state: AgentState,
    search: Search,
    *,
    withhold: bool = True,
) -> CheckedAnswer:
    """The answer ``prefix + draft`` (notices, then the model's text) with its citations
    corrected from the check, or, when no sentence of it is in the passages, a plain
    "not covered" instead of it. Without ``withhold`` (a summary of the user's own
    document) the text always stands, its sentences marked."""
    began = time.perf_counter()
    support = await live.finish(draft)
    if support is None:
        return CheckedAnswer(prefix + draft)
    cited = correct_citations(draft, support, [s["n"] for s in sources])
    ms = round((time.perf_counter() - began) * 1000, 1)
    checked = [s for s in support if s.verdict in CHECKED]
    if withhold and checked and all(s.verdict == "unsupported" for s in checked):
        nearest = [_shown(s) for s in sources]
        searched = what_was_searched(state, nearest, draft=cited.text)
        return CheckedAnswer(prefix + prompts.NOT_COVERED, [], searched, ms)
    moved = [_after(prefix, s) for s in cited.moved(support)]
    return CheckedAnswer(prefix + cited.text, [s.as_dict() for s in moved], None, ms)


async def nothing_found(state: AgentState, search: Search) -> dict[str, Any]:
    """``searched`` for a question nothing in the library came near: the nearest chunks
    the search saw, read once the answer is written (they are a store read)."""
    nearest = await asyncio.to_thread(nearest_passages, search)
    return what_was_searched(state, nearest, floor=search.settings.floor.relevance)


def what_was_searched(
    state: AgentState,
    nearest: list[dict[str, Any]],
    *,
    draft: str | None = None,
    floor: float | None = None,
) -> dict[str, Any]:
    """The queries run, the files they were limited to (empty: the whole library) and the
    nearest passages with their scores; the model's ``draft`` when it was set aside, the
    relevance ``floor`` when nothing reached it (the nearest then scored by relevance)."""
    queries = state.get("queries") or []
    files = sorted({f for q in queries for f in q["files"]} | set(state.get("mentions") or []))
    out: dict[str, Any] = {
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


def _shown(source: Source) -> dict[str, Any]:
    return {
        "file": source["file"],
        "path": source["path"],
        "page": source["page"],
        "text": source["snippet"],
        "score": source["score"],
    }
