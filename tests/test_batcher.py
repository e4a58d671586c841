"""Cross-file embedding: files in flight share calls, get their own vectors, fail alone."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from ingest.document_parts import DocStatus
from ingest.pipeline.batcher import EmbedBatcher
from ingest.pipeline.index_options import IndexOptions
from ingest.pipeline.indexer import Indexer
from tests.fakes.embedder import FakeEmbedder
from tests.ingest_parts import ingest_parts

LONG = 60.0
"""A linger no test reaches: windows close because every file asked, never on a clock."""


class PoisonEmbedder(FakeEmbedder):
    """Refuses any call that contains a text with POISON in it."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if any("POISON" in text for text in texts):
            self.calls.append(list(texts))
            raise ValueError("cannot embed this text")
        return super().embed(texts)


def _in_threads(batcher: EmbedBatcher, jobs: dict[str, list[str]]) -> dict[str, object]:
    """Each job embeds its texts from its own thread, as a file in flight; result or error."""
    results: dict[str, object] = {}
    flights = [batcher.producing() for _ in jobs]
    for flight in flights:  # every file is in flight before any of them asks
        flight.__enter__()

    def run(name: str, texts: list[str], flight: AbstractContextManager[None]) -> None:
        try:
            results[name] = batcher.embed(texts)
        except Exception as exc:
            results[name] = exc
        finally:
            flight.__exit__(None, None, None)

    threads = [
        threading.Thread(target=run, args=(name, texts, flight))
        for (name, texts), flight in zip(jobs.items(), flights, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def test_files_in_flight_share_one_call_and_each_gets_its_own_vectors() -> None:
    embedder = FakeEmbedder()
    batcher = EmbedBatcher(embedder, linger=LONG)
    jobs = {f"file{i}": [f"file {i} text {j} on topic{i}" for j in range(i + 1)] for i in range(4)}

    results = _in_threads(batcher, jobs)

    assert len(embedder.calls) == 1  # four files, one call
    assert sorted(embedder.calls[0]) == sorted(t for texts in jobs.values() for t in texts)
    reference = FakeEmbedder()
    for name, texts in jobs.items():
        assert results[name] == reference.embed(texts)


def test_a_window_holds_at_most_its_size_and_every_request_is_served() -> None:
    embedder = FakeEmbedder()
    batcher = EmbedBatcher(embedder, window=5, linger=LONG)
    jobs = {f"file{i}": [f"text {i}.{j}" for j in range(3)] for i in range(6)}

    results = _in_threads(batcher, jobs)

    assert all(len(call) <= 5 for call in embedder.calls)
    reference = FakeEmbedder()
    assert {name: results[name] for name in jobs} == {
        name: reference.embed(texts) for name, texts in jobs.items()
    }


def test_a_second_window_is_embedded_while_the_first_is_still_running() -> None:
    class Held(FakeEmbedder):
        """Its first call waits until released."""

        def __init__(self) -> None:
            super().__init__()
            self.release = threading.Event()
            self.started = threading.Semaphore(0)

        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            first = not self.calls
            self.started.release()
            if first:
                assert self.release.wait(30)
            return super().embed(texts)

    embedder = Held()
    batcher = EmbedBatcher(embedder, window=3, linger=LONG)
    jobs = {"first": ["a", "b", "c"], "second": ["d", "e", "f"]}  # one window each
    done: dict[str, object] = {}
    worker = threading.Thread(target=lambda: done.update(_in_threads(batcher, jobs)))
    worker.start()

    # Both calls start although the first has not returned: the embedder is never idle
    # while one window's last batch runs.
    assert embedder.started.acquire(timeout=30)
    assert embedder.started.acquire(timeout=30)
    embedder.release.set()
    worker.join(30)
    reference = FakeEmbedder()
    assert done == {name: reference.embed(texts) for name, texts in jobs.items()}


def test_one_files_bad_text_fails_that_file_only() -> None:
    embedder = PoisonEmbedder()
    batcher = EmbedBatcher(embedder, linger=LONG)
    jobs = {"good": ["a fine text", "another"], "bad": ["POISON here"], "also": ["more text"]}

    results = _in_threads(batcher, jobs)

    assert isinstance(results["bad"], ValueError)
    reference = FakeEmbedder()
    assert results["good"] == reference.embed(jobs["good"])
    assert results["also"] == reference.embed(jobs["also"])


def test_an_embedder_that_can_hang_on_one_text_never_shares_calls(tmp_path: Path) -> None:
    class Solo(FakeEmbedder):
        shared_batches = False

    with ingest_parts(tmp_path) as parts:
        indexer = Indexer(parts.docs, parts.registry, [parts.store], parts.embedder)
        assert indexer.pipeline.vectors.batcher(Solo()) is None
        assert indexer.pipeline.vectors.batcher(parts.embedder) is not None


async def test_an_ingest_of_many_small_files_embeds_each_chunk_once(tmp_path: Path) -> None:
    with ingest_parts(tmp_path) as parts:
        for i in range(12):
            (parts.docs / f"note{i}.md").write_text(f"# Note {i}\n\nA short note about item {i}.")
        indexer = Indexer(
            parts.docs,
            parts.registry,
            [parts.store],
            parts.embedder,
            options=IndexOptions(workers=4),
        )

        await indexer.index_all()

        assert all(r.status == DocStatus.READY for r in parts.registry.list())
        assert len(parts.registry.list()) == 12
        embedded = [text for call in parts.embedder.calls for text in call]
        assert len(embedded) == parts.store.count() == 12  # each chunk embedded once
        for i in range(12):
            hits = parts.store.search(f"item {i}", k=12)
            assert any(hit.chunk.path == f"note{i}.md" for hit in hits)
