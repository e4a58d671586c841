"""The router's and rewriter's model tiers and the follow-up suggestions, asked of a real
model server: whether each pays its way on a slow model.

Run by ``bench/router_eval.py --url ... --model ...``. The adapter is built as the app builds
it with ``--llm-api openai`` (app/services/chat_server.py), and the prompts are the app's
own (graph/nodes/route.py ``llm_route``, rewrite.py ``ask_rewrite``, suggest.py
``ask_followups``). Every call is asked without a time limit, so that the seconds printed
are the model's; how many calls would have run past the app's limit (then the app
searches, searches the message as typed, or shows no suggestions) is printed beside them.

No library is indexed here, so the router's vector probe is left out: "rules, then model"
asks the model wherever the rules leave a message undecided, which is more often than the
app does (the probe settles most of those).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from app.services.chat_server import build_chat_model
from app.settings import Settings
from bench.counted_model import CountedModel, JsonCall
from graph.nodes.rewrite import ask_rewrite
from graph.nodes.route import LIBRARY_SAMPLE, llm_route
from graph.nodes.suggest import ask_followups
from graph.turn_options import TurnOptions
from models.openai_chat import OpenAIChat

FOLLOW_UPS = Path(__file__).parent / "data" / "rewrite_followups.jsonl"
"""Follow-up messages with their history and the words a standalone query must hold: each
entry of ``expect`` is a group of alternatives split by ``|``, one of which must appear."""


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (``share`` in 0..1) of ``values``; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def history_of(row: dict[str, Any]) -> list[AnyMessage]:
    """The row's earlier turns and its message, as the graph's state holds them."""
    earlier: list[AnyMessage] = [
        HumanMessage(content=text) if role == "user" else AIMessage(content=text)
        for role, text in row.get("history", [])
    ]
    return [*earlier, HumanMessage(content=row["text"])]


def covers(query: str, expect: Sequence[str]) -> bool:
    """Whether ``query`` holds one alternative of every group in ``expect``."""
    lowered = query.lower()
    return all(any(word in lowered for word in group.split("|")) for group in expect)


def calls_line(calls: Sequence[JsonCall], limit: float) -> str:
    """Share parsed, JSON modes, seconds p50/p90, and calls past the app's ``limit``."""
    parsed = sum(c.parsed for c in calls)
    modes = Counter(c.mode for c in calls)
    seconds = [c.seconds for c in calls]
    over = sum(s > limit for s in seconds)
    return (
        f"  JSON parsed {parsed}/{len(calls)} ({parsed / max(len(calls), 1):.0%});"
        f" asked as: {', '.join(f'{m} {n}' for m, n in modes.items()) or 'none'}\n"
        f"  seconds per call: p50 {percentile(seconds, 0.5):.2f}"
        f"  p90 {percentile(seconds, 0.9):.2f}  total {sum(seconds):.1f};"
        f" past the app's {limit:g} s limit: {over}"
    )


async def measure(
    url: str,
    model: str,
    rows: list[dict[str, Any]],
    known: list[str],
    rule_route: Callable[[dict[str, Any]], str | None],
    limit: int | None,
) -> None:
    """Print the three model calls' figures against the rules (``rule_route``: the rules'
    route for a row, None where they leave it undecided)."""
    settings = Settings.model_validate({"llm_api": "openai", "llm_url": url, "chat_model": model})
    options = TurnOptions()
    llm = CountedModel(_adapter(build_chat_model(settings.models)))
    print(f"model {model} at {url}; load average before {_load()}; {os.cpu_count()} CPUs")
    try:
        await _router(llm, rows[:limit], known, rule_route, options.route_timeout)
        follow_ups = [json.loads(line) for line in FOLLOW_UPS.read_text().splitlines() if line]
        await _rewriter(llm, follow_ups[:limit], options.rewrite_timeout)
        answered = {tuple(map(tuple, row["history"][-2:])): row for row in follow_ups}
        await _suggestions(llm, list(answered)[: min(limit or 4, 4)], options.suggestions_timeout)
    finally:
        await llm.aclose()
    print(f"\nload average after {_load()}")


