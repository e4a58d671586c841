"""The documents folder: which files count, walking it, links, and reading what is found."""

from __future__ import annotations

import fnmatch
import hashlib
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

log = logging.getLogger(__name__)

IGNORED_NAMES = (
    "~$*",
    "*.tmp",
    "*.swp",
    "*.swx",
    "*.part",
    "*.crdownload",
    "*~",
    ".*",
    "thumbs.db",
    "desktop.ini",
)
"""Editors' lock and swap files, partial downloads, hidden files and the files a system
leaves in every folder are never indexed."""


def is_ignored(rel_path: str) -> bool:
    """Whether a path (relative to the documents folder) is hidden or a temporary file."""
    parts = PurePosixPath(rel_path).parts
    if any(part.startswith(".") for part in parts):
        return True
    name = parts[-1] if parts else ""
    return any(fnmatch.fnmatchcase(name.lower(), pattern) for pattern in IGNORED_NAMES)


def is_candidate(rel_path: str) -> bool:
    """Whether Docent looks at this file: every file a person put there (one of a type
    Docent does not read ends ``error`` saying so, rather than left out without a word)."""
    return not is_ignored(rel_path)


@dataclass(frozen=True)
class FileInfo:
    """What a stat says about one candidate file (no byte of it read)."""

    rel: str
    size: int
    mtime_ns: int
    outside: str | None = None
    """Where a symbolic link points when that is outside the folder (never followed)."""


def inspect(docs_dir: Path, rel: str) -> FileInfo | None:
    """Stat ``rel`` under ``docs_dir``; None when it is gone, not a regular file, or a link
    out of the folder."""
    full = docs_dir / rel
    try:
        info = os.lstat(full)
        if stat.S_ISLNK(info.st_mode):
            target = Path(os.path.realpath(full))
            if not target.is_relative_to(os.path.realpath(docs_dir)):
                return FileInfo(rel, 0, info.st_mtime_ns, outside=str(target))
            info = os.stat(target)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return FileInfo(rel, info.st_size, info.st_mtime_ns)


def walk(docs_dir: Path) -> dict[str, FileInfo]:
    """Every indexable file under the folder with its stat; reads no file (runs in a thread).
    Linked folders are not entered: they may loop, or lead out of the folder."""
    found: dict[str, FileInfo] = {}
    for root, dirs, files in os.walk(docs_dir):
        dirs[:] = [name for name in dirs if not name.startswith(".")]
        for name in files:
            rel = Path(root, name).relative_to(docs_dir).as_posix()
            if not is_candidate(rel):
                continue
            info = inspect(docs_dir, rel)
            if info is not None:
                found[rel] = info
    return found


HOLD_BYTES = 32 << 20
"""Files up to this size are read once: hashed, then parsed from the same bytes in memory.
A bigger one is hashed as a stream and parsed from disk, so memory stays bounded."""


@dataclass(frozen=True)
class ReadFile:
    """A file's sha256, and its bytes when it is small enough to keep for the loader."""

    sha256: str
    data: bytes | None


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in blocks."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def read_and_hash(path: Path, size: int) -> ReadFile:
    """Read the file once: its sha256, with its bytes kept when ``size`` (the stat's) is at
    most ``HOLD_BYTES``."""
    if size > HOLD_BYTES:
        return ReadFile(sha256_file(path), None)
    with path.open("rb") as fh:
        data = fh.read()
    return ReadFile(hashlib.sha256(data).hexdigest(), data)


def relative(docs_dir: Path, path: Path) -> str | None:
    """``path`` relative to the folder with forward slashes ("" for the folder itself);
    None when it is outside. Relative paths are taken as relative to the folder."""
    full = Path(os.path.abspath(path if path.is_absolute() else docs_dir / path))
    try:
        rel = full.relative_to(docs_dir).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel
