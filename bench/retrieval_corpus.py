"""Index a folder of the shared corpus the way Docent does, for the retrieval benchmarks.

Chunks come from the project's chunker, vectors from its MiniLM embedder, keywords from
its BM25 index; the indexes are cached under /tmp (``CACHE``) so a second run starts at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from graph.retrieval.floor import Floor
from graph.retrieval.fusion import FUSIONS, Fusion
from graph.retrieval.retriever import RetrievalSettings, Retriever
from graph.retrieval.scored import Retrieval
from ingest.document_parts import Chunk, DocumentVector, Page
from ingest.index.chroma_calls import open_chroma
from ingest.index.chunk_context import VECTOR_TEXT_VERSION
from ingest.index.keyword.index import KeywordIndex
from ingest.index.vectors import ChromaStore
from ingest.loaders import UnreadableFile, load
from ingest.pipeline.chunker import chunk_pages
from models.embeddings import MiniLMEmbedder
from models.protocols import Embedder
from models.reranker import FlashRankReranker

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

Rank = int | None
"""Where a search put the gold answer's passage (1 is first), or None when it didn't."""
RankOf = Callable[[Retrieval, dict], Rank]
CACHE = Path(os.environ.get("DOCENT_EVAL_CACHE", "/tmp/retrieval-eval"))
"""Shared by the worktrees' runs: a branch whose chunks or vectors differ sets
``DOCENT_EVAL_CACHE`` to a folder of its own, or it would read another branch's index."""


class DictLibrary:
    """A ``Library`` over a fixed map of document keys to paths."""

    def __init__(self, paths: dict[str, str]) -> None:
        self.paths = paths
        self._by_path = {p: d for d, p in paths.items()}

    def path_of(self, doc_id: str) -> str | None:
        return self.paths.get(doc_id)

    def paths_of(self, doc_id: str) -> list[str]:
        path = self.paths.get(doc_id)
        return [path] if path is not None else []

    def keys_for(self, files: Sequence[str]) -> list[str]:
        out = []
        for name in files:
            for doc_id, path in self.paths.items():
                if name in (path, path.rsplit("/", 1)[-1]):
                    out.append(doc_id)
        return out


class RememberingEmbedder:
    """MiniLM remembering every text it embedded: each method searches the same questions,
    and each question is embedded once."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.known: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, self.inner.embed(missing), strict=True))
        return [self.known[t] for t in texts]


@dataclass(frozen=True)
class Variant:
    """Which ideas a retriever runs with: what vectors are made from (1: the chunk's text,
    2: its title and heading path, then its text), and whether search leans on document
    vectors (``graph.retrieval.prior``). The keyword index is the same for all."""

    vector_text: int = VECTOR_TEXT_VERSION
    prior: bool = True


class _NoDocuments:
    """A store whose documents have no vectors: search without the document prior."""

    def __init__(self, store: ChromaStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def document_vectors(self, doc_ids: Collection[str]) -> dict[str, DocumentVector]:
        return {}


@dataclass
class Indexed:
    """One folder's chunks and the indexes built over them, a store per kind of vector and
    one keyword index, each cached on disk."""

    name: str
    chunks: dict[str, list[Chunk]]
    library: DictLibrary
    embedder: Embedder
    cache: Path = CACHE
    queries: RememberingEmbedder = field(init=False)
    _stores: dict[int, ChromaStore] = field(default_factory=dict)
    _keyword: KeywordIndex | None = None

    def __post_init__(self) -> None:
        self.queries = RememberingEmbedder(self.embedder)
        self.client = open_chroma(self.cache / self.name / _slug(self.embedder.name))

    @property
    def store(self) -> ChromaStore:
        return self.vectors(VECTOR_TEXT_VERSION)

    @property
    def keyword(self) -> KeywordIndex:
        """The keyword index, built from the chunks on first use (and kept in the cache)."""
        if self._keyword is None:
            self._keyword = KeywordIndex(self.cache / self.name / "keyword")
            self._keyword.catch_up(_Chunks(self.chunks))
        return self._keyword

    def vectors(self, vector_text: int) -> ChromaStore:
        """The store whose vectors are of ``vector_text``, embedded on first use."""
        if vector_text not in self._stores:
            store = ChromaStore(self.client, self.embedder, vector_text=vector_text)
            done = self.cache / self.name / f"complete-{store.name}"
            if not (done.is_file() and store.count()):
                started = time.perf_counter()
                for doc_id, chunks in self.chunks.items():
                    store.replace_document(doc_id, chunks)
                done.write_text("")
                print(
                    f"embedded {self.name} ({store.name}): {store.count()} chunks"
                    f" in {time.perf_counter() - started:.0f} s"
                )
            elif filled := store.fill_document_vectors():  # a cache from before them
                print(f"gave {filled} documents of {self.name} their document vector")
            self._stores[vector_text] = store
        return self._stores[vector_text]

    def retriever(
        self,
        fusion: str,
        variant: Variant | None = None,
        *,
        floor: Floor | None = None,
        top_k: int = 10,
        wrap: Callable[[Fusion], Fusion] | None = None,
        sentence_order: bool = False,
        embedder: Embedder | None = None,
    ) -> Retriever:
        """A retriever over the variant's indexes; ``wrap`` adds a step after fusion.
        Queries are embedded by ``embedder``, or by one that remembers every text."""
        variant = variant or Variant()
        # No model on disk and downloads off: the reranker stays out, as on a fresh machine.
        reranker = FlashRankReranker(self.cache / "no-reranker")
        settings = RetrievalSettings(
            top_k=top_k, floor=floor or Floor(relevance=-1), sentence_order=sentence_order
        )
        fuse = FUSIONS[fusion]
        store = self.vectors(variant.vector_text)
        # The prior moves scores in the z units of Docent's fusion; the single-list
        # baselines (bm25, dense, rrf) stay what they are named.
        prior = variant.prior and fusion == "docent"
        return Retriever(
            store if prior else cast(ChromaStore, _NoDocuments(store)),
            self.keyword,
            embedder or self.queries,
            reranker,
            self.library,
            settings,
            wrap(fuse) if wrap is not None else fuse,
        )


class _Chunks:
    """The corpus as the keyword index's ``ChunkSource``."""

    def __init__(self, chunks: dict[str, list[Chunk]]) -> None:
        self.chunks = chunks

    def document_ids(self) -> set[str]:
        return set(self.chunks)

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        return self.chunks[doc_id]


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in name.lower())


