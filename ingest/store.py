"""The Chroma store: one collection of chunks per embedding model.

We always pass embeddings ourselves: collections are created without an embedding
function, so chromadb never loads (or downloads) its default ONNX model. All methods are
synchronous and may block; async callers use ``asyncio.to_thread``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import chromadb
from chromadb.api import ClientAPI

from ingest.types import Chunk, Hit
from models.protocols import Embedder

log = logging.getLogger(__name__)

EMBED_BATCH = 512
"""Texts per call to the embedder: large, since the embedder sorts one call's texts by
length to pad little, yet bounded so a huge document doesn't hold every vector at once."""

_NO_PAGE = -1  # Chroma rejects None in metadata
_ID_PAGE = 10_000


class StoreUnavailable(Exception):
    """The Chroma server named by the settings cannot be reached."""


def _settings(**overrides: Any) -> chromadb.Settings:
    # chromadb.Settings also reads CHROMA_* variables and a .env file in the working
    # directory; pinning these here means no environment can turn reporting back on.
    noop = "chromadb.telemetry.product.posthog.Posthog"  # its capture() does nothing
    return chromadb.Settings(
        anonymized_telemetry=False,
        chroma_product_telemetry_impl=noop,
        chroma_telemetry_impl=noop,
        chroma_otel_granularity="none",
        chroma_otel_collection_endpoint="",
        allow_reset=False,
        **overrides,
    )


def make_chroma_client(data_dir: Path, url: str | None = None) -> ClientAPI:
    """The embedded store in ``data_dir/chroma``, or the Chroma server at ``url``."""
    if not url:
        path = data_dir / "chroma"
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=_settings())
    parts = urlsplit(url if "://" in url else f"http://{url}")
    ssl = parts.scheme == "https"
    host = parts.hostname or "localhost"
    port = parts.port or (443 if ssl else 8000)
    try:
        return chromadb.HttpClient(
            host=host,
            port=port,
            ssl=ssl,
            settings=_settings(chroma_server_host=host, chroma_server_http_port=port),
        )
    except Exception as exc:  # chromadb raises ValueError on connection failure
        raise StoreUnavailable(
            f"Chroma is not reachable at {url} ({exc}). Start the Chroma server, or unset"
            " DOCENT_CHROMA_URL to use the embedded store."
        ) from exc


def collection_name(embedder_name: str) -> str:
    """A Chroma collection name for an embedding model, e.g. ``docent-all-minilm-l6-v2``.

    Chroma allows 3-512 characters from [a-zA-Z0-9._-], alphanumeric at both ends and
    no "..": everything else becomes "-".
    """
    slug = re.sub(r"[^a-z0-9._-]+", "-", embedder_name.lower())
    slug = re.sub(r"\.{2,}", ".", slug)
    slug = re.sub(r"-{2,}", "-", slug).strip("._-")
    return f"docent-{slug or 'default'}"[:512].rstrip("._-")


def _metadata(chunk: Chunk) -> dict[str, str | int]:
    return {
        "doc_id": chunk.doc_id,
        "path": chunk.path,
        "file": chunk.file,
        "page": _NO_PAGE if chunk.page is None else chunk.page,
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "sha256": chunk.sha256,
    }


def _chunk(text: str, meta: Mapping[str, Any]) -> Chunk:
    page = int(meta["page"])
    return Chunk(
        doc_id=str(meta["doc_id"]),
        path=str(meta["path"]),
        file=str(meta["file"]),
        page=None if page == _NO_PAGE else page,
        index=int(meta["index"]),
        start=int(meta["start"]),
        end=int(meta["end"]),
        text=text,
        sha256=str(meta["sha256"]),
    )


def _id(key: tuple[str, int]) -> str:
    return f"{key[0]}:{key[1]}"


def _key(chunk_id: str) -> tuple[str, int]:
    doc_id, index = chunk_id.rsplit(":", 1)
    return doc_id, int(index)


