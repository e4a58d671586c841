"""ParserPool: a few worker processes that parse untrusted files, each under a memory limit.

A small file may expand to gigabytes, and a process rarely gives memory back, so a worker
that breaks its ``RLIMIT_AS``, crashes or is stopped mid-task is killed and replaced.
Workers fork from a fork server (a few ms; plain ``fork`` would copy onnxruntime's and
Chroma's locks mid-use), and import run.py first: keep entry scripts under ``__main__``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ingest.closing import Closing
from ingest.ocr.page_reader import ReaderFactory
from ingest.parsing.remote import RemoteDocument
from ingest.parsing.tasks import OcrMode, ScanPlan, read_document, read_scan
from ingest.parsing.wire import End, Failed, Item, Next, Start, Task, decode
from ingest.parsing.worker import RETIRE_KB
from ingest.parsing.worker_process import POLL, Cancelled, WorkerProcess, start_context


class ParserPool:
    """Worker processes for untrusted bytes; ``open_document`` reads a file in one."""

    def __init__(
        self,
        size: int = 6,
        memory_mb: int = 1024,
        *,
        retire_mb: int = RETIRE_KB >> 10,
        memory_setting: str = "DOCENT_PARSER_MEMORY_MB",
        reader: ReaderFactory | None = None,
    ) -> None:
        self.size = size
        self.reader = reader
        """What reads page images in ``open_scan`` (None: the bundled models)."""
        self.memory_mb = memory_mb
        self.retire_mb = retire_mb
        """A worker whose peak memory passed this is replaced after its task."""
        self.memory_setting = memory_setting
        """The setting a person raises when a genuine file needs more memory."""
        self._context = start_context()
        self._lock = threading.Condition()
        self._idle: list[WorkerProcess] = []
        self._workers: set[WorkerProcess] = set()
        """Every live worker, idle or leased."""
        self._starting = 0

    @classmethod
    def for_ocr(cls, memory_mb: int, reader: ReaderFactory | None = None) -> ParserPool:
        """The OCR lane's pool: one worker, keeping its models, under a limit of its own
        (onnxruntime reserves far more address space than pypdf)."""
        return cls(
            1,
            memory_mb,
            retire_mb=memory_mb * 3 // 4,
            memory_setting="DOCENT_OCR_MEMORY_MB",
            reader=reader,
        )

    @property
    def memory_reason(self) -> str:
        """Why a file that needed more memory than a worker may use ends ``error``."""
        limit = (
            f"{self.memory_mb / 1024:g} GB" if self.memory_mb >= 1024 else f"{self.memory_mb} MB"
        )
        return (
            f"this file expands to more than {limit} when opened: it may be a decompression"
            " bomb, made to exhaust memory. If it is a genuine file, raise"
            f" {self.memory_setting} (now {self.memory_mb})"
        )

    def open_document(
        self,
        path: Path,
        data: bytes | None = None,
        cancelled: threading.Event | None = None,
        ocr: OcrMode = "off",
    ) -> RemoteDocument:
        """Open ``path`` (from ``data`` when given) in a worker; raises what the loaders
        raise, or Cancelled."""
        return RemoteDocument.open(self, read_document, (str(path), ocr), data, cancelled)

    def open_scan(
        self,
        path: Path,
        data: bytes | None,
        cancelled: threading.Event | None,
        *,
        first_page: int = 1,
        seen_text: bool = False,
        ocr_pages: int | None = None,
    ) -> RemoteDocument:
        """Open ``path`` as the OCR lane reads it, from ``first_page``, at most ``ocr_pages``
        read by OCR; raises as ``open_document`` does."""
        if self.reader is None:
            from ingest.ocr.reader import RapidReader

            reader: ReaderFactory = RapidReader
        else:
            reader = self.reader
        plan = ScanPlan(reader, first_page, seen_text, ocr_pages)
        return RemoteDocument.open(self, read_scan, (str(path), plan), data, cancelled)

    def lease(self, cancelled: threading.Event | None = None) -> Lease:
        """A worker of one's own for one task; waits while all ``size`` are busy."""
        with self._lock:
            while True:
                if cancelled is not None and cancelled.is_set():
                    raise Cancelled("cancelled while waiting for a parser process")
                worker = self._idle.pop() if self._idle else None
                if worker is not None and not worker.process.is_alive():
                    self._workers.discard(worker)  # died while idle (the system killed it)
                    worker.stop()
                    continue
                if worker is not None or len(self._workers) + self._starting < self.size:
                    break
                self._lock.wait(POLL)
            if worker is None:
                self._starting += 1
        if worker is None:
            try:
                worker = WorkerProcess.start(
                    self._context, self.memory_mb << 20, self.retire_mb << 10, cancelled
                )
            finally:
                with self._lock:
                    self._starting -= 1
            with self._lock:
                self._workers.add(worker)
        return Lease(self, worker, cancelled)

    def pids(self) -> list[int]:
        """The process ids of the live workers, idle or busy."""
        with self._lock:
            return sorted(w.process.pid for w in self._workers if w.process.pid is not None)

    def close(self) -> None:
        """Let every worker go (busy ones killed, their task Cancelled); reusable after."""
        with self._lock:
            idle, busy = self._idle, self._workers - set(self._idle)
            self._idle, self._workers = [], set()
            self._lock.notify_all()
        for worker in busy:
            worker.kill()  # its lease closes it
        for worker in idle:
            worker.stop()

    def _give_back(self, worker: WorkerProcess, keep: bool) -> None:
        with self._lock:
            keep = keep and worker in self._workers
            if keep:
                self._idle.append(worker)
            else:
                self._workers.discard(worker)
            self._lock.notify()
        if not keep:
            worker.stop()


