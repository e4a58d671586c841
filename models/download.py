"""Fetching a model's zip over HTTP with its progress told as it comes, then unpacking it.

FlashRank's own download shows progress only on a console and failed only in the log (the
window went on saying "Downloading"); here bytes are counted and a failure says what to do.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal
from urllib.parse import urlsplit

import httpx

DownloadState = Literal["idle", "downloading", "unpacking", "failed", "done"]
TELL_EVERY = 1 << 17
"""Of a download of unknown size, progress is told once per this many bytes; of one whose
size is known, once per percent."""
TIMEOUT = httpx.Timeout(30.0, connect=15.0)
"""A stalled connection fails after half a minute without a byte, instead of hanging."""


@dataclass(frozen=True)
class DownloadProgress:
    """How far fetching a model has come."""

    state: DownloadState = "idle"
    done: int = 0
    """Bytes received so far."""
    total: int | None = None
    """Bytes in all, when the server says."""
    error: str | None = None
    """With ``failed``: what went wrong."""


class DownloadFailed(Exception):
    """The model could not be fetched or unpacked; ``str(error)`` says why."""


def fetch_zip(url: str, into: Path, tell: Callable[[DownloadProgress], None]) -> None:
    """Download the zip at ``url`` and unpack it into ``into``, telling progress on the way.

    Blocking. Raises ``DownloadFailed``; nothing half-written is left behind."""
    host = urlsplit(url).netloc or url
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=into) as file:
        try:
            with httpx.stream("GET", url, follow_redirects=True, timeout=TIMEOUT) as response:
                response.raise_for_status()
                total = int(response.headers.get("Content-Length") or 0) or None
                step = max(total // 100, 1) if total else TELL_EVERY
                done = 0
                tell(DownloadProgress("downloading", 0, total))
                for chunk in response.iter_bytes():  # as it comes, not rebuffered
                    file.write(chunk)
                    if (done + len(chunk)) // step != done // step:
                        tell(DownloadProgress("downloading", done + len(chunk), total))
                    done += len(chunk)
        except httpx.HTTPStatusError as error:
            status = error.response.status_code
            raise DownloadFailed(
                f"{host} answered {status} {error.response.reason_phrase}"
            ) from error
        except httpx.TimeoutException as error:
            raise DownloadFailed(f"{host} stopped answering ({type(error).__name__})") from error
        except httpx.HTTPError as error:
            reason = str(error) or type(error).__name__
            raise DownloadFailed(
                f"{host} could not be reached ({reason}); check that this computer is online"
            ) from error
        if total is not None and done != total:
            raise DownloadFailed(f"the download from {host} ended early ({done} of {total} bytes)")
        tell(DownloadProgress("unpacking", done, total))
        file.seek(0)
        _unpack(file, into, host)


def _unpack(file: IO[bytes], into: Path, host: str) -> None:
    """Unpack a zip into ``into``; a member that would land outside it is refused."""
    root = into.resolve()
    try:
        with zipfile.ZipFile(file) as archive:
            for member in archive.infolist():
                target = (root / member.filename).resolve()
                if not target.is_relative_to(root):
                    raise DownloadFailed(f"the zip from {host} holds a path outside its folder")
            archive.extractall(root)
    except zipfile.BadZipFile as error:
        raise DownloadFailed(f"what {host} sent is not a zip file ({error})") from error
    except OSError as error:
        raise DownloadFailed(f"the model could not be written to {root} ({error})") from error
