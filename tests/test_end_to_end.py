"""The whole path: PDFs dropped into the watched folder → a streamed, cited answer over HTTP."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.container import build_services
from app.settings import Settings
from models.embeddings import MiniLMEmbedder
from tests.corpus import CORPUS, needs_corpus
from tests.fakes.ollama_server import FakeOllamaServer, unused_url
from tests.network_guard import only_loopback
from tests.pdfs import make_pdf
from tests.running import read_sse, running_app, wait_ready

FACTS = {
    "harbour.pdf": [
        "The harbour authority publishes its tide tables every spring.",
        "Ferries leave the northern pier every forty minutes during summer.",
        "The lighthouse keeper's cat is named Marmalade and sleeps on the lamp room stairs.",
    ],
    "budget.pdf": [
        "This report covers municipal spending for the fiscal year.",
        "The bridge repair budget was set at 4.7 million kroner by the council.",
    ],
    "garden.pdf": [
        "Tomatoes in the community garden are planted after the last frost in May.",
        "Compost bins are emptied on the first Saturday of each month.",
    ],
}


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def server() -> Iterator[FakeOllamaServer]:
    with FakeOllamaServer(token_delay=0.005) as fake:
        yield fake


def settings_for(tmp_path: Path, ollama_url: str) -> Settings:
    return Settings(data_dir=tmp_path / "data", ollama_host=ollama_url, chat_model="llama3.2")


def drop(files: dict[str, Path], docs: Path) -> None:
    """Copy finished files in, as a user or a script would."""
    for name, source in files.items():
        shutil.copy(source, docs / name)


async def test_dropped_pdfs_answer_with_the_right_page(
    tmp_path: Path, server: FakeOllamaServer, embedder: MiniLMEmbedder
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    made = {name: make_pdf(outside / name, pages) for name, pages in FACTS.items()}
    server.enqueue_reply("The cat is called Marmalade [1].")

    # Privacy: the whole path, from start to answer, reaches nothing beyond this machine.
    with only_loopback() as outward:
        container = build_services(settings_for(tmp_path, server.url), embedder=embedder)
        async with running_app(container) as app:
            drop(made, container.settings.paths.docs_dir)
            await wait_ready(app, 3)
            async with app.client.stream(
                "POST", "/api/chat", json={"message": "What is the lighthouse keeper's cat called?"}
            ) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                events = await read_sse(response)
    assert outward == []

    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "done", events
    assert kinds.index("sources") < kinds.index("token")
    tokens = [data["text"] for kind, data in events if kind == "token"]
    assert len(tokens) > 1
    done = events[-1][1]
    assert "".join(tokens) == done["answer"] == "The cat is called Marmalade [1]."
    top = done["sources"][0]
    assert (top["file"], top["page"]) == ("harbour.pdf", 3)
    # The passage really reached the model, numbered.
    answering = [body for body in server.requests_to("/api/chat") if "format" not in body]
    prompt = answering[-1]["messages"][-1]["content"]
    assert "[1] harbour.pdf, page 3:" in prompt and "Marmalade" in prompt


@needs_corpus
async def test_real_pdfs_find_the_eu_countries_table(
    tmp_path: Path, server: FakeOllamaServer, embedder: MiniLMEmbedder
) -> None:
    names = [
        "pysf__026-latex-multicolumn_multicolumn.pdf",
        "pysf__004-pdflatex-4-pages_pdflatex-4-pages.pdf",
        "pdfplumber__issue-33-lorem-ipsum.pdf",
    ]
    container = build_services(settings_for(tmp_path, server.url), embedder=embedder)
    async with running_app(container) as app:
        drop({name: CORPUS / "pdfs" / name for name in names}, container.settings.paths.docs_dir)
        await wait_ready(app, 3)
        response = await app.client.post(
            "/api/chat",
            json={
                "message": "Which table lists the population and capital of EU countries?",
                "stream": False,
            },
        )
    assert response.status_code == 200, response.text
    top = response.json()["sources"][0]
    assert (top["file"], top["page"]) == (names[0], 3)


async def test_ollama_down_gives_cited_passages(tmp_path: Path, embedder: MiniLMEmbedder) -> None:
    container = build_services(settings_for(tmp_path, unused_url()), embedder=embedder)
    make_pdf(container.settings.paths.docs_dir / "budget.pdf", FACTS["budget.pdf"])
    async with running_app(container) as app:
        await wait_ready(app, 1)
        status = (await app.client.get("/api/status")).json()
        response = await app.client.post(
            "/api/chat",
            json={"message": "How much is the bridge repair budget?", "stream": False},
        )
    assert status["ollama"]["reachable"] is False
    assert response.status_code == 200
    answer = response.json()["answer"]
    assert "Ollama is not running" in answer and "ollama serve" in answer
    assert "[1] `budget.pdf`, page 2" in answer
    assert "4.7 million kroner" in answer


def test_network_guard_notices_outward_connections() -> None:
    import socket

    with only_loopback() as outward, pytest.raises(OSError):
        socket.create_connection(("203.0.113.7", 443), timeout=1)
    assert outward == ["203.0.113.7"]
