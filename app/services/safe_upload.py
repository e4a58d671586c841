"""The safe upload write: a file's name checked, its bytes streamed to a hidden temporary
file and renamed into place (the watcher never sees half a file), never over another file."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import secrets
import unicodedata
from collections.abc import AsyncIterator
from pathlib import Path

from app.services.document_errors import BadFileName, FileTooLarge, NoSpace
from ingest.disk import DiskFull, is_disk_full
from ingest.pipeline.folder import is_ignored, sha256_file

_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)
_MAX_NAME_BYTES = 255
_DECEPTIVE = frozenset(
    [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]  # bidi controls
    + [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF]  # zero-width characters
)
"""Characters that make a name display as something it is not ("invoice\u202efdp.md"
shows as "invoicedm.pdf"), or hide inside it."""


async def write_file(
    folder: Path, name: str, data: AsyncIterator[bytes], max_bytes: int, size_setting: str
) -> tuple[Path, bool]:
    """Stream ``data`` into ``folder/name`` (or "name (2)"); where it went and whether this
    call created it. On a full disk nothing it wrote stays, and NoSpace names the disk."""
    temp = folder / f".docent-upload-{secrets.token_hex(8)}.part"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        sha = await _receive(temp, name, data, max_bytes, size_setting)
        return await asyncio.to_thread(_place, temp, folder, name, sha)
    except OSError as error:
        if is_disk_full(error):
            raise NoSpace(DiskFull(folder)) from error
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def safe_folder(docs_dir: Path, folder: str | None) -> Path:
    """The folder ``folder`` names inside ``docs_dir``, or BadFileName when it leads outside."""
    if not folder:
        return docs_dir
    parts = [p for p in folder.replace("\\", "/").split("/") if p and p.strip() != "."]
    if any(part.strip() == ".." for part in parts):
        raise BadFileName(
            f"The folder {folder!r} leads outside the documents folder; give a folder"
            " inside it, such as 'letters/2024'."
        )
    target = docs_dir.joinpath(*[clean_name(part) for part in parts])
    real_root = os.path.realpath(docs_dir)
    if not Path(os.path.realpath(target)).is_relative_to(real_root):
        raise BadFileName(f"The folder {folder!r} leads outside the documents folder.")
    return target


async def _receive(
    temp: Path, name: str, data: AsyncIterator[bytes], max_bytes: int, size_setting: str
) -> str:
    digest = hashlib.sha256()
    size = 0
    handle = await asyncio.to_thread(open, temp, "xb")
    try:
        async for block in data:
            size += len(block)
            if size > max_bytes:
                raise FileTooLarge(
                    f"{name} is larger than {max_bytes >> 20} MB, the most"
                    f" Docent accepts ({size_setting}). Split it, or raise the limit."
                )
            digest.update(block)
            await asyncio.to_thread(handle.write, block)
        await asyncio.to_thread(_flush, handle)
    finally:
        handle.close()
    return digest.hexdigest()


def _flush(handle: object) -> None:
    handle.flush()  # type: ignore[attr-defined]
    os.fsync(handle.fileno())  # type: ignore[attr-defined]


def _place(temp: Path, folder: Path, name: str, sha: str) -> tuple[Path, bool]:
    """Move ``temp`` to ``folder/name`` without overwriting anything; returns where it went
    and whether this call created that file (False: the same bytes were there already)."""
    stem, suffix = os.path.splitext(name)
    for n in range(1, 1000):
        candidate = folder / (name if n == 1 else f"{stem} ({n}){suffix}")
        if candidate.is_symlink():
            continue
        if candidate.exists():
            if candidate.is_file() and sha256_file(candidate) == sha:
                return candidate, False  # the same file again
            continue
        try:
            os.link(temp, candidate)  # fails if the name was taken meanwhile
        except FileExistsError:
            continue
        except OSError as error:  # a file system without hard links
            if is_disk_full(error):
                raise
            os.replace(temp, candidate)
        return candidate, True
    raise BadFileName(f"Too many files are named like {name}; rename it first.")


def clean_name(name: str) -> str:
    """A file or folder name safe to create in the folder, or BadFileName saying why not."""
    clean = unicodedata.normalize("NFC", name or "").strip()
    if not clean or clean in (".", ".."):
        raise BadFileName("The file name is empty.")
    if "/" in clean or "\\" in clean:
        raise BadFileName(f"{clean!r}: a name cannot contain / or \\; give the folder apart.")
    if any(ord(ch) < 32 or ch == "\x7f" for ch in clean):
        raise BadFileName(f"{clean!r}: a name cannot contain control characters or NUL.")
    if hidden := next((ch for ch in clean if ord(ch) in _DECEPTIVE), None):
        what = unicodedata.name(hidden, "an invisible character")
        raise BadFileName(
            f"{ascii(clean)} contains U+{ord(hidden):04X} ({what}), which makes a name look"
            " like something it is not; rename the file without it."
        )
    if clean.startswith(".") or is_ignored(clean):
        raise BadFileName(f"{clean!r}: hidden and temporary files are not indexed; rename it.")
    if _RESERVED.match(clean) or clean.endswith((".", " ")) or any(c in clean for c in '<>:"|?*'):
        raise BadFileName(f"{clean!r} is not a valid file name on every system; rename it.")
    if len(clean.encode("utf-8")) > _MAX_NAME_BYTES:
        raise BadFileName(f"The name is longer than {_MAX_NAME_BYTES} bytes; shorten it.")
    return clean
