"""Reconcile: compare the folder, the registry and every index, and repair what differs.

One stat per file: bytes are read only for files whose size or modification time changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ingest.document_parts import DocStatus, DocumentRecord
from ingest.index.registry import READY, Registry
from ingest.index.write_ports import ChunkIndex
from ingest.pipeline.folder import FileInfo, walk

log = logging.getLogger(__name__)

_SHOWN = 5


@dataclass
class Report:
    """What differs between the folder, the registry and the indexes."""

    found: dict[str, FileInfo] = field(default_factory=dict)
    new: list[str] = field(default_factory=list)
    """Files in the folder the registry does not know."""
    gone: list[str] = field(default_factory=list)
    """Registry rows whose file is no longer there."""
    changed: list[str] = field(default_factory=list)
    """Files whose size or modification time differs from the registry's."""
    unfinished: list[str] = field(default_factory=list)
    """Rows left queued or indexing."""
    stale: list[str] = field(default_factory=list)
    """Ready rows whose content is not complete in every index, or was chunked otherwise."""
    retry: list[str] = field(default_factory=list)
    """Errors that may pass on a new try (not caused by the file's bytes)."""
    orphans: dict[str, set[str]] = field(default_factory=dict)
    """Per index: content keys it holds that the registry does not know."""
    incomplete: set[str] = field(default_factory=set)
    """Ready contents some index lacks chunks of."""
    garbage: set[str] = field(default_factory=set)
    """Contents no row wants any more."""

    def to_visit(self) -> list[str]:
        """Paths the pipeline must look at (it decides what each needs)."""
        return sorted({*self.new, *self.changed, *self.unfinished, *self.stale, *self.retry})

    def differences(self) -> list[str]:
        """What differs, one line each, for a person; empty when everything agrees."""
        lines = []
        for paths, what in (
            (self.new, "in the folder but not in the registry"),
            (self.gone, "in the registry but gone from the folder"),
            (self.changed, "changed since they were indexed"),
            (self.unfinished, "not finished indexing"),
            (self.stale, "ready but missing chunks in an index"),
        ):
            if paths:
                lines.append(f"{len(paths)} file(s) {what}: {_some(paths)}")
        for name, keys in sorted(self.orphans.items()):
            if keys:
                lines.append(f"{len(keys)} document(s) in {name} that the registry does not know")
        if self.incomplete:
            lines.append(f"{len(self.incomplete)} indexed content(s) with chunks missing")
        if self.garbage:
            lines.append(f"{len(self.garbage)} indexed content(s) no file uses any more")
        return lines


def _some(paths: list[str]) -> str:
    shown = ", ".join(paths[:_SHOWN])
    return shown + (f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else "")


class Reconciler:
    """Compares and repairs; ``key_for`` and ``busy_keys`` come from the pipeline."""

    def __init__(
        self,
        docs_dir: Path,
        registry: Registry,
        indexes: list[ChunkIndex],
        key_for: Callable[[str], str],
        busy_keys: Callable[[], set[str]] = set,
        on_collected: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.docs_dir = docs_dir
        self.registry = registry
        self.indexes = indexes
        self.key_for = key_for
        self.busy_keys = busy_keys
        self.on_collected = on_collected
        """Told the content keys just collected (others keep things by content key too)."""

    def check(self) -> Report:
        """Compare everything; change nothing."""
        report = Report(found=walk(self.docs_dir))
        records = {record.path: record for record in self.registry.list()}
        contents = {content.key: content for content in self.registry.contents()}
        for rel, info in sorted(report.found.items()):
            self._compare_file(report, records.get(rel), info)
        report.gone = sorted(records.keys() - report.found.keys())
        wanted = self._wanted(records.values()) | self.busy_keys()
        report.garbage = {key for key in contents if key not in wanted}
        for index in self.indexes:
            if index.building:
                continue  # a new embedding model's collection, being filled
            counted = index.chunk_counts()
            counts = dict(counted or dict.fromkeys(index.document_ids(), 1))
            report.orphans[index.name] = set(counts) - contents.keys()
            for key, content in contents.items():
                if content.state == READY and key not in report.garbage:
                    held = counts.get(key, 0)
                    if held == 0 or (held != content.chunks and counted is not None):
                        report.incomplete.add(key)
        for rel, record in sorted(records.items()):
            if rel in report.found and record.status == DocStatus.READY:
                if record.content_key in report.incomplete or record.content_key not in contents:
                    report.stale.append(rel)
        return report

    def _compare_file(self, report: Report, record: DocumentRecord | None, info: FileInfo) -> None:
        rel = info.rel
        if record is None:
            report.new.append(rel)
        elif (record.size, record.mtime_ns) != (info.size, info.mtime_ns):
            report.changed.append(rel)
        elif record.status in (DocStatus.QUEUED, DocStatus.INDEXING):
            report.unfinished.append(rel)
        elif record.status == DocStatus.ERROR and record.retry:
            report.retry.append(rel)
        elif record.status == DocStatus.READY and record.sha256 is not None:
            if record.content_key != self.key_for(record.sha256):
                report.stale.append(rel)  # chunked with other settings

    def _wanted(self, records: Iterable[DocumentRecord]) -> set[str]:
        """Contents some row points at, or is on its way to."""
        wanted = set()
        for record in records:
            if record.content_key:
                wanted.add(record.content_key)
            if record.sha256 and record.status in (DocStatus.QUEUED, DocStatus.INDEXING):
                wanted.add(self.key_for(record.sha256))  # resume it, don't collect it
        return wanted

    def repair(self, report: Report) -> list[str]:
        """Delete orphans and garbage, reopen incomplete contents; returns paths to visit."""
        for index in self.indexes:
            for key in report.orphans.get(index.name, set()):
                index.delete_document(key)
        self.collect(report.garbage)
        for key in report.incomplete:
            self.registry.reopen_content(key)  # the pipeline fills in what is missing
        return report.to_visit()

    def collect(self, keys: Iterable[str]) -> None:
        """Delete contents from every index, then from the registry."""
        keys = sorted(set(keys) - self.busy_keys())
        for key in keys:
            for index in self.indexes:
                index.delete_document(key)
        if keys:
            self.registry.drop_contents(keys)
            log.info("collected %d contents no file uses", len(keys))
            if self.on_collected is not None:
                try:
                    self.on_collected(keys)
                except Exception:  # what others keep about a content is theirs to redo
                    log.exception("could not forget what was kept about collected contents")

    def garbage(self) -> set[str]:
        """Contents no row wants (cheap: registry only)."""
        wanted = self._wanted(self.registry.list()) | self.busy_keys()
        return {c.key for c in self.registry.contents() if c.key not in wanted}
