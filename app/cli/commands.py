"""The one-shot commands that need the whole app: ingest and ask."""

from __future__ import annotations

import sys

from tqdm import tqdm

from app.check_line import check_line
from app.cli.terminal import PlainText, StatusLine
from app.collector import settle
from app.container import Services, build_services
from app.services.chat import Done, Failed, Status, Token
from app.settings import Settings
from ingest.document_parts import DocStatus
from ingest.pipeline.progress import IngestEvent


def _counts_line(container: Services) -> str:
    index = container.status.index()
    counts = index.by_status
    waiting = counts[DocStatus.QUEUED] + counts[DocStatus.INDEXING]
    line = f"{counts[DocStatus.READY]} documents ready, {counts[DocStatus.ERROR]} failed"
    if waiting:
        line += f", {waiting} waiting"
    return f"{line}, {index.chunks} chunks"


async def ingest(settings: Settings) -> int:
    """Index the documents folder once with a progress bar; list failures; exit 0."""
    container = build_services(settings)
    try:
        if not container.index_lock.acquire():
            pid = container.index_lock.holder()
            print(
                f"Docent is running on {settings.paths.data_dir}"
                f"{f' (process {pid})' if pid else ''} and indexes"
                f" {settings.paths.docs_dir} itself."
            )
            print(f"Now: {_counts_line(container)}.")
            return 0
        bar = tqdm(total=0, unit="file", desc="Indexing", dynamic_ncols=True)

        def on_event(event: IngestEvent) -> None:
            if event.kind == "queued":
                bar.total += 1
                bar.refresh()
            elif event.kind in ("ready", "error", "removed"):
                rate = container.documents.progress().chunks_per_second
                bar.set_postfix_str(f"{rate:.0f} chunks/s  {event.path[-30:]}", refresh=False)
                bar.update(1)
            elif event.ocr:  # a scan's pages come slowly: show them as they come
                scans = container.indexer.events.library().ocr
                if scans is not None:
                    bar.set_postfix_str(f"{scans.summary()}  {event.path[-30:]}")

        settle()
        try:
            visited = await container.documents.index_folder(on_event)
        finally:
            bar.close()
        indexed = sum(1 for view in visited if view.status == DocStatus.READY)
        print(f"{_counts_line(container)} ({indexed} looked at now).")
        failed = [view for view in container.documents.list() if view.status == DocStatus.ERROR]
        if failed:
            print(f"{len(failed)} file(s) could not be indexed:")
        for view in failed:
            print(f"  ✗ {view.path}: {view.error}")
        return 0
    finally:
        container.index_lock.release()
        container.registry.close()


async def check(settings: Settings) -> int:
    """Compare the folder, the registry and every index; 1 and what differs when they
    disagree, else 0 (`run.py status --check`)."""
    container = build_services(settings)
    try:
        differences = await container.documents.differences()
        if not differences:
            print("Check: the folder, the registry and the indexes agree.")
            return 0
        print("Check: the folder, the registry and the indexes differ:")
        for line in differences:
            print(f"  - {line}")
        if not container.index_lock.acquire():
            print("  (Docent is running and may still be working on these.)")
        else:
            print("  Start Docent (or run `run.py ingest`) to repair this.")
            container.index_lock.release()
        return 1
    finally:
        container.registry.close()


DEGRADED_EXIT = 3
"""`ask`'s exit status when the model server could not write the answer and passages
stood in."""


async def ask(settings: Settings, question: str, mode: str) -> int:
    """Stream an answer to the terminal as plain text, then its sources; exits 1 on an
    error and 3 when only the degraded answer (passages) could be given."""
    # The terminal shows no follow-up suggestions: don't make the model write them.
    container = build_services(settings.replaced({"suggestions": False}))
    await container.start(watch=False, scan=False)
    plain = PlainText()
    progress = StatusLine(sys.stderr)
    failure: str | None = None
    try:
        turn = container.chat.start_turn(None, question, mode)  # type: ignore[arg-type]
        async for event in turn.events():
            if isinstance(event, Status):
                progress.show(event.text)
            elif isinstance(event, Token):
                progress.answering()
                print(plain.feed(event.text), end="", flush=True)
            elif isinstance(event, Done):
                progress.answering()
                failure = event.trace.get("llm_error")
                print(plain.flush())
                for source in event.sources:
                    page = f", page {source['page']}" if source["page"] is not None else ""
                    print(f"[{source['n']}] {source['path']}{page}")
                line = check_line(event.support or [], misses_question=event.misses_question)
                if line:  # as the window's: which sentences the sources hold
                    print(line, file=sys.stderr)
            elif isinstance(event, Failed):
                print(f"\nError: {event.message}", file=sys.stderr)
                return 1
    finally:
        await container.stop()
    if failure is not None:
        print(f"\nNo answer could be written: {failure}", file=sys.stderr)
        return DEGRADED_EXIT
    return 0
