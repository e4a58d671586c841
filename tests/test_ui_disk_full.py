"""The window while the data dir's disk is full: the library says indexing waits, names
the disk and the fix, and the file is indexed once the disk has room again.

The data dir is a small tmpfs (tests/small_disk.py): it needs root to mount (CI runs as
root), and the test is skipped elsewhere.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from nicegui.testing import User

from app.container import Services, build_services
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import GatedEmbedder
from tests.running import eventually
from tests.small_disk import SmallDisk, small_disk
from tests.ui_parts import NOTES, add_file, contents, settled


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[SmallDisk]:
    with small_disk(tmp_path / "data", 64) as mounted:
        yield mounted


@pytest.fixture
async def container(tmp_path: Path, disk: SmallDisk) -> AsyncIterator[Services]:
    """The app (its data dir on the small disk, its documents folder not) with notes.md."""
    docs = tmp_path / "documents"
    docs.mkdir()
    (docs / "notes.md").write_text(NOTES, encoding="utf-8")
    settings = Settings(data_dir=disk.path, docs=docs, chunk_size=200, chunk_overlap=0)
    built = build_services(settings, llm=FakeChatModel(), embedder=GatedEmbedder())
    built.indexer.space.retry_seconds = 0.2
    await built.start(watch=False)
    await eventually(lambda: bool(built.registry.ready_paths()), what="notes.md indexed")
    yield built
    await built.stop()


async def test_the_library_says_why_indexing_waits_until_the_disk_has_room(
    user: User, container: Services, page: None, disk: SmallDisk
) -> None:
    await user.open("/")
    await user.should_see("notes.md", marker="document-name", retries=40)
    disk.fill(leave=256 << 10)
    tides = b"# Tides\n\n" + b"The tide tables are printed every spring. " * 8_000
    await add_file(container, "tides.md", tides)
    await user.should_see(marker="library-disk-full", retries=80)
    (notice,) = contents(user, "library-disk-full")
    assert notice.startswith("Indexing waits. The disk holding ")
    assert str(disk.path) in notice and "Free some space" in notice
    statuses = {doc.path: doc.status for doc in container.documents.list()}
    assert statuses == {"notes.md": "ready", "tides.md": "queued"}

    disk.free()
    await settled(container, "tides.md", timeout=60)
    await user.should_not_see(marker="library-disk-full", retries=40)
