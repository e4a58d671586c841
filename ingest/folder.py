"""The documents folder: which files count, walking it, and hashing what is found."""

from __future__ import annotations

import fnmatch
import hashlib
import logging
import os
from pathlib import Path, PurePosixPath

from ingest.loaders import is_supported

log = logging.getLogger(__name__)

IGNORED_NAMES = ("~$*", "*.tmp", "*.swp", "*.swx", "*.part", "*.crdownload", "*~", ".*")
"""Editors' lock and swap files, partial downloads and hidden files are never indexed."""


def is_ignored(rel_path: str) -> bool:
    """Whether a path (relative to the documents folder) is hidden or a temporary file."""
    parts = PurePosixPath(rel_path).parts
    if any(part.startswith(".") for part in parts):
        return True
    name = parts[-1] if parts else ""
    return any(fnmatch.fnmatchcase(name.lower(), pattern) for pattern in IGNORED_NAMES)


def is_candidate(rel_path: str) -> bool:
    """Whether a file at this relative path is one Docent indexes."""
    return not is_ignored(rel_path) and is_supported(Path(rel_path))


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def walk(docs_dir: Path) -> dict[str, str]:
    """Every indexable file under the folder, with its sha256 (runs in a thread)."""
    found: dict[str, str] = {}
    for root, dirs, files in os.walk(docs_dir):
        dirs[:] = [name for name in dirs if not name.startswith(".")]
        for name in files:
            full = Path(root, name)
            rel = full.relative_to(docs_dir).as_posix()
            if not is_candidate(rel):
                continue
            try:
                found[rel] = sha256_file(full)
            except OSError as exc:  # unreadable now: let the worker report it
                log.debug("cannot hash %s: %s", rel, exc)
                found[rel] = ""
    return found
