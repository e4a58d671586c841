"""The trace record: JSON-ready whatever shape the retriever's candidates take."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from graph.trace import build_trace


@dataclass(frozen=True)
class Candidate:
    path: str
    scores: dict[str, float]


def test_trace_carries_every_candidate_with_its_scores_as_json() -> None:
    state: Any = {
        "route": "rag",
        "routed_by": "probe",
        "route_reason": "best chunk 0.71 is close to the question",
        "probe_score": 0.71,
        "timings": [{"node": "router", "ms": 1.5}],
        "queries": [{"text": "x200 warranty", "files": []}],
        "generation": {"model": "llama3.2", "prompt_tokens": 812, "answer_tokens": 40},
    }
    candidates: Any = [
        Candidate("a.pdf", {"dense": 0.7, "bm25": 3.1, "fused": 0.03}),
        {"path": "b.pdf", "scores": {"dense": 0.4, "rerank": None}},
    ]
    trace = build_trace(state, candidates)
    assert json.loads(json.dumps(trace)) == trace
    assert trace["candidates"] == [
        {"path": "a.pdf", "scores": {"dense": 0.7, "bm25": 3.1, "fused": 0.03}},
        {"path": "b.pdf", "scores": {"dense": 0.4, "rerank": None}},
    ]
    assert (trace["routed_by"], trace["probe_score"], trace["prompt_tokens"]) == (
        "probe",
        0.71,
        812,
    )


def test_a_turn_without_a_search_has_empty_lists_not_missing_keys() -> None:
    trace = build_trace({"route": "chat", "routed_by": "rules"}, [])
    assert trace["queries"] == [] and trace["candidates"] == [] and trace["nodes"] == []
