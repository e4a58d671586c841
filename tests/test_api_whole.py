"""A whole document over the HTTP API: the `progress` events of its reading, in the stream."""

from __future__ import annotations

from pathlib import Path

from tests.api_app import api_app
from tests.running import read_sse

PAGES = [" ".join(f"page{p} word{w}" for w in range(150)) for p in range(1, 7)]


async def test_reading_a_long_pdf_streams_progress_then_the_answer(tmp_path: Path) -> None:
    async with api_app(tmp_path, pdfs={"long.pdf": PAGES}, context_tokens=2048) as app:
        body = {"message": "Summarise @long.pdf", "mode": "document"}
        async with app.client.stream("POST", "/api/chat", json=body) as response:
            events = await read_sse(response)

    names = [name for name, _ in events]
    progress = [data for name, data in events if name == "progress"]
    assert len(progress) >= 3
    assert all(set(p) == {"done", "total", "text"} for p in progress)
    total = progress[0]["total"]
    assert [p["done"] for p in progress] == list(range(total + 1))
    assert progress[0]["text"].startswith(f"Reading section 1 of {total} (long.pdf, page")
    assert names.index("progress") < names.index("sources") < names.index("token")
    done = dict(events)["done"]
    assert done["trace"]["route"] == "document"
    assert {s["page"] for s in done["sources"]} == set(range(1, 7))
