"""The keyword (BM25) index: follows the library document by document, never rebuilt per query.

One small segment per write, merged by size (docs/keyword-index.md). Searches read an
immutable snapshot (``IndexView``) a write replaces in one assignment, so they never wait
for writers. It keeps chunk ids and terms only; texts stay in the store.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from ingest.disk import ensure_room
from ingest.document_parts import Chunk
from ingest.index.keyword.scores import KeywordScores
from ingest.index.keyword.searching import IndexView, query_terms, search_view
from ingest.index.keyword.segments import (
    DocRows,
    IntArray,
    Segment,
    build_segment,
    merge_segments,
)
from ingest.index.keyword.store import load_state, save_manifest, save_new_segment
from ingest.index.keyword.terms import terms

log = logging.getLogger(__name__)

__all__ = ["KeywordIndex", "KeywordScores"]

_COMPACT_DEAD_SHARE = 0.5
_CATCH_UP_ROWS = 20_000
"""Rows per segment when catching up in bulk: large, yet bounded in memory."""
_SEGMENT_BYTES_PER_CHAR = 4
"""Disk a new segment takes per character of text, at most (about 1 measured), with
room for the merge it may set off."""


class ChunkSource(Protocol):
    """Where ``catch_up`` reads chunks from: the store the index must agree with."""

    def document_ids(self) -> set[str]: ...

    def document_chunks(self, doc_id: str) -> list[Chunk]: ...


class KeywordIndex:
    """BM25 over every chunk of the library, kept in step through ``ChunkIndex``."""

    name = "keyword"
    building = False

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._lock = threading.RLock()
        """Held by writers only; readers use ``_view``."""
        self._view = IndexView()
        self._vocab: dict[str, int] = {}
        self._terms: list[str] = []
        self._df = np.zeros(1024, dtype=np.int64)
        self._segments: list[Segment] = []
        self._where: dict[str, Segment] = {}
        self._unsaved: list[Segment] = []
        """Segments made since the last write to disk that succeeded."""
        self._saved_terms = 0
        """Terms the terms file holds (every one before them is written)."""
        if folder is not None:
            state = load_state(folder)
            if state is not None:
                self._terms, self._segments = state
                self._saved_terms = len(self._terms)
                self._vocab = {t: i for i, t in enumerate(self._terms)}
                self._reindex()
                self._publish()

    def replace_document(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        """Make ``chunks`` the document's only chunks; readers see the old or the new set.
        Raises DiskFull, changing nothing, when the disk has no room for them."""
        self._ensure_room(_SEGMENT_BYTES_PER_CHAR * sum(len(c.text) for c in chunks))
        with self._lock:
            doc = self._doc_rows(doc_id, chunks)
            self._kill(doc_id)
            if chunks:
                self._add(build_segment([doc], name=_new_name()))
            self._publish()  # the new text is searchable now; a merge may take a while
            if self._merge():
                self._publish()
            self._persist()

    def delete_document(self, doc_id: str) -> None:
        """Remove every chunk of the document; no error if it has none."""
        with self._lock:
            if doc_id not in self._where:
                return
            self._ensure_room(0)
            self._kill(doc_id)
            self._publish()
            self._persist()

    def document_ids(self) -> set[str]:
        """Ids of every document with at least one chunk."""
        with self._lock:
            return set(self._where)

    def chunk_counts(self) -> None:
        """Not counted: the segments keep rows by term, not by document."""
        return None

    def count(self) -> int:
        """How many live chunks the index holds."""
        return self._view.rows

    def term_weights(self, query: str) -> dict[str, float]:
        """The query's terms as a search scores them, each with its idf (the rarest
        ``MAX_QUERY_TERMS``; a term no chunk holds gets the highest idf there is)."""
        words, _, idf = query_terms(self._view, self._vocab, query)
        return dict(zip(words, idf.tolist(), strict=True))

    def search(self, query: str, doc_ids: Collection[str] | None = None) -> KeywordScores:
        """Score every chunk for ``query`` (only ``doc_ids``' chunks, if given)."""
        return search_view(self._view, self._vocab, query, doc_ids)

    def catch_up(self, source: ChunkSource) -> tuple[int, int]:
        """Agree with ``source``: add its documents this index lacks, drop those it has not;
        returns (added, removed). Cheap: no embedding, large segments, files written once."""
        theirs = source.document_ids()
        with self._lock:
            ours = set(self._where)
            for doc_id in ours - theirs:
                self._kill(doc_id)
            batch: list[DocRows] = []
            for doc_id in sorted(theirs - ours):
                chunks = source.document_chunks(doc_id)
                if chunks:
                    batch.append(self._doc_rows(doc_id, chunks))
                if sum(len(d.indexes) for d in batch) >= _CATCH_UP_ROWS:
                    self._add(build_segment(batch, name=_new_name()))
                    self._publish()  # searchable batch by batch
                    batch = []
            if batch:
                self._add(build_segment(batch, name=_new_name()))
            self._publish()
            self._persist()
        return len(theirs - ours), len(ours - theirs)

    def compact(self) -> None:
        """Merge every segment into one, dropping dead rows; searches go on meanwhile."""
        with self._lock:
            live = sum(s.live_rows for s in self._segments)
            if len(self._segments) < 2 and live == sum(s.rows for s in self._segments):
                return
            if live:
                self._replace(list(self._segments), merge_segments(self._segments, _new_name()))
            else:
                for segment in self._segments:
                    self._count_df(segment, -1)
                self._segments = []
            self._publish()
            self._persist()

    # -- internals (call with the lock held) -------------------------------------------

    def _doc_rows(self, doc_id: str, chunks: Sequence[Chunk]) -> DocRows:
        return DocRows(
            doc_id, [c.index for c in chunks], [self._ids(terms(c.text)) for c in chunks]
        )

    def _ids(self, words: list[str]) -> IntArray:
        out = np.empty(len(words), dtype=np.int32)
        for i, word in enumerate(words):
            term = self._vocab.get(word)
            if term is None:
                term = self._vocab[word] = len(self._terms)
                self._terms.append(word)
            out[i] = term
        return out

    def _grow_df(self) -> None:
        if len(self._terms) > len(self._df):
            grown = np.zeros(max(len(self._terms), 2 * len(self._df)), dtype=np.int64)
            grown[: len(self._df)] = self._df
            self._df = grown

    def _count_df(self, segment: Segment, sign: int) -> None:
        self._grow_df()
        term_ids, counts = segment.live_df()
        np.add.at(self._df, term_ids, sign * counts)

    def _add(self, segment: Segment) -> None:
        self._segments.append(segment)
        self._unsaved.append(segment)
        self._count_df(segment, +1)
        for doc_id in segment.doc_ids:
            self._where[doc_id] = segment

    def _kill(self, doc_id: str) -> None:
        segment = self._where.pop(doc_id, None)
        if segment is None:
            return
        self._count_df(segment, -1)
        segment.live = segment.without(doc_id)  # readers keep the mask they hold
        self._count_df(segment, +1)
        if segment.live_rows == 0:
            self._segments = [s for s in self._segments if s is not segment]
        elif segment.live_rows < (1 - _COMPACT_DEAD_SHARE) * segment.rows:
            self._replace([segment], merge_segments([segment], name=_new_name()))

    def _merge(self) -> bool:
        """Merge the newest segments while the last is at least half the one before it."""
        merged_any = False
        while len(self._segments) >= 2:
            last, before = self._segments[-1], self._segments[-2]
            if last.live_rows * 2 < before.live_rows:
                break
            merged = merge_segments([before, last], name=_new_name())
            self._replace([before, last], merged)
            merged_any = True
        return merged_any

    def _replace(self, old: list[Segment], new: Segment) -> None:
        at = next(i for i, s in enumerate(self._segments) if s is old[0])
        for segment in old:
            self._count_df(segment, -1)
        self._segments = [s for s in self._segments if not any(s is o for o in old)]
        self._segments.insert(at, new)
        self._count_df(new, +1)
        for doc_id in new.doc_ids:
            self._where[doc_id] = new
        self._unsaved.append(new)

    def _reindex(self) -> None:
        self._df = np.zeros(max(1024, len(self._terms)), dtype=np.int64)
        self._where = {}
        for segment in self._segments:
            self._count_df(segment, +1)
            for i, doc_id in enumerate(segment.doc_ids):
                if segment.live[int(segment.doc_start[i])]:
                    self._where[doc_id] = segment

    def _publish(self) -> None:
        """Let searches see the state the writer has built (one atomic assignment)."""
        segments = tuple(self._segments)
        self._view = IndexView(
            segments=segments,
            lives=tuple(s.live for s in segments),
            df=self._df.copy(),
            rows=sum(s.live_rows for s in segments),
        )

    def _persist(self) -> None:
        """Write what changed since the last write that succeeded (one that failed leaves
        its segments and terms to the next)."""
        if self.folder is None:
            self._unsaved = []
            return
        self._unsaved = [u for u in self._unsaved if any(u is s for s in self._segments)]
        for segment in self._unsaved:
            save_new_segment(self.folder, segment)
        save_manifest(self.folder, self._terms, self._saved_terms, self._segments)
        self._unsaved = []
        self._saved_terms = len(self._terms)

    def _ensure_room(self, need: int) -> None:
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            ensure_room(self.folder, need)


def _new_name() -> str:
    return f"seg-{uuid.uuid4().hex[:12]}"
