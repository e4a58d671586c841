"""The one-shot commands that need the whole app: ingest and ask."""

from __future__ import annotations

import sys

from tqdm import tqdm

from app.container import Container
from app.settings import Settings
from app.terminal import PlainText
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


DEGRADED_EXIT = 3
"""`ask`'s exit status when Ollama could not write the answer and passages stood in."""


async def ask(settings: Settings, question: str, mode: str) -> int:
    """Stream an answer to the terminal as plain text, then its sources.

    Exits 1 on an error and 3 when only the degraded answer (passages) could be given.
    """
    # The terminal shows no follow-up suggestions: don't make the model write them.
    container = Container(settings.model_copy(update={"suggestions": False}))
    await container.start(watch=False, scan=False)
    plain = PlainText()
    failure: str | None = None
    try:
        turn = container.chat.start_turn(None, question, mode)  # type: ignore[arg-type]
        async for event in turn.events():
            if event.kind == "status":
                print(f"\r\033[2K{event.data['text']}", end="", file=sys.stderr, flush=True)
            elif event.kind == "token":
                print("\r\033[2K", end="", file=sys.stderr)
                print(plain.feed(event.data["text"]), end="", flush=True)
            elif event.kind == "done":
                failure = event.data["trace"].get("llm_error")
                print(plain.flush())
                for source in event.data["sources"]:
                    page = f", page {source['page']}" if source["page"] is not None else ""
                    print(f"[{source['n']}] {source['path']}{page}")
            elif event.kind == "error":
                print(f"\nError: {event.data['message']}", file=sys.stderr)
                return 1
    finally:
        await container.stop()
    if failure is not None:
        print(f"\nNo answer could be written: {failure}", file=sys.stderr)
        return DEGRADED_EXIT
    return 0
