"""Retrieval with in-process fakes: fusion, neighbours, mentions, whole files, floor, and
what one search shares between its steps."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from graph.retrieval.expand import expand
from graph.retrieval.floor import Floor
from graph.retrieval.fusion import adaptive, rrf
from graph.retrieval.proximity import best_sentence_share, order_by_proximity
from graph.retrieval.retriever import Reader, RetrievalSettings, Retriever
from graph.retrieval.scored import Candidate
from ingest.document_parts import Chunk
from ingest.index.keyword.index import KeywordIndex
from models.llm import LLMError
from models.protocols import Reranker
from models.reranker import FlashRankReranker, PassThroughReranker, RerankerUnavailable
from tests.fakes.dense import FakeDenseIndex, FakeLibrary
from tests.fakes.embedder import FakeEmbedder, GatedEmbedder


def chunk(path: str, index: int, start: int, text: str, page: int | None = None) -> Chunk:
    return Chunk(f"id-{path}", path, path, page, index, start, start + len(text), text, "sha")


def split(path: str, text: str, size: int, overlap: int, page: int | None = None) -> list[Chunk]:
    out, start, i = [], 0, 0
    while start < len(text):
        out.append(chunk(path, i, start, text[start : start + size], page))
        if start + size >= len(text):
            break
        start, i = start + size - overlap, i + 1
    return out


class Library:
    """Both indexes and the library, written together as the indexer would."""

    def __init__(
        self,
        reranker: Reranker | None = None,
        embedder: FakeEmbedder | None = None,
        **settings: object,
    ) -> None:
        self.embedder = embedder or FakeEmbedder()
        self.dense = FakeDenseIndex(self.embedder)
        self.keyword = KeywordIndex()
        self.paths: list[str] = []
        self.retriever = Retriever(
            self.dense,
            self.keyword,
            self.embedder,
            reranker or PassThroughReranker(),
            FakeLibrary(),
            RetrievalSettings(**settings),  # type: ignore[arg-type]
        )

    def add(self, path: str, chunks: Sequence[Chunk]) -> None:
        self.dense.replace_document(f"id-{path}", chunks)
        self.keyword.replace_document(f"id-{path}", chunks)
        self.paths.append(path)
        self.retriever.library = FakeLibrary(self.paths)


def cand(path: str, dense: float, bm25: float, d_rank: int | None, b_rank: int | None) -> Candidate:
    return Candidate((f"id-{path}", 0), dense, d_rank, bm25, b_rank)


def crafted(dense_peaked: bool) -> list[Candidate]:
    """Ten candidates; one list singles out 'winner', the other is flat and prefers 'decoy'."""
    out = []
    for i in range(10):
        d, b = 0.40 - i * 0.002, 3.0 - i * 0.01
        out.append(cand(f"c{i}", d, b, i + 1, i + 1))
    decoy, winner = out[0], out[7]
    if dense_peaked:
        winner.dense, decoy.bm25 = 0.90, 3.05
    else:
        winner.bm25, decoy.dense = 14.0, 0.41
    winner.key = ("id-winner", 0)
    return out


@pytest.mark.parametrize("dense_peaked", [True, False])
def test_fusion_follows_the_list_that_is_sure(dense_peaked: bool) -> None:
    candidates = crafted(dense_peaked)
    adaptive(candidates, "some question")
    assert max(candidates, key=lambda c: c.fused).key == ("id-winner", 0)
    rrf(candidates)  # rank fusion cannot tell a sure list from a guessing one
    assert max(candidates, key=lambda c: c.fused).key != ("id-winner", 0)


def test_codes_in_the_query_shift_trust_to_keywords() -> None:
    candidates = [cand(f"c{i}", 0.5 - i * 0.02, 5.0 - i * 0.3, i + 1, i + 1) for i in range(10)]
    candidates[0].bm25, candidates[3].bm25 = 3.0, 5.5  # keywords prefer c3, meaning prefers c0
    adaptive(candidates, "what is error ZX-4411")
    assert max(candidates, key=lambda c: c.fused).key == ("id-c3", 0)


def test_neighbours_are_merged_and_never_repeated() -> None:
    text = "".join(f"Sentence {i:02d} of the page. " for i in range(40))  # 1,040 chars
    chunks = split("a.md", text, 300, 60, page=3)
    other_page = chunk("a.md", len(chunks), 0, "Next page text.", page=4)
    hits = [
        Candidate((c.doc_id, c.index), fused=f, chunk=c)
        for c, f in ((chunks[2], 2.0), (chunks[1], 1.0))
    ]
    passages = expand(hits, [*chunks, other_page], 2_400, {c.key: c.fused for c in hits})
    assert len(passages) == 1
    (p,) = passages
    assert p.text == text[chunks[0].start : chunks[3].end]  # hits 1-2 with neighbours 0 and 3
    assert "Next page" not in p.text and len(p.hits) == 2
    small = expand(hits, chunks, 500, {c.key: c.fused for c in hits})
    assert all(len(s.text) <= 500 for s in small)
    spans = sorted((s.start, s.end) for s in small)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))  # no overlap


def test_mentions_filter_both_indexes_and_bring_the_first_chunk() -> None:
    lib = Library(context_chars=10)
    lib.add(
        "report.md",
        [chunk("report.md", 0, 0, "Annual report title page")]
        + [chunk("report.md", i, i * 100, f"budget line {i} for ferries") for i in range(1, 30)],
    )
    lib.add("notes.md", [chunk("notes.md", 0, 0, "budget for ferries and more ferries")])
    result = lib.retriever.retrieve("ferries budget", files=["report.md"])
    assert lib.dense.filters[-1] == ["id-report.md"]
    assert {c.key[0] for c in result.candidates} == {"id-report.md"}
    assert ("id-report.md", 0) in {c.key for c in result.candidates}
    assert {p.path for p in result.passages} == {"report.md"}
    assert not result.full_documents


def test_mentioned_files_that_fit_come_whole() -> None:
    lib = Library(context_chars=5_000, max_passage_chars=400)
    text = "".join(f"Line {i} of the memo. " for i in range(60))  # 1,270 chars
    lib.add("memo.md", split("memo.md", text, 300, 50))
    with lib.retriever.begin() as search:
        result = search.retrieve("anything", files=["memo.md"], whole=True)
    assert result.full_documents
    assert "".join(p.text for p in result.passages) == text
    assert all(len(p.text) <= 400 for p in result.passages)
    big = Library(context_chars=1_000)
    big.add("memo.md", split("memo.md", text, 300, 50))
    with big.retriever.begin() as search:
        assert not search.retrieve("memo line", files=["memo.md"], whole=True).full_documents


def test_the_floor_returns_nothing_for_an_unrelated_question() -> None:
    lib = Library(floor=Floor(relevance=0.5))
    lib.add("bees.md", [chunk("bees.md", 0, 0, "Honey bees dance to show where flowers are.")])
    assert lib.retriever.retrieve("why do honey bees dance").passages
    unrelated = lib.retriever.retrieve("quarterly tax filing deadline")
    assert unrelated.passages == [] and not unrelated.answerable
    assert unrelated.candidates  # the trace still shows what was looked at


def ferry_notes(embedder: FakeEmbedder | None = None) -> Library:
    lib = Library(embedder=embedder, top_k=2, floor=Floor(-1))
    for i in range(4):
        lib.add(f"f{i}.md", [chunk(f"f{i}.md", j, j * 50, f"ferry part {j}") for j in range(3)])
    lib.embedder.calls.clear()
    return lib


def test_a_question_being_embedded_is_taken_up_not_embedded_again() -> None:
    embedder = GatedEmbedder()
    lib = ferry_notes(embedder)
    embedder.hold()
    with lib.retriever.begin() as search, ThreadPoolExecutor(1) as pool:
        search.warm("ferry timetable")
        assert embedder.wait_until_waiting(1)  # under way, and held
        later = pool.submit(search.retrieve, "ferry timetable")  # takes the vector up
        embedder.open()
        assert later.result(timeout=5).passages
        search.warm("ferry timetable")  # known: nothing to do
    assert embedder.calls == [["ferry timetable"]]


def test_a_failed_early_embedding_leaves_the_question_to_be_embedded_again() -> None:
    class FailsOnce(FakeEmbedder):
        failures = 0

        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            if self.failures:
                self.failures -= 1
                raise RuntimeError("model crashed")
            return super().embed(texts)

    embedder = FailsOnce()
    lib = ferry_notes(embedder)
    embedder.failures = 1
    with lib.retriever.begin() as search:
        search.warm("ferry timetable")
        assert search.retrieve("ferry timetable").passages  # embeds it itself
    assert embedder.calls == [["ferry timetable"]]
    embedder.failures = 1
    with lib.retriever.begin() as search, pytest.raises(RuntimeError, match="crashed"):
        search.retrieve("ferry timetable")  # its own failure is its to report


class Reverse:
    """A reranker that prefers what fusion liked least."""

    problem = None

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        return [float(i) for i in range(len(passages))]


def ferry_library(reranker: Reranker) -> Library:
    lib = Library(reranker, top_k=2, rerank_candidates=3, floor=Floor(-1))
    for i, words in enumerate(["ferry ferry timetable", "ferry timetable", "ferry"]):
        lib.add(f"f{i}.md", [chunk(f"f{i}.md", 0, 0, words)])
    return lib


def test_reranker_reorders_the_fused_top() -> None:
    result = ferry_library(Reverse()).retriever.retrieve("ferry timetable")
    fused = [
        c.key[0].removeprefix("id-") for c in sorted(result.candidates, key=lambda c: -c.fused)
    ]
    assert [p.path for p in result.passages] == fused[:3][::-1][:2]
    assert result.passages[0].scores()["rerank"] == 2.0 and not result.notes


def test_without_a_reranker_model_the_search_order_stays_and_says_so(tmp_path) -> None:
    absent = FlashRankReranker(tmp_path / "models")
    assert not absent.prepare(download=False)
    result = ferry_library(absent).retriever.retrieve("ferry timetable")
    fused = [
        c.key[0].removeprefix("id-") for c in sorted(result.candidates, key=lambda c: -c.fused)
    ]
    assert [p.path for p in result.passages] == fused[:2]
    assert result.passages[0].scores()["rerank"] is None
    assert "Reranking is off" in result.notes[0]


def test_texts_are_read_once_and_only_for_what_is_shown(tmp_path) -> None:
    absent = FlashRankReranker(tmp_path / "models")  # no model: the fused order is shown
    lib = Library(absent, top_k=2, floor=Floor(-1))
    for i in range(12):
        words = "ferry timetable" if i < 3 else "ferry"
        lib.add(f"f{i}.md", [chunk(f"f{i}.md", j, j * 50, f"{words} part {j}") for j in range(3)])
    with lib.retriever.begin() as search:
        result = search.retrieve("ferry timetable")
        assert len(result.candidates) == 36 and len(result.passages) <= 2
        (read,) = lib.dense.reads  # one call: the two hits and their neighbours
        hits = {c.key for c in result.candidates[:2]}
        assert hits <= set(read) and len(read) <= 2 * 3
        assert all(c.chunk is None for c in result.candidates[2:])

        lib.dense.reads.clear()
        trace = search.trace()  # where each candidate is: read once the answer is under way
    assert len(lib.dense.reads) == 1 and len(trace) == 36
    assert {"path", "page", "index", "dense", "bm25", "fused"} <= set(trace[0])
    assert trace[0]["path"] == result.passages[0].path


def test_the_trace_leaves_out_what_is_gone_before_it_was_located(tmp_path) -> None:
    absent = FlashRankReranker(tmp_path / "models")  # no model: only the top 2 are read
    lib = Library(absent, top_k=2, floor=Floor(-1))
    for i in range(4):
        lib.add(f"f{i}.md", [chunk(f"f{i}.md", j, j * 50, f"ferry part {j}") for j in range(3)])
    with lib.retriever.begin() as search:
        result = search.retrieve("ferry")
        read = {c.key[0] for c in result.candidates if c.chunk is not None}
        (gone, *_) = sorted({f"id-f{i}.md" for i in range(4)} - read)
        lib.add(gone.removeprefix("id-"), [])  # a document the search never read goes
        located = search.trace()
    # What the search read for its passages is shown where it was read.
    left = {f"f{i}.md" for i in range(4)} - {gone.removeprefix("id-")}
    assert {d["path"] for d in located} == left and len(located) == 9
    assert all(set(d) >= {"path", "page", "index", "fused"} for d in located)


def test_the_probes_search_is_the_retrievers_search() -> None:
    lib = ferry_notes()
    alone = lib.retriever.retrieve("ferry part 1")
    lib.dense.filters.clear()
    lib.embedder.calls.clear()
    with lib.retriever.begin() as search:
        assert search.probe("ferry part 1") == pytest.approx(1.0)  # the router's probe
        result = search.retrieve("ferry part 1")
    # One embedding and one store search served both.
    assert lib.dense.filters == [None] and lib.embedder.calls == [["ferry part 1"]]
    assert [p.text for p in result.passages] == [p.text for p in alone.passages]
    with lib.retriever.begin() as search:
        search.retrieve("ferry part 1")  # another search: nothing kept from the last
    assert lib.dense.filters == [None, None] and len(lib.embedder.calls) == 2


def test_a_search_reads_with_the_model_it_began_with() -> None:
    lib = ferry_notes()
    old = lib.retriever.reader
    search = lib.retriever.begin()
    other = FakeEmbedder(dim=32, name="other")
    replaced = lib.retriever.activate(Reader(FakeDenseIndex(other), other))
    assert replaced is old and not lib.retriever.wait_unused(old, timeout=0)
    assert search.retrieve("ferry part 1").passages  # the old model's vectors throughout
    assert other.calls == []
    search.close()
    search.close()  # closing twice lets go once
    assert lib.retriever.wait_unused(old, timeout=0) and old.users == 0
    with lib.retriever.begin() as fresh:
        assert fresh.reader is lib.retriever.reader and fresh.reader is not old


def test_without_a_reranker_the_sentence_that_holds_the_question_goes_first(tmp_path) -> None:
    absent = FlashRankReranker(tmp_path / "models")
    lib = Library(absent, top_k=3, floor=Floor(-1))
    scattered = "The heron waits. Rivers flood in spring. A nest sits high. Fish swim under it."
    together = "Rivers flood in spring. The heron nest sits high above the fish. Reeds sway."
    lib.add("scattered.md", [chunk("scattered.md", 0, 0, scattered)])
    lib.add("together.md", [chunk("together.md", 0, 0, together)])
    lib.add("partial.md", [chunk("partial.md", 0, 0, "A grey heron. Rivers flood in spring.")])
    for i in range(8):
        lib.add(f"other{i}.md", [chunk(f"other{i}.md", 0, 0, f"unrelated text number {i}")])
    result = lib.retriever.retrieve("heron nest fish")
    by_fusion = sorted(result.candidates, key=lambda c: -c.fused)[:2]
    assert [c.key[0] for c in by_fusion] == ["id-scattered.md", "id-together.md"]
    assert [p.path for p in result.passages][:2] == ["together.md", "scattered.md"]
    first = result.passages[0].scores()
    assert first["proximity"] == pytest.approx(1.0) and first["rerank"] is None
    assert result.passages[1].scores()["proximity"] < 1.0


def commuting_notes() -> Library:
    """A paraphrase's page says what it is about only in its headings."""
    lib = Library(top_k=3, floor=Floor(-1))
    transit = chunk("benefits/transit.md", 0, 0, "Apply through the portal each month.")
    lib.add("benefits/transit.md", [replace(transit, heading="Commuting subsidy > How to claim")])
    trips = chunk("travel/bus-trips.md", 0, 0, "Book bus trips for work travel in the portal.")
    lib.add("travel/bus-trips.md", [replace(trips, heading="Work trips")])
    for i in range(6):
        other = chunk(f"other{i}.md", 0, 0, f"unrelated text number {i} about the portal")
        lib.add(f"other{i}.md", [replace(other, heading=f"Other {i}")])
    return lib