def doc_key(rel: str) -> str:
    return hashlib.sha1(rel.encode()).hexdigest()[:16]


def index_folder(
    name: str,
    root: Path,
    pattern: str,
    *,
    raw: bool,
    embedder: Embedder | None = None,
    cache: Path = CACHE,
    only: Callable[[str], bool] | None = None,
) -> Indexed:
    """The chunks of every file under ``root`` matching ``pattern`` (raw: the file text as
    one page), as the app cuts them; indexes are built in ``cache`` when first asked for.
    ``only`` keeps the files whose relative path it accepts. Files the loaders refuse
    (empty pages) are left out, as the app would."""
    found = sorted(root.glob(pattern))
    if only is not None:
        found = [p for p in found if only(p.relative_to(root).as_posix())]
    files = {doc_key(p.relative_to(root).as_posix()): p for p in found}
    paths = {doc_id: p.relative_to(root).as_posix() for doc_id, p in files.items()}
    chunks: dict[str, list[Chunk]] = {}
    for doc_id, path in files.items():
        rel = paths[doc_id]
        try:
            pages = [Page(None, path.read_text(encoding="utf-8"))] if raw else load(path)
        except UnreadableFile:
            continue
        chunks[doc_id] = [
            Chunk(doc_id, rel, path.name, p.page, i, p.start, p.end, p.text, "-", p.heading)
            for i, p in enumerate(chunk_pages(pages, 1000, 150))
        ]
    return Indexed(name, chunks, DictLibrary(paths), embedder or MiniLMEmbedder(), cache)


# -- the questions, and where a search ranks their gold -------------------------------------


def squad_sample(n: int) -> list[dict]:
    rows = [json.loads(line) for line in open(CORPUS / "squad" / "questions.jsonl")]
    return random.Random(7).sample(rows, n)


def squad_rank(result: Retrieval, q: dict) -> Rank:
    gold = q["doc_file"].removeprefix("docs/")
    spans = [
        (a["char_start_in_doc"], a["char_start_in_doc"] + len(a["text"])) for a in q["answers"]
    ]
    for rank, p in enumerate(result.passages, start=1):
        if p.path == gold and any(p.start < hi and lo < p.end for lo, hi in spans):
            return rank
    return None


def page_rank(result: Retrieval, q: dict) -> Rank:
    for rank, p in enumerate(result.passages, start=1):
        if p.path == q["file"]:
            return rank
    return None
