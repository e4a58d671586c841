"""The folder watcher: watchdog events, debounced per path, handed to the indexer.

Editors save in bursts and a big copy fires many "modified" events, so each path waits
``debounce`` seconds of quiet; a file closed after writing or renamed into place is done
being written, so it waits only ``QUICK`` seconds.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from ingest.disk import DiskFull
from ingest.pipeline.folder import is_ignored
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.threads import call_soon

log = logging.getLogger(__name__)

_FILE_EVENTS = {"created", "modified", "closed", "attrib"}
_FINISHED_EVENTS = {"closed", "moved"}
"""Events after which a writer is done with the file (closed it, or renamed it in)."""

QUICK = 0.05
"""Seconds a finished file waits before it is queued (time for the events that follow)."""


class WatcherUnavailable(Exception):
    """The operating system refused to watch the folder."""


class FolderWatcher:
    """Watches the documents folder (recursively) and feeds the indexer."""

    def __init__(
        self,
        docs_dir: Path,
        indexer: Indexer,
        loop: asyncio.AbstractEventLoop,
        *,
        debounce: float = 0.5,
    ) -> None:
        self.docs_dir = Path(os.path.abspath(docs_dir))
        self.indexer = indexer
        self.loop = loop
        self.debounce = debounce
        self._timers: dict[Path, asyncio.TimerHandle] = {}
        self._observer: BaseObserver | None = None
        self._stopped: BaseObserver | None = None
        """The last observer stopped, so ``stopped_cleanly`` can tell its thread ended."""

    def start(self) -> None:
        """Start watching; creates the folder if needed."""
        if self._observer is not None:
            return
        self.docs_dir.mkdir(parents=True, exist_ok=True)
        observer = Observer()
        observer.schedule(_Handler(self), str(self.docs_dir), recursive=True)
        self._observer = observer
        try:
            observer.start()
        except OSError as exc:
            self._observer = None
            if exc.errno == errno.ENOSPC:
                raise WatcherUnavailable(
                    f"Docent cannot watch {self.docs_dir}: the system's limit of watched"
                    " folders is reached. Raise it (Linux: `sudo sysctl"
                    " fs.inotify.max_user_watches=524288`) and restart Docent; until then"
                    " new files are indexed only at start-up."
                ) from exc
            raise WatcherUnavailable(f"Docent cannot watch {self.docs_dir}: {exc}") from exc

    @property
    def running(self) -> bool:
        """Whether the folder is being watched (watchdog's thread is alive)."""
        return self._observer is not None and self._observer.is_alive()

    def stop(self) -> None:
        """Stop watching; events waiting out their debounce are dropped (a scan catches up)."""
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)
            self._stopped = observer
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()

    @property
    def stopped_cleanly(self) -> bool:
        """After ``stop``: watchdog's thread has ended, so no event can come any more."""
        return self._observer is None and (self._stopped is None or not self._stopped.is_alive())

    # -- called on watchdog's thread -------------------------------------------------

    def _on_event(self, event: FileSystemEvent) -> None:
        src = Path(os.fsdecode(event.src_path))
        dest = Path(os.fsdecode(event.dest_path)) if event.dest_path else None
        kind = event.event_type
        if event.is_directory:
            if kind in ("deleted", "moved"):
                self._schedule(src)  # the folder is gone: its documents go too
            if kind in ("created", "moved"):
                self._schedule_tree(dest or src)  # a folder arrived with files in it
        elif kind == "moved":
            self._schedule(src)
            if dest is not None:
                self._schedule(dest, quick=True)
        elif kind in _FILE_EVENTS or kind == "deleted":
            self._schedule(src, quick=kind in _FINISHED_EVENTS)

    def _schedule_tree(self, folder: Path) -> None:
        for root, dirs, files in os.walk(folder):
            dirs[:] = [name for name in dirs if not name.startswith(".")]
            for name in files:
                self._schedule(Path(root, name))

    def _schedule(self, path: Path, *, quick: bool = False) -> None:
        if not self._watched(path):
            return
        call_soon(self.loop, self._debounce, path, quick)

    def _watched(self, path: Path) -> bool:
        try:
            rel = path.relative_to(self.docs_dir).as_posix()
        except ValueError:
            return False
        return rel != "." and not is_ignored(rel)

    # -- called on the event loop ----------------------------------------------------

    def _debounce(self, path: Path, quick: bool = False) -> None:
        if self._observer is None:
            return
        handle = self._timers.pop(path, None)
        if handle is not None:
            handle.cancel()
        delay = min(QUICK, self.debounce) if quick else self.debounce
        self._timers[path] = self.loop.call_later(delay, self._fire, path)

    def _fire(self, path: Path) -> None:
        self._timers.pop(path, None)
        try:
            if path.is_file():
                self.indexer.enqueue(path)
            elif not path.exists():
                self.indexer.enqueue_removal(path)
        except DiskFull:
            pass  # the indexer holds the path and queues it once the disk has space
        except Exception:  # a bad path must not break the watcher
            log.exception("could not queue %s", path)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: FolderWatcher) -> None:
        self._watcher = watcher

    def dispatch(self, event: FileSystemEvent) -> None:
        try:
            self._watcher._on_event(event)
        except Exception:  # an exception here would kill watchdog's thread
            log.exception("watch event %s failed", event)
