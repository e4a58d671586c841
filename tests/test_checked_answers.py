"""Answers people can check, through whole turns: the scripted model writes an answer over a
small library, and the turn ends with each sentence's verdict, citations corrected from
it, and a plain "not covered" (with what was searched) when nothing it says is found."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graph import prompts
from graph.events import Token
from graph.graph import build_graph
from tests.fakes.chat import FakeChatModel
from tests.fakes.search import make_chunk
from tests.graph_parts import Library, run_turn, settings

VAT = "The standard VAT rate rose to 12% in 2024. Reduced rates apply to food and books."
PLANTS = "The office plants are watered on Fridays by Maria."
REVENUE = "Revenue in the third quarter was 12 million euros. Costs fell by 3 million euros."
CHUNKS = [
    make_chunk("tax/2024/vat.pdf", 3, VAT),
    make_chunk("notes/garden.md", None, PLANTS),
    make_chunk("reports/q3.pdf", 4, REVENUE),
]
QUESTION = "What do the documents say about VAT, plants and revenue?"


async def turn(
    answer: str, question: str = QUESTION, *, floor: bool = False, mode: str = "rag"
) -> dict[str, Any]:
    """One turn whose model writes ``answer``: its events, its state, and the number each
    file's passage was given (``n["vat.pdf"]``)."""
    llm = FakeChatModel()
    llm.enqueue(answer)
    # The calibrated relevance floor, or none (the hash embedder's cosines mean little).
    library = Library(CHUNKS) if floor else Library(CHUNKS, settings=settings())
    out = await run_turn(build_graph(InMemorySaver()), library.deps(llm), question, mode)
    state = out["state"]
    numbers = {s["file"]: s["n"] for s in state.get("sources", [])}
    return {**state, "events": out["events"], "n": numbers}


def by_text(state: dict[str, Any], needle: str) -> dict[str, Any]:
    return next(s for s in state["support"] if needle in s["text"])


async def test_every_verdict_and_the_citations_that_follow_from_them() -> None:
    # Drafted without the numbers: the passages' numbers come from the retrieval.
    draft = (
        "The standard VAT rate rose to 15% in 2024 [{vat}]. "
        "The office plants are watered on Fridays [{vat}]. "
        "Revenue in the third quarter was 12 million euros. "
        "Penguins migrate south to breed in winter [{plants}]. "
        "Reduced rates apply to food and books [4, 14]."
    )
    numbers = (await turn("Placeholder."))["n"]
    vat, plants, q3 = numbers["vat.pdf"], numbers["garden.md"], numbers["q3.pdf"]
    state = await turn(draft.format(vat=vat, plants=plants))

    answer = state["answer"]
    assert answer == (
        f"The standard VAT rate rose to 15% in 2024 [{vat}]. "
        f"The office plants are watered on Fridays [{plants}]. "  # [vat] was wrong
        f"Revenue in the third quarter was 12 million euros [{q3}]. "  # left uncited
        "Penguins migrate south to breed in winter. "  # no support: no citation
        f"Reduced rates apply to food and books [{vat}]."  # [4, 14] is no source given
    )
    support = state["support"]
    assert [s["verdict"] for s in support] == [
        *("partly", "supported", "supported", "unsupported", "supported")
    ]
    for sentence in support:  # every sentence points into the answer as shown
        assert answer[sentence["start"] : sentence["end"]] == sentence["text"]

    swapped = by_text(state, "15%")
    assert swapped["missing"] == ["15%"] and swapped["found"] == {"15%": "12%"}
    source = swapped["source"]
    assert (source["n"], source["file"], source["path"], source["page"]) == (
        *(vat, "vat.pdf", "tax/2024/vat.pdf", 3),
    )
    assert source["text"] == "The standard VAT rate rose to 12% in 2024."
    unsupported = by_text(state, "Penguins")
    assert unsupported["source"] is None and unsupported["missing"] == []

    # The sources' `cited` flags follow the corrected marks.
    cited = {s["file"]: s["cited"] for s in state["sources"]}
    assert cited == {"vat.pdf": True, "garden.md": True, "q3.pdf": True}
    # The saved message keeps the support, so a reopened chat shows the marks.
    saved = state["messages"][-1]
    assert saved.content == answer
    assert saved.additional_kwargs["support"] == support
    assert saved.additional_kwargs["searched"] is None
    assert state["trace"]["check_ms"] is not None


