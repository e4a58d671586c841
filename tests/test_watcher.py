"""Watcher: real file-system events through watchdog into the indexer."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ingest.document_parts import DocStatus
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.watcher import FolderWatcher
from tests.ingest_parts import IngestParts, ingest_parts
from tests.pdfs import make_pdf
from tests.running import eventually


@dataclass
class Rig(IngestParts):
    indexer: Indexer
    watcher: FolderWatcher

    def paths(self) -> list[str]:
        return [record.path for record in self.registry.list()]

    def texts(self, query: str) -> list[str]:
        return [hit.chunk.text for hit in self.store.search(query, k=10)]

    async def quiet(self, name: str = "zz-sentinel.txt") -> None:
        """Wait until everything written so far has been handled: a file written last is
        seen last, its debounce ends last, so once it is indexed and the indexer idle,
        no earlier write can still come."""
        (self.docs / name).write_text(f"Sentinel {name}.")
        await eventually(lambda: self.status(name) == DocStatus.READY, what=f"{name} indexed")
        await asyncio.wait_for(self.indexer.wait_idle(), 60)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    with ingest_parts(tmp_path) as parts:
        indexer = Indexer(
            parts.docs,
            parts.registry,
            [parts.store],
            parts.embedder,
            options=IndexOptions(settle_seconds=0.05),
        )
        watcher = FolderWatcher(parts.docs, indexer, asyncio.get_running_loop(), debounce=0.2)
        await indexer.start()
        watcher.start()
        yield Rig(parts.docs, parts.registry, parts.store, parts.embedder, indexer, watcher)
        watcher.stop()
        await indexer.stop()


async def test_created_file_is_indexed(rig: Rig) -> None:
    make_pdf(rig.docs / "new.pdf", ["Walruses rest on ice floes.", "Narwhals have tusks."])

    await eventually(lambda: rig.status("new.pdf") == DocStatus.READY)

    assert rig.store.search("narwhals tusks", k=1)[0].chunk.page == 2


async def test_modified_file_replaces_its_old_content(rig: Rig) -> None:
    path = rig.docs / "notes.txt"
    path.write_text("The meeting is about aardvarks.")
    await eventually(lambda: "aardvarks" in " ".join(rig.texts("aardvarks")))

    path.write_text("The meeting is about porcupines.")

    await eventually(lambda: "porcupines" in " ".join(rig.texts("porcupines")))
    await eventually(lambda: rig.status("notes.txt") == DocStatus.READY)
    assert not any("aardvarks" in text for text in rig.texts("aardvarks meeting"))


async def test_renamed_file_moves_in_the_index(rig: Rig) -> None:
    (rig.docs / "draft.md").write_text("# Plan\n\nBuild the lighthouse.")
    await eventually(lambda: rig.status("draft.md") == DocStatus.READY)

    (rig.docs / "final.md").unlink(missing_ok=True)
    (rig.docs / "draft.md").rename(rig.docs / "final.md")

    await eventually(lambda: rig.paths() == ["final.md"])
    await eventually(lambda: rig.status("final.md") == DocStatus.READY)
    assert rig.store.search("lighthouse", k=1)[0].chunk.path == "final.md"


async def test_deleted_file_leaves_the_index(rig: Rig) -> None:
    (rig.docs / "temp.txt").write_text("Short lived hedgehog notes.")
    await eventually(lambda: rig.status("temp.txt") == DocStatus.READY)

    (rig.docs / "temp.txt").unlink()

    await eventually(lambda: rig.paths() == [])
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)  # unused chunks go once the library is idle
    assert rig.store.count() == 0


async def test_atomic_save_is_an_update(rig: Rig) -> None:
    path = rig.docs / "essay.txt"
    path.write_text("First draft about kangaroos.")
    await eventually(lambda: rig.status("essay.txt") == DocStatus.READY)

    # What many editors do: write a temporary file, then rename it over the original.
    temp = rig.docs / ".essay.txt.swp"
    temp.write_text("Second draft about wombats.")
    os.replace(temp, path)

    await eventually(lambda: "wombats" in " ".join(rig.texts("wombats")))
    assert rig.paths() == ["essay.txt"]
    assert not any("kangaroos" in text for text in rig.texts("kangaroos draft"))


async def test_burst_of_writes_is_indexed_once(rig: Rig) -> None:
    path = rig.docs / "burst.txt"
    for i in range(10):
        path.write_text(f"version {i} of the burst file")
        await asyncio.sleep(0.01)

    await eventually(lambda: rig.status("burst.txt") == DocStatus.READY)
    await rig.quiet()  # a stray second run would have come by now

    burst_calls = [call for call in rig.embedder.calls if any("burst" in t for t in call)]
    assert len(burst_calls) == 1
    assert "version 9" in burst_calls[0][0]


async def test_folder_moved_in_and_deleted(rig: Rig, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "inner").mkdir(parents=True)
    (outside / "a.txt").write_text("Folder file about otters.")
    (outside / "inner" / "b.txt").write_text("Nested file about beavers.")

    shutil.move(str(outside), str(rig.docs / "project"))

    await eventually(lambda: rig.paths() == ["project/a.txt", "project/inner/b.txt"])
    await eventually(lambda: rig.indexer.queued == 0)
    assert {rig.status(p) for p in rig.paths()} == {DocStatus.READY}

    shutil.rmtree(rig.docs / "project")

    await eventually(lambda: rig.paths() == [])
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)  # unused chunks go once the library is idle
    assert rig.store.count() == 0


async def test_folder_moved_out_of_the_tree(rig: Rig, tmp_path: Path) -> None:
    (rig.docs / "old").mkdir()
    (rig.docs / "old" / "x.txt").write_text("Archived notes on lemurs.")
    (rig.docs / "keep.txt").write_text("Kept notes on lynxes.")
    await eventually(lambda: rig.status("old/x.txt") == rig.status("keep.txt") == DocStatus.READY)

    shutil.move(str(rig.docs / "old"), str(tmp_path / "archive"))

    await eventually(lambda: rig.paths() == ["keep.txt"])


async def test_temporary_and_hidden_files_are_ignored(rig: Rig) -> None:
    for name in ["~$draft.md", "download.pdf.crdownload", "x.tmp", ".hidden.txt"]:
        (rig.docs / name).write_text("ignore me")
    (rig.docs / "real.txt").write_text("a real file")

    await eventually(lambda: rig.status("real.txt") == DocStatus.READY)
    await rig.quiet()
    assert rig.paths() == ["real.txt", "zz-sentinel.txt"]


async def test_stop_is_quiet_and_idempotent(rig: Rig) -> None:
    assert rig.watcher.running
    rig.watcher.stop()
    rig.watcher.stop()
    assert not rig.watcher.running and rig.watcher.stopped_cleanly  # nothing can come now
    (rig.docs / "after.txt").write_text("written after the watcher stopped")
    assert rig.paths() == [] and rig.indexer.queued == 0


def _embedded(rig: Rig) -> list[str]:
    return [text for call in rig.embedder.calls for text in call]


async def test_same_bytes_touch_embeds_nothing(rig: Rig) -> None:
    path = rig.docs / "steady.txt"
    path.write_text("Steady notes about ospreys.")
    await eventually(lambda: rig.status("steady.txt") == DocStatus.READY)
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)
    calls = len(rig.embedder.calls)
    before = path.stat().st_mtime_ns

    path.touch()
    path.write_text("Steady notes about ospreys.")  # same bytes, new mtime

    record = lambda: rig.registry.get_by_path("steady.txt")  # noqa: E731
    await eventually(lambda: (record() or before).mtime_ns != before)  # type: ignore[union-attr]
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)
    assert len(rig.embedder.calls) == calls
    assert rig.status("steady.txt") == DocStatus.READY


async def test_rename_and_moves_between_subfolders_embed_nothing(rig: Rig) -> None:
    (rig.docs / "a").mkdir()
    (rig.docs / "a" / "plan.md").write_text("# Plan\n\nBuild the lighthouse.")
    await eventually(lambda: rig.status("a/plan.md") == DocStatus.READY)
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)
    calls = len(rig.embedder.calls)

    (rig.docs / "a" / "plan.md").rename(rig.docs / "a" / "final.md")
    await eventually(lambda: rig.paths() == ["a/final.md"])
    (rig.docs / "b" / "c").mkdir(parents=True)
    (rig.docs / "a" / "final.md").rename(rig.docs / "b" / "c" / "final.md")  # deeper
    await eventually(lambda: rig.paths() == ["b/c/final.md"])
    (rig.docs / "b" / "c" / "final.md").rename(rig.docs / "top.md")  # back out to the top
    await eventually(lambda: rig.paths() == ["top.md"])
    await eventually(lambda: rig.status("top.md") == DocStatus.READY)
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)

    assert len(rig.embedder.calls) == calls
    hit = rig.store.search("lighthouse", k=1)[0]
    assert (hit.chunk.path, hit.paths) == ("top.md", ("top.md",))


async def test_file_moved_in_from_outside_and_out_again(rig: Rig, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("Notes about tapirs from outside.")
    shutil.move(str(outside), str(rig.docs / "tapirs.txt"))
    await eventually(lambda: rig.status("tapirs.txt") == DocStatus.READY)

    shutil.move(str(rig.docs / "tapirs.txt"), str(tmp_path / "gone.txt"))

    await eventually(lambda: rig.paths() == [])
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)
    assert rig.store.count() == 0


async def test_duplicate_content_is_embedded_once(rig: Rig) -> None:
    text = "Identical notes about quokkas."
    (rig.docs / "one.txt").write_text(text)
    await eventually(lambda: rig.status("one.txt") == DocStatus.READY)
    shutil.copy(rig.docs / "one.txt", rig.docs / "two.txt")

    await eventually(lambda: rig.status("two.txt") == DocStatus.READY)
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)

    # Once, behind the title of the copy indexed first (the chunk's context).
    assert [t for t in _embedded(rig) if text in t] == [f"one: {text}"]
    assert rig.store.search("quokkas", k=1)[0].paths == ("one.txt", "two.txt")


async def test_burst_of_200_files(rig: Rig) -> None:
    for i in range(200):
        (rig.docs / f"burst{i:03}.txt").write_text(f"File {i} of the burst, about item {i}.")

    await eventually(lambda: len(rig.paths()) == 200, timeout=60, what="200 rows")
    await eventually(
        lambda: all(r.status == DocStatus.READY for r in rig.registry.list()),
        timeout=120,
        what="200 files ready",
    )
    await asyncio.wait_for(rig.indexer.wait_idle(), 60)
    assert len(_embedded(rig)) == 200  # each file embedded once
    assert (await rig.indexer.check()).differences() == []


async def test_a_file_closed_after_writing_skips_the_debounce(tmp_path: Path) -> None:
    with ingest_parts(tmp_path) as parts:
        indexer = Indexer(parts.docs, parts.registry, [parts.store], parts.embedder)
        # A debounce no test waits out: only the close (or rename) can get the file queued.
        watcher = FolderWatcher(parts.docs, indexer, asyncio.get_running_loop(), debounce=600)
        await indexer.start()
        watcher.start()
        try:
            (parts.docs / "saved.txt").write_text("Puffins nest in burrows on the cliffs.")
            staged = parts.docs / ".moved-in.txt.tmp"  # an atomic save: a hidden temp file,
            staged.write_text("Gannets dive from thirty metres.")
            staged.rename(parts.docs / "moved-in.txt")  # renamed over the real name

            await eventually(
                lambda: (
                    parts.status("saved.txt") == DocStatus.READY
                    and parts.status("moved-in.txt") == DocStatus.READY
                ),
                what="the closed and the renamed file to be indexed",
            )
        finally:
            watcher.stop()
            await indexer.stop()