def test_a_paraphrase_finds_the_page_its_outline_names() -> None:
    question = "how do I get the subsidy for commuting by bus"
    lib = commuting_notes()
    assert [p.path for p in lib.retriever.retrieve(question).passages][:2] == [
        "benefits/transit.md",
        "travel/bus-trips.md",
    ]
    # Without document vectors (a library not yet given them) the shared word "bus" wins.
    lib = commuting_notes()
    lib.dense.documents.clear()
    assert [p.path for p in lib.retriever.retrieve(question).passages][:2] == [
        "travel/bus-trips.md",
        "benefits/transit.md",
    ]


def test_proximity_moves_nothing_when_keywords_are_not_trusted() -> None:
    a = Candidate(("a", 0), fused=2.0, chunk=chunk("a.md", 0, 0, "Heron here. Nest there."))
    b = Candidate(("b", 0), fused=1.5, chunk=chunk("b.md", 0, 0, "Heron nest."))
    c = Candidate(("c", 0), fused=0.0, chunk=chunk("c.md", 0, 0, "Nothing."))
    weights = {"heron": 2.0, "nest": 2.0}
    assert [x.key for x in order_by_proximity([a, b, c], weights, trust=0.0)] == [
        a.key,
        b.key,
        c.key,
    ]
    assert [x.key for x in order_by_proximity([a, b, c], weights, trust=1.0)] == [
        b.key,
        a.key,
        c.key,
    ]
    assert best_sentence_share("東京タワーです。高い山。", {"東京": 1.0, "高い": 1.0}) == 0.5


