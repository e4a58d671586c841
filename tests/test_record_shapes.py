"""The records a turn sends out (trace, found, resume) have exactly the keys, value types
and key order their TypedDicts in graph/records.py and graph/trace_records.py declare:
mypy checks the code that writes them, this checks what reaches the wire (much of it is
copied through ``Any``)."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from typing_extensions import is_typeddict

from graph.records import StoppedReading
from graph.trace_records import FindRecord, Trace
from tests.api_app import api_app
from tests.fakes.chat import FakeChatModel
from tests.running import read_sse
from tests.test_api_whole import PAGES, reading_model, stop_a_reading


def mismatches(value: Any, kind: Any, where: str = "") -> list[str]:
    """Where ``value`` departs from the type ``kind``: unknown, missing or out-of-order
    keys, or a value of another type."""
    origin = get_origin(kind)
    if kind is Any:
        return []
    if is_typeddict(kind):
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not a {kind.__name__}"]
        hints = get_type_hints(kind)
        out = [f"{where}.{k}: not in {kind.__name__}" for k in value if k not in hints]
        # Read from the hints: with postponed annotations __required_keys__ misses them.
        extras = get_type_hints(kind, include_extras=True)
        required = [k for k, h in extras.items() if get_origin(h) is not NotRequired]
        out += [f"{where}.{k}: missing" for k in required if k not in value]
        declared = [k for k in hints if k in value]
        if [k for k in value if k in hints] != declared:
            out.append(f"{where}: keys {list(value)} not in the order {declared}")
        for k, v in value.items():
            if k in hints:
                out += mismatches(v, hints[k], f"{where}.{k}")
        return out
    if origin in (Union, types.UnionType):
        tries = [mismatches(value, option, where) for option in get_args(kind)]
        return [] if any(not t for t in tries) else min(tries, key=len)
    if origin is Literal:
        return [] if value in get_args(kind) else [f"{where}: {value!r} not in {kind}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        (item,) = get_args(kind)
        return [m for i, v in enumerate(value) for m in mismatches(v, item, f"{where}[{i}]")]
    if origin is dict:
        return [] if isinstance(value, dict) else [f"{where}: {value!r} is not a dict"]
    if kind is type(None):
        return [] if value is None else [f"{where}: {value!r} is not None"]
    if kind is float:
        ok = isinstance(value, float | int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not a float"]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not an int"]
    return [] if isinstance(value, kind) else [f"{where}: {value!r} is not a {kind}"]


def test_the_checker_finds_a_key_out_of_place() -> None:
    assert mismatches({"route": None, "nodes": []}, Trace) == []
    assert mismatches({"nodes": [], "route": None}, Trace)  # the order the JSON has
    assert mismatches({"route": None, "nodes": [], "tier": "rules"}, Trace)
    assert mismatches({"route": "rag", "nodes": [{"node": "router", "ms": "1"}]}, Trace)
    assert mismatches({"route": None}, Trace)


async def test_a_search_turns_trace_is_a_trace() -> None:
    from tests.fakes.search import make_chunk
    from tests.graph_parts import Library
    from tests.test_graph import Turns
    from tests.test_trace import FERRY

    chunks = [make_chunk(f"ferry{i}.md", i + 1, t) for i, t in enumerate(FERRY)]
    rig = Turns(FakeChatModel(default_reply="At 07:15 [1]."), Library(chunks))
    trace = (await rig.run("When does the ferry to Tarvo leave?", mode="rag"))["state"]["trace"]
    assert trace["candidates"] and trace["nodes"] and "prompt_tokens" in trace
    assert mismatches(trace, Trace) == []


async def test_a_find_turns_trace_has_its_found_record() -> None:
    from tests.graph_parts import run_turn
    from tests.test_find_route import setup

    llm = FakeChatModel(default_reply="Three of them: x200.pdf [1].")
    _, deps, graph = setup(llm)
    out = (await run_turn(graph, deps, "Which documents mention the warranty?"))["state"]
    assert out["trace"]["found"]["matched"] == 3
    assert mismatches(out["found"], FindRecord) == []
    assert mismatches(out["trace"], Trace) == []


async def test_a_stopped_readings_done_carries_a_trace_and_its_resume(tmp_path: Path) -> None:
    llm = reading_model()
    async with api_app(tmp_path, llm=llm, pdfs={"long.pdf": PAGES}, context_tokens=1024) as app:
        session, events = await stop_a_reading(app, llm)
        stopped = dict(events)["done"]
        llm.stream_gate = None
        body = {"message": "Summarise what was read", "session_id": session}
        async with app.client.stream("POST", "/api/chat", json=body) as response:
            read = dict(await read_sse(response))["done"]
        saved = (await app.client.get(f"/api/sessions/{session}")).json()["messages"]

    assert stopped["stopped"] is True and stopped["trace"]["route"] is None
    assert mismatches(stopped["trace"], Trace) == []
    assert mismatches(stopped["resume"], StoppedReading) == []
    assert saved[1]["resume"] == stopped["resume"]
    assert read["trace"]["route"] == "document" and "reading" in read["trace"]
    assert mismatches(read["trace"], Trace) == []
    assert mismatches(saved[-1]["trace"], Trace) == []