class Lease(Closing):
    """One worker, held for one task. ``release`` gives it back, from any thread; a
    worker let go with a request unanswered is killed, so nothing runs on unwatched."""

    def __init__(self, pool: ParserPool, worker: WorkerProcess, cancelled: threading.Event | None):
        self._pool = pool
        self._worker = worker
        self._cancelled = cancelled
        self._io = threading.Lock()
        """Held while waiting on the pipe, so that release never closes it under a reader."""
        self._outstanding = False
        self._broken = False
        self._retire = False
        self._released = False
        self._state = threading.Lock()

    @property
    def pid(self) -> int | None:
        """The worker's process id."""
        return self._worker.process.pid

    def start(self, task: Task, args: tuple[Any, ...], payload: bytes | None = None) -> Any:
        """Run ``task(*args, payload)`` in the worker; returns its first item."""
        self._send(Start(task, args, payload is not None), payload)
        reply = self.receive()
        if not isinstance(reply, Item):
            raise RuntimeError(f"{task.__name__} ended without answering")
        return reply.value

    def ask_next(self) -> None:
        """Ask for the task's next item; the worker starts on it at once."""
        self._send(Next())

    def receive(self) -> Item | End:
        """The reply to the last request; raises the task's error, or Cancelled."""
        with self._io:
            conn = self._worker.conn
            try:
                while not self._released:
                    if self._cancelled is not None and self._cancelled.is_set():
                        self._broken = True
                        self._worker.kill()
                        raise Cancelled("cancelled while a parser process was reading")
                    if conn.poll(POLL):
                        break
                if self._released:
                    raise Cancelled("the document was closed")
                reply = conn.recv()
            except (EOFError, OSError):
                self._broken = True
                if self._released:
                    raise Cancelled("the document was closed") from None
                raise self._worker.died() from None
            self._outstanding = False
        if isinstance(reply, Failed):
            self._retire = reply.retire
            raise decode(reply.error, self._pool.memory_reason)
        if isinstance(reply, End):
            self._retire = reply.retire
        return reply

    def release(self) -> None:
        """Give the worker back, or let it go if it is mid-task or asked to leave."""
        with self._state:
            if self._released:
                return
            self._released = True
        keep = not (self._outstanding or self._broken or self._retire)
        if self._outstanding or self._broken:
            self._worker.kill()  # a reader waiting on the pipe sees it close at once
        with self._io:
            pass  # no reader is left on the pipe now
        self._pool._give_back(self._worker, keep)

    def close(self) -> None:
        """``release``: what leaving a ``with`` block does."""
        self.release()

    def _send(self, request: Start | Next, payload: bytes | None = None) -> None:
        if self._released:
            raise Cancelled("the document was closed")
        self._outstanding = True
        try:
            self._worker.conn.send(request)
            if payload is not None:
                self._worker.conn.send_bytes(payload)  # from the buffer, never pickled
        except OSError:
            # The worker is gone, maybe after answering (it refused the payload for want
            # of memory before it was all sent): ``receive`` reads what it said, if it did.
            self._broken = True
