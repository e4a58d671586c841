"""ChromaStore over a real embedded Chroma in a temp dir, with the fake embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import chromadb
import pytest
from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

from ingest.document_parts import Chunk
from ingest.index.chroma_calls import (
    ChromaCalls,
    StoreUnavailable,
    make_chroma_client,
    open_chroma,
)
from ingest.index.chroma_rows import TEXT_KEY
from ingest.index.chunk_context import document_text
from ingest.index.vectors import EMBED_BATCH, ChromaStore, collection_name
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.search import make_chunk


@pytest.fixture(autouse=True)
def _no_default_embedding_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # A tripwire: chromadb's default embedding function would download a model.
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("chromadb tried to use its default ONNX embedding model")

    monkeypatch.setattr(ONNXMiniLM_L6_V2, "__call__", refuse)
    monkeypatch.setattr(ONNXMiniLM_L6_V2, "__init__", refuse)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[ChromaCalls]:
    chroma = open_chroma(tmp_path)
    yield chroma
    chroma.close()


def _chunks(doc_id: str, path: str, texts: list[tuple[int | None, str]]) -> list[Chunk]:
    return [make_chunk(path, page, text, i, doc_id=doc_id) for i, (page, text) in enumerate(texts)]


def test_client_is_persistent_under_data_dir_with_telemetry_off(tmp_path: Path) -> None:
    chroma = make_chroma_client(tmp_path)
    try:
        settings = chroma.get_settings()
        assert settings.anonymized_telemetry is False
        assert settings.chroma_otel_granularity == "none"
        assert settings.is_persistent and Path(str(settings.persist_directory)) == (
            tmp_path / "chroma"
        )
    finally:
        chroma.close()


def test_unreachable_server_is_a_typed_error() -> None:
    with pytest.raises(StoreUnavailable, match="DOCENT_CHROMA_URL"):
        make_chroma_client(Path("unused"), url="http://127.0.0.1:9")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("all-MiniLM-L6-v2", "docent-all-minilm-l6-v2"),
        ("sentence-transformers/all-MiniLM-L6-v2", "docent-sentence-transformers-all-minilm-l6-v2"),
        ("nomic-embed-text:latest", "docent-nomic-embed-text-latest"),
        ("weird..name__", "docent-weird.name"),
        ("///", "docent-default"),
    ],
)
def test_collection_names_follow_chroma_rules(name: str, expected: str) -> None:
    assert collection_name(name, vector_text=1) == expected
    # Vectors made with the chunk's context live in a collection of their own.
    assert collection_name(name) == expected + "-ctx"
    assert collection_name("x" * 600).endswith("-ctx") and len(collection_name("x" * 600)) == 512


def test_collection_is_per_model_and_scores_are_cosine(client: ChromaCalls) -> None:
    embedder = FakeEmbedder(name="model-a")
    a = ChromaStore(client, embedder)
    b = ChromaStore(client, FakeEmbedder(name="model-b"))
    a.replace_document("d1", _chunks("d1", "x.txt", [(None, "apples and pears")]))

    assert (a.count(), b.count()) == (1, 0)
    collection = client.read(lambda chroma: chroma.get_collection(a.name))
    assert collection.metadata == {"embedder": "model-a", "vector_text": 2}

    query = "apples and plums and figs"
    # The stored vector is of the chunk behind its title ("x: apples and pears").
    (embedded,) = a.embedding_texts(a.document_chunks("d1"))
    doc_vec, query_vec = embedder.embed([embedded, query])
    cosine = sum(x * y for x, y in zip(doc_vec, query_vec, strict=True))
    (hit,) = a.search(query, k=1)
    assert hit.score == pytest.approx(cosine, abs=1e-4)  # l2 would give 2 * cosine - 1


def test_search_finds_the_right_chunk_and_page(client: ChromaCalls) -> None:
    store = ChromaStore(client, FakeEmbedder())
    store.replace_document(
        "geo",
        _chunks(
            "geo",
            "science/geology.pdf",
            [(1, "volcanoes erupt basalt lava"), (2, "glaciers carve moraines and fjords")],
        ),
    )
    store.replace_document("cook", _chunks("cook", "recipes.md", [(None, "bake bread with flour")]))

    hits = store.search("where do glaciers carve fjords", k=3)

    best = hits[0]
    assert best.chunk.doc_id == "geo" and best.chunk.page == 2
    assert best.chunk.text == "glaciers carve moraines and fjords"
    assert best.chunk.path == "science/geology.pdf" and best.chunk.file == "geology.pdf"
    assert best.chunk.sha256 == "sha-geo"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert 0.0 < best.score <= 1.0 + 1e-6

    bread = store.search("bread flour", k=1)[0]
    assert bread.chunk.page is None  # stored as -1, given back as None


def test_files_filter_matches_name_or_path(client: ChromaCalls) -> None:
    store = ChromaStore(client, FakeEmbedder())
    store.replace_document("a", _chunks("a", "2023/report.pdf", [(1, "quarterly revenue grew")]))
    store.replace_document("b", _chunks("b", "2024/report.pdf", [(1, "quarterly revenue fell")]))
    store.replace_document("c", _chunks("c", "memo.txt", [(None, "quarterly revenue memo")]))

    by_path = store.search("quarterly revenue", k=5, files=["2024/report.pdf"])
    by_name = store.search("quarterly revenue", k=5, files=["report.pdf"])
    mixed = store.search("quarterly revenue", k=5, files=["memo.txt", "2023/report.pdf"])

    assert {h.chunk.doc_id for h in by_path} == {"b"}
    assert {h.chunk.doc_id for h in by_name} == {"a", "b"}
    assert {h.chunk.doc_id for h in mixed} == {"a", "c"}
    assert store.search("quarterly revenue", files=["nothing.pdf"]) == []


def test_replace_document_leaves_no_stale_chunks(client: ChromaCalls) -> None:
    store = ChromaStore(client, FakeEmbedder())
    old = [(1, f"old zebra text number {i}") for i in range(5)]
    store.replace_document("doc", _chunks("doc", "a.pdf", old))
    store.replace_document("other", _chunks("other", "b.pdf", [(1, "unrelated words")]))

    store.replace_document("doc", _chunks("doc", "a.pdf", [(1, "new giraffe text")]))

    assert store.count() == 2
    texts = {h.chunk.text for h in store.search("zebra giraffe text", k=10)}
    assert "new giraffe text" in texts
    assert not any("zebra" in text for text in texts)
    assert store.document_ids() == {"doc", "other"}


def test_embeds_in_batches_and_keeps_old_chunks_if_embedding_fails(client: ChromaCalls) -> None:
    embedder = FakeEmbedder()
    store = ChromaStore(client, embedder)
    total = 2 * EMBED_BATCH + 22
    many = [(1, f"chunk number {i}") for i in range(total)]

    store.replace_document("big", _chunks("big", "big.pdf", many))

    # Then the document's own vector: its title, outline and first chunk.
    assert [len(call) for call in embedder.calls] == [EMBED_BATCH, EMBED_BATCH, 22, 1]
    assert store.count() == total

    class Broken(FakeEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            raise RuntimeError("model crashed")

    broken = ChromaStore(client, Broken())  # same collection name: "fake-embedder"
    with pytest.raises(RuntimeError):
        broken.replace_document("big", _chunks("big", "big.pdf", [(1, "replacement")]))
    assert store.count() == total


def test_delete_document_and_ids(client: ChromaCalls) -> None:
    store = ChromaStore(client, FakeEmbedder())
    store.replace_document("a", _chunks("a", "a.txt", [(None, "one"), (None, "two")]))
    store.replace_document("b", _chunks("b", "b.txt", [(None, "three")]))

    store.delete_document("a")
    store.delete_document("never-existed")

    assert store.document_ids() == {"b"}
    assert store.count() == 1


def test_each_document_has_its_vector_through_edits_and_drop(client: ChromaCalls) -> None:
    embedder = FakeEmbedder()
    store = ChromaStore(client, embedder)
    chunks = _chunks("a", "leave/parental.md", [(None, "one"), (None, "two")])
    store.replace_document("a", chunks)
    store.replace_document("b", _chunks("b", "b.txt", [(None, "three")]))

    found = store.document_vectors(["a", "b", "never-existed"])
    assert set(found) == {"a", "b"} and found["a"].chunks == 2 and found["b"].chunks == 1
    expected = embedder.embed([document_text(chunks)])[0]
    assert list(found["a"].vector) == pytest.approx(expected, abs=1e-6)
    assert document_text(chunks) == "parental: one"

    store.replace_document("a", _chunks("a", "leave/parental.md", [(None, "only")]))
    assert store.document_vectors(["a"])["a"].chunks == 1
    store.delete_document("b")
    assert set(store.document_vectors(["a", "b"])) == {"a"}
    assert store.document_vectors([]) == {}

    store.drop()
    assert client.collection_names() == set()


def test_documents_stored_without_a_vector_are_filled_from_their_chunks(
    client: ChromaCalls,
) -> None:
    embedder = FakeEmbedder()
    store = ChromaStore(client, embedder)
    old = _chunks("old", "old.txt", [(None, "kept words"), (None, "more words")])
    store.add_chunks("old", old, embedder.embed([c.text for c in old]))  # as an older version
    store.replace_document("new", _chunks("new", "new.txt", [(None, "fresh")]))
    assert store.documents_without_vector() == {"old"}

    assert store.fill_document_vectors(lambda: False) == 0  # told to stop: fills nothing
    assert store.fill_document_vectors() == 1
    assert store.documents_without_vector() == set()
    filled = store.document_vectors(["old"])["old"]
    assert filled.chunks == 2
    assert list(filled.vector) == pytest.approx(embedder.embed([document_text(old)])[0], abs=1e-6)


def test_empty_store_and_empty_query(client: ChromaCalls) -> None:
    store = ChromaStore(client, FakeEmbedder())
    assert store.search("anything") == []
    store.replace_document("a", _chunks("a", "a.txt", [(None, "words")]))
    assert store.search("   ") == []


def test_survives_reopen(tmp_path: Path) -> None:
    first = open_chroma(tmp_path)
    ChromaStore(first, FakeEmbedder()).replace_document(
        "a", _chunks("a", "kept.txt", [(None, "persistent penguins")])
    )
    first.close()

    second = open_chroma(tmp_path)
    try:
        hits = ChromaStore(second, FakeEmbedder()).search("penguins", k=1)
        assert hits[0].chunk.path == "kept.txt"
    finally:
        second.close()


def test_http_client_settings_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    def fake_http_client(**kwargs: object) -> str:
        seen.update(kwargs)
        return "client"

    monkeypatch.setattr(chromadb, "HttpClient", fake_http_client)

    assert make_chroma_client(Path("unused"), url="https://chroma.example:8443") == "client"
    assert (seen["host"], seen["port"], seen["ssl"]) == ("chroma.example", 8443, True)
    settings = seen["settings"]
    assert isinstance(settings, chromadb.Settings)
    assert settings.anonymized_telemetry is False

    make_chroma_client(Path("unused"), url="chroma.local")
    assert (seen["host"], seen["port"], seen["ssl"]) == ("chroma.local", 8000, False)


def test_retrieval_reads_keys_and_cosines_then_vectors_and_texts_by_key(
    client: ChromaCalls,
) -> None:
    embedder = FakeEmbedder()
    store = ChromaStore(client, embedder)
    store.replace_document(
        "geo",
        _chunks("geo", "geo.pdf", [(1, "volcanoes erupt lava"), (2, "glaciers carve fjords")]),
    )
    store.replace_document("cook", _chunks("cook", "cook.md", [(None, "bake bread")]))
    (query,) = embedder.embed(["glaciers and fjords"])

    nearest = store.nearest(query, 2)
    assert nearest[0][0] == ("geo", 1) and nearest[0][1] > nearest[1][1]
    assert store.nearest(query, 5, doc_ids=["cook"]) == [(("cook", 0), pytest.approx(0.0))]

    vectors = store.vectors([("geo", 1), ("gone", 0)])
    assert list(vectors) == [("geo", 1)]
    cosine = sum(x * y for x, y in zip(vectors[("geo", 1)], query, strict=True))
    assert cosine == pytest.approx(nearest[0][1], abs=1e-4)

    (chunk,) = store.get_chunks([("geo", 1), ("gone", 3)])
    assert (chunk.text, chunk.page, chunk.path) == ("glaciers carve fjords", 2, "geo.pdf")


def test_texts_are_kept_out_of_chromas_full_text_index(client: ChromaCalls) -> None:
    store = ChromaStore(client, FakeEmbedder())
    store.replace_document("a", _chunks("a", "notes.md", [(None, "otters hold hands")]))

    raw = client.read(
        lambda chroma: chroma.get_collection(store.name).get(
            ids=["a:0"], include=["documents", "metadatas"]
        )
    )
    assert raw["documents"] == [None]  # Chroma indexes documents for a search we never run
    assert (raw["metadatas"] or [{}])[0][TEXT_KEY] == "otters hold hands"
    assert store.search("otters", k=1)[0].chunk.text == "otters hold hands"
    assert list(store.texts()) == ["otters hold hands"]


def test_a_collection_written_with_documents_still_reads(client: ChromaCalls) -> None:
    """Stores written before texts moved to metadata keep them as Chroma documents."""
    embedder = FakeEmbedder()
    store = ChromaStore(client, embedder)
    (old,) = _chunks("old", "old.pdf", [(3, "walruses sunbathe")])
    meta = {
        "doc_id": "old", "path": old.path, "file": old.file, "page": 3, "index": 0,
        "start": old.start, "end": old.end, "sha256": old.sha256, "heading": "",
    }  # fmt: skip
    client.write(
        lambda chroma: chroma.get_collection(store.name).add(
            ids=["old:0"],
            embeddings=embedder.embed([old.text]),
            documents=[old.text],
            metadatas=[meta],
        )
    )
    store.replace_document("new", _chunks("new", "new.md", [(None, "walruses dive")]))

    hit = store.search("walruses sunbathe", k=1)[0]
    assert (hit.chunk.text, hit.chunk.page) == ("walruses sunbathe", 3)
    assert [c.text for c in store.document_chunks("old")] == ["walruses sunbathe"]
    assert [c.text for c in store.get_chunks([("old", 0)])] == ["walruses sunbathe"]
    assert [c.text for batch in store.chunks_of("old") for c in batch] == ["walruses sunbathe"]
    assert sorted(store.texts()) == ["walruses dive", "walruses sunbathe"]


def test_held_chunks_wait_for_flush_and_a_bad_document_fails_alone(client: ChromaCalls) -> None:
    embedder = FakeEmbedder()
    store = ChromaStore(client, embedder)
    good = _chunks("good", "good.md", [(None, "herons wade"), (None, "herons stand still")])
    (bad,) = _chunks("bad", "bad.md", [(None, "a vector of the wrong size")])
    store.hold_chunks("good", good, embedder.embed([c.text for c in good]))
    store.hold_chunks("bad", [bad], [[0.5, 0.5]])
    assert store.count() == 0  # held, not written

    failed = store.flush()

    assert list(failed) == ["bad"]
    assert store.chunk_indexes("good") == {0, 1} and store.chunk_indexes("bad") == set()
    assert store.flush() == {}  # nothing is held any more


def test_an_interrupted_flush_holds_its_chunks_again(client: ChromaCalls) -> None:
    embedder = FakeEmbedder()
    store = ChromaStore(client, embedder)
    (chunk,) = _chunks("a", "a.md", [(None, "puffins nest")])
    store.hold_chunks("a", [chunk], embedder.embed([chunk.text]))

    def interrupted(records: object) -> None:
        raise KeyboardInterrupt

    write, store.writes.write = store.writes.write, interrupted
    with pytest.raises(KeyboardInterrupt):
        store.flush()
    store.writes.write = write

    assert store.flush() == {}
    assert store.search("puffins", k=1)[0].chunk.text == "puffins nest"
