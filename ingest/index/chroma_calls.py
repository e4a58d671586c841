"""The Chroma client, and every call into it: one at a time, never a write the disk has no
room for, and a fresh client after any failed write (a failed write can leave a connection
holding a lock the next write waits on for ever, holding the GIL: see docs/disk-full.md).
A Chroma server (``DOCENT_CHROMA_URL``) is neither checked for room nor reopened.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import chromadb
from chromadb.api.client import Client

from ingest.disk import DiskFull, ensure_room, is_disk_full, lacks_room

log = logging.getLogger(__name__)

T = TypeVar("T")

BYTES_PER_RECORD = 16 << 10
"""Disk a chunk written takes at most, with its share of the journal and the vector index
(256 chunks of 1,000 characters took 3.6 MB)."""
RECORDS_PER_CALL = 128
"""Records one write call holds at most. A call holds the GIL to its end, so its length
is how long the app cannot answer: on a busy 2-core machine a call of 1,000 records took
up to 3.6 s, one of 128 up to 0.5 s, for about 15% more CPU in all."""


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


def make_chroma_client(data_dir: Path, url: str | None = None) -> Client:
    """The embedded store in ``data_dir/chroma``, or the Chroma server at ``url``."""
    # Both constructors return a chromadb.api.client.Client, typed as the ClientAPI it
    # implements; we need its close().
    if not url:
        path = data_dir / "chroma"
        path.mkdir(parents=True, exist_ok=True)
        return cast(Client, chromadb.PersistentClient(path=str(path), settings=_settings()))
    parts = urlsplit(url if "://" in url else f"http://{url}")
    ssl = parts.scheme == "https"
    host = parts.hostname or "localhost"
    port = parts.port or (443 if ssl else 8000)
    try:
        client = chromadb.HttpClient(
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
    return cast(Client, client)


def open_chroma(data_dir: Path, url: str | None = None) -> ChromaCalls:
    """The store ``make_chroma_client`` opens, behind ``ChromaCalls``."""
    disk = None if url else data_dir / "chroma"
    return ChromaCalls(lambda: make_chroma_client(data_dir, url), disk)


class ChromaCalls:
    """One Chroma client; ``disk`` (None for a server) is where the embedded one writes."""

    def __init__(self, open_client: Callable[[], Client], disk: Path | None) -> None:
        self._open = open_client
        self.disk = disk
        self._lock = threading.Lock()
        self._client: Client | None = open_client()
        self.reopened = 0
        """Times the client was closed and opened again after a write failed."""

    def read(self, call: Callable[[Client], T]) -> T:
        """``call(client)``, when no other call is under way."""
        with self._lock:
            return call(self._live())

    def check_room(self, records: int) -> None:
        """Raise DiskFull if the disk has no room for a write of ``records`` records now."""
        if self.disk is not None:
            ensure_room(self.disk, records * BYTES_PER_RECORD)

    def write(self, call: Callable[[Client], T], *, records: int = 0) -> T:
        """``call(client)`` once the disk has room for ``records``; DiskFull when it has not."""
        with self._lock:
            client = self._live()
            if self.disk is None:
                return call(client)
            need = records * BYTES_PER_RECORD
            ensure_room(self.disk, need)
            try:
                return call(client)
            except Exception as error:
                self._reopen()  # whatever it said: Chroma words some disk-full errors its own way
                if is_disk_full(error):
                    raise DiskFull(self.disk) from error
                full = lacks_room(self.disk, need)
                if full is not None:
                    raise full from error
                raise

    def collection_names(self) -> set[str]:
        """Names of every collection in the store."""
        return self.read(lambda client: {c.name for c in client.list_collections()})

    def delete_collection(self, name: str) -> None:
        """Delete a collection and everything in it."""
        self.write(lambda client: client.delete_collection(name))

    def close(self) -> None:
        """Let go of the client (its connections and files)."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _live(self) -> Client:
        if self._client is None:  # a reopening failed: try again now
            self._client = self._open()
        return self._client

    def _reopen(self) -> None:
        """Close the client whose write failed and open a fresh one."""
        log.warning("a write to the store in %s failed; opening it again", self.disk)
        assert self._client is not None
        self._client.close()
        self._client = None
        self.reopened += 1
        try:
            self._client = self._open()
        except Exception:  # opened again by the next call
            log.exception("could not reopen the store in %s", self.disk)