class SentencesFail(FakeEmbedder):
    """Embeds a question, and fails on more texts than one: sentences can't be read."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.failing and len(texts) > 1:
            raise LLMError("the embedding server stopped answering")
        return super().embed(texts)

    failing = False


def heron_notes(
    embedder: FakeEmbedder | None = None, reranker: Reranker | None = None, **settings: object
) -> Library:
    """Two passages each hold the question's words in one sentence; the shorter one ranks
    first, the other has a sentence that is nothing but the question's words. No
    reranking model unless one is given."""
    absent = FlashRankReranker(Path("/nonexistent/flashrank"))
    lib = Library(reranker or absent, embedder, top_k=4, floor=Floor(-1), **settings)
    diluted = "A grey heron has its nest by the fish pond."
    pure = (
        "Heron nest fish. Boats sail past the pier. Grain ships dock at dawn. "
        "Traders sell wool and salt. Carts roll to town."
    )
    lib.add("diluted.md", [chunk("diluted.md", 0, 0, diluted)])
    lib.add("pure.md", [chunk("pure.md", 0, 0, pure)])
    for i in range(6):
        lib.add(f"other{i}.md", [chunk(f"other{i}.md", 0, 0, f"unrelated text number {i}")])
    return lib


def test_the_order_by_sentences_puts_the_passage_with_the_best_sentence_first() -> None:
    off = heron_notes().retriever.retrieve("heron nest fish")
    assert [p.path for p in off.passages][:2] == ["diluted.md", "pure.md"]
    assert off.passages[0].scores()["sentence"] is None

    lib = heron_notes(sentence_order=True)
    on = lib.retriever.retrieve("heron nest fish")
    assert [p.path for p in on.passages][:2] == ["pure.md", "diluted.md"]
    best = {p.path: p.scores()["sentence"] for p in on.passages}
    assert best["pure.md"] == pytest.approx(1.0) and best["diluted.md"] < 0.6
    # One call reads the sentences of the four passages shown, and of no other.
    read = lib.embedder.calls[-1]
    assert "Heron nest fish." in read and "Grain ships dock at dawn." in read
    assert len(read) == 1 + 5 + 2


def test_the_setting_applies_from_the_next_search() -> None:
    lib = heron_notes()
    lib.retriever.settings = replace(lib.retriever.settings, sentence_order=True)
    assert lib.retriever.retrieve("heron nest fish").passages[0].path == "pure.md"


def test_when_sentences_cannot_be_read_the_search_keeps_its_order_and_says_so() -> None:
    embedder = SentencesFail()
    lib = heron_notes(embedder, sentence_order=True)
    embedder.failing = True
    result = lib.retriever.retrieve("heron nest fish")
    assert [p.path for p in result.passages][:2] == ["diluted.md", "pure.md"]
    assert any("Ordering by sentences is off" in n and "stopped" in n for n in result.notes)


def test_a_reranking_model_orders_alone_and_none_lets_the_sentences_order() -> None:
    reranked = heron_notes(reranker=Reverse(), sentence_order=True, rerank_candidates=4)
    result = reranked.retriever.retrieve("heron nest fish")
    assert [p.scores()["sentence"] for p in result.passages] == [None] * 4
    assert result.passages[-1].path == "diluted.md"  # the reversed fused order
    # The pass-through reranker stands for none: the sentences are read.
    passed = heron_notes(reranker=PassThroughReranker(), sentence_order=True)
    shown = passed.retriever.retrieve("heron nest fish").passages
    assert all(p.scores()["sentence"] is not None for p in shown)


class Unloadable:
    """A reranking model that seemed ready and fails when asked."""

    problem = None

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        raise RerankerUnavailable("its model file is damaged")


def test_when_the_reranking_model_fails_the_sentences_order_as_without_one() -> None:
    result = heron_notes(reranker=Unloadable(), sentence_order=True).retriever.retrieve(
        "heron nest fish"
    )
    assert any("damaged" in note for note in result.notes)
    assert result.passages[0].path == "pure.md"


def test_a_search_embeds_each_sentence_once_for_all_its_queries() -> None:
    lib = heron_notes(sentence_order=True)
    with lib.retriever.begin() as search:
        first = search.retrieve("heron nest fish")
        calls = len(lib.embedder.calls)
        again = search.retrieve("the heron's nest and its fish")
    # The second query's own vector, and no sentence read again.
    assert lib.embedder.calls[calls:] == [["the heron's nest and its fish"]]
    assert first.passages[0].path == again.passages[0].path == "pure.md"
