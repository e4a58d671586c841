"""Long work on whole documents: the time left, Stop keeping the notes and the follow-ups
that use them, comparison tables drawn from the notes, answers checked and guarded."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from app.services.chat import ChatService, Done, Turn
from app.services.sessions import SessionIndex
from graph import prompts
from graph.events import Progress
from graph.graph import build_graph
from graph.whole import reading_prompts as whole_prompts
from graph.whole.section_notes import SectionNotes
from models.protocols import Message
from tests.fakes.chat import FakeChatModel
from tests.graph_parts import Library, settings
from tests.running import eventually
from tests.test_whole_documents import SMALL, Rig, document, map_calls, notes_responder
from ui.answer.coverage_line import coverage_line
from ui.answer.markdown import render

LOOP_ROW = "| Fact | marker-1 [1] | marker-1 [1] |"


async def test_progress_says_the_time_left_once_a_section_was_timed() -> None:
    rig = Rig(document("long.pdf", 30))
    out = await rig.ask("Summarize @long.pdf")

    progress = [e for e in out["events"] if isinstance(e, Progress)]
    assert len(progress) > 3
    # Nothing is known of the model's speed before its first note ...
    assert "left" not in progress[0].text
    # ... then each line says how long the rest should take, at the speed measured.
    for event in progress[1:]:
        assert re.search(r" · (less than a minute|about \d+ min) left$", event.text), event.text


def test_the_time_left_is_the_speed_so_far_times_the_calls_left() -> None:
    from graph.whole.pace import Pace, time_left

    now = [0.0]
    pace = Pace(clock=lambda: now[0])
    assert pace.left(5) is None
    for seconds in (50.0, 70.0):  # two notes, a minute each on average
        pace.begin()
        now[0] += seconds
        pace.end()
    assert pace.left(4) == 240.0
    assert time_left(240.0) == "about 4 min left"
    assert time_left(20.0) == "less than a minute left"
    assert time_left(4_900.0) == "about 1 h 22 min left"


class Held:
    """A service over a 30-page document whose model calls wait at a gate."""

    def __init__(self, tmp_path: Path) -> None:
        self.llm = FakeChatModel(default_reply="Fact 1 of long.pdf is marker-1 [1].")
        self.llm.responder = notes_responder
        self.notes = SectionNotes(tmp_path / "notes.db")
        library = Library(document("long.pdf", 30), settings=settings())
        deps = dataclasses.replace(library.deps(self.llm, **SMALL), notes=self.notes)
        self.service = ChatService(
            build_graph(InMemorySaver()), SessionIndex(tmp_path / "d.db"), deps
        )
        self.gate = asyncio.Semaphore(0)
        self.llm.stream_gate = self.gate

    async def stop_after(self, sections: int) -> Done:
        """Ask for a summary, let ``sections`` notes be written, Stop during the next."""
        turn = self.service.start_turn(None, "Summarize @long.pdf")
        for written in range(1, sections + 1):
            await eventually(lambda: self.llm.waiting == 1, what="a map call")
            self.gate.release()
            await eventually(lambda w=written: self.notes.count() == w, what="its note")
        await eventually(lambda: self.llm.waiting == 1, what="the next map call")
        assert self.service.cancel(turn.session_id)
        return await _done(turn)

    async def ask(self, session: str, text: str) -> Done:
        self.llm.stream_gate = None
        self.gate.release()
        return await _done(self.service.start_turn(session, text))


async def _done(turn: Turn) -> Done:
    done = await turn.result()
    assert isinstance(done, Done), done
    return done


async def test_stop_keeps_the_notes_and_offers_to_use_them(tmp_path: Path) -> None:
    held = Held(tmp_path)
    done = await held.stop_after(2)

    assert done.stopped and held.notes.count() == 2
    resume = done.resume
    assert resume is not None
    read = resume["read"]
    assert re.fullmatch(r"pages 1–\d+ of 30 of `long.pdf`", read), read
    assert resume["actions"] == [whole_prompts.SUMMARISE_READ, whole_prompts.CONTINUE_READING]
    assert (resume["sections_read"], resume["question"]) == (2, "Summarize @long.pdf")
    saved = await held.service.messages(done.session_id)
    assert saved[-1]["stopped"] and saved[-1]["resume"] == resume


async def test_summarise_what_was_read_answers_from_the_notes_kept(tmp_path: Path) -> None:
    held = Held(tmp_path)
    stopped = await held.stop_after(2)
    calls = len(held.llm.history)

    done = await held.ask(stopped.session_id, whole_prompts.SUMMARISE_READ)

    assert len(held.llm.history) == calls + 1  # the answer's call, no new note
    read = stopped.resume["read"] if stopped.resume else ""
    assert done.answer.startswith(whole_prompts.PARTIAL_READ.format(read=read))
    answer_prompt = held.llm.history[-1]
    assert "Question: Summarize @long.pdf" in answer_prompt[-1]["content"]
    last_read = int(re.findall(r"\d+", read)[1])
    assert max(s["page"] for s in done.sources) == last_read < 30
    assert done.coverage is not None and done.coverage["pages_read"] == last_read
    assert coverage_line(done.coverage, len(done.sources)) == (
        f"Read {last_read} of the 30 pages of the document"
    )
    # What is left can still be read on.
    assert done.resume is not None and done.resume["actions"] == [whole_prompts.CONTINUE_READING]


async def test_continue_reading_reads_on_from_the_first_section_without_a_note(
    tmp_path: Path,
) -> None:
    held = Held(tmp_path)
    stopped = await held.stop_after(2)
    sections = stopped.resume["sections"] if stopped.resume else 0
    before = len(map_calls(held.llm))

    done = await held.ask(stopped.session_id, whole_prompts.CONTINUE_READING)

    new = map_calls(held.llm)[before:]
    assert len(new) == sections - 2  # the two kept notes are not written again
    first = re.findall(r"marker-(\d+)", new[0][-1]["content"])[0]
    assert int(first) == int(re.findall(r"\d+", stopped.resume["read"])[1]) + 1  # type: ignore[index]
    assert done.coverage is not None and done.coverage["pages_read"] == 30
    assert not done.stopped and done.resume is None
    assert "Question: Summarize @long.pdf" in held.llm.history[-1][-1]["content"]


def _table(answer: str) -> list[list[str]]:
    """The answer's first Markdown table, row by row, as its cells."""
    lines = [line for line in answer.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]


