"""Focused context: each passage's sentences that bear on the question, within a token budget.

A 1.5B model on a CPU spends most of an answer reading its prompt and answers better from a few
sentences. Windows are ranked by the support check's own scorer (``SupportCheck.rank``), whose check
then checks the answer, so passages are embedded once. Each passage keeps its best sentence first
(in search order), then windows best first while the budget lasts; "…" marks a gap. Whole passages
are kept for summaries, outlines and explanations (``whole_passages``), tables (a row torn from its
header says nothing) and documents given whole. docs/focus.md has the measurements.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from graph.budget import estimate_tokens
from graph.state import AgentState
from graph.support.check import SupportCheck
from graph.support.windows import Piece, Window
from graph.turn_options import TurnOptions

log = logging.getLogger(__name__)

GAP = " … "
_TABLE_ROW = re.compile(
    r"^\s*\|.*\|\s*$|\S \| \S|^[^:;\n]{1,60}: [^;\n]*(?:; [^:;\n]{1,60}: [^;\n]*)+$"
)
"""A Markdown table row, a Word table's " | " row, or a loader's spreadsheet row ("A: 1; B: 2")."""


@dataclass(frozen=True)
class Focused:
    """What the generator shows of each passage, and why."""

    texts: list[str]
    """Per passage, in order: its kept sentences, or its whole text; "" when none fit."""
    whole: list[bool]
    """Per passage: shown whole (a table, a summary question, or all of it fitted)."""


async def shown_passages(
    state: AgentState, options: TurnOptions, check: SupportCheck
) -> list[str] | None:
    """What the model is shown of each of ``check``'s passages, or None for them whole: focus off,
    or the embedder failed (the answer's check will say so too)."""
    if not options.focus_tokens:
        return None
    asked = " ".join([state["question"], *(q["text"] for q in state.get("queries") or [])])
    passages = [p.text for p in check.passages]
    if state.get("whole_documents") or state.get("whole_passages"):
        return passages
    try:
        # Only the ranking goes to a thread: it embeds the passages' sentences. Choosing
        # among the ranked windows is plain Python (about 2 ms for six full passages): in a
        # thread it would hold the GIL all the same.
        ranked = await asyncio.to_thread(check.rank, asked)
        focused = focus(passages, check.pieces, ranked, options.focus_tokens)
    except Exception:  # an embedder that fails costs the focus, not the answer
        log.warning("the passages could not be focused; they are shown whole", exc_info=True)
        return None
    return focused.texts


def is_table(text: str) -> bool:
    """Half or more of the passage's lines are table or spreadsheet rows."""
    lines = [line for line in text.splitlines() if line.strip()]
    rows = sum(1 for line in lines if _TABLE_ROW.search(line))
    return bool(lines) and 2 * rows >= len(lines)


def focus(
    passages: Sequence[str],
    pieces: Sequence[Piece],
    ranked: Sequence[tuple[Window, float]],
    budget: int,
) -> Focused:
    """Each passage cut to its best ``ranked`` windows of ``pieces``, within ``budget`` tokens."""
    keep_whole = [is_table(text) for text in passages]
    used = sum(estimate_tokens(t) + 1 for t, w in zip(passages, keep_whole, strict=True) if w)
    chosen: list[set[int]] = [set() for _ in passages]
    # A piece costs its words and the "…" (or space) on each side of it.
    cost = [estimate_tokens(passages[p.passage][p.start : p.end]) + 2 for p in pieces]

    def take(first: int, last: int, *, anyway: bool = False) -> bool:
        nonlocal used
        new = [i for i in range(first, last + 1) if i not in chosen[pieces[i].passage]]
        extra = sum(cost[i] for i in new)
        if used + extra > budget and not anyway:
            return False
        chosen[pieces[first].passage].update(new)
        used += extra
        return True

    best_single: dict[int, int] = {}
    for window, _ in ranked:
        if window.first == window.last:
            best_single.setdefault(window.passage, window.first)
    for index in range(len(passages)):
        if keep_whole[index] or index not in best_single:
            continue
        nothing_yet = not any(chosen) and not any(keep_whole)  # something is always shown
        if not take(best_single[index], best_single[index], anyway=nothing_yet):
            break  # the lower-ranked passages go, as when whole passages overflow
    reached = {i for i, kept in enumerate(chosen) if kept}
    for window, _ in ranked:
        if window.passage in reached:
            take(window.first, window.last)
    texts, shown_whole = [], []
    for index, text in enumerate(passages):
        own = {i for i, p in enumerate(pieces) if p.passage == index}
        if keep_whole[index] or not own or chosen[index] == own:
            texts.append(text)  # nothing to cut (no sentences but headings), or all kept
            shown_whole.append(True)
            continue
        texts.append(_joined(text, pieces, sorted(chosen[index])))
        shown_whole.append(False)
    return Focused(texts, shown_whole)


def _joined(text: str, pieces: Sequence[Piece], kept: Sequence[int]) -> str:
    """The kept pieces with what lies between neighbours (space, a heading), "…" across a gap."""
    if not kept:
        return ""
    parts: list[str] = ["… "] if text[: pieces[kept[0]].start].strip() else []
    for before, at in zip([None, *kept], kept, strict=False):
        if before is not None:
            between = text[pieces[before].end : pieces[at].start]
            parts.append(between if at == before + 1 else GAP)
        parts.append(text[pieces[at].start : pieces[at].end])
    if text[pieces[kept[-1]].end :].strip():
        parts.append(" …")
    return "".join(parts).strip()