def _batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class ChromaStore:
    """Chunks and their vectors for one embedding model."""

    def __init__(self, client: ClientAPI, embedder: Embedder) -> None:
        self.client = client
        self.embedder = embedder
        self.name = collection_name(embedder.name)
        self._collection = client.get_or_create_collection(
            name=self.name,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"embedder": embedder.name},
            embedding_function=None,
        )

    def replace_document(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        """Make ``chunks`` the document's only chunks (ids ``f"{doc_id}:{index}"``).

        Everything is embedded before the old chunks are deleted, so a failing
        embedder leaves the previous version searchable.
        """
        vectors: list[list[float]] = []
        for batch in _batches(chunks, EMBED_BATCH):
            vectors.extend(self.embedder.embed([chunk.text for chunk in batch]))
        if len(vectors) != len(chunks):
            raise ValueError(f"embedder returned {len(vectors)} vectors for {len(chunks)} texts")
        self.delete_document(doc_id)
        limit = max(1, min(self.client.get_max_batch_size(), 1000))
        for start in range(0, len(chunks), limit):
            part = chunks[start : start + limit]
            self._collection.add(
                ids=[f"{doc_id}:{chunk.index}" for chunk in part],
                embeddings=cast(Any, vectors[start : start + limit]),
                documents=[chunk.text for chunk in part],
                metadatas=cast(Any, [_metadata(chunk) for chunk in part]),
            )

    def delete_document(self, doc_id: str) -> None:
        """Remove every chunk of the document (no error if it has none)."""
        self._collection.delete(where={"doc_id": doc_id})

    def search(self, query: str, k: int = 5, files: Sequence[str] | None = None) -> list[Hit]:
        """The ``k`` chunks nearest ``query``, best first; ``files`` limits the documents.

        Each entry of ``files`` matches a chunk by file name or by relative path.
        """
        if not query.strip() or k <= 0:
            return []
        where: Any = None
        if files:
            names = sorted({name.replace("\\", "/") for name in files})
            where = {"$or": [{"file": {"$in": names}}, {"path": {"$in": names}}]}
        vector = self.embedder.embed([query])[0]
        result = self._collection.query(
            query_embeddings=cast(Any, [vector]),
            n_results=k,
            where=where,
            include=cast(Any, ["documents", "metadatas", "distances"]),
        )
        documents = (result.get("documents") or [[]])[0]
        metadatas = (result.get("metadatas") or [[]])[0]
        distances = (result.get("distances") or [[]])[0]
        return [
            Hit(chunk=_chunk(text or "", meta), score=1.0 - float(distance))
            for text, meta, distance in zip(documents, metadatas, distances, strict=True)
        ]

    def query_vector(
        self, vector: Sequence[float], k: int, doc_ids: Collection[str] | None = None
    ) -> list[Hit]:
        """The ``k`` chunks nearest ``vector``, texts included, best first (the router's probe)."""
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        where: Any = {"doc_id": {"$in": sorted(doc_ids)}} if doc_ids is not None else None
        result = self._collection.query(
            query_embeddings=cast(Any, [list(vector)]),
            n_results=k,
            where=where,
            include=cast(Any, ["documents", "metadatas", "distances"]),
        )
        documents = (result.get("documents") or [[]])[0]
        metadatas = (result.get("metadatas") or [[]])[0]
        distances = (result.get("distances") or [[]])[0]
        return [
            Hit(chunk=_chunk(text or "", meta), score=1.0 - float(distance))
            for text, meta, distance in zip(documents, metadatas, distances, strict=True)
        ]

    def nearest(
        self, vector: Sequence[float], k: int, doc_ids: Collection[str] | None = None
    ) -> list[tuple[tuple[str, int], float]]:
        """The keys of the ``k`` chunks nearest ``vector`` with their cosine, best first.

        Only ids and distances: reading texts and metadata is most of a query's cost, so
        callers fetch those (``get_chunks``) for the few chunks they keep.
        """
        if k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        where: Any = {"doc_id": {"$in": sorted(doc_ids)}} if doc_ids is not None else None
        result = self._collection.query(
            query_embeddings=cast(Any, [list(vector)]),
            n_results=k,
            where=where,
            include=cast(Any, ["distances"]),
        )
        ids = (result.get("ids") or [[]])[0]
        distances = (result.get("distances") or [[]])[0]
        return [
            (_key(chunk_id), 1.0 - float(distance))
            for chunk_id, distance in zip(ids, distances, strict=True)
        ]

    def vectors(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Sequence[float]]:
        """The stored vectors of the chunks with these keys that exist."""
        if not keys:
            return {}
        page = self._collection.get(
            ids=[_id(key) for key in keys], include=cast(Any, ["embeddings"])
        )
        embeddings = page.get("embeddings")
        if embeddings is None:
            return {}
        return dict(zip(map(_key, page["ids"]), embeddings, strict=True))

    def get_chunks(self, keys: Sequence[tuple[str, int]]) -> list[Chunk]:
        """The chunks with these (doc id, index) keys that exist."""
        if not keys:
            return []
        page = self._collection.get(
            ids=[_id(key) for key in keys], include=cast(Any, ["documents", "metadatas"])
        )
        return [
            _chunk(text or "", meta)
            for text, meta in zip(page["documents"] or [], page["metadatas"] or [], strict=True)
        ]

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        """Every chunk of one document, in order."""
        page = self._collection.get(
            where={"doc_id": doc_id}, include=cast(Any, ["documents", "metadatas"])
        )
        chunks = [
            _chunk(text or "", meta)
            for text, meta in zip(page["documents"] or [], page["metadatas"] or [], strict=True)
        ]
        return sorted(chunks, key=lambda chunk: chunk.index)

    def count(self) -> int:
        """How many chunks the collection holds."""
        return self._collection.count()

    def document_ids(self) -> set[str]:
        """Ids of every document with at least one chunk."""
        ids: set[str] = set()
        offset = 0
        while True:
            page = self._collection.get(include=[], limit=_ID_PAGE, offset=offset)
            ids.update(chunk_id.rsplit(":", 1)[0] for chunk_id in page["ids"])
            if len(page["ids"]) < _ID_PAGE:
                return ids
            offset += _ID_PAGE
