"""The keyword engines bench/keyword_index.py compares, behind one small interface.

``current`` is Docent's index. ``fts5`` and ``tantivy`` are the least each engine needs
to do the same writes and answer a top-k query: enough to time them, not a replacement
(neither gives every chunk's score and rank, nor the idf share a chunk holds).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from ingest.document_parts import Chunk
from ingest.index.keyword.index import ChunkSource, KeywordIndex
from ingest.index.keyword.terms import terms

MAX_QUERY_TERMS = 32


class Engine(Protocol):
    def __init__(self, folder: Path) -> None: ...

    def replace(self, doc_id: str, chunks: Sequence[Chunk]) -> None: ...

    def catch_up(self, source: ChunkSource) -> None: ...

    def top(self, query: str, k: int) -> list[tuple[str, int]]: ...

    def document_ids(self) -> set[str]: ...

    def close(self) -> None: ...


def query_terms(query: str) -> list[str]:
    return list(dict.fromkeys(terms(query[:4_000])))[:MAX_QUERY_TERMS]


def missing(engine: Engine, source: ChunkSource) -> tuple[list[str], set[str]]:
    """(documents the source has and the engine lacks, documents only the engine has)."""
    theirs, ours = source.document_ids(), engine.document_ids()
    return sorted(theirs - ours), ours - theirs


class Current:
    def __init__(self, folder: Path) -> None:
        self.index = KeywordIndex(folder)

    def replace(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        self.index.replace_document(doc_id, chunks)

    def catch_up(self, source: ChunkSource) -> None:
        self.index.catch_up(source)

    def top(self, query: str, k: int) -> list[tuple[str, int]]:
        return [(h.doc_id, h.index) for h in self.index.search(query).top(k)]

    def document_ids(self) -> set[str]:
        return self.index.document_ids()

    def close(self) -> None:
        pass


class Fts5:
    # Terms arrive stemmed and space-separated: every other character is part of a term.
    TOKENIZE = "unicode61 remove_diacritics 0 categories 'L* N* Co M* P* S*'"

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(folder / "keyword.db", isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(
            f"""
            CREATE TABLE IF NOT EXISTS chunk(id INTEGER PRIMARY KEY, doc_id TEXT, idx INTEGER);
            CREATE INDEX IF NOT EXISTS chunk_doc ON chunk(doc_id);
            CREATE VIRTUAL TABLE IF NOT EXISTS body USING fts5(terms, tokenize="{self.TOKENIZE}");
            """
        )

    def _write(self, docs: Sequence[tuple[str, Sequence[Chunk]]]) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        for doc_id, chunks in docs:
            self.db.execute(
                "DELETE FROM body WHERE rowid IN (SELECT id FROM chunk WHERE doc_id = ?)",
                (doc_id,),
            )
            self.db.execute("DELETE FROM chunk WHERE doc_id = ?", (doc_id,))
            for c in chunks:
                row = self.db.execute(
                    "INSERT INTO chunk(doc_id, idx) VALUES (?, ?)", (doc_id, c.index)
                ).lastrowid
                self.db.execute(
                    "INSERT INTO body(rowid, terms) VALUES (?, ?)", (row, " ".join(terms(c.text)))
                )
        self.db.execute("COMMIT")

    def replace(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        self._write([(doc_id, chunks)])

    def catch_up(self, source: ChunkSource) -> None:
        added, gone = missing(self, source)
        self._write([(d, []) for d in gone])
        for at in range(0, len(added), 400):
            self._write([(d, source.document_chunks(d)) for d in added[at : at + 400]])

    def top(self, query: str, k: int) -> list[tuple[str, int]]:
        words = query_terms(query)
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self.db.execute(
            "SELECT chunk.doc_id, chunk.idx FROM (SELECT rowid, rank FROM body WHERE body MATCH ?"
            " ORDER BY rank LIMIT ?) AS hit JOIN chunk ON chunk.id = hit.rowid ORDER BY hit.rank",
            (match, k),
        )
        return [(d, i) for d, i in rows]

    def document_ids(self) -> set[str]:
        return {d for (d,) in self.db.execute("SELECT DISTINCT doc_id FROM chunk")}

    def close(self) -> None:
        self.db.close()


class Tantivy:
    def __init__(self, folder: Path) -> None:
        import tantivy  # optional: `uv run --with tantivy ...`

        self.t: Any = tantivy
        folder.mkdir(parents=True, exist_ok=True)
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("doc_id", stored=True, tokenizer_name="raw")
        builder.add_integer_field("idx", stored=True)
        builder.add_text_field("terms", tokenizer_name="whitespace", index_option="freq")
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema, path=str(folder), reuse=True)
        self.writer: Any = None

    def _write(self, docs: Sequence[tuple[str, Sequence[Chunk]]]) -> None:
        if self.writer is None:
            self.writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        for doc_id, chunks in docs:
            self.writer.delete_documents("doc_id", doc_id)
            for c in chunks:
                self.writer.add_document(
                    self.t.Document(doc_id=doc_id, idx=c.index, terms=" ".join(terms(c.text)))
                )
        self.writer.commit()
        self.index.reload()

    def replace(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        self._write([(doc_id, chunks)])

    def catch_up(self, source: ChunkSource) -> None:
        added, gone = missing(self, source)
        self._write([(d, []) for d in gone] + [(d, source.document_chunks(d)) for d in added])

    def top(self, query: str, k: int) -> list[tuple[str, int]]:
        words = query_terms(query)
        if not words:
            return []
        q, occur = self.t.Query, self.t.Occur.Should
        query_ = q.boolean_query([(occur, q.term_query(self.schema, "terms", w)) for w in words])
        searcher = self.index.searcher()
        docs = [searcher.doc(address) for _, address in searcher.search(query_, k).hits]
        return [(d["doc_id"][0], d["idx"][0]) for d in docs]

    def document_ids(self) -> set[str]:
        searcher = self.index.searcher()
        if not searcher.num_docs:
            return set()
        hits = searcher.search(self.t.Query.all_query(), searcher.num_docs).hits
        return {searcher.doc(address)["doc_id"][0] for _, address in hits}

    def close(self) -> None:
        if self.writer is not None:
            self.writer.wait_merging_threads()
            self.writer = None


def _engines() -> dict[str, type[Engine]]:
    engines: dict[str, type[Engine]] = {"current": Current, "fts5": Fts5}
    try:
        import tantivy  # noqa: F401

        engines["tantivy"] = Tantivy
    except ImportError:
        pass
    return engines


ENGINES = _engines()
