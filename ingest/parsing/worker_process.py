"""One parser process seen from the app: start it, stop it, and say why it died."""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext

from ingest.loaders import UnreadableFile
from ingest.parsing.wire import Ready
from ingest.parsing.worker import serve

POLL = 0.1
"""How often a waiting thread looks at its cancel event (seconds)."""
JOIN = 2.0
"""How long a worker that was let go may take to leave before it is killed."""
START = 60.0
"""How long a new worker may take to say it is ready (a busy machine, a slow disk)."""


class Cancelled(Exception):
    """The work was cancelled (its file changed or went away, or the app is stopping)."""


class ParserUnavailable(Exception):
    """A parser process could not be started; no file is to blame."""


class WorkerProcess:
    """One worker process and the app's end of its pipe."""

    def __init__(self, process: multiprocessing.process.BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn

    @classmethod
    def start(
        cls,
        context: BaseContext,
        memory_limit: int,
        retire_kb: int,
        cancelled: threading.Event | None,
    ) -> WorkerProcess:
        """A new worker, once ready; ParserUnavailable (no file to blame) or Cancelled."""
        ours, theirs = context.Pipe()
        process = context.Process(  # type: ignore[attr-defined]
            target=serve,
            args=(theirs, memory_limit, retire_kb),
            name="docent-parser",
            daemon=True,
        )
        process.start()
        theirs.close()  # the worker holds the only other end: its exit closes the pipe
        worker = cls(process, ours)
        deadline = time.monotonic() + START
        try:
            while not ours.poll(POLL):
                if cancelled is not None and cancelled.is_set():
                    raise Cancelled("cancelled while a parser process started")
                if time.monotonic() > deadline:
                    raise ParserUnavailable(f"a parser process did not start in {START:.0f} s")
            if not isinstance(ours.recv(), Ready):
                raise ParserUnavailable("a parser process started wrong")
        except (EOFError, OSError):
            worker.stop()
            raise ParserUnavailable(
                f"a parser process could not start (exit code {process.exitcode}). Where the"
                " app runs from a script, its work must be under"
                ' `if __name__ == "__main__"`: a new process imports that script first.'
            ) from None
        except BaseException:
            worker.stop()
            raise
        return worker

    def kill(self) -> None:
        """Stop the process now (from any thread); the pipe stays open for its reader."""
        self.process.kill()  # does nothing once the process is known to have ended

    def stop(self) -> None:
        """Close the pipe, which lets an idle worker leave; kill it if it does not."""
        self.conn.close()
        self.process.join(JOIN)
        if self.process.exitcode is None:
            self.process.kill()
            self.process.join()

    def died(self) -> UnreadableFile:
        """Why the worker stopped without answering, for a person."""
        self.process.join(JOIN)
        code = self.process.exitcode
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            if -code == signal.SIGKILL:
                return UnreadableFile(
                    f"the process reading this file was stopped by the system ({name}),"
                    " most often for lack of memory; Docent tries again when the file changes"
                )
            return UnreadableFile(
                f"the process reading this file crashed ({name}): the file may be damaged,"
                " or need more memory than a reader may use (DOCENT_PARSER_MEMORY_MB, or"
                " DOCENT_OCR_MEMORY_MB when it is read by OCR)"
            )
        return UnreadableFile(
            f"the process reading this file stopped unexpectedly (exit code {code})"
        )


def start_context() -> BaseContext:
    """The fork server where the system has one (it preloads the loaders), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["ingest.parsing.worker", "ingest.parsing.tasks"])
        return context
    return multiprocessing.get_context("spawn")