async def test_a_comparison_table_is_drawn_from_each_documents_notes() -> None:
    rig = Rig([*document("a.pdf", 3), *document("b.pdf", 3)])
    # The model draws a broken table and loops on a row; only its sentence may stand.
    rig.llm.enqueue(
        "| | a | b |\n|--|\n"
        + "\n".join([LOOP_ROW] * 20)
        + "\nBoth documents state their first fact as marker-1 [1][4]."
    )
    out = await rig.ask("compare @a.pdf and @b.pdf")

    answer = out["state"]["answer"]
    calls = map_calls(rig.llm)
    assert len(calls) == 2 and "a.pdf" in calls[0][-1]["content"]
    rows = _table(answer)
    assert rows[0] == ["Point", "a.pdf", "b.pdf"] and rows[1] == ["---", "---", "---"]
    assert all(len(row) == 3 for row in rows)
    body = rows[2:]
    assert [r[0] for r in body] == ["Fact 1", "Fact 2", "Fact 3"]
    assert len({tuple(r) for r in body}) == len(body)  # no row repeated
    assert LOOP_ROW not in answer and "|--|" not in answer
    assert "Both documents state their first fact as marker-1" in answer
    html = render(answer, out["state"]["sources"])
    assert html.count("<table>") == 1 and html.count("<tr>") == 4
    # Each cell cites its own document: [n] in a.pdf's column is a page of a.pdf.
    by_number = {s["n"]: s for s in out["state"]["sources"]}
    for row in body:
        for column, file in ((1, "a.pdf"), (2, "b.pdf")):
            numbers = [int(n) for n in re.findall(r"\[(\d+)\]", row[column])]
            assert numbers, row
            assert {by_number[n]["file"] for n in numbers} == {file}
            assert f"marker-{row[0].split()[-1]}" in row[column]
    assert out["state"]["support"] is not None
    checked = [s["text"] for s in out["state"]["support"]]
    assert any("marker-2" in text for text in checked)  # the cells are checked too