async def test_the_span_is_where_the_passage_sits_in_its_page() -> None:
    # A passage that does not start its page: its span's page offsets say where it is.
    page = "Preamble of the report.\n\n" + REVENUE
    chunk = make_chunk("reports/q3.pdf", 4, REVENUE)
    moved = chunk.__class__(**{**chunk.__dict__, "start": 25, "end": 25 + len(REVENUE)})
    llm = FakeChatModel(default_reply="Costs fell by 3 million euros [1].")
    library = Library([moved], settings=settings())
    out = await run_turn(build_graph(InMemorySaver()), library.deps(llm), "Costs?", "rag")
    (sentence,) = out["state"]["support"]
    span = sentence["source"]
    assert span["text"] == "Costs fell by 3 million euros."
    assert page[span["page_start"] : span["page_end"]] == span["text"]
    assert REVENUE[span["start"] : span["end"]] == span["text"]


async def test_an_answer_with_nothing_supported_says_the_documents_dont_cover_it() -> None:
    draft = "The moon is made of cheese [1]. Astronauts eat it for lunch [2]."
    state = await turn(draft, "What is the moon made of?")
    tokens = "".join(e.text for e in state["events"] if isinstance(e, Token))
    assert tokens == draft  # what streamed, before the check
    assert state["answer"] == prompts.NOT_COVERED
    assert state["support"] == []
    searched = state["searched"]
    assert searched["queries"] == ["What is the moon made of?"]
    assert searched["files"] == []  # the whole library
    assert searched["draft"] == "The moon is made of cheese. Astronauts eat it for lunch."
    # What the model wrote is kept beside the answer, unchecked, and in the saved message.
    assert state["draft"] == "The moon is made of cheese. Astronauts eat it for lunch."
    assert state["messages"][-1].additional_kwargs["draft"] == state["draft"]
    nearest = searched["nearest"]
    assert {n["path"] for n in nearest} == {c.path for c in CHUNKS}
    assert all(set(n) == {"file", "path", "page", "text", "score"} for n in nearest)
    assert all(s["cited"] is False for s in state["sources"])


@pytest.mark.parametrize("reply", ["[2] [3][1].", ""])
async def test_a_reply_without_words_gives_the_passages_instead(reply: str) -> None:
    # A small model on a CPU answered a question with "[2] [3][4]" alone.
    state = await turn(reply, "What do the documents say about VAT?")
    assert state["answer"] == prompts.NO_WORDS
    assert state["support"] == []
    assert state["draft"] == (reply or None)  # what it wrote is kept, as a set-aside answer is
    nearest = state["searched"]["nearest"]
    assert {n["path"] for n in nearest} == {c.path for c in CHUNKS}
    assert all(n["text"] for n in nearest)


async def test_nothing_above_the_floor_shows_what_was_searched() -> None:
    state = await turn("Leonardo painted it.", "Who painted Mona Lisa?", floor=True)
    assert state["sources"] == []
    assert state["answer"].startswith(prompts.NOT_RELEVANT)
    assert state["support"] is None  # the chat answer after it is not from the documents
    searched = state["searched"]
    assert searched["queries"] == ["Who painted Mona Lisa?"]
    assert searched["floor"] > 0
    nearest = searched["nearest"]
    assert 0 < len(nearest) <= 3
    assert all(n["score"] < searched["floor"] for n in nearest)
    assert {n["path"] for n in nearest} <= {c.path for c in CHUNKS}


async def test_a_mentioned_file_is_what_was_searched() -> None:
    state = await turn("Penguins breed in winter [1].", "@garden.md what about penguins?")
    assert state["answer"] == prompts.NOT_COVERED
    assert state["searched"]["files"] == ["notes/garden.md"]


