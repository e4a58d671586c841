"""Index a folder of the shared corpus the way Docent does, for the retrieval benchmarks.

Chunks come from the project's chunker, vectors from its MiniLM embedder, keywords from
its BM25 index; the indexes are cached under /tmp so a second run starts at once.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from graph.retrieval.floor import Floor
from graph.retrieval.fusion import FUSIONS
from graph.retrieval.retriever import RetrievalSettings, Retriever
from ingest.index.keyword.index import KeywordIndex
from ingest.index.vectors import ChromaStore, make_chroma_client
from ingest.loaders import UnreadableFile, load
from ingest.pipeline.chunker import chunk_pages
from ingest.types import Chunk, Page
from models.embeddings import MiniLMEmbedder
from models.reranker import FlashRankReranker

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
CACHE = Path("/tmp/retrieval-eval")


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

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.known: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, self.inner.embed(missing), strict=True))
        return [self.known[t] for t in texts]


@dataclass
class Indexed:
    store: ChromaStore
    keyword: KeywordIndex
    library: DictLibrary
    embedder: MiniLMEmbedder
    queries: RememberingEmbedder = field(init=False)

    def __post_init__(self) -> None:
        self.queries = RememberingEmbedder(self.embedder)

    def retriever(self, fusion: str, *, floor: Floor | None = None, top_k: int = 10) -> Retriever:
        # No model on disk and downloads off: the reranker stays out, as on a fresh machine.
        reranker = FlashRankReranker(CACHE / "no-reranker")
        settings = RetrievalSettings(top_k=top_k, floor=floor or Floor(relevance=-1))
        return Retriever(
            self.store,
            self.keyword,
            self.queries,
            reranker,
            self.library,
            settings,
            FUSIONS[fusion],
        )


def doc_key(rel: str) -> str:
    return hashlib.sha1(rel.encode()).hexdigest()[:16]


def index_folder(name: str, root: Path, pattern: str, *, raw: bool) -> Indexed:
    """Index every file under ``root`` matching ``pattern`` (raw: the file text as one page).

    Reuses the cache when it holds the folder (the keyword index is caught up from the
    store if its version changed, which needs no embedding); files the loaders refuse
    (empty pages) are left out, as the app would.
    """
    cache = CACHE / name
    embedder = MiniLMEmbedder()
    client = make_chroma_client(cache)
    store = ChromaStore(client, embedder)
    keyword = KeywordIndex(cache / "keyword")
    files = {doc_key(p.relative_to(root).as_posix()): p for p in sorted(root.glob(pattern))}
    paths = {doc_id: p.relative_to(root).as_posix() for doc_id, p in files.items()}
    done = cache / "complete"
    if store.count() and (done.is_file() or store.document_ids() == set(paths)):
        keyword.catch_up(store)
        return Indexed(store, keyword, DictLibrary(paths), embedder)
    started = time.perf_counter()
    for doc_id, path in files.items():
        rel = paths[doc_id]
        try:
            pages = [Page(None, path.read_text(encoding="utf-8"))] if raw else load(path)
        except UnreadableFile:
            continue
        chunks = [
            Chunk(doc_id, rel, path.name, p.page, i, p.start, p.end, p.text, "-")
            for i, p in enumerate(chunk_pages(pages, 1000, 150))
        ]
        store.replace_document(doc_id, chunks)
        keyword.replace_document(doc_id, chunks)
    done.write_text("")
    print(
        f"indexed {name}: {len(files)} files, {store.count()} chunks "
        f"in {time.perf_counter() - started:.0f} s"
    )
    return Indexed(store, keyword, DictLibrary(paths), embedder)
