"""The library in the drawer: live status from the service's events, progress, file actions."""

from __future__ import annotations

from pathlib import Path

from nicegui.elements.upload_files import SmallFileUpload
from nicegui.testing import User

from app.container import Container
from tests.pdfs import make_pdf
from tests.running import eventually
from tests.ui_parts import contents, documents


async def test_live_status_pages_done_error_reason_and_progress(
    user: User, container: Container, page: None
) -> None:
    docs = documents(container)
    await user.open("/")
    await user.should_see("notes.md", marker="document-name", retries=40)
    docs.put("big/handbook.pdf", "indexing", pages=117, pages_done=3, pages_total=117)
    docs.put("locked.pdf", "error", error="The PDF is encrypted.")
    await user.should_see("Indexing · page 3 of 117", marker="document-detail", retries=40)
    await user.should_see(
        "The PDF is encrypted. Remove the password", marker="document-detail", retries=40
    )
    await user.should_see(marker="library-progress", retries=40)
    docs.put("big/handbook.pdf", "indexing", pages=117, pages_done=60, pages_total=117)
    await user.should_see("Indexing · page 60 of 117", marker="document-detail", retries=40)
    docs.put("big/handbook.pdf", "ready", pages=117, chunks=400)
    await user.should_see("117 pages · 400 chunks", marker="document-detail", retries=40)
    await user.should_not_see(marker="library-progress", retries=40)
    await user.should_see("big", marker="folder")  # grouped by folder


async def test_search_and_sort(user: User, container: Container, page: None) -> None:
    docs = documents(container)
    docs.put("alpha.pdf", "error", error="Unreadable.")
    docs.put("zeta.md")
    await user.open("/")
    user.find(marker="by-folder").click()
    user.find(marker="sort-status").click()
    await eventually(lambda: contents(user, "document-name")[0] == "alpha.pdf", what="errors first")
    user.find(marker="document-search").type("zet")
    await eventually(lambda: contents(user, "document-name") == ["zeta.md"], what="search")


async def test_delete_asks_first_then_removes(user: User, container: Container, page: None) -> None:
    docs = documents(container)
    await user.open("/")
    user.find(marker="document-delete").click()
    await user.should_see(marker="delete-dialog", retries=40)
    assert docs.removed == []
    user.find(marker="confirm-delete").click()
    await eventually(lambda: docs.removed == ["notes.md"], what="the delete")
    await user.should_see(marker="no-documents", retries=40)


async def test_reindex_and_mention_from_the_list(
    user: User, container: Container, page: None
) -> None:
    docs = documents(container)
    await user.open("/")
    user.find(marker="document-reindex").click()
    await eventually(lambda: docs.reindexed == [docs.list()[0].id], what="the reindex")
    user.find(marker="document-mention").click()
    box = user.find(marker="message-input").elements.pop()
    assert box.value == '@"notes.md" '


async def test_first_start_says_how_to_begin_and_adding_a_file_indexes_it(
    user: User, container: Container, page: None, tmp_path: Path
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
    await user.should_see("2 pages · 6 chunks", marker="document-detail", retries=40)
    assert (container.settings.docs_dir / "report.pdf").read_bytes() == pdf.read_bytes()
    await user.should_not_see(marker="first-start", retries=40)


async def test_a_refused_file_says_why(user: User, container: Container, page: None) -> None:
    await user.open("/")
    uploader = user.find(marker="uploader").elements.pop()
    await uploader.handle_uploads([SmallFileUpload("tool.exe", "application/x-binary", b"MZ")])
    await user.should_see("tool.exe", retries=40)
    assert not (container.settings.docs_dir / "tool.exe").exists()
