"""Files of the keyword index: immutable segments, an append-only term list, a manifest.

The manifest is written last and atomically; it names the live segment files, the dead
documents in each, and how many terms are valid. Whatever a crash leaves behind beyond
it (a segment file, extra terms) is ignored and cleaned up on the next write.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from ingest.index.keyword.segments import Segment, load_segment, save_segment

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
TERMS = "terms.txt"
VERSION = 2
"""Bumped when terms change (2: the larger stop list); an older index is rebuilt."""


def save_new_segment(folder: Path, segment: Segment) -> None:
    """Write a segment file before any manifest names it."""
    folder.mkdir(parents=True, exist_ok=True)
    save_segment(segment, folder / f"{segment.name}.npz")


def save_manifest(folder: Path, terms: list[str], first_new: int, segments: list[Segment]) -> None:
    """Append the new terms, switch the manifest, then delete files it no longer names.
    On failure the terms file is cut back, so the next write appends from ``first_new``."""
    folder.mkdir(parents=True, exist_ok=True)
    held = (folder / TERMS).stat().st_size if (folder / TERMS).exists() else 0
    tmp = folder / f"{MANIFEST}.tmp"
    try:
        _append_terms(folder / TERMS, terms[first_new:])
        _write_manifest(tmp, terms, segments)
        os.replace(tmp, folder / MANIFEST)
    except OSError:
        tmp.unlink(missing_ok=True)
        if (folder / TERMS).exists():
            os.truncate(folder / TERMS, held)
        raise
    named = {f"{s.name}.npz" for s in segments}
    for path in folder.glob("seg-*.npz"):
        if path.name not in named:
            path.unlink(missing_ok=True)


def _append_terms(path: Path, new: list[str]) -> None:
    if new:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("".join(f"{t}\n" for t in new))


def _write_manifest(tmp: Path, terms: list[str], segments: list[Segment]) -> None:
    manifest = {
        "version": VERSION,
        "terms": len(terms),
        "segments": [
            {
                "name": s.name,
                "dead": [
                    d
                    for i, d in enumerate(s.doc_ids)
                    if s.doc_start[i + 1] > s.doc_start[i] and not s.live[int(s.doc_start[i])]
                ],
            }
            for s in segments
        ],
    }
    tmp.write_text(json.dumps(manifest), encoding="utf-8")


def load_state(folder: Path) -> tuple[list[str], list[Segment]] | None:
    """(terms, segments) as the manifest last said, or None to start empty and catch up."""
    path = folder / MANIFEST
    if not path.is_file():
        _start_afresh(folder)  # a crash before the first manifest may have left terms
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if manifest.get("version") != VERSION:
            raise ValueError(f"version {manifest.get('version')}")
        count = int(manifest["terms"])
        terms = (folder / TERMS).read_text(encoding="utf-8").split("\n")[:count]
        if len(terms) < count:
            raise ValueError(f"{TERMS} holds {len(terms)} of {count} terms")
        segments = [
            load_segment(folder / f"{entry['name']}.npz", set(entry["dead"]))
            for entry in manifest["segments"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        log.warning(
            "The keyword index in %s is unreadable (%s); rebuilding it from the store.",
            folder,
            error,
        )
        _start_afresh(folder)
        return None
    # Terms a crash appended after the manifest was written would shift new ids: drop them.
    (folder / TERMS).write_text("".join(f"{t}\n" for t in terms), encoding="utf-8")
    return terms, segments


def _start_afresh(folder: Path) -> None:
    """Forget the files of an index that cannot be read, so new term ids start at 0."""
    (folder / TERMS).unlink(missing_ok=True)
    (folder / MANIFEST).unlink(missing_ok=True)
    for stale in folder.glob("seg-*.npz"):
        stale.unlink(missing_ok=True)
