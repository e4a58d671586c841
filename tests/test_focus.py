"""The focused context: the model is shown the sentences of each passage that bear on the
question, within the budget, not whole chunks widened into their neighbours; tables and
summaries stay whole, and citations still point at the right file and page."""

from __future__ import annotations

import re
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from graph.budget import estimate_tokens
from graph.graph import build_graph
from ingest.document_parts import Chunk
from tests.fakes.chat import FakeChatModel
from tests.graph_parts import Library, run_turn, settings

FILLER = [
    "The museum opened a new wing for modern sculpture last spring.",
    "Visitors praised the lighting in the east gallery and its tall windows.",
    "A school programme brings children to the workshops every Tuesday morning.",
    "The café on the ground floor serves soup and bread until four o'clock.",
    "Volunteers guide tours in three languages during the summer months.",
    "The gift shop sells prints of the collection's best known paintings.",
    "Parking near the north entrance is free for members on weekdays.",
    "An audio guide can be borrowed at the desk for a small deposit.",
]
ANSWER = "The roof of the old observatory was rebuilt in 1911 with copper sheets."
REPLY = ANSWER.removesuffix(".") + " [1]."
FOLLOW = "Its dome turns on twelve iron wheels set in a circular track."


def page_chunks(path: str, page: int, texts: list[str]) -> list[Chunk]:
    """One page cut into consecutive chunks, each at its true offset in the page."""
    chunks, at, doc_id = [], 0, f"id-{path}"  # the fake library's key for the path
    for index, text in enumerate(texts):
        chunks.append(
            Chunk(
                doc_id=doc_id,
                path=path,
                file=path.rsplit("/", 1)[-1],
                page=page,
                index=index,
                start=at,
                end=at + len(text),
                text=text,
                sha256=f"sha-{doc_id}",
            )
        )
        at += len(text) + 1
    return chunks


def library() -> list[Chunk]:
    # The answering chunk sits between two long chunks of the same page (its neighbours,
    # which the retriever widens it into), on page 7 of a report.
    before = " ".join(FILLER[:3])
    hit = " ".join([FILLER[3], ANSWER, FOLLOW, FILLER[4]])
    after = " ".join(FILLER[5:])
    report = page_chunks("city/report.pdf", 7, [before, hit, after])
    table = "\n".join(
        [
            "Building: Observatory; Roof: copper; Rebuilt: 1911",
            "Building: Town hall; Roof: slate; Rebuilt: 1898",
            "Building: Library; Roof: tile; Rebuilt: 1923",
        ]
    )
    sheet = page_chunks("city/buildings.xlsx", 1, [table])
    return report + sheet


def make(llm: FakeChatModel, **options: Any) -> Any:
    deps = Library(library(), settings=settings(top_k=5)).deps(llm, **options)
    return build_graph(InMemorySaver()), deps


async def ask(made: Any, text: str) -> dict[str, Any]:
    out = await run_turn(*made, text, "rag")
    return out["state"]


def blocks(user: str) -> dict[int, tuple[str, str]]:
    """The prompt's sources: number -> (heading line, text)."""
    found = re.findall(
        r"^\[(\d+)\] ([^\n]*):\n(.*?)(?=\n\n\[\d+\] |\n\nQuestion: )", user, re.S | re.M
    )
    return {int(n): (head, text) for n, head, text in found}


async def test_the_prompt_holds_the_answering_sentences_within_the_budget() -> None:
    llm = FakeChatModel(default_reply=REPLY)
    state = await ask(make(llm, focus_tokens=80), "When was the observatory roof rebuilt?")
    user = llm.history[0][-1]["content"]
    shown = blocks(user)
    report = next(n for n, (head, _) in shown.items() if head.startswith("report.pdf"))
    text = shown[report][1]
    assert ANSWER in text
    # Not the whole chunk, nor the neighbours it was widened into.
    assert FILLER[0] not in text and FILLER[5] not in text
    assert "…" in text
    # The passage as retrieved held all of it: the state keeps it for the check.
    whole = state["passages"][report - 1]["text"]
    assert FILLER[0] in whole and ANSWER in whole
    sources_part = user.split("Sources:\n\n", 1)[1].rsplit("\n\nQuestion: ", 1)[0]
    prose = [t for n, (h, t) in shown.items() if not h.startswith("buildings.xlsx")]
    table = [t for n, (h, t) in shown.items() if h.startswith("buildings.xlsx")]
    assert sum(estimate_tokens(t) for t in prose + table) <= 80
    assert estimate_tokens(sources_part) < estimate_tokens(
        " ".join(p["text"] for p in state["passages"])
    )


async def test_a_table_stays_whole_beside_focused_prose() -> None:
    llm = FakeChatModel(default_reply=REPLY)
    state = await ask(make(llm, focus_tokens=80), "When was the observatory roof rebuilt?")
    shown = blocks(llm.history[0][-1]["content"])
    by_file = {head.split(",")[0].split(":")[0]: text for head, text in shown.values()}
    sheet = next(p["text"] for p in state["passages"] if "Building:" in p["text"])
    assert by_file["buildings.xlsx"] == sheet.strip()  # every row, with its header words
    assert FILLER[0] not in by_file["report.pdf"]  # while the prose is cut


async def test_a_summary_question_gets_whole_passages() -> None:
    focused = FakeChatModel(default_reply="It was rebuilt [1].")
    await ask(make(focused, focus_tokens=80), "What happened to the observatory roof?")
    assert FILLER[0] not in focused.history[0][-1]["content"]
    whole = FakeChatModel(default_reply="It was rebuilt [1].")
    await ask(make(whole, focus_tokens=80), "Summarise what the report says about the museum")
    user = whole.history[0][-1]["content"]
    assert FILLER[0] in user and ANSWER in user


async def test_citations_point_at_the_file_and_page_the_focused_text_came_from() -> None:
    llm = FakeChatModel(default_reply=REPLY)
    state = await ask(make(llm, focus_tokens=80), "When was the observatory roof rebuilt?")
    shown = blocks(llm.history[0][-1]["content"])
    report = next(n for n, (head, _) in shown.items() if head.startswith("report.pdf"))
    assert shown[report][0] == "report.pdf, page 7"
    assert FILLER[0] not in shown[report][1]
    source = next(s for s in state["sources"] if s["n"] == report)
    assert (source["file"], source["page"]) == ("report.pdf", 7)
    # The answer's sentence is checked against the whole passage, its span true on the page.
    (sentence,) = state["support"]  # checked against the whole passage, as the page has it
    assert sentence["verdict"] == "supported"
    span = sentence["source"]
    assert (span["n"], span["file"], span["page"]) == (report, "report.pdf", 7)
    page = " ".join([" ".join(FILLER[:3]), " ".join([FILLER[3], ANSWER, FOLLOW, FILLER[4]])])
    assert page[span["page_start"] : span["page_end"]] == ANSWER
    # Every mark in the answer names a source whose file and page are those it was shown as.
    by_n = {s["n"]: s for s in state["sources"]}
    marks = [int(n) for n in re.findall(r"\[(\d+)\]", state["answer"])]
    assert marks
    for n in marks:
        assert shown[n][0].startswith(by_n[n]["file"])
        assert shown[n][0].endswith(f"page {by_n[n]['page']}")


async def test_a_budget_of_zero_shows_whole_passages() -> None:
    llm = FakeChatModel(default_reply=REPLY)
    await ask(make(llm, focus_tokens=0), "When was the observatory roof rebuilt?")
    user = llm.history[0][-1]["content"]
    assert FILLER[0] in user and ANSWER in user
