"""The pair of Chroma collections behind a ChromaStore (chunks, documents' vectors), opened
again whenever ``ChromaCalls`` opens a new client."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, cast

from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection as ChromaCollection

from ingest.index.chroma_calls import ChromaCalls
from ingest.index.chroma_rows import TEXT_KEY, ChromaRecord

_T = TypeVar("_T")

DOCUMENTS_SUFFIX = "-documents"
_ID_PAGE = 10_000


class ChromaCollections:
    """One embedding model's collection of chunks and its ``-documents`` collection."""

    def __init__(
        self, chroma: ChromaCalls, name: str, embedder_name: str, vector_text: int
    ) -> None:
        self.chroma = chroma
        self.vector_text = vector_text
        """What its vectors are made from (``ingest.index.chunk_context.VECTOR_TEXT_VERSION``)."""
        self.name = name
        self.documents_name = name[: 512 - len(DOCUMENTS_SUFFIX)] + DOCUMENTS_SUFFIX
        self._opened: tuple[ClientAPI, ChromaCollection, ChromaCollection] | None = None
        """The client the collections below were opened on, and the collections."""
        self.chroma.write(lambda client: self._create(client, embedder_name))

    def _create(self, client: ClientAPI, embedder_name: str) -> None:
        chunks = client.get_or_create_collection(
            name=self.name,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"embedder": embedder_name, "vector_text": self.vector_text},
            embedding_function=None,
        )
        documents = client.get_or_create_collection(
            name=self.documents_name,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"embedder": embedder_name},
            embedding_function=None,
        )
        self._opened = (client, chunks, documents)

    def _collections(self, client: ClientAPI) -> tuple[ChromaCollection, ChromaCollection]:
        """The chunks' and the documents' collections on ``client`` (looked up if new)."""
        if self._opened is None or self._opened[0] is not client:
            chunks = client.get_collection(self.name)
            self._opened = (client, chunks, client.get_collection(self.documents_name))
        return self._opened[1], self._opened[2]

    def _read(self, call: Callable[[ChromaCollection, ChromaCollection], _T]) -> _T:
        """``call(chunks, documents)`` through ``ChromaCalls``."""
        return self.chroma.read(lambda client: call(*self._collections(client)))

    def _get(self, *, documents: bool = False, **query: Any) -> Any:
        """``get(**query)`` on the chunks' (or the documents') collection."""
        return self._read(lambda chunks, docs: (docs if documents else chunks).get(**query))

    def _query(self, vector: Sequence[float], n: int, where: Any, include: list[str]) -> Any:
        """The ``n`` chunks nearest ``vector`` that match ``where``, with ``include``."""
        return self._read(
            lambda chunks, _: chunks.query(
                query_embeddings=cast(Any, [list(vector)]),
                n_results=n,
                where=where,
                include=cast(Any, include),
            )
        )

    def _write(
        self, call: Callable[[ChromaCollection, ChromaCollection], _T], records: int = 0
    ) -> _T:
        """``call(chunks, documents)`` for a write of ``records``; DiskFull without room."""
        return self.chroma.write(lambda client: call(*self._collections(client)), records=records)

    def count(self) -> int:
        """How many chunks the collection holds."""
        return self._read(lambda chunks, _: chunks.count())

    def drop(self) -> None:
        """Delete the whole collection and its document vectors (after a model switch)."""
        self.chroma.delete_collection(self.name)
        self.chroma.delete_collection(self.documents_name)

    def _upsert(self, records: Sequence[ChromaRecord]) -> None:
        self._write(
            lambda chunks, _: chunks.upsert(
                ids=[r.id for r in records],
                embeddings=cast(Any, [r.vector for r in records]),
                metadatas=cast(Any, [{**r.metadata, TEXT_KEY: r.text} for r in records]),
            ),
            records=len(records),
        )

    def delete_document(self, doc_id: str) -> None:
        """Remove every chunk of the document and its vector (no error if it has none)."""

        def delete(chunks: ChromaCollection, documents: ChromaCollection) -> None:
            chunks.delete(where={"doc_id": doc_id})
            documents.delete(ids=[doc_id])

        self._write(delete)

    def _pages(self, include: list[str], *, documents: bool = False) -> Iterator[Any]:
        """Every record of the chunks' (or the documents') collection, a page at a time."""
        offset = 0
        while True:
            page = self._get(documents=documents, include=include, limit=_ID_PAGE, offset=offset)
            yield page
            if len(page["ids"]) < _ID_PAGE:
                return
            offset += _ID_PAGE
