"""The one-shot commands: ingest, status and ask."""

from __future__ import annotations

import sys

from tqdm import tqdm

from app.container import Container
from app.settings import Settings
from ingest.types import DocStatus, DocumentRecord


async def ingest(settings: Settings) -> int:
    """Index the documents folder once with a progress bar; list failures; exit 0."""
    container = Container(settings)
    bar = tqdm(total=0, unit="file", desc="Indexing")

    def progress(done: int, total: int, record: DocumentRecord) -> None:
        bar.total = total
        bar.set_postfix_str(record.path[-40:])
        bar.n = done
        bar.refresh()

    try:
        await container.indexer.start()
        records = await container.indexer.index_all(progress)
    finally:
        bar.close()
        await container.indexer.stop()
    failed = [r for r in records if r.status == DocStatus.ERROR]
    ready = sum(1 for r in records if r.status == DocStatus.READY)
    print(f"{ready} documents ready, {len(failed)} failed, {container.store.count()} chunks.")
    for record in failed:
        print(f"  ✗ {record.path}: {record.error}")
    container.registry.close()
    return 0


async def status(settings: Settings) -> int:
    """Documents by status, chunk count, embedding model, and Ollama's reachability."""
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
    container.registry.close()
    return 0


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