async def test_a_summary_is_checked_and_an_unfound_sentence_marked_not_withheld() -> None:
    rig = Rig(document("short.pdf", 3))
    invented = "The document also says the moon is made of cheese."
    rig.llm.enqueue(f"Fact 2 of the document is marker-2 [2]. {invented}")
    out = await rig.ask("Summarize @short.pdf")

    state = out["state"]
    support = state["support"]
    assert support is not None and len(support) == 2
    assert support[0]["verdict"] == "supported" and support[0]["source"]["page"] == 2
    assert support[1]["verdict"] == "unsupported"
    answer = state["answer"]
    assert invented in answer and answer[support[1]["start"] : support[1]["end"]] == invented

    nothing = Rig(document("short.pdf", 3))
    nothing.llm.enqueue("Zebras graze on the savannah at dawn. Penguins swim in cold seas.")
    out = await nothing.ask("Summarize @short.pdf")
    assert out["state"]["answer"].startswith("Zebras graze")  # marked, not replaced
    assert {s["verdict"] for s in out["state"]["support"]} == {"unsupported"}


async def test_a_summary_that_loops_is_cut_where_it_starts_repeating() -> None:
    rig = Rig(document("short.pdf", 3))
    line = "- Fact 1 of the document is marker-1 [1]."
    rig.llm.enqueue("\n".join(["Summary:", *[line] * 40, "Never reached."]))
    out = await rig.ask("Summarize @short.pdf")

    answer = out["state"]["answer"]
    assert answer.count("marker-1") == 1 and "Never reached" not in answer
    assert answer.endswith(prompts.ANSWER_REPEATING)
    assert out["state"]["trace"]["runaway"] == "repeating"


async def test_the_answers_own_wait_is_told_after_its_sources_before_its_first_word() -> None:
    rig = Rig(document("long.pdf", 30))
    out = await rig.ask("Summarize @long.pdf")

    kinds = [e.kind for e in out["events"] if hasattr(e, "kind")]
    last_status = len(kinds) - 1 - kinds[::-1].index("status")
    assert kinds.index("sources") < last_status < kinds.index("token")
    said = out["events"][
        [i for i, e in enumerate(out["events"]) if hasattr(e, "kind")][last_status]
    ]
    sections = out["state"]["trace"]["reading"]["sections"]
    assert said.text.startswith(f"Reading the notes on {sections} sections · ")


