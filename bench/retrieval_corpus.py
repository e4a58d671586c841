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
from ingest.chunker import chunk_pages
from ingest.keyword import KeywordIndex
from ingest.loaders import load
from ingest.store import ChromaStore, make_chroma_client
from ingest.types import Chunk, Page
from models.embeddings import MiniLMEmbedder
from models.query_cache import CachedQueryEmbedder
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

    def keys_for(self, files: Sequence[str]) -> list[str]:
        out = []
        for name in files:
            for doc_id, path in self.paths.items():
                if name in (path, path.rsplit("/", 1)[-1]):
                    out.append(doc_id)
        return out


@dataclass
class Indexed:
    store: ChromaStore
    keyword: KeywordIndex
    library: DictLibrary
    embedder: MiniLMEmbedder
    texts: dict[str, str]
    """Each document's page text (single-page formats) by relative path."""
    queries: CachedQueryEmbedder = field(init=False)
    """One query cache for every method: each question is embedded once."""

    def __post_init__(self) -> None:
        self.queries = CachedQueryEmbedder(self.embedder, max_entries=100_000)

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
    """Index every file under ``root`` matching ``pattern`` (raw: the file text as one page)."""
    cache = CACHE / name
    embedder = MiniLMEmbedder()
    client = make_chroma_client(cache)
    store = ChromaStore(client, embedder)
    keyword = KeywordIndex(cache / "keyword")
    files = sorted(root.glob(pattern))
    paths, texts = {}, {}
    todo: list[tuple[str, str, list[Page]]] = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        pages = [Page(None, path.read_text(encoding="utf-8"))] if raw else load(path)
        paths[doc_key(rel)] = rel
        texts[rel] = pages[0].text
        todo.append((rel, path.name, pages))
    if store.count() and keyword.document_ids() == set(paths):
        return Indexed(store, keyword, DictLibrary(paths), embedder, texts)
    started = time.perf_counter()
    for rel, file, pages in todo:
        doc_id = doc_key(rel)
        chunks = [
            Chunk(doc_id, rel, file, p.page, i, p.start, p.end, p.text, "-")
            for i, p in enumerate(chunk_pages(pages, 1000, 150))
        ]
        store.replace_document(doc_id, chunks)
        keyword.replace_document(doc_id, chunks)
    print(
        f"indexed {name}: {len(todo)} files, {store.count()} chunks "
        f"in {time.perf_counter() - started:.0f} s"
    )
    return Indexed(store, keyword, DictLibrary(paths), embedder, texts)
