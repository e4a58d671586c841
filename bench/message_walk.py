"""The walk of one chat message through Docent's own modules, counted.

Starts real Services (Chroma store, registry, keyword index) over two small notes, with
the scripted fake chat model and the fake embedder, and profiles one turn from
``start_turn`` to ``done``: every call into a product module (app/, graph/, ingest/,
models/), on every thread, in the order it happens. The walk is that list of modules with
repeats in a row folded into one. It prints, per message:

- modules entered: how many different modules the walk passes through;
- returns: how many times it comes back to a module it had already left, counted in each
  walk on its own: the event loop's, and one for each job a pooled worker thread runs (a
  worker's calls interleave with the event loop's at random, and one pooled thread runs
  unrelated jobs one after another, such as a session write and a search);

once over every call, and once over the top two levels only (the functions that LangGraph,
asyncio or a worker thread call, and what those call directly): the flow a reader
follows from step to step, without the helpers each step leans on. The top two levels are
printed a second time counted per thread, as they were before jobs were told apart, so a
change can be shown before and after.

    uv run python bench/message_walk.py [--show]

``--show`` prints the walk itself. One warm-up turn of each kind runs first, so imports
and first-use set-up are not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.thread import _WorkItem
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.container import Services  # noqa: E402
from app.services.chat import Done, Failed  # noqa: E402
from bench.library import indexed_container  # noqa: E402
from graph.retrieval import questions as questions_module  # noqa: E402
from tests.fakes.chat import FakeChatModel  # noqa: E402
from tests.fakes.embedder import FakeEmbedder  # noqa: E402

PRODUCT = ("app", "graph", "ingest", "models")
_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_JOB_STARTS = _WorkItem.run.__code__
"""Where a pooled worker thread starts one job (asyncio.to_thread, run_in_executor and
every ThreadPoolExecutor.submit come through it)."""
MESSAGES = {
    "rag (a new chat's first question)": "According to my notes, where is the spare key?",
    "chat (small talk)": "thanks a lot!",
    "follow-up (rewritten, then searched)": "and who has the other one?",
}
NOTES = {
    "notes.md": "# Notes\n\nThe spare key is under the blue flowerpot.\n",
    "keys.md": "# Keys\n\nThe caretaker, Mr. Olsen, keeps the archive key.\n",
}


class Walk:
    """The product modules called, in order, across threads and pooled jobs."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str, int]] = []
        """Each call's thread, job and module, and how many product frames were below it
        (up to 2)."""
        self._files: dict[str, str | None] = {}
        self._suspended: dict[int, FrameType] = {}
        """Coroutine and generator frames already entered: each resumption is a "call"
        event too, not a new entry into the module."""
        self._jobs: dict[int, int] = {}
        """The job each thread runs now (0 for a thread outside any pool, the event
        loop's)."""
        self._started = 0

    def module(self, filename: str) -> str | None:
        known = self._files.get(filename, "")
        if known != "":
            return known
        found: str | None = None
        path = Path(filename)
        if path.is_absolute() and path.is_relative_to(ROOT):
            parts = path.relative_to(ROOT).parts
            if parts and parts[0] in PRODUCT:
                found = "/".join(parts)
        self._files[filename] = found
        return found

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or frame.f_code.co_name == "<module>":
            return
        if frame.f_code is _JOB_STARTS:
            self._started += 1
            self._jobs[threading.get_ident()] = self._started
            return
        module = self.module(frame.f_code.co_filename)
        if module is None:
            return
        if frame.f_code.co_flags & _RESUMABLE:
            if self._suspended.get(id(frame)) is frame:
                return
            self._suspended[id(frame)] = frame
        below, caller = 0, frame.f_back
        while caller is not None and below < 2:
            below += self.module(caller.f_code.co_filename) is not None
            caller = caller.f_back
        thread = threading.get_ident()
        self.calls.append((thread, self._jobs.get(thread, 0), module, below))

    def folded(self, depth: int = 2, per_thread: bool = False) -> list[list[str]]:
        """Each job's walk (the first caller's first), or each thread's with
        ``per_thread``: the modules called with fewer than ``depth`` product frames below,
        repeats in a row folded."""
        walks: dict[tuple[int, int], list[str]] = {}
        for thread, job, module, below in self.calls:
            walk = walks.setdefault((thread, 0 if per_thread else job), [])
            if below < depth and (not walk or walk[-1] != module):
                walk.append(module)
        return [walk for walk in walks.values() if walk]


async def one_turn(container: Services, text: str, session: str | None) -> Done:
    turn = container.chat.start_turn(session, text)
    done = None
    async for event in turn.events():
        if isinstance(event, Failed):
            raise SystemExit(f"the turn failed: {event.message}")
        if isinstance(event, Done):
            done = event
    assert done is not None
    return done


async def profiled_turn(container: Services, text: str, session: str | None) -> tuple[Walk, str]:
    """The folded walk of one turn; fresh worker threads, so that they are profiled too."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(thread_name_prefix="walk"))
    questions_module._helper_pool = None  # the search's helper threads, made again
    walk = Walk()
    threading.setprofile(walk.profile)
    sys.setprofile(walk.profile)
    try:
        done = await one_turn(container, text, session)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return walk, done.session_id


async def main(show: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="message-walk-") as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        for name, text in NOTES.items():
            (docs / name).write_text(text)
        llm = FakeChatModel(default_reply="Under the blue flowerpot [1].")
        container = await indexed_container(
            docs,
            Path(tmp) / "data",
            llm=llm,
            embedder=FakeEmbedder(),
            suggestions=False,
            probe_chat_below=0.0,
            probe_rag_above=0.0,
        )
        try:
            rag, chat, follow = MESSAGES.values()
            warm = (await one_turn(container, rag, None)).session_id
            await one_turn(container, chat, warm)
            llm.enqueue_json({"query": "who has the archive key"})
            await one_turn(container, follow, warm)
            session = None
            for name, text in MESSAGES.items():
                if text == follow:
                    llm.enqueue_json({"query": "who has the archive key"})
                walk, session = await profiled_turn(container, text, session)
                print(name)
                counts = (
                    ("every call", 3, False),
                    ("top two levels", 2, False),
                    ("same, per thread (old)", 2, True),
                )
                for label, depth, per_thread in counts:
                    paths = walk.folded(depth, per_thread)
                    entered = len({m for path in paths for m in path})
                    returns = sum(len(path) - len(set(path)) for path in paths)
                    print(f"  {label:22} modules entered {entered:3}, returns {returns:3}")
                    for path in paths if show and not per_thread else ():
                        print("    " + " → ".join(m.removesuffix(".py") for m in path))
        finally:
            await container.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print each walk")
    asyncio.run(main(parser.parse_args().show))
