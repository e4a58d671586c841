"""The one-shot commands: ingest, status and ask."""

from __future__ import annotations

import sys

from tqdm import tqdm

from app.container import Container
from app.settings import Settings
from ingest.events import IngestEvent
from ingest.types import DocStatus


def _counts_line(container: Container) -> str:
    counts = container.registry.counts()
    waiting = counts[DocStatus.QUEUED] + counts[DocStatus.INDEXING]
    line = f"{counts[DocStatus.READY]} documents ready, {counts[DocStatus.ERROR]} failed"
    if waiting:
        line += f", {waiting} waiting"
    return f"{line}, {container.store.count()} chunks"


async def ingest(settings: Settings) -> int:
    """Index the documents folder once with a progress bar; list failures; exit 0."""
    container = Container(settings)
    try:
        if not container.index_lock.acquire():
            pid = container.index_lock.holder()
            print(
                f"Docent is running on {settings.data_dir}"
                f"{f' (process {pid})' if pid else ''} and indexes {settings.docs_dir} itself."
            )
            print(f"Now: {_counts_line(container)}.")
            return 0
        bar = tqdm(total=0, unit="file", desc="Indexing", dynamic_ncols=True)

        def on_event(event: IngestEvent) -> None:
            if event.kind == "queued":
                bar.total += 1
                bar.refresh()
            elif event.kind in ("ready", "error", "removed"):
                rate = container.indexer.events.library().chunks_per_second
                bar.set_postfix_str(f"{rate:.0f} chunks/s  {event.path[-30:]}", refresh=False)
                bar.update(1)

        try:
            visited = await container.indexer.index_all(on_event)
        finally:
            bar.close()
        indexed = sum(1 for record in visited if record.status == DocStatus.READY)
        print(f"{_counts_line(container)} ({indexed} looked at now).")
        failed = [r for r in container.registry.list() if r.status == DocStatus.ERROR]
        if failed:
            print(f"{len(failed)} file(s) could not be indexed:")
        for record in failed:
            print(f"  ✗ {record.path}: {record.error}")
        return 0
    finally:
        container.index_lock.release()
        container.registry.close()


async def status(settings: Settings, *, check: bool = False) -> int:
    """Documents by status, chunk count, embedding model, and Ollama's reachability.

    With ``check``, also compare the folder, the registry and every index; exit 1 and
    say what differs when they disagree.
    """
    container = Container(settings)
    counts = container.registry.counts()
    health = await container.llm.health()
    print(f"Documents folder: {settings.docs_dir}")
    for state in DocStatus:
        print(f"  {state.value:9} {counts.get(state, 0)}")
    print(f"Chunks: {container.store.count()}")
    print(f"Embedding model: {container.embedder.name}")
    if health.reachable:
        print(f"Ollama: reachable at {health.host}; models: {', '.join(health.models) or 'none'}")
    else:
        print(f"Ollama: not reachable. {health.error}")
    code = 0
    if check:
        differences = (await container.indexer.check()).differences()
        if differences:
            code = 1
            print("Check: the folder, the registry and the indexes differ:")
            for line in differences:
                print(f"  - {line}")
            if not container.index_lock.acquire():
                print("  (Docent is running and may still be working on these.)")
            else:
                print("  Start Docent (or run `run.py ingest`) to repair this.")
                container.index_lock.release()
        else:
            print("Check: the folder, the registry and the indexes agree.")
    container.registry.close()
    return code


async def ask(settings: Settings, question: str, mode: str) -> int:
    """Stream an answer to the terminal, then its sources."""
    # The terminal shows no follow-up suggestions: don't make the model write them.
    container = Container(settings.model_copy(update={"suggestions": False}))
    await container.start(watch=False, scan=False)
    try:
        turn = container.chat.start_turn(None, question, mode)  # type: ignore[arg-type]
        async for event in turn.events():
            if event.kind == "status":
                print(f"\r\033[2K{event.data['text']}", end="", file=sys.stderr, flush=True)
            elif event.kind == "token":
                print("\r\033[2K", end="", file=sys.stderr)
                print(event.data["text"], end="", flush=True)
            elif event.kind == "done":
                print()
                for source in event.data["sources"]:
                    page = f", page {source['page']}" if source["page"] is not None else ""
                    print(f"[{source['n']}] {source['path']}{page}")
            elif event.kind == "error":
                print(f"\nError: {event.data['message']}", file=sys.stderr)
                return 1
    finally:
        await container.stop()
    return 0
