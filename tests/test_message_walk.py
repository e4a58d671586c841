"""The walk of one turn through Docent's modules (bench/message_walk.py's ``Walk``): which
steps run where, as a reader following the flow would meet them."""

from __future__ import annotations

import asyncio
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from app.services.chat import ChatService, Done
from app.services.sessions import SessionIndex
from bench.message_walk import Walk
from graph.graph import build_graph
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library, run_turn, settings

CHUNKS = [make_chunk("reports/q3.pdf", 4, "Revenue in the third quarter was 12 million euros.")]


async def profiled(text: str, mode: str = "auto") -> list[list[str]]:
    """Each thread's walk (top two levels) of one turn over CHUNKS, the loop's first."""
    library = Library(CHUNKS, settings=settings())
    deps = library.deps(FakeChatModel(default_reply="It was 12 million euros [1]."))
    graph = build_graph(InMemorySaver())
    await run_turn(graph, deps, "hello", "chat")  # imports and first-use set-up
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor())
    walk = Walk()
    threading.setprofile(walk.profile)
    sys.setprofile(walk.profile)
    try:
        await run_turn(graph, deps, text, mode, thread="t2")
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return walk.folded(2)


async def test_the_route_is_chosen_on_the_event_loop_not_in_a_worker_thread() -> None:
    for text, mode in (("What was revenue?", "rag"), ("thanks a lot!", "chat")):
        loop, *workers = await profiled(text, mode)
        assert "graph/nodes/route.py" in loop
        assert [w for w in workers if "graph/nodes/route.py" in w] == []


async def test_only_the_ranking_of_the_focus_leaves_the_event_loop() -> None:
    loop, *workers = await profiled("What was revenue?", "rag")
    assert any("graph/support/check.py" in w for w in workers)  # the check embeds there
    assert [w for w in workers if "graph/focus.py" in w] == []


async def test_a_turn_starts_in_one_step_that_answering_owns(tmp_path: Path) -> None:
    """``start_turn`` hands the whole start (the checks, the context, the task) to one
    object, instead of going back and forth between five modules."""
    deps = Library(CHUNKS, settings=settings()).deps(FakeChatModel(default_reply="Hi!"))
    service = ChatService(build_graph(InMemorySaver()), SessionIndex(tmp_path / "db"), deps)
    await service.start_turn(None, "hello").result()  # imports and first-use set-up
    walk = Walk()
    sys.setprofile(walk.profile)
    try:
        turn = service.start_turn(None, "thanks a lot!")
    finally:
        sys.setprofile(None)
    assert walk.folded(2) == [["app/services/chat.py", "app/services/answering.py"]]
    assert isinstance(await turn.result(), Done)
