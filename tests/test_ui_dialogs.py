"""Dialogs: how Docent works, why these sources, settings, models, and the document viewer."""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nicegui import ElementFilter, ui
from nicegui.testing import User
from PIL import Image

from app.api import new_access
from app.container import Services, build_services
from app.settings import Settings
from models.ollama_chat import OllamaChat
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.ollama_server import FakeOllamaServer
from tests.pdfs import make_pdf
from tests.running import eventually
from tests.scans import page_image, tiff, workbook
from tests.ui_parts import add_file, answer_shows, contents, documents, llm, settled, text_of
from ui.library.viewer import open_document
from ui.page import ChatPage


async def ask(user: User, text: str) -> None:
    user.find(marker="message-input").type(text)
    user.find(marker="message-input").trigger("keydown", {"key": "Enter"})


async def test_help_draws_the_live_graph(user: User, container: Services, page: None) -> None:
    await user.open("/")
    user.find(marker="help").click()
    await user.should_see(marker="help-graph")
    diagram = user.find(marker="help-graph").elements.pop()
    for node in ("router", "rewriter", "retriever", "generator"):
        assert node in diagram.content


async def test_why_these_sources_shows_timeline_route_and_scores(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue("Under the flowerpot [1].")
    await user.open("/")
    await ask(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "flowerpot"), what="the answer")
    user.find(marker="why-sources").click()
    await user.should_see(marker="trace-dialog")
    await user.should_see("route: rag", marker="trace-route")
    chart = user.find(marker="trace-timeline").elements.pop()
    assert chart.options["yAxis"]["data"] == ["router", "retriever", "generator"]
    table = user.find(marker="trace-candidates").elements.pop()
    assert table.rows[0]["file"] == "notes.md"


async def test_why_these_sources_marks_used_only_what_went_to_the_model(
    user: User, container: Services, page: None
) -> None:
    await add_file(container, "bread.md", b"# Bread\n\nSourdough rises overnight.\n")
    await settled(container, "bread.md")
    container.preferences.update({"top_k": 1})
    llm(container).enqueue("Under the blue flowerpot [1].")
    await user.open("/")
    await ask(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "flowerpot"), what="the answer")
    user.find(marker="why-sources").click()
    await user.should_see(marker="trace-dialog")
    rows = {r["file"]: r["kept"] for r in user.find(marker="trace-candidates").elements.pop().rows}
    assert rows == {"notes.md": "✓ cited [1]", "bread.md": "not in the top 1"}


