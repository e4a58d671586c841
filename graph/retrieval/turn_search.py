"""One search: a turn's (or an API call's) searching with one embedding model, its reader pinned so
a model switch waits. It holds what the turn's steps share: vectors, nearest chunks, and the
candidates weighed for the trace. Blocking: async callers use a worker thread."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future

from graph.retrieval.candidates import combine, keyword_side, load
from graph.retrieval.expand import expand, neighbour_keys, whole_pages
from graph.retrieval.ports import Begun, Reader
from graph.retrieval.prior import lean_on_documents
from graph.retrieval.proximity import order_by_proximity
from graph.retrieval.questions import Questions, helper_threads, searched
from graph.retrieval.scored import Candidate, Key, Passage, Retrieval
from graph.retrieval.sentence_order import order_by_sentences
from graph.trace_records import CandidatePlace, Weighed
from models.embeddings import EmbedderUnavailable
from models.llm import LLMError
from models.reranker import RerankerUnavailable, reranking_active

MAX_K = 50
MAX_CANDIDATES_IN_TRACE = 60
"""Of each retrieval's candidates, the best this many are shown in the trace."""


class Search(Questions):
    """Probe, retrieval and trace of one unit of work, through one reader."""

    def __init__(self, retriever: Begun, reader: Reader) -> None:
        super().__init__(reader, retriever.settings)
        self.keyword = retriever.keyword
        self.reranker = retriever.reranker
        self.library = retriever.library
        self.fusion = retriever.fusion
        self._retriever = retriever
        self._weighed: list[Candidate] = []
        self._where: Future[dict[Key, CandidatePlace]] | None = None
        """Where the weighed candidates sit, being read by ``locate``."""
        self._sentences: dict[str, list[float]] = {}
        """Sentence vectors made for ``sentence_order``: a turn's queries (a follow-up's
        rewrites, expanded queries) often show the same passages."""
        self._closed = False

    @property
    def top_k(self) -> int:
        """How many passages a retrieval hands on unless told otherwise."""
        return self.settings.top_k

    def retrieve(
        self,
        query: str,
        files: Sequence[str] = (),
        k: int | None = None,
        *,
        whole: bool = False,
        within: Sequence[str] | None = None,
        on_rerank: Callable[[int], None] | None = None,
    ) -> Retrieval:
        """The passages for ``query``, best first; ``files`` limits the search to them.

        With ``whole``, mentioned files that fit the context budget come back entire. ``within`` is
        a scope's documents: unlike named ``files`` the floor still applies. ``on_rerank`` hears how
        many passages a reranking model is about to read (only when one reranks).
        """
        found = self._retrieve(query, files, k, whole, on_rerank, within)
        self._weighed += found.candidates[:MAX_CANDIDATES_IN_TRACE]
        return found

    def locate(self) -> None:
        """Start placing the weighed candidates in the background; ``trace`` takes it up."""
        weighed = list(self._weighed)
        self._where = helper_threads().submit(self._read_where, weighed) if weighed else None

    def trace(self) -> list[Weighed]:
        """Every candidate weighed (the best of each), placed and scored; gone ones left out."""
        if not self._weighed:
            return []
        where = self._where.result() if self._where is not None else self._read_where()
        return [
            {**place, "source": c.source, "left_out": c.left_out, **c.scores()}
            for c in self._weighed
            if (place := where.get(c.key)) is not None
        ]

    def _read_where(self, weighed: Sequence[Candidate] = ()) -> dict[Key, CandidatePlace]:
        """Where each of ``weighed`` (else every weighed candidate) sits now, in one store read for
        those not read yet; a chunk no file holds is left out."""
        weighed = weighed or self._weighed
        chunks = {c.key: c.chunk for c in weighed if c.chunk is not None}
        unread = [k for k in dict.fromkeys(c.key for c in weighed) if k not in chunks]
        chunks.update({(c.doc_id, c.index): c for c in self.reader.dense.get_chunks(unread)})
        paths = {doc_id: self.library.path_of(doc_id) for doc_id, _ in chunks}
        where: dict[Key, CandidatePlace] = {}
        for key, chunk in chunks.items():
            path = paths[key[0]]
            if path is None:
                continue  # no file holds its document any more
            place = CandidatePlace(path=path, page=chunk.page, index=key[1])
            if chunk.ocr:
                place["ocr"] = True
                place["ocr_confidence"] = chunk.ocr_confidence
            where[key] = place
        return where

    def seen(self) -> list[tuple[Key, float]]:
        """Every chunk weighed or probed, with its relevance, best first."""
        pairs = [(c.key, max(c.dense or 0.0, c.coverage)) for c in self._weighed]
        with self._lock:
            pairs += [pair for q in self._questions.values() for pair in q.nearest or []]
        best: dict[Key, float] = {}
        for key, score in pairs:
            best[key] = max(score, best.get(key, score))
        return sorted(best.items(), key=lambda pair: -pair[1])

    def close(self) -> None:
        """Let go of the reader (a model switch may then drop its collection); idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._retriever.release(self.reader)

    def __enter__(self) -> Search:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- retrieval -------------------------------------------------------------------------

    def _retrieve(
        self,
        query: str,
        files: Sequence[str],
        k: int | None,
        whole: bool,
        on_rerank: Callable[[int], None] | None,
        within: Sequence[str] | None = None,
    ) -> Retrieval:
        s = self.settings
        dense = self.reader.dense
        k = max(1, min(k or s.top_k, MAX_K))
        query = searched(query)
        doc_ids: list[str] | None = None
        if files or within is not None:
            named = files or within
            doc_ids = self.library.keys_for(named) if named else []
            if not doc_ids:
                return Retrieval([], [], answerable=False)
            if files and whole:
                full = self._whole_documents(doc_ids)
                if full is not None:
                    return full
        if not query:
            return Retrieval([], [], answerable=False)
        # A named file's first chunk is always weighed; a scope's files are not named.
        firsts: list[Key] = [(d, 0) for d in doc_ids] if doc_ids and files else []
        # The keyword search and its vector read need no query vector: they run in a
        # helper thread while this one embeds the query (onnxruntime frees the GIL).
        side = helper_threads().submit(
            keyword_side, query, dense, self.keyword, s.pool, doc_ids, firsts
        )
        vector = self._vector(query)
        candidates = combine(vector, self._nearest(query, vector, doc_ids), side.result())
        trust = self.fusion(candidates, query)
        candidates.sort(key=lambda c: -c.fused)
        # Asking about a named file is an answerable question about that file.
        if not files and not s.floor.passes(candidates):
            _leave_out(candidates, "below the relevance floor")
            return Retrieval([], candidates, answerable=False)
        # After the floor, so what it refuses does not depend on the prior.
        lean_on_documents(candidates, vector, dense.document_vectors)
        candidates.sort(key=lambda c: -c.fused)
        problem = self.reranker.problem
        if problem is None:
            head = candidates[: max(k, s.rerank_candidates)]
            _leave_out(candidates[len(head) :], f"not in the top {len(head)} to rerank")
            load(dense, head)
            readable = [c for c in head if c.chunk is not None]
            if on_rerank is not None and readable and reranking_active(self.reranker):
                on_rerank(len(readable))
            chosen, notes = self._rerank(query, readable)
            ranked = "reranked below" if reranking_active(self.reranker) and not notes else "not in"
            _leave_out(chosen[k:], f"{ranked} the top {k}")
            chosen = chosen[:k]
            near = load(dense, chosen, neighbour_keys(chosen))
        else:
            # Without a reranker only the top k are shown: read them and their
            # neighbours in one call to the store.
            _leave_out(candidates[k:], f"not in the top {k}")
            chosen = candidates[:k]
            near = load(dense, chosen, neighbour_keys(chosen))
            chosen = [c for c in chosen if c.chunk is not None]
            if trust is not None:
                chosen = order_by_proximity(chosen, self.keyword.term_weights(query), trust)
            notes = [f"Reranking is off ({problem}); ordered by the search scores."]
        _leave_out([c for c in candidates if c.chunk is None and c.left_out is None], GONE)
        score_of = {c.key: _shown_score(c) for c in chosen}
        passages = self._located(expand(chosen, near.values(), s.max_passage_chars, score_of))
        # Not after a reranking model's order; but after one that failed, as without one.
        model_ordered = reranking_active(self.reranker) and not notes
        if s.sentence_order and not model_ordered:
            passages, notes = self._order_by_sentences(passages, vector, notes)
        return Retrieval(passages, candidates, notes)

    def _rerank(self, query: str, candidates: list[Candidate]) -> tuple[list[Candidate], list[str]]:
        if not candidates:
            return candidates, []
        try:
            scores = self.reranker.rerank(query, [c.text for c in candidates])
        except RerankerUnavailable as error:
            return candidates, [f"Reranking is off ({error}); ordered by the search scores."]
        for c, score in zip(candidates, scores, strict=True):
            c.rerank = score
        return sorted(candidates, key=lambda c: -(c.rerank or 0.0)), []

    def _order_by_sentences(
        self, passages: list[Passage], vector: Sequence[float], notes: list[str]
    ) -> tuple[list[Passage], list[str]]:
        try:
            return order_by_sentences(passages, vector, self._embed_sentences), notes
        except (LLMError, EmbedderUnavailable) as error:
            return passages, [*notes, f"Ordering by sentences is off ({error})."]

    def _embed_sentences(self, texts: list[str]) -> list[list[float]]:
        """Each text's vector, embedded once in this search."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._sentences]
        if missing:
            vectors = self.reader.embedder.embed(missing)
            self._sentences.update(zip(missing, vectors, strict=True))
        return [self._sentences[t] for t in texts]

    def _located(self, passages: list[Passage]) -> list[Passage]:
        """Passages with the paths their documents have now; those of gone documents dropped."""
        kept = []
        for p in passages:
            paths = self.library.paths_of(p.doc_id)
            if paths:
                p.path, p.file, p.paths = paths[0], paths[0].rsplit("/", 1)[-1], paths
                kept.append(p)
            else:
                _leave_out(p.hits, GONE)
        return kept

    def _whole_documents(self, doc_ids: list[str]) -> Retrieval | None:
        """Every chunk of the documents as passages, if they fit the context budget."""
        s = self.settings
        texts: list[Passage] = []
        total = 0
        for doc_id in doc_ids:
            chunks = self.reader.dense.document_chunks(doc_id)
            for piece in whole_pages(chunks, s.max_passage_chars):
                total += len(piece.text)
                if total > s.context_chars:
                    return None
                texts.append(piece)
        located = self._located(texts)
        return Retrieval(located, [], full_documents=True) if located else None


GONE = "its document left the library during the search"


def _leave_out(candidates: Sequence[Candidate], why: str) -> None:
    """Say why these candidates lead no passage (the trace shows it)."""
    for c in candidates:
        c.left_out = why


def _shown_score(c: Candidate) -> float:
    """The score a passage is shown and merged by: the last stage that ordered it."""
    if c.rerank is not None:
        return c.rerank
    return c.final if c.final is not None else c.fused