def _adapter(built: object) -> OpenAIChat:
    if not isinstance(built, OpenAIChat):  # pragma: no cover - settings say openai
        raise TypeError(f"expected the OpenAI-compatible adapter, got {type(built).__name__}")
    return built


def _load() -> str:
    return " ".join(f"{n:.2f}" for n in os.getloadavg())


async def _router(
    llm: CountedModel,
    rows: list[dict[str, Any]],
    known: list[str],
    rule_route: Callable[[dict[str, Any]], str | None],
    limit: float,
) -> None:
    print(f"\nrouter's model tier, asked on each of {len(rows)} labelled messages")
    start = len(llm.json_calls)
    files = known[:LIBRARY_SAMPLE]
    by_model: list[str] = []
    for row in rows:
        chosen, _ = await llm_route(llm, files, history_of(row), row["text"], None)
        by_model.append(chosen)
    started = time.perf_counter()
    by_rules = [rule_route(row) for row in rows]
    rule_seconds = (time.perf_counter() - started) / max(len(rows), 1)
    calls = llm.json_calls[start:]
    labels = [row["label"] for row in rows]

    def accuracy(got: Sequence[str]) -> str:
        right = sum(g == label for g, label in zip(got, labels, strict=True))
        return f"{right / max(len(rows), 1):.3f}"

    rules_alone = [r or "rag" for r in by_rules]
    combined = [r or m for r, m in zip(by_rules, by_model, strict=True)]
    asked = [i for i, r in enumerate(by_rules) if r is None]
    print(calls_line(calls, limit))
    print(
        f"  accuracy: model tier alone {accuracy(by_model)}"
        f" | rules alone (undecided → rag) {accuracy(rules_alone)}"
        f" | rules, then model where undecided {accuracy(combined)}"
        f" (model asked on {len(asked)} of {len(rows)})"
    )
    right = sum(by_model[i] == labels[i] for i in asked)
    print(
        f"  on the {len(asked)} messages the rules leave: model right {right},"
        f" rag by default right {sum(labels[i] == 'rag' for i in asked)};"
        f" rules take {rule_seconds * 1000:.2f} ms a message"
    )
    recall = ", ".join(
        f"{label} {sum(g == label for g, x in zip(by_model, labels, strict=True) if x == label)}"
        f"/{labels.count(label)}"
        for label in dict.fromkeys(labels)
    )
    print(f"  model tier right per label: {recall}")


async def _rewriter(llm: CountedModel, rows: list[dict[str, Any]], limit: float) -> None:
    print(f"\nrewriter's model tier, on {len(rows)} follow-ups ({FOLLOW_UPS.name})")
    start = len(llm.json_calls)
    as_typed = model = 0
    example = ""
    for row in rows:
        standalone, _ = await ask_rewrite(llm, history_of(row), row["text"], 0, None)
        query = standalone or row["text"]  # the app searches the message as typed
        model += covers(query, row["expect"])
        as_typed += covers(row["text"], row["expect"])
        example = example or f"{row['text']!r} → {query!r}"
    print(calls_line(llm.json_calls[start:], limit))
    print(
        f"  queries holding the expected scope: model {model}/{len(rows)}"
        f" | message as typed {as_typed}/{len(rows)}"
    )
    print(f"  e.g. {example}")


async def _suggestions(llm: CountedModel, answered: list[tuple[Any, ...]], limit: float) -> None:
    print(f"\nfollow-up suggestions, after {len(answered)} answered questions")
    start = len(llm.json_calls)
    useful = 0
    example: list[str] = []
    for (_, question), (_, answer) in answered:
        found = await ask_followups(llm, question, answer, None)
        useful += bool(found)
        example = example or found
    print(calls_line(llm.json_calls[start:], limit))
    print(f"  calls giving at least one suggestion: {useful}/{len(answered)}; e.g. {example}")
