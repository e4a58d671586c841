"""What the window adds to ChatService: Stop keeps the partial answer, regenerate, diagram."""

from __future__ import annotations

import asyncio
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from app.services.chat import ChatService, Done, Token
from app.services.sessions import SessionIndex
from graph.graph import build_graph
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library

CHUNKS = [make_chunk("q3.pdf", 4, "Revenue in the third quarter was 12 million euros.")]


def make_service(tmp_path: Path, llm: FakeChatModel) -> ChatService:
    deps = Library(CHUNKS).deps(llm)
    return ChatService(build_graph(InMemorySaver()), SessionIndex(tmp_path / "docent.db"), deps)


async def test_stop_keeps_the_partial_answer_and_marks_it(tmp_path: Path) -> None:
    llm = FakeChatModel()
    llm.hold_tokens(4)  # the answer waits after word3, where the test stops it
    llm.enqueue(" ".join(f"word{i}" for i in range(200)))
    service = make_service(tmp_path, llm)
    turn = service.start_turn("s1", "What was revenue in the third quarter?")
    seen = []
    async for event in turn.events():
        seen.append(event)
        if isinstance(event, Token) and event.text.strip() == "word3":
            assert service.cancel("s1")
    done = seen[-1]
    assert isinstance(done, Done) and done.stopped is True
    partial = "".join(e.text for e in seen if isinstance(e, Token))
    assert done.answer == partial and "word3" in partial and "word199" not in partial
    assert done.sources[0]["file"] == "q3.pdf"
    assert not service.is_busy("s1")
    messages = await service.messages("s1")
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "What was revenue in the third quarter?"),
        ("assistant", partial),
    ]
    assert messages[1]["stopped"] is True and messages[1]["sources"]
    # The session goes on normally after a stop.
    llm.release_tokens()
    llm.enqueue("It was 12 million euros [1].")
    await service.start_turn("s1", "And in Q4?").result()
    assert [m["role"] for m in await service.messages("s1")] == ["user", "assistant"] * 2


async def test_a_stop_before_the_turn_began_still_ends_it_and_frees_the_session(
    tmp_path: Path,
) -> None:
    """A Stop in the same tick as the question (a script posting both): the turn's task
    never ran, and the session stayed busy for good with no `done`."""
    llm = FakeChatModel()
    llm.enqueue("It was 12 million euros [1].")
    service = make_service(tmp_path, llm)
    turn = service.start_turn("s1", "What was revenue in the third quarter?")
    assert service.cancel("s1")
    async with asyncio.timeout(60):  # a deadline, not a measure: before, no event ever came
        seen = [event async for event in turn.events()]
    assert isinstance(seen[-1], Done) and seen[-1].stopped is True and seen[-1].answer == ""
    assert not service.is_busy("s1")
    messages = await service.messages("s1")
    assert [(m["role"], m.get("stopped")) for m in messages] == [
        ("user", None),
        ("assistant", True),
    ]
    llm.enqueue("It was 12 million euros [1].")
    await service.start_turn("s1", "And in Q4?").result()
    assert not service.is_busy("s1")


async def test_cancel_with_nothing_running_says_so(tmp_path: Path) -> None:
    assert make_service(tmp_path, FakeChatModel()).cancel("nothing") is False


async def test_regenerate_replaces_the_last_answer(tmp_path: Path) -> None:
    llm = FakeChatModel()
    said = "revenue in the third quarter was 12 million euros [1]."
    llm.enqueue("First answer: " + said, "Second answer: " + said)
    service = make_service(tmp_path, llm)
    await service.start_turn("s1", "What was revenue in the third quarter?").result()
    done = await (await service.regenerate("s1")).result()
    assert isinstance(done, Done) and done.answer == "Second answer: " + said
    messages = await service.messages("s1")
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "What was revenue in the third quarter?"),
        ("assistant", "Second answer: " + said),
    ]


async def test_diagram_is_the_live_graph_as_mermaid(tmp_path: Path) -> None:
    text = make_service(tmp_path, FakeChatModel()).diagram()
    assert text.startswith("---") or "graph" in text
    for node in ("router", "rewriter", "retriever", "generator"):
        assert node in text
