"""Whole documents and comparisons with the fake chat model: reading in one piece or section
by section, the call budget, the note cache, comparison tables, progress and Stop."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from app.services.chat import ChatService, Done
from app.services.sessions import SessionIndex
from graph.events import Progress, Sources
from graph.graph import build_graph
from graph.retrieval.floor import Floor
from graph.retrieval.retriever import RetrievalSettings
from graph.whole import reading_prompts
from graph.whole.section_notes import SectionNotes
from ingest.document_parts import Chunk
from models.llm import LLMError
from models.protocols import Message
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library, run_turn, settings
from tests.running import eventually
from ui.answer.markdown import render

SMALL: dict[str, Any] = {"context_tokens": 1400, "answer_tokens": 300}
SUMMARY = "Fact 1 of the document is marker-1 [1]."
"""The model's summary: what page 1 says, so that its check finds it."""
"""A context of 1,100 prompt tokens: a 30-page document needs several sections."""


def page_text(title: str, page: int, extra: str = "") -> str:
    words = " ".join(f"w{page}x{i}" for i in range(60))
    return f"Fact {page} of {title}: marker-{page}. {words} {extra}".strip()


def document(path: str, pages: int, *, title: str | None = None, edit: int = 0) -> list[Chunk]:
    """A PDF of ``pages`` pages, one chunk a page, whose text names ``title`` (its path
    unless given); ``edit`` changes that page's text."""
    return [
        make_chunk(
            path, page, page_text(title or path, page, "EDITED" if page == edit else ""), page - 1
        )
        for page in range(1, pages + 1)
    ]


def is_map(messages: Sequence[Message]) -> bool:
    """A note on a section (a summary's or a comparison's), not an answer."""
    return messages[0]["content"].startswith("You read one section of a")


