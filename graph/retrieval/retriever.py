"""The retriever: search both indexes, fuse, apply the floor, rerank, add context.

Synchronous and blocking (embedding, Chroma, BM25): async callers use a worker thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from graph.retrieval.candidates import combine, keyword_side, load
from graph.retrieval.expand import PageText, expand, neighbour_keys
from graph.retrieval.floor import Floor
from graph.retrieval.fusion import Fusion, adaptive
from graph.retrieval.ports import DenseIndex, KeywordSearch, Library, QueryEmbedder
from graph.retrieval.proximity import order_by_proximity
from graph.retrieval.types import Candidate, Key, Passage, Retrieval
from ingest.types import Chunk, Hit
from models.protocols import Reranker
from models.reranker import RerankerUnavailable, reranking_active

MAX_QUERY_CHARS = 4_000
"""Text past this is not searched for: it bounds the work any query can cause."""
MAX_K = 50


@dataclass(frozen=True)
class RetrievalSettings:
    """How much to look at and how much to hand on."""

    top_k: int = 6
    """Passages the generator gets."""
    pool: int = 50
    """Chunks each search contributes before fusion."""
    rerank_candidates: int = 30
    """Fused chunks the reranker reorders."""
    max_passage_chars: int = 2_400
    context_chars: int = 12_000
    """Mentioned files up to this size in all are given whole (full-document mode)."""
    floor: Floor = field(default_factory=Floor)


class Retriever:
    """Hybrid search with adaptive fusion, reranking, neighbours and a relevance floor."""

    def __init__(
        self,
        dense: DenseIndex,
        keyword: KeywordSearch,
        embedder: QueryEmbedder,
        reranker: Reranker,
        library: Library,
        settings: RetrievalSettings | None = None,
        fusion: Fusion = adaptive,
    ) -> None:
        self.dense = dense
        self.keyword = keyword
        self.embedder = embedder
        self.reranker = reranker
        self.library = library
        self.settings = settings or RetrievalSettings()
        self.fusion = fusion

    def retrieve(
        self,
        query: str,
        files: Sequence[str] = (),
        k: int | None = None,
        *,
        whole: bool = False,
        on_rerank: Callable[[int], None] | None = None,
    ) -> Retrieval:
        """The passages for ``query``, best first; ``files`` limits the search to them.

        With ``whole``, mentioned files that fit the context budget come back entire
        (in passages of at most ``max_passage_chars``, in reading order). ``on_rerank``
        hears how many passages a reranking model is about to read, once the search is
        done (not called when no model reranks).
        """
        s = self.settings
        k = max(1, min(k or s.top_k, MAX_K))
        query = _searched(query)
        doc_ids: list[str] | None = None
        if files:
            doc_ids = self.library.keys_for(files)
            if not doc_ids:
                return Retrieval([], [], answerable=False)
            if whole:
                full = self._whole_documents(doc_ids)
                if full is not None:
                    return full
        if not query:
            return Retrieval([], [], answerable=False)
        firsts: list[Key] = [(d, 0) for d in doc_ids] if doc_ids else []
        # The keyword search and its vector read need no query vector: they run in a
        # helper thread while this one embeds the query (onnxruntime frees the GIL).
        side = _helpers().submit(
            keyword_side, query, self.dense, self.keyword, s.pool, doc_ids, firsts
        )
        vector = self.embedder.embed_query(query)
        candidates = combine(vector, self.dense, side.result(), s.pool, doc_ids)
        trust = self.fusion(candidates, query)
        candidates.sort(key=lambda c: -c.fused)
        # Asking about a named file is an answerable question about that file.
        if not doc_ids and not s.floor.passes(candidates):
            return Retrieval([], candidates, answerable=False)
        problem = _rerank_problem(self.reranker)
        if problem is None:
            head = candidates[: max(k, s.rerank_candidates)]
            load(self.dense, head)
            readable = [c for c in head if c.chunk is not None]
            if on_rerank is not None and readable and reranking_active(self.reranker):
                on_rerank(len(readable))
            chosen, notes = self._rerank(query, readable)
            chosen = chosen[:k]
            near = load(self.dense, chosen, neighbour_keys(chosen))
        else:
            # Without a reranker only the top k are shown: read them and their
            # neighbours in one call to the store.
            chosen = candidates[:k]
            near = load(self.dense, chosen, neighbour_keys(chosen))
            chosen = [c for c in chosen if c.chunk is not None]
            if trust is not None:
                chosen = order_by_proximity(chosen, self.keyword.term_weights(query), trust)
            notes = [f"Reranking is off ({problem}); ordered by the search scores."]
        score_of = {c.key: _shown_score(c) for c in chosen}
        passages = expand(chosen, near.values(), s.max_passage_chars, score_of)
        return Retrieval(self._located(passages), candidates, notes)

    def warm(self, query: str) -> None:
        """Start embedding ``query`` in the background, for a ``retrieve`` of it that is
        about to come: the turn's steps before the search then overlap its embedding.
        Only an embedder that shares work in flight gains from it (``CachedQueryEmbedder``)."""
        warm = getattr(self.embedder, "warm", None)
        query = _searched(query)
        if warm is not None and query:
            warm(query, _helpers())

    def describe(self, candidates: Sequence[Candidate]) -> list[dict[str, Any]]:
        """Where each candidate is and why it was considered, for a turn's trace."""
        load(self.dense, candidates)
        out = []
        for c in candidates:
            if c.chunk is None:
                continue  # gone from the store since the search
            path = self.library.path_of(c.key[0]) or c.chunk.path
            out.append({"path": path, "page": c.chunk.page, "index": c.key[1], **c.scores()})
        return out

    def outline(self, candidates: Sequence[Candidate]) -> list[dict[str, Any]]:
        """Each candidate's key and scores, without reading anything: what a turn keeps
        until its answer has started (``locate`` turns it into ``describe``'s form)."""
        return [{"key": c.key[0], "index": c.key[1], **c.scores()} for c in candidates]

    def locate(self, outlined: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """``outline``'s records with where each chunk is (path, page), read in one call;
        records of chunks gone since are dropped, records already located kept as they are."""
        keys = [(o["key"], o["index"]) for o in outlined if "key" in o]
        chunks = {(c.doc_id, c.index): c for c in self.dense.get_chunks(keys)} if keys else {}
        out = []
        for o in outlined:
            if "key" not in o:
                out.append(dict(o))
                continue
            chunk = chunks.get((o["key"], o["index"]))
            if chunk is None:
                continue
            path = self.library.path_of(chunk.doc_id) or chunk.path
            scores = {k: v for k, v in o.items() if k not in ("key", "index")}
            read = {"ocr": True, "ocr_confidence": chunk.ocr_confidence} if chunk.ocr else {}
            out.append({"path": path, "page": chunk.page, "index": o["index"], **read, **scores})
        return out

    def search(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        """``PassageSearch``: the passages as hits (for callers that want only a probe)."""
        found = self.retrieve(query, files or (), k)
        return [Hit(chunk=_as_chunk(p), score=p.score) for p in found.passages]

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

    def _located(self, passages: list[Passage]) -> list[Passage]:
        """Passages with the paths their documents have now; those of gone documents dropped."""
        kept = []
        for p in passages:
            paths = self.library.paths_of(p.doc_id)
            if paths:
                p.path, p.file, p.paths = paths[0], paths[0].rsplit("/", 1)[-1], paths
                kept.append(p)
        return kept

    def _whole_documents(self, doc_ids: list[str]) -> Retrieval | None:
        """Every chunk of the documents as passages, if they fit the context budget."""
        s = self.settings
        texts: list[Passage] = []
        total = 0
        for doc_id in doc_ids:
            chunks = self.dense.document_chunks(doc_id)
            for piece in _pages(chunks, s.max_passage_chars):
                total += len(piece.text)
                if total > s.context_chars:
                    return None
                texts.append(piece)
        located = self._located(texts)
        return Retrieval(located, [], full_documents=True) if located else None


_helper_pool: ThreadPoolExecutor | None = None
_helper_lock = threading.Lock()


def _helpers() -> ThreadPoolExecutor:
    """The threads that search keywords beside the query's embedding, made on first use
    and shared by every retriever (a turn needs one for a few milliseconds)."""
    global _helper_pool
    with _helper_lock:
        if _helper_pool is None:
            _helper_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="keywords")
        return _helper_pool


def _searched(query: str) -> str:
    """The text a query is searched (and embedded) as."""
    return " ".join(query[:MAX_QUERY_CHARS].split())


def _pages(chunks: list[Chunk], limit: int) -> list[Passage]:
    """A document's text rebuilt from its chunks, page by page, cut into ≤ ``limit`` pieces."""
    out: list[Passage] = []
    by_page: dict[int | None, list[Chunk]] = {}
    for chunk in chunks:
        by_page.setdefault(chunk.page, []).append(chunk)
    for page, members in by_page.items():
        known = PageText()
        for c in members:
            known.add(c)
        start, end = min(c.start for c in members), max(c.end for c in members)
        text = known.text(start, end)
        for at in range(0, len(text), limit):
            first = members[0]
            out.append(
                Passage(
                    doc_id=first.doc_id,
                    path=first.path,
                    file=first.file,
                    page=page,
                    start=start + at,
                    end=min(end, start + at + limit),
                    text=text[at : at + limit],
                    score=1.0,
                    ocr_confidence=first.ocr_confidence,
                )
            )
    return out


def _shown_score(c: Candidate) -> float:
    """The score a passage is shown and merged by: the last stage that ordered it."""
    if c.rerank is not None:
        return c.rerank
    return c.final if c.final is not None else c.fused


def _rerank_problem(reranker: Reranker) -> str | None:
    """Why ``reranker`` cannot rerank now (FlashRank without its model), or None."""
    return getattr(reranker, "problem", None)


def _as_chunk(p: Passage) -> Chunk:
    index = p.hits[0].key[1] if p.hits else 0
    sha = p.hits[0].chunk.sha256 if p.hits and p.hits[0].chunk else ""
    return Chunk(
        p.doc_id,
        p.path,
        p.file,
        p.page,
        index,
        p.start,
        p.end,
        p.text,
        sha,
        ocr_confidence=p.ocr_confidence,
    )