async def test_settings_apply_live_say_what_needs_a_restart_and_show_the_token(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    user.find(marker="settings").click()
    await user.should_see(marker="settings-dialog")
    await user.should_see(container.token, marker="api-token")
    await user.should_see(marker="copy-token")
    guide = user.find(marker="tools-guide").elements.pop().content
    assert "curl" in guide and "/v1" in guide and "/mcp" in guide
    user.find(marker="setting-top_k").elements.pop().value = 8
    user.find(marker="setting-sentence_order").elements.pop().value = True
    user.find(marker="setting-ollama_host").elements.pop().value = "http://gpu-box:11434"
    user.find(marker="settings-save").click()
    await user.should_see("restart Docent", marker="settings-message")
    assert container.retriever.settings.top_k == 8  # live
    assert container.retriever.settings.sentence_order
    assert container.settings.models.ollama_host != "http://gpu-box:11434"  # after a restart
    saved = (container.settings.paths.data_dir / "preferences.json").read_text()
    assert '"top_k": 8' in saved and "gpu-box" in saved
    user.find(marker="setting-top_k").elements.pop().value = 0
    user.find(marker="settings-save").click()
    # A sentence, not pydantic's "Input should be greater than or equal to 1".
    await user.should_see("Not saved. Top K must be at least 1.", marker="settings-message")
    assert container.retriever.settings.top_k == 8


async def test_a_cited_text_file_opens_with_the_passage_highlighted(
    user: User, container: Services, page: None
) -> None:
    llm(container).enqueue("Under the flowerpot [1].")
    await user.open("/")
    await ask(user, "Where is the spare key?")
    await eventually(lambda: answer_shows(user, "flowerpot"), what="the answer")
    user.find(marker="source").click()
    await user.should_see(marker="viewer")
    text = user.find(marker="viewer-text").elements.pop().content
    assert 'id="docent-passage"' in text and "blue flowerpot" in text


WIKI = """# Keys

<p align="center"><img src="logo.png" alt="Logo"></p>

The <b>spare key</b> is kept by <a href="https://example.org/caretaker">the caretaker</a>
on the first floor.<br>Ask at the desk.
<!-- internal: the old lock -->
<script>steal(document.cookie)</script>

<div class="note">
The back door has its own key.
</div>

Write `<b>` for bold, as in:

```html
<a href="x">a link</a>
```
"""


async def test_a_cited_markdown_file_shows_its_html_as_a_page_would_not_as_tags(
    user: User, container: Services, page: None
) -> None:
    await add_file(container, "wiki.md", WIKI.encode())
    await settled(container, "wiki.md")
    await user.open("/")
    start = WIKI.index("The <b>spare")
    span = {"page_start": start, "page_end": WIKI.index("floor.") + 6}
    span["text"] = WIKI[span["page_start"] : span["page_end"]]
    with user:
        await open_document(documents(container), "wiki.md", None, "", span)
    await user.should_see(marker="viewer")
    html = user.find(marker="viewer-text").elements.pop().content
    shown = text_of(html)
    assert '<mark class="docent-span">' in html and 'id="docent-passage"' in html
    assert "spare key is kept by the caretaker" in " ".join(shown.split())
    assert "The back door has its own key." in shown and "Ask at the desk." in shown
    assert "old lock" not in shown and "logo.png" not in shown and "steal" not in html
    # What is code stays code, tags and all; nothing else shows a tag.
    prose, code = html.split("<pre", 1)
    assert "<code>&lt;b&gt;</code>" in prose and "&lt;" in code and "a link" in code
    prose = prose.replace("<code>&lt;b&gt;</code>", "")
    assert "&lt;" not in prose, prose
    assert "<img" not in html and '<div class="note"' not in html  # nothing the file says


async def test_a_cited_pdf_opens_at_its_page(
    user: User, container: Services, page: None, tmp_path: Path
) -> None:
    pdf = make_pdf(tmp_path / "report.pdf", [f"Page {n}. Revenue was up." for n in range(1, 10)])
    await add_file(container, "report.pdf", pdf.read_bytes(), folder="q3")
    await settled(container, "q3/report.pdf")
    await user.open("/")
    with user:
        await open_document(documents(container), "q3/report.pdf", 4, "Revenue was up.")
    await user.should_see("page 4", marker="viewer-page")
    frame = user.find(marker="viewer-pdf").elements.pop()
    assert frame.props["data-page"] == "4"
    assert frame.props["data-passage"] == "Revenue was up."  # what it marks on the page
    # The viewer loads the file once from a single-use URL the window serves in process.
    url = frame.props["data-src"]
    assert url.startswith("/_docent/pdf/") and url.endswith("/report.pdf")
    served = await user.http_client.get(url)
    assert served.status_code == 200 and served.content == pdf.read_bytes()
    assert served.headers["content-type"] == "application/pdf"
    assert served.headers["content-disposition"].startswith('inline; filename="report.pdf"')
    assert "accept-ranges" not in served.headers  # one request: no second one to refuse
    again = await user.http_client.get(url)
    assert again.status_code == 404 and "has been used" in again.text


async def test_a_pdf_linked_from_outside_the_folder_is_not_served(
    user: User, container: Services, page: None, tmp_path: Path
) -> None:
    outside = make_pdf(tmp_path / "secret.pdf", ["Not in the library."])
    pdf = make_pdf(tmp_path / "plan.pdf", ["The plan."])
    await add_file(container, "plan.pdf", pdf.read_bytes())
    await settled(container, "plan.pdf")
    (container.settings.paths.docs_dir / "plan.pdf").unlink()
    (container.settings.paths.docs_dir / "plan.pdf").symlink_to(outside)
    await user.open("/")
    with user:
        await open_document(documents(container), "plan.pdf", 1, "The plan.")
    await user.should_see(marker="viewer-error")
    assert "outside the documents folder" in contents(user, "viewer-error")[0]
    await user.should_not_see(marker="viewer-pdf")


async def test_a_cited_picture_opens_as_a_picture_and_a_tiff_at_its_frame(
    user: User, container: Services, page: None, tmp_path: Path
) -> None:
    note = tmp_path / "note.png"
    page_image(["A photographed note."], size=(800, 200)).save(note)
    fax = tiff(
        tmp_path / "fax.tif", [page_image([f"Frame {n}."], size=(600 + n, 200)) for n in (1, 2)]
    )
    await add_file(container, "note.png", note.read_bytes())
    await add_file(container, "fax.tif", fax.read_bytes())
    await settled(container, "note.png", timeout=180)  # read by OCR
    await settled(container, "fax.tif", timeout=180)  # read by OCR
    await user.open("/")
    with user:
        await open_document(documents(container), "note.png", 1, "A photographed note.")
    image = user.find(marker="viewer-image").elements.pop()
    served = await user.http_client.get(image.props["src"])
    assert served.content == note.read_bytes() and served.headers["content-type"] == "image/png"
    with user:
        await open_document(documents(container), "fax.tif", 2, "Frame 2.")
    drawn = [e for e in user.find(marker="viewer-image").elements if "data:" in e.props["src"]]
    png = base64.b64decode(drawn[0].props["src"].split(",", 1)[1])
    assert Image.open(io.BytesIO(png)).size == (602, 200)  # the second frame, as PNG


async def test_a_cited_sheet_opens_named_with_its_rows_and_the_passage_marked(
    user: User, container: Services, page: None, tmp_path: Path
) -> None:
    book = workbook(
        tmp_path / "ship.xlsx",
        {
            "Crew": [["Name", "Role"], ["Ada Brennan", "skipper"]],
            "Cargo": [["Item", "Hold"], ["Lamp oil", "A"], ["Copper wire", "C"]],
        },
    )
    await add_file(container, "ship.xlsx", book.read_bytes())
    await settled(container, "ship.xlsx")
    await user.open("/")
    with user:
        await open_document(documents(container), "ship.xlsx", 2, "Item: Copper wire; Hold: C")
    await user.should_see("sheet 2: Cargo", marker="viewer-page")
    text = user.find(marker="viewer-text").elements.pop().content
    assert "Item: Lamp oil; Hold: A" in text  # the sheet's rows, as they were indexed
    assert '<mark id="docent-passage">Item: Copper wire; Hold: C</mark>' in text
    assert "Ada Brennan" not in text  # the other sheet


@pytest.fixture
async def ollama_app(
    tmp_path: Path, ollama_server: FakeOllamaServer
) -> AsyncIterator[tuple[Services, FakeOllamaServer]]:
    """The app against the fake Ollama server, with only llama3.2 installed."""
    ollama_server.models = ["llama3.2:latest"]
    settings = Settings(data_dir=tmp_path / "data", ollama_host=ollama_server.url)
    built = build_services(
        settings, llm=OllamaChat(ollama_server.url, "qwen2.5:7b"), embedder=FakeEmbedder()
    )
    await built.start(watch=False)
    ui.page("/")(lambda: ChatPage(built, new_access(built.settings, built.token)))
    yield built, ollama_server
    await built.stop()


async def test_a_missing_model_is_pulled_with_progress_then_chosen(
    user: User, ollama_app: tuple[Services, FakeOllamaServer]
) -> None:
    app, server = ollama_app
    await app.health.check_now()
    await user.open("/")
    await user.should_see("ollama pull qwen2.5:7b", marker="banner-text")
    user.find(marker="banner-pull").click()
    await user.should_see(marker="pull-dialog")
    assert user.find(marker="pull-name").elements.pop().value == "qwen2.5:7b"
    user.find(marker="pull-start").click()
    await user.should_see("qwen2.5:7b is ready.", marker="pull-status", retries=50)
    assert user.find(marker="pull-progress").elements.pop().value == 1.0
    assert ("/api/pull", {"model": "qwen2.5:7b", "insecure": False, "stream": True}) in [
        (path, body) for path, body in server.requests if path == "/api/pull"
    ]
    await user.should_not_see(marker="banner-model_missing", retries=50)


async def test_the_model_picker_lists_ollamas_models_and_switches(
    user: User, ollama_app: tuple[Services, FakeOllamaServer]
) -> None:
    app, server = ollama_app
    # Ollama lists a model under both names at times, and embedding models beside the rest.
    server.models += ["llama3.2", "nomic-embed-text:latest"]
    await app.health.check_now()
    await user.open("/")
    await eventually(
        lambda: _texts(user, "model-details") == ["2.0 GB · 3.2B · Q4_K_M"], what="sizes"
    )
    options = _texts(user, "model-option")
    assert options == ["   llama3.2"]  # once, without its :latest; no embedding model
    assert _texts(user, "embed-option") == ["nomic-embed-text"]  # apart, not choosable
    shown = [path for path, _ in server.requests if path == "/api/show"]
    assert len(shown) >= 3  # capabilities asked of each model Ollama listed
    user.find(marker="model-llama3.2").click()
    await user.should_see("llama3.2", marker="model")
    assert app.llm.model == "llama3.2"
    await eventually(
        lambda: all(p.kind != "model_missing" for p in app.health.report.problems),
        what="the missing-model banner to clear",
    )
    assert app.settings.models.chat_model == "llama3.2"  # what a restart answers with
    # Settings offers the same chat models: the embedding model only as an embedder.
    user.find(marker="settings").click()
    await user.should_see(marker="settings-dialog")
    chat = user.find(marker="setting-chat_model").elements.pop()
    assert "nomic-embed-text" not in chat.props["options"] and "llama3.2" in str(chat.props)
    embed = user.find(marker="setting-embed_model").elements.pop()
    assert "nomic-embed-text" in str(embed.props["options"])


async def test_pull_starts_with_enter_and_shows_size_and_speed(
    user: User, ollama_app: tuple[Services, FakeOllamaServer]
) -> None:
    app, server = ollama_app
    await app.health.check_now()
    await user.open("/")
    user.find(marker="pull-model").click()
    await user.should_see(marker="pull-dialog")
    user.find(marker="pull-name").type("mistral").trigger("keydown.enter")
    await user.should_see("mistral is ready.", marker="pull-status", retries=50)
    await user.should_see("4 MB of 4 MB", marker="pull-meter")
    assert [b["model"] for p, b in server.requests if p == "/api/pull"] == ["mistral"]


def _texts(user: User, marker: str) -> list[str]:
    """The labels inside each element with ``marker``, joined, in page order."""
    out = []
    with user:
        found = list(ElementFilter(marker=marker))
    for element in found:
        inner = [e for e in element.descendants() if "caption" not in e.props]
        text = " ".join(str(e.text) for e in [element, *inner] if getattr(e, "text", ""))
        out.append(text)
    return out


class _ReRankerOff:
    """A reranker whose model could not be loaded (``FlashRankReranker.problem``)."""

    problem = "The reranking model is not installed; run `uv run run.py ingest` online once."

    def rerank(self, query: str, passages: list[str]) -> list[float]:
        raise RuntimeError(self.problem)


async def test_a_reranker_that_is_off_is_a_line_in_settings_not_a_banner(
    tmp_path: Path, user: User
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    built = build_services(
        settings, llm=FakeChatModel(), embedder=FakeEmbedder(), reranker=_ReRankerOff()
    )
    await built.start(watch=False)
    try:
        ui.page("/")(lambda: ChatPage(built, new_access(built.settings, built.token)))
        await built.health.check_now()
        assert any(p.kind == "reranker_unavailable" for p in built.health.report.problems)
        await user.open("/")
        await user.should_see(marker="banners")
        await user.should_not_see(marker="banner-text")
        user.find(marker="settings").click()
        await user.should_see("Reranking is off: ", marker="reranking-status")
    finally:
        await built.stop()


async def test_the_theme_follows_the_system_then_light_then_dark(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    dark = user.find(kind=ui.dark_mode).elements.pop()
    assert dark.value is None  # follows the system
    user.find(marker="theme").click()
    assert dark.value is False
    user.find(marker="theme").click()
    assert dark.value is True
    user.find(marker="theme").click()
    assert dark.value is None
