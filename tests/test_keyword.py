"""The keyword (BM25) index: terms, search, and staying in step with the library."""

from __future__ import annotations

import threading
from pathlib import Path

import bm25s
import numpy as np

from ingest.index.keyword.index import KeywordIndex
from ingest.index.keyword.searching import MAX_QUERY_CHARS
from ingest.index.keyword.segments import K1, B, DocRows, build_segment, merge_segments
from ingest.index.keyword.stop_words import STOP_WORDS
from ingest.index.keyword.terms import terms
from ingest.index.write_ports import ChunkIndex
from tests.fakes.dense import FakeDenseIndex
from tests.fakes.search import make_chunk
from tests.running import eventually


def doc(path: str, *texts: str) -> list:
    return [make_chunk(path, None, t, i) for i, t in enumerate(texts)]


def found(index: KeywordIndex, query: str, k: int = 10) -> list[tuple[str, int]]:
    return [(h.doc_id, h.index) for h in index.search(query).top(k)]


def test_english_is_stemmed_without_stop_words_and_other_scripts_survive() -> None:
    assert terms("The runners were running") == ["runner", "run"]
    assert terms("What does the X200 do?") == ["x200"]  # question words are stop words
    assert "the" not in terms("the cat")
    assert terms("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert terms("مرحبا بالعالم") == ["مرحبا", "بالعالم"]
    assert "iso-8601" in terms("Dates follow ISO-8601.")


def test_index_is_a_chunk_index_and_finds_by_stem_rare_code_and_script() -> None:
    index = KeywordIndex()
    assert isinstance(index, ChunkIndex)
    index.replace_document("id-a", doc("a.md", "Cats were chasing mice", "Error E-4411 on boot"))
    index.replace_document("id-b", doc("b.md", "東京タワーは高い", "Dogs chase a cat"))
    assert set(found(index, "chase")) == {("id-a", 0), ("id-b", 1)}
    assert found(index, "what does e-4411 mean?")[0] == ("id-a", 1)
    assert found(index, "東京タワー")[0] == ("id-b", 0)
    assert found(index, "nothing matches zebra") == []


def test_search_follows_add_change_rename_and_delete(tmp_path: Path) -> None:
    index = KeywordIndex(tmp_path / "kw")
    index.replace_document("id-a", doc("a.md", "The alpaca grazes", "Llamas spit"))
    index.replace_document("id-b", doc("b.md", "Quarks and gluons"))
    assert found(index, "alpaca") == [("id-a", 0)]

    index.replace_document("id-a", doc("a.md", "The vicuna grazes"))  # changed
    assert found(index, "alpaca") == [] and found(index, "llama") == []
    assert found(index, "vicuna") == [("id-a", 0)]

    index.delete_document("id-a")  # renamed a.md -> c.md: the old key goes, a new one comes
    index.replace_document("id-c", doc("c.md", "The vicuna grazes"))
    assert found(index, "vicuna") == [("id-c", 0)]

    index.delete_document("id-b")
    assert found(index, "gluon") == []
    assert index.document_ids() == {"id-c"} and index.count() == 1

    reopened = KeywordIndex(tmp_path / "kw")  # persisted as it was last written
    assert found(reopened, "vicuna") == [("id-c", 0)] and found(reopened, "gluon") == []
    assert reopened.document_ids() == {"id-c"}


def test_many_writes_merge_segments_and_keep_scores_on_one_scale(tmp_path: Path) -> None:
    index = KeywordIndex(tmp_path / "kw")
    for i in range(40):
        index.replace_document(f"id-{i}", doc(f"{i}.md", f"filler page {i} about gardens"))
    index.replace_document("id-x", doc("x.md", "orchids in the garden"))
    assert len(index._segments) <= 7  # merged: logarithmically many
    top = index.search("orchid garden").top(3)
    assert top[0].doc_id == "id-x" and abs(top[0].coverage - 1.0) < 1e-6
    reopened = KeywordIndex(tmp_path / "kw")  # the same scores: the same document frequencies
    again = reopened.search("orchid garden").top(3)
    assert [(h.doc_id, round(h.score, 5)) for h in again] == [
        (h.doc_id, round(h.score, 5)) for h in top
    ]


def test_filter_and_lookup_give_scores_and_ranks() -> None:
    index = KeywordIndex()
    index.replace_document("id-a", doc("a.md", "solar panels on roofs", "wind turbines"))
    index.replace_document("id-b", doc("b.md", "solar eclipse"))
    scores = index.search("solar", doc_ids=["id-b"])
    assert [h.doc_id for h in scores.top(5)] == ["id-b"]
    looked = index.search("solar").lookup([("id-a", 1), ("id-b", 0)])
    assert looked[("id-a", 1)].rank is None and looked[("id-a", 1)].score == 0
    assert looked[("id-b", 0)].rank in (1, 2)


def test_work_a_query_causes_is_bounded() -> None:
    index = KeywordIndex()
    index.replace_document("id-a", doc("a.md", "zeppelin"))
    assert found(index, "zeppelin " + "x" * 10) == [("id-a", 0)]
    # Text past the cap is never read, however long the query.
    assert found(index, "a " * MAX_QUERY_CHARS + "zeppelin") == []
    assert found(index, " ".join(f"w{i}" for i in range(50_000)) + " zeppelin") == []


def test_catch_up_fills_gaps_from_the_store(tmp_path: Path) -> None:
    store = FakeDenseIndex()
    store.replace_document("id-a", doc("a.md", "harpsichord recital"))
    store.replace_document("id-b", doc("b.md", "oboe lessons"))
    index = KeywordIndex(tmp_path / "kw")
    index.replace_document("id-gone", doc("gone.md", "tuba"))
    assert index.catch_up(store) == (2, 1)
    assert found(index, "oboe") == [("id-b", 0)] and found(index, "tuba") == []


def test_leftovers_of_a_crash_are_ignored(tmp_path: Path) -> None:
    index = KeywordIndex(tmp_path / "kw")
    index.replace_document("id-a", doc("a.md", "kayak trips"))
    with open(tmp_path / "kw" / "terms.txt", "a") as handle:
        handle.write("junk\nmore\n")  # terms appended, then the process died
    (tmp_path / "kw" / "seg-orphan.npz").write_bytes(b"half written")
    reopened = KeywordIndex(tmp_path / "kw")
    reopened.replace_document("id-b", doc("b.md", "canoe trips"))
    assert found(reopened, "canoe") == [("id-b", 0)] and found(reopened, "kayak") == [("id-a", 0)]
    assert not (tmp_path / "kw" / "seg-orphan.npz").exists()
    (tmp_path / "kw" / "manifest.json").write_text("{not json")
    fresh = KeywordIndex(tmp_path / "kw")
    assert fresh.document_ids() == set()  # unreadable: caught up from the store later
    fresh.replace_document("id-c", doc("c.md", "rowing boats"))
    assert found(KeywordIndex(tmp_path / "kw"), "rowing") == [("id-c", 0)]


def test_an_index_written_with_other_terms_is_rebuilt(tmp_path: Path) -> None:
    index = KeywordIndex(tmp_path / "kw")
    index.replace_document("id-a", doc("a.md", "what kayaks"))
    manifest = tmp_path / "kw" / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"version": 2', '"version": 1'))
    store = FakeDenseIndex()
    store.replace_document("id-a", doc("a.md", "what kayaks"))
    store.replace_document("id-b", doc("b.md", "which canoes"))
    rebuilt = KeywordIndex(tmp_path / "kw")
    assert rebuilt.catch_up(store) == (2, 0)
    reopened = KeywordIndex(tmp_path / "kw")
    assert found(reopened, "kayaks") == [("id-a", 0)] and found(reopened, "canoe") == [("id-b", 0)]


async def test_searches_never_wait_for_a_writer() -> None:
    index = KeywordIndex()
    index.replace_document("id-a", doc("a.md", "The alpaca grazes"))
    held, release = threading.Event(), threading.Event()

    def writer() -> None:
        with index._lock:  # as a long merge would
            held.set()
            release.wait()

    thread = threading.Thread(target=writer)
    thread.start()
    assert held.wait(30), "the writer never took the index"
    answers: list[list[tuple[str, int]]] = []
    reader = threading.Thread(target=lambda: answers.append(found(index, "alpaca")))
    try:
        reader.start()
        await eventually(lambda: bool(answers), what="a search while a writer holds the index")
        assert answers == [[("id-a", 0)]] and index.count() == 1
    finally:
        release.set()
        thread.join()
        reader.join()


def test_a_document_being_replaced_is_always_found_once() -> None:
    index = KeywordIndex()
    for i in range(30):
        index.replace_document(f"id-{i}", doc(f"{i}.md", f"filler {i} about nothing"))
    index.replace_document("id-x", doc("x.md", "heron version0", "heron"))
    stop = threading.Event()

    def writer() -> None:  # every write kills the old rows and may merge big segments
        version = 0
        while not stop.is_set():
            version += 1
            index.replace_document("id-x", doc("x.md", f"heron version{version}", "heron"))

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        seen = [len(found(index, "heron")) for _ in range(100)]
    finally:
        stop.set()
        thread.join()
    assert set(seen) == {2}  # the old set or the new one, never neither nor both


def test_compact_leaves_one_segment_with_the_same_answers(tmp_path: Path) -> None:
    index = KeywordIndex(tmp_path / "kw")
    for i in range(20):
        index.replace_document(f"id-{i}", doc(f"{i}.md", f"note {i} on herons", f"part {i}"))
    index.delete_document("id-3")
    before = {(h.doc_id, h.index): round(h.score, 4) for h in index.search("herons 7").top(50)}
    index.compact()
    assert len(index._segments) == 1 and index.count() == 38
    after = {(h.doc_id, h.index): round(h.score, 4) for h in index.search("herons 7").top(50)}
    assert after == before and len(after) == 20
    assert KeywordIndex(tmp_path / "kw").count() == 38


def test_the_stop_words_are_bm25s_english_plus_list() -> None:
    # The copy must stay the list the index was built with: another list changes the terms
    # of every chunk and question.
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    assert STOP_WORDS == frozenset(STOPWORDS_EN_PLUS) and len(STOP_WORDS) == 179


def test_segment_scores_are_bm25s_lucene_scores() -> None:
    rng = np.random.default_rng(3)
    rows = [rng.integers(0, 40, size=int(n)).astype(np.int32) for n in rng.integers(0, 30, 60)]
    doc_rows = [DocRows(f"d{i}", list(range(3)), rows[i * 3 : i * 3 + 3]) for i in range(20)]
    ours = build_segment(doc_rows)
    model = bm25s.BM25(method="lucene", k1=K1, b=B)
    local = [np.searchsorted(ours.local_terms, r).tolist() for r in rows]
    theirs = model.build_index_from_ids(
        unique_token_ids=list(range(len(ours.local_terms))), corpus_token_ids=local,
        show_progress=False,
    )  # fmt: skip
    assert np.array_equal(ours.indptr, theirs["indptr"])
    assert np.array_equal(ours.indices, theirs["indices"])
    assert np.allclose(ours.data, theirs["data"], rtol=1e-5)
    merged = merge_segments([build_segment(doc_rows[:7]), build_segment(doc_rows[7:])])
    assert np.array_equal(merged.indices, ours.indices)
    assert np.allclose(merged.data, ours.data, rtol=1e-6)