def notes_responder(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | None:
    """Map calls answer with a note citing every page label they were given; a
    comparison's, one point a line with its topic, as its prompt asks."""
    if not is_map(messages):
        return None
    labels = re.findall(r"^\[(p\d+)\]$", messages[-1]["content"], re.MULTILINE)
    if "compares" in messages[0]["content"]:
        return "\n".join(f"- Fact {label[1:]}: marker-{label[1:]} [{label}]." for label in labels)
    return " ".join(f"Point from {label} [{label}]." for label in labels)


def map_calls(llm: FakeChatModel) -> list[list[Message]]:
    return [call for call in llm.history if is_map(call)]


class Rig:
    """One graph over one library, with the note cache given (a file, to outlive the rig)."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        notes: SectionNotes | None = None,
        library_settings: RetrievalSettings | None = None,
        **options: Any,
    ) -> None:
        self.llm = FakeChatModel(default_reply=SUMMARY)
        self.llm.responder = notes_responder
        self.library = Library(chunks, settings=library_settings or settings())
        deps = self.library.deps(self.llm, **{**SMALL, **options})
        self.deps = dataclasses.replace(deps, notes=notes or SectionNotes())
        self.graph = build_graph(InMemorySaver())

    async def ask(self, text: str, mode: str = "auto", thread: str = "t1") -> dict[str, Any]:
        return await run_turn(self.graph, self.deps, text, mode, thread)


async def test_a_document_that_fits_goes_to_the_model_in_one_piece() -> None:
    rig = Rig(document("short.pdf", 3))
    out = await rig.ask("Summarize @short.pdf")

    assert len(rig.llm.history) == 1 and not map_calls(rig.llm)
    prompt = rig.llm.history[0][-1]["content"]
    for page in (1, 2, 3):
        assert f"[{page}] page {page}:\nFact {page} of short.pdf" in prompt
    state = out["state"]
    assert state["route"] == "document" and state["trace"]["reading"]["note_calls"] == 0
    cited = [s for s in state["sources"] if s.get("cited")]
    assert [(s["n"], s["file"], s["page"]) for s in cited] == [(1, "short.pdf", 1)]


async def test_a_long_document_is_read_in_order_section_by_section() -> None:
    rig = Rig(document("long.pdf", 30))
    out = await rig.ask("Summarize @long.pdf")

    calls = map_calls(rig.llm)
    assert len(calls) > 2
    read = "\n".join(call[-1]["content"] for call in calls)
    markers = [int(m) for m in re.findall(r"marker-(\d+)", read)]
    assert markers == list(range(1, 31))  # every page, each once, in order
    answer_prompt = rig.llm.history[-1][-1]["content"]
    # The notes' page labels became the turn's source numbers, one per page.
    assert "Point from p7 [7]." in answer_prompt and "[p7]" not in answer_prompt
    sources = {s["n"]: s for s in out["state"]["sources"]}
    assert (sources[7]["file"], sources[7]["page"]) == ("long.pdf", 7)
    reading = out["state"]["trace"]["reading"]
    assert reading["note_calls"] == len(calls) == reading["sections"]
    assert out["state"]["coverage"] == {
        "documents_read": 1,
        "documents_matched": None,
        "documents_in_scope": 1,
        "pages_read": 30,
        "pages_total": 30,
        "whole": True,
    }
    assert out["state"]["trace"]["routed_by"] == "rules"


async def test_progress_counts_the_sections_up_to_all_of_them() -> None:
    rig = Rig(document("long.pdf", 30))
    out = await rig.ask("Summarize @long.pdf")

    progress = [e for e in out["events"] if isinstance(e, Progress)]
    total = len(map_calls(rig.llm))
    assert [p.done for p in progress] == list(range(total + 1))
    assert {p.total for p in progress} == {total}
    assert progress[3].text.startswith(f"Reading section 4 of {total} (long.pdf, pages ")
    kinds = [e.kind for e in out["events"] if hasattr(e, "kind")]
    assert kinds.index("progress") < kinds.index("sources") < kinds.index("token")


async def test_the_call_budget_cuts_the_reading_and_the_answer_says_what_it_skipped() -> None:
    rig = Rig(document("long.pdf", 30), max_calls_per_question=3)
    out = await rig.ask("Summarize @long.pdf")

    assert len(map_calls(rig.llm)) == 2 and len(rig.llm.history) == 3
    answer = out["state"]["answer"]
    assert answer.startswith("*Not read, to stay within 3 model calls for one question: pages ")
    skipped = out["state"]["trace"]["reading"]["skipped"]
    assert skipped[0]["path"] == "long.pdf" and skipped[0]["sections"][-1].endswith("–30")
    assert f"{skipped[0]['sections'][0]}" in answer
    # What was skipped is not offered as a source, nor counted as read.
    assert 30 not in [s["page"] for s in out["state"]["sources"]]
    read = [
        m for call in map_calls(rig.llm) for m in re.findall(r"marker-(\d+)", call[-1]["content"])
    ]
    coverage = out["state"]["coverage"]
    assert coverage["whole"] and coverage["documents_read"] == 1
    assert coverage["pages_read"] == len(set(read)) < 30


async def test_asking_again_or_after_a_rename_makes_no_new_map_calls(tmp_path: Path) -> None:
    notes = SectionNotes(tmp_path / "notes.db")
    first = Rig(document("long.pdf", 30), notes)
    await first.ask("Summarize @long.pdf")
    written = len(map_calls(first.llm))
    await first.ask("Summarize @long.pdf", thread="t2")
    assert len(map_calls(first.llm)) == written

    # The same content under another name, after a restart (the cache is a file).
    renamed = Rig(document("moved/renamed.pdf", 30, title="long.pdf"), SectionNotes(notes.path))
    out = await renamed.ask("Give me an outline of @renamed.pdf")
    assert map_calls(renamed.llm) == []
    assert out["state"]["trace"]["reading"]["notes_cached"] == written
    assert "moved/renamed.pdf" in renamed.llm.history[-1][-1]["content"]


async def test_an_edit_recomputes_only_the_sections_it_changed(tmp_path: Path) -> None:
    notes = SectionNotes(tmp_path / "notes.db")
    before = Rig(document("long.pdf", 30), notes)
    await before.ask("Summarize @long.pdf")
    sections = len(map_calls(before.llm))

    after = Rig(document("long.pdf", 30, edit=15), notes)
    await after.ask("Summarize @long.pdf")
    again = map_calls(after.llm)
    assert 1 <= len(again) <= 2 < sections
    assert any("EDITED" in call[-1]["content"] for call in again)


async def test_long_documents_are_compared_from_notes_read_for_the_aspect() -> None:
    rig = Rig([*document("a.pdf", 20), *document("b.pdf", 20)])
    out = await rig.ask("compare @a.pdf and @b.pdf on their facts")

    calls = map_calls(rig.llm)
    assert {("a.pdf" in c[-1]["content"], "b.pdf" in c[-1]["content"]) for c in calls} == {
        (True, False),
        (False, True),
    }
    assert all('bears on "facts"' in c[-1]["content"] for c in calls)
    prose = rig.llm.history[-1]
    assert prose[0]["content"] == reading_prompts.COMPARE_PROSE_SYSTEM
    # b.pdf's pages are numbered after a.pdf's 20: its notes cite them so.
    assert "- Fact 1: marker-1 [21]." in prose[-1]["content"]
    assert out["state"]["documents"] == ["a.pdf", "b.pdf"]


async def test_the_whole_documents_mode_and_an_unnamed_document() -> None:
    rig = Rig(document("only.pdf", 2))
    out = await rig.ask("what are the highlights", mode="document")
    assert (out["state"]["route"], out["state"]["routed_by"]) == ("document", "mode")
    assert "Fact 1 of only.pdf" in rig.llm.history[-1][-1]["content"]


async def test_stop_during_the_map_step_keeps_the_notes_written(tmp_path: Path) -> None:
    llm = FakeChatModel(default_reply="The summary [1].")
    llm.responder = notes_responder
    library = Library(document("long.pdf", 30), settings=settings())
    notes = SectionNotes(tmp_path / "notes.db")
    deps = dataclasses.replace(library.deps(llm, **SMALL), notes=notes)
    service = ChatService(build_graph(InMemorySaver()), SessionIndex(tmp_path / "d.db"), deps)
    gate = asyncio.Semaphore(0)
    llm.stream_gate = gate
    turn = service.start_turn(None, "Summarize @long.pdf")
    seen: list[Any] = []

    async def follow() -> None:
        async for event in turn.events():
            seen.append(event)

    follower = asyncio.create_task(follow())
    await eventually(lambda: llm.waiting == 1, what="the first map call")
    gate.release()  # the first section is read ...
    await eventually(lambda: notes.count() == 1, what="the first note")
    await eventually(lambda: llm.waiting == 1, what="the second map call")
    assert service.cancel(turn.session_id)  # ... and Stop comes during the second
    done = await turn.result()
    await follower

    assert isinstance(done, Done) and done.stopped
    assert len(llm.history) == 1  # no call was made after the Stop
    assert notes.count() == 1  # what was read is kept for the next time
    assert [e.done for e in seen if isinstance(e, Progress)] == [0, 1]
    assert not any(isinstance(e, Sources) for e in seen)


async def test_a_page_larger_than_a_section_is_read_whole_in_parts() -> None:
    words = [f"big{i}" for i in range(1500)]
    rig = Rig([make_chunk("big.pdf", 1, " ".join(words)), *document("big.pdf", 3)[1:]])
    await rig.ask("Summarize @big.pdf")

    read = " ".join(call[-1]["content"] for call in map_calls(rig.llm))
    assert len(map_calls(rig.llm)) >= 2
    assert [w for w in words if w not in read.split()] == []
    assert "marker-3" in read


async def test_a_failing_model_is_said_plainly_and_nothing_crashes() -> None:
    rig = Rig(document("long.pdf", 30))
    rig.llm.responder = None
    rig.llm.enqueue("A first note [p1].")
    rig.llm.enqueue_error(LLMError("Ollama is not running at http://x. Start it."))
    out = await rig.ask("Summarize @long.pdf")

    assert out["state"]["answer"].startswith("**The documents could not be read: Ollama")
    assert out["state"]["sources"] == []


async def test_unnamed_documents_are_the_best_matches_or_asked_for() -> None:
    rig = Rig([*document("a.pdf", 1), *document("b.pdf", 1), *document("c.md", 1)])
    out = await rig.ask("compare these two reports on marker-1 of a.pdf and b.pdf")
    assert out["state"]["route"] == "compare"
    assert sorted(out["state"]["documents"]) == ["a.pdf", "b.pdf"]

    chunks = [*document("a.pdf", 1), *document("b.pdf", 1)]
    nothing = Rig(chunks, library_settings=settings(floor=Floor(2.0)))  # nothing passes
    out = await nothing.ask("Summarize this document")
    assert (out["state"]["route"], out["state"]["answer"]) == (
        "document",
        reading_prompts.NO_TARGET,
    )
    out = await nothing.ask("How do these two reports differ?", thread="t2")
    assert out["state"]["answer"] == reading_prompts.NO_TARGET_COMPARE
    assert nothing.llm.history == []


async def test_another_model_writes_its_own_notes(tmp_path: Path) -> None:
    notes = SectionNotes(tmp_path / "notes.db")
    rig = Rig(document("long.pdf", 30), notes)
    await rig.ask("Summarize @long.pdf")
    first = len(map_calls(rig.llm))
    rig.llm.use("another-model")
    await rig.ask("Summarize @long.pdf", thread="t2")
    assert len(map_calls(rig.llm)) == 2 * first
    assert notes.count() == 2 * first


def test_a_comparison_table_shows_each_cells_citation_as_a_link() -> None:
    table = "| | a.pdf | b.pdf |\n|---|---|---|\n| Price | 10 € [1] | 12 € [3] |"
    sources = [
        {"n": 1, "file": "a.pdf", "page": 1},
        {"n": 3, "file": "b.pdf", "page": 1},
    ]
    html = render(table, sources)
    assert '<div class="docent-table" tabindex="0"><table>' in html
    cells = re.findall(r"<td>(.*?)</td>", html)
    assert 'data-n="1"' in cells[1] and 'data-n="3"' in cells[2]


async def test_a_documents_notes_go_when_its_content_leaves_the_library(tmp_path: Path) -> None:
    from tests.api_app import api_app

    async with api_app(tmp_path, files={"minutes.md": "# Minutes\n\nThe board met twice."}) as app:
        container = app.container
        keys = {}
        for path in ("notes.md", "minutes.md"):
            record = container.registry.get_by_path(path)
            assert record is not None and record.content_key is not None
            keys[path] = record.content_key
            container.notes.put(path, "m", "v1", "", record.content_key, "A note.")
        (container.settings.paths.docs_dir / "minutes.md").unlink()
        # Collected once the library has been idle a few seconds (a rename has its chance).
        gone = keys["minutes.md"]
        await eventually(lambda: container.notes.count(gone) == 0, timeout=60, what="forgotten")
        assert container.notes.count(keys["notes.md"]) == 1
