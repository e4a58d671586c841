"""The library in the drawer, over the real DocumentService and pipeline: live status from
its events, overall progress, and the file actions."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest
from nicegui.elements.upload_files import SmallFileUpload
from nicegui.testing import User

from app.container import Services
from ingest.pipeline.progress import IngestEvent
from tests.fakes.embedder import GatedEmbedder
from tests.pdfs import make_pdf
from tests.running import eventually
from tests.ui_parts import add_file, contents, documents, embedder, settled
from ui.library.panel import Library

PAGES = 60


def long_pdf(path: Path) -> bytes:
    """A PDF whose pages make about three 200-character chunks each: several batches."""
    text = "The handbook says the office opens at nine and closes at five. " * 9
    return make_pdf(path, [f"Page {n}. {text}" for n in range(1, PAGES + 1)]).read_bytes()


def shown(user: User, pattern: str) -> bool:
    return any(re.search(pattern, text) for text in contents(user, "document-detail"))


async def hold_the_handbook(
    user: User, container: Services, tmp_path: Path, folder: str | None = None
) -> GatedEmbedder:
    """Open the window, then add a long PDF whose chunk batches each wait for the test;
    returns the gate once the window shows the PDF started."""
    gate = embedder(container)
    await user.open("/")
    await user.should_see("notes.md", marker="document-name", retries=40)
    gate.hold()  # each batch of chunks now waits for the test
    await add_file(container, "handbook.pdf", long_pdf(tmp_path / "handbook.pdf"), folder)
    await eventually(lambda: shown(user, rf"^Indexing · 0 of {PAGES} pages$"), what="started")
    return gate


async def test_live_status_pages_done_error_reason_and_progress(
    user: User, container: Services, page: None, tmp_path: Path
) -> None:
    gate = await hold_the_handbook(user, container, tmp_path, "big")
    locked = make_pdf(tmp_path / "locked.pdf", ["Secret."], user_password="pw").read_bytes()
    await add_file(container, "locked.pdf", locked)
    await eventually(lambda: gate.waiting == 1, what="the first batch at the gate")
    await user.should_see(marker="library-progress", retries=40)
    gate.release()
    pattern = rf"^Indexing · [1-9]\d* of {PAGES} pages · [1-9]\d* chunks$"
    await eventually(lambda: shown(user, pattern), what="pages done after one batch")
    first = len(gate.calls[-1])  # a batch is what the loader had ready, up to 64 chunks
    assert shown(user, rf"^Indexing · [1-9]\d* of {PAGES} pages · {first} chunks$")
    await eventually(lambda: shown(user, r"^Password-protected PDF: remove the password"))
    # No row says "0 chunks" (a batch of 30 chunks says "30 chunks", which is fine).
    assert not re.search(r"(?<!\d)0 chunks", " ".join(contents(user, "document-detail")))
    bar = user.find(marker="library-progress").elements.pop()
    assert 0 < bar.value < 1  # the error counts as done, the handbook is part way
    line = contents(user, "library-progress-text")[0]
    assert re.match(rf"^1 of 2 files done · 1 failed · {first} chunks written", line), line
    gate.open()
    await eventually(lambda: shown(user, rf"^{PAGES} pages · \d+ chunks$"), what="ready")
    await user.should_not_see(marker="library-progress", retries=40)
    await user.should_see("big", marker="folder")  # grouped by folder


async def test_a_status_change_updates_its_row_instead_of_redrawing_the_list(
    user: User, container: Services, page: None, tmp_path: Path
) -> None:
    gate = await hold_the_handbook(user, container, tmp_path)
    before = {row.props["data-path"]: row for row in user.find(marker="document").elements}
    gate.open()
    await eventually(lambda: shown(user, rf"^{PAGES} pages · \d+ chunks$"), what="ready")

    after = {row.props["data-path"]: row for row in user.find(marker="document").elements}
    assert set(after) == {"handbook.pdf", "notes.md"}
    # The very same rows, changed in place: rebuilding hundreds of rows per event kept
    # the event loop from serving anything else.
    assert all(after[path] is row for path, row in before.items())
    assert after["handbook.pdf"].props["data-status"] == "ready"


async def test_search_and_sort(user: User, container: Services, page: None) -> None:
    # "Newest first" is the latest change in the library (added, indexed, failed): alpha.pdf
    # must be done failing before zeta.md comes, or its late error makes it the newest.
    await add_file(container, "alpha.pdf", b"this is not a PDF at all")
    await settled(container, "alpha.pdf", "error")
    await add_file(container, "zeta.md", b"# Zeta\n\nLast in the alphabet.\n")
    await settled(container, "zeta.md")
    await user.open("/")
    await user.should_see("Not a PDF", marker="document-detail", retries=40)
    assert contents(user, "document-name") == ["alpha.pdf", "notes.md", "zeta.md"]
    user.find(marker="by-folder").click()
    user.find(marker="sort-recent").click()
    await eventually(lambda: contents(user, "document-name")[0] == "zeta.md", what="newest first")
    user.find(marker="sort-status").click()
    await eventually(lambda: contents(user, "document-name")[0] == "alpha.pdf", what="errors first")
    user.find(marker="document-search").type("zet")
    await eventually(lambda: contents(user, "document-name") == ["zeta.md"], what="search")


async def test_delete_asks_first_then_removes(user: User, container: Services, page: None) -> None:
    await user.open("/")
    user.find(marker="document-delete").click()
    await user.should_see(marker="delete-dialog", retries=40)
    assert (container.settings.paths.docs_dir / "notes.md").exists()  # nothing before the answer
    user.find(marker="confirm-delete").click()
    await user.should_see(marker="no-documents", retries=40)
    assert not (container.settings.paths.docs_dir / "notes.md").exists()
    assert documents(container).list() == []
    assert container.registry.ready_paths() == []


async def test_reindex_and_mention_from_the_list(
    user: User, container: Services, page: None
) -> None:
    docs = documents(container)
    # The first indexing must be over, or its own "ready" would pass for the reindex's.
    await eventually(
        lambda: [d.status for d in docs.list() if d.path == "notes.md"] == ["ready"],
        what="notes.md indexed first",
    )
    seen: list[IngestEvent] = []
    docs.subscribe(seen.append)
    await user.open("/")
    user.find(marker="document-reindex").click()

    def reindexed() -> bool:
        # The first indexing's own "ready" may still be on its way to the loop when we
        # subscribe, so only a "ready" after a "started" counts; a reindex that skipped
        # the file (no "started") never passes.
        kinds = [e.kind for e in seen if e.path == "notes.md"]
        return "started" in kinds and "ready" in kinds[kinds.index("started") :]

    await eventually(reindexed, what="notes.md indexed again, from scratch")
    user.find(marker="document-mention").click()
    await user.should_see("notes.md", marker="picked-file")  # a chip in the message box
    box = user.find(marker="message-input").elements.pop()
    assert box.value == ""


async def test_first_start_says_how_to_begin_and_adding_a_file_indexes_it(
    user: User, container: Services, page: None, tmp_path: Path
) -> None:
    docs = documents(container)
    await docs.remove(docs.list()[0].id)
    await user.open("/")
    await user.should_see(marker="first-start", retries=40)
    await user.should_see(marker="first-start-add", retries=40)
    pdf = make_pdf(tmp_path / "report.pdf", ["Page one text.", "Page two text."])
    uploader = user.find(marker="uploader").elements.pop()
    upload = SmallFileUpload("report.pdf", "application/pdf", pdf.read_bytes())
    await uploader.handle_uploads([upload])
    user.find(marker="uploader").trigger("finish")  # what the browser says after the last file
    await eventually(lambda: shown(user, r"^2 pages · \d+ chunks?$"), what="report.pdf ready")
    assert (container.settings.paths.docs_dir / "report.pdf").read_bytes() == pdf.read_bytes()
    await user.should_not_see(marker="first-start", retries=40)
    assert "report.pdf" in container.registry.ready_paths()  # searchable, not just listed


async def test_a_refused_file_says_why(user: User, container: Services, page: None) -> None:
    await user.open("/")
    uploader = user.find(marker="uploader").elements.pop()
    await uploader.handle_uploads([SmallFileUpload("tool.exe", "application/x-binary", b"MZ")])
    user.find(marker="uploader").trigger("finish")
    await user.should_see("Docent cannot read .exe files", retries=40)
    assert not (container.settings.paths.docs_dir / "tool.exe").exists()


async def test_a_file_the_chooser_or_a_drop_refuses_for_its_type_is_named(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    user.find(marker="uploader").trigger("rejected", ["plan.dwg"])
    await user.should_see("plan.dwg: Docent cannot read .dwg files", retries=40)
    await user.should_see(".pdf, .png, .pptx", retries=5)  # and what it does read


async def test_an_upload_into_a_folder_stays_inside_the_documents_folder(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    with user:
        user.find(marker="uploader")  # the page is built
    await add_file(container, "minutes.md", b"# Minutes\n\nWe met.\n", folder="team/2024")
    await settled(container, "team/2024/minutes.md")
    await user.should_see("team/2024", marker="folder", retries=40)
    assert (container.settings.paths.docs_dir / "team" / "2024" / "minutes.md").exists()


async def test_several_files_give_one_summary_at_the_top(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    uploader = user.find(marker="uploader").elements.pop()
    files = [SmallFileUpload(f"n{i}.md", "text/markdown", b"# N\n\nText.\n") for i in range(3)]
    files.append(SmallFileUpload("photo.xyz", "application/x-binary", b"\x00"))
    await uploader.handle_uploads(files)
    user.find(marker="uploader").trigger("finish")
    await eventually(lambda: len(_toasts(user)) == 1, what="one summary toast")
    (message,) = _toasts(user)
    assert message.startswith("Added 3 files; indexing them now.\n1 not added:\n")
    assert "Docent cannot read .xyz files. It reads " in message


def _toasts(user: User) -> list[str]:
    return [m for m in user.notify.messages if "Added" in m or "not added" in m]


async def test_a_redraw_timed_before_shutdown_reads_no_closed_store(
    user: User,
    container: Services,
    page: None,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fired: list[None] = []
    redraw_now = Library._redraw_now

    def counted(self: Library) -> None:
        fired.append(None)
        redraw_now(self)

    # Waiting for the timed redraw itself, not a guess at its delay (which grows with
    # how long the last redraw took on this machine).
    monkeypatch.setattr(Library, "_redraw_now", counted)
    await user.open("/")
    await user.should_see("notes.md", marker="document-name", retries=40)
    # An event times a redraw; the stores shut before it is due, as at the app's exit.
    container.indexer.events.publish(IngestEvent(kind="removed", path="gone.md", doc_id="x"))
    container.registry.close()
    await eventually(lambda: bool(fired), what="the timed redraw ran")
    await asyncio.sleep(0)  # an error in it is logged by the loop after it returns
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
