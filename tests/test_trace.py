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
    source: int | None = None
    left_out: str | None = None


def test_trace_carries_every_candidate_with_its_scores_as_json() -> None:
    state: Any = {
        "route": "rag",
        "routed_by": "probe",
        "route_reason": "best chunk 0.71 is close to the question",
        "probe_score": 0.71,
        "timings": [{"node": "router", "ms": 1.5}],
        "queries": [{"text": "x200 warranty", "files": []}],
        "generation": {"model": "llama3.2", "prompt_tokens": 812, "answer_tokens": 40},
        "sources": [{"n": 1, "path": "a.pdf", "cited": True}],
    }
    candidates: Any = [
        Candidate("a.pdf", {"dense": 0.7, "bm25": 3.1, "fused": 0.03}, source=1),
        {"path": "b.pdf", "scores": {"dense": 0.4, "rerank": None}, "left_out": "not in the top 1"},
    ]
    trace = build_trace(state, candidates)
    assert json.loads(json.dumps(trace)) == trace
    assert trace["candidates"] == [
        {
            "path": "a.pdf",
            "scores": {"dense": 0.7, "bm25": 3.1, "fused": 0.03},
            "used": True,
            "cited": True,
            "source": 1,
        },
        {
            "path": "b.pdf",
            "scores": {"dense": 0.4, "rerank": None},
            "used": False,
            "why": "not in the top 1",
        },
    ]
    assert (trace["routed_by"], trace["probe_score"], trace["prompt_tokens"]) == (
        "probe",
        0.71,
        812,
    )


def test_a_turn_without_a_search_has_empty_lists_not_missing_keys() -> None:
    trace = build_trace({"route": "chat", "routed_by": "rules"}, [])
    assert trace["queries"] == [] and trace["candidates"] == [] and trace["nodes"] == []


FERRY = [
    "The ferry to Tarvo leaves the harbour at 07:15 every weekday morning.",
    "On Saturdays the ferry to Tarvo leaves at 09:00 from the same quay.",
    "Tickets for the Tarvo ferry are sold on board, cash or card.",
    "The ferry to Tarvo carries bicycles free of charge in summer.",
]
UNRELATED = "Sourdough bread rises overnight in a cool kitchen before it is baked."


async def test_only_the_passages_given_to_the_model_are_marked_used() -> None:
    from graph.budget import MESSAGE_OVERHEAD, estimate_tokens
    from graph.prompts import RAG_SYSTEM, RAG_USER
    from tests.fakes.chat import FakeChatModel
    from tests.fakes.search import make_chunk
    from tests.graph_parts import Library, settings
    from tests.test_graph import Turns

    chunks = [make_chunk(f"ferry{i}.md", None, t) for i, t in enumerate(FERRY)]
    chunks.append(make_chunk("bread.md", None, UNRELATED))
    llm = FakeChatModel()
    llm.enqueue("On Saturdays the ferry to Tarvo leaves at 09:00 [1].")
    question = "When does the ferry to Tarvo leave?"
    frame = 2 * MESSAGE_OVERHEAD + estimate_tokens(RAG_SYSTEM + question)
    frame += estimate_tokens(RAG_USER.format(sources="", question=""))
    # Room for the answer, the prompt's frame and about one and a half passages of three.
    room = 1024 + frame + 60
    rig = Turns(llm, Library(chunks, settings=settings(top_k=3)), context_tokens=room)
    out = await rig.run(question, mode="rag")
    trace = out["state"]["trace"]
    rows = {c["path"]: c for c in trace["candidates"]}
    used = {path for path, c in rows.items() if c["used"]}
    given = {s["path"] for s in out["state"]["sources"]}
    assert used == given and 0 < len(used) < 3, rows
    (cited,) = [c for c in rows.values() if c.get("cited")]
    assert cited["source"] == 1
    assert rows["bread.md"]["used"] is False
    assert rows["bread.md"]["why"] == "not in the top 3"
    whys = sorted(c["why"] for c in rows.values() if not c["used"])
    assert any("trimmed" in why for why in whys), whys
    assert trace["passages_trimmed"] >= 1


async def test_the_trace_reads_no_chunk_the_search_has_read_already() -> None:
    from tests.fakes.chat import FakeChatModel
    from tests.fakes.search import make_chunk
    from tests.graph_parts import Library, settings
    from tests.test_graph import Turns

    chunks = [make_chunk(f"ferry{i}.md", i + 1, t) for i, t in enumerate(FERRY)]
    library = Library(chunks, settings=settings(top_k=2))
    rig = Turns(FakeChatModel(default_reply="At 07:15 [1]."), library)
    out = await rig.run("When does the ferry to Tarvo leave?", mode="rag")
    weighed = out["state"]["trace"]["candidates"]
    # Every candidate is located, those the search read for its passages and the others.
    assert sorted((c["path"], c["page"]) for c in weighed) == [
        (f"ferry{i}.md", i + 1) for i in range(len(FERRY))
    ]
    assert sum(c["used"] for c in weighed) == 2
    read = [key for keys in library.dense.reads for key in keys]
    assert len(read) == len(set(read)), library.dense.reads  # none read twice