async def test_a_chat_answer_is_not_checked() -> None:
    state = await turn("Hello there!", "hello!", mode="chat")
    assert state["support"] is None and state["searched"] is None
    assert state["answer"] == "Hello there!"
    assert state["messages"][-1].additional_kwargs["support"] is None


async def test_a_notice_before_the_answer_keeps_the_offsets_true() -> None:
    state = await turn(
        "The office plants are watered on Fridays [1].", "@nowhere.md when are plants watered?"
    )
    answer = state["answer"]
    assert answer.startswith("I found no document called `@nowhere.md`.")
    (sentence,) = state["support"]
    assert sentence["verdict"] == "supported"
    assert answer[sentence["start"] : sentence["end"]] == sentence["text"]


async def test_the_answer_is_read_ahead_so_the_last_sentence_is_all_left_to_embed() -> None:
    answer = (
        "Maria waters the office plants on Fridays [1]. In the third quarter revenue was 12 "
        "million euros [2]. Costs went down by 3 million euros [2]."
    )
    llm = FakeChatModel(token_delay=0.001)
    llm.enqueue(answer)
    library = Library(CHUNKS, settings=settings())
    await run_turn(build_graph(InMemorySaver()), library.deps(llm), QUESTION, "rag")
    embedded = [text for call in library.embedder.calls for text in call]
    sentences = [
        "Maria waters the office plants on Fridays.",
        "In the third quarter revenue was 12 million euros.",
        "Costs went down by 3 million euros.",
    ]
    # Each sentence is embedded once, as it completes: after the last token only the last
    # one was left to embed.
    assert library.embedder.calls[-1] == sentences[-1:]
    assert [embedded.count(s) for s in sentences] == [1, 1, 1]


async def test_a_sentence_copied_from_its_passage_is_not_embedded_again() -> None:
    llm = FakeChatModel(default_reply="Costs fell by 3 million euros [1].")
    library = Library(CHUNKS, settings=settings())
    await run_turn(build_graph(InMemorySaver()), library.deps(llm), "Costs?", "rag")
    embedded = [text for call in library.embedder.calls for text in call]
    assert embedded.count("Costs fell by 3 million euros.") == 1  # as the passage's


# As Docent reads a CSV: a line per row, each value with its column's name.
SPREADSHEET = make_chunk(
    "cases/open.csv",
    None,
    "Status: open; Count: 14\nStatus: closed; Count: 9\nStatus: pending; Count: 3\n",
)


async def test_a_right_answer_the_check_cant_place_is_shown_with_its_verdicts() -> None:
    """A count read from a spreadsheet's row: too few words in common to support it, but
    its number is in source 1. The answer is shown, marked, not set aside."""
    llm = FakeChatModel(default_reply="That would be 14 of them [1].")
    library = Library([SPREADSHEET, *CHUNKS], settings=settings())
    out = await run_turn(
        build_graph(InMemorySaver()), library.deps(llm), "How many cases are open?", "rag"
    )
    state = out["state"]
    assert state["answer"] == "That would be 14 of them."
    (sentence,) = state["support"]
    assert sentence["verdict"] == "unsupported"
    assert state["searched"] is None and state["draft"] is None


async def test_an_answer_near_the_passages_is_shown_even_when_nothing_in_it_is_supported() -> None:
    # Near the VAT passage in words, though not enough to be supported: shown, marked.
    state = await turn("Food and books get a reduced rate since the reform [1].")
    assert state["answer"] == "Food and books get a reduced rate since the reform."
    assert [s["verdict"] for s in state["support"]] == ["unsupported"]
    assert state["draft"] is None and state["searched"] is None


async def test_an_answer_about_something_else_is_marked_and_still_shown() -> None:
    state = await turn(
        "The office plants are watered on Fridays by Maria [1].",
        "What is the standard VAT rate since 2024?",
    )
    assert state["answer"].startswith("The office plants are watered on Fridays by Maria [")
    assert state["support"][0]["verdict"] == "supported"
    assert state["misses_question"] is True
    assert state["messages"][-1].additional_kwargs["misses_question"] is True
    right = await turn(
        "The standard VAT rate rose to 12% in 2024 [1].",
        "What is the standard VAT rate since 2024?",
    )
    assert right["misses_question"] is False