async def test_a_note_that_runs_on_is_cut_and_its_call_closed() -> None:
    rig = Rig(document("long.pdf", 30))
    words = [f"copied{i}" for i in range(3000)]  # a small model copying its section out

    def first_runs_on(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | None:
        if ", section 1 of " in messages[-1]["content"]:
            return " ".join(words)
        return notes_responder(messages, schema)

    rig.llm.responder = first_runs_on
    out = await rig.ask("Summarize @long.pdf")

    answer_prompt = rig.llm.history[-1][-1]["content"]
    first = answer_prompt.split("Notes on ")[1]
    assert first.startswith("pages 1–") and "copied0 " in first
    assert "copied2999" not in first and len(first) < 1_000
    reading = out["state"]["trace"]["reading"]
    # Cut as it was written: the notes fit the answer's prompt without being cut again.
    assert not reading["notes_cut"] and "Point from p30 [30]." in answer_prompt


# Notes the real 1.5B model wrote comparing two handbook pages (labels already numbers):
# the word "Topic:" kept, a topic above its points, numbered items in bold, citations
# first or dropped.
ZOOM_NOTE = """Topic: How to host a meeting

Zoom for Government is designed for special training needs, webinars, and meetings with \
external agencies who cannot use Google Meet.

1. **Install the Zoom application**: Download and install the Zoom application from the \
Self Service section of the GSA website.
2. **Sign in with SSO**: Click `Sign in with SSO` to authenticate your credentials.
3. **Configure display name**: Add a picture as per [the documentation](https://x.gov/p)."""
MEET_NOTE = """- Topic: Google Meet, Introduction
  [2] Google Meet is an online video conferencing tool that integrates with Google calendar.
- Topic: Setup and Tools
  [2] Because Google Meet is a web application, there's no installation necessary.
- Topic: Customization"""


def test_a_small_models_notes_still_make_a_table_of_their_points() -> None:
    from graph.whole.table import comparison_table, points_of

    points = [*points_of(ZOOM_NOTE, 0), *points_of(MEET_NOTE, 1)]
    assert [(p.topic, p.text[:30]) for p in points if p.column == 1] == [
        ("Google Meet, Introduction", "Google Meet is an online video"),
        ("Setup and Tools", "Because Google Meet is a web a"),
        ("Customization", "Customization"),
    ]
    assert points[-2].text.endswith("no installation necessary [2].")
    table = comparison_table(points, ["zoom.md", "google-meet.md"])
    rows = _table(table.text)
    # No topic is shared: a row per document, each point led by its topic.
    assert rows[:2] == [["Document", "What its notes say"], ["---", "---"]]
    assert [r[0] for r in rows[2:]] == ["zoom.md", "google-meet.md"]
    assert rows[3][1].startswith("• Google Meet, Introduction: Google Meet is an online")
    assert "Install the Zoom application: Download" in rows[2][1] and "Topic" not in table.text
    assert render(table.text).count("<tr>") == 3
    assert "as per the documentation." in rows[2][1]  # a link's words; its address goes
    for placed in table.placed:
        assert table.text[placed.start : placed.end] == placed.point.text


def plain_notes(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | None:
    """Notes as the real 1.5B model writes them when asked after the text: points with no
    topic and no page label, and once the prompt's own example copied."""
    if not messages[0]["content"].startswith("You read one section of a"):
        return None
    file = "a" if "a.pdf, section" in messages[-1]["content"] else "b"
    return (
        f"- Fact 1 of {file}.pdf: marker-1.\n"
        f"- Opening hours: {whole_prompts.MAP_COMPARE_EXAMPLE} [p1]\n- w1x0 w1x1 w1x2 w1x3 w1x4"
    )


async def test_a_comparison_asks_after_the_text_and_cites_a_one_page_sections_points() -> None:
    rig = Rig([*document("a.pdf", 1), *document("b.pdf", 1)])
    rig.llm.responder = plain_notes
    out = await rig.ask("Compare @a.pdf and @b.pdf")

    calls = map_calls(rig.llm)
    assert len(calls) == 2
    for call in calls:
        asked = call[-1]["content"]
        # The question only asked for a comparison: the notes are read for everything.
        assert "bears on" not in asked
        assert asked.index("[p1]\n") < asked.index("List every point")
        assert asked.endswith("in the language of the text.")
    answer = out["state"]["answer"]
    assert whole_prompts.MAP_COMPARE_EXAMPLE not in answer
    by_number = {s["n"]: s["file"] for s in out["state"]["sources"]}
    rows = _table(answer)[2:]
    assert len(rows) == 2
    for row in rows:  # every cell cites the page of its own column's document
        for column, file in ((1, "a.pdf"), (2, "b.pdf")):
            numbers = [int(n) for n in re.findall(r"\[(\d+)\]", row[column])]
            assert [by_number[n] for n in numbers] == [file], row


async def test_a_comparison_reads_for_what_the_question_names_beyond_its_asking_words() -> None:
    rig = Rig([*document("a.pdf", 1), *document("b.pdf", 1)])
    await rig.ask("How do @a.pdf and @b.pdf differ on eligibility and cost?")

    calls = map_calls(rig.llm)
    assert calls and all('bears on "eligibility cost"' in c[-1]["content"] for c in calls)


def test_a_heading_the_model_copied_from_the_page_is_a_topic_not_a_point() -> None:
    from graph.whole.table import points_of

    note = "- PPL is paid leave [1].\n## About PPL\n- It lasts 12 weeks [1]."
    points = points_of(note, 0)
    assert [(p.topic, p.text) for p in points] == [
        (None, "PPL is paid leave [1]."),
        ("About PPL", "It lasts 12 weeks [1]."),
    ]
    # As the real model wrote it in a comparison of two handbook pages.
    note = "- PPL is paid leave [1].\n## About PPL [1]\n- It lasts 12 weeks [1]."
    assert [(p.topic, p.text) for p in points_of(note, 0)] == [
        (None, "PPL is paid leave [1]."),
        ("About PPL", "It lasts 12 weeks [1]."),
    ]
    # Run on after a statement, as the real model's notes on the page had it.
    note = "- PPL is paid leave [1]. ## About PPL [1]\n- It lasts 12 weeks [1]."
    assert [(p.topic, p.text) for p in points_of(note, 0)] == [
        (None, "PPL is paid leave [1]."),
        ("About PPL", "It lasts 12 weeks [1]."),
    ]
    # And inside a bullet, where the table showed "## About PPL [1]" as a point.
    note = "- PPL is paid leave [1].\n- ## About PPL [1]\n- It lasts 12 weeks [1]."
    assert [(p.topic, p.text) for p in points_of(note, 0)] == [
        (None, "PPL is paid leave [1]."),
        ("About PPL", "It lasts 12 weeks [1]."),
    ]
