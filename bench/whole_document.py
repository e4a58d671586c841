"""Summarising a 106-page PDF with the fake chat model: does every page reach the model,
what does it cost, and does asking again cost nothing?

The PDF (a US federal agency's 2022 annual performance report, from the shared corpus) is
indexed by the real pipeline into a temporary data dir, with a deterministic fake
embedder (the reading doesn't use vectors). Each turn runs through ChatService in
"Whole documents" mode, as the window runs it, at the default context (8,192 tokens) and
call budget. The fake chat model answers a section's map call with a short note citing its
first page, and the answer with a fixed sentence.

    uv run python bench/whole_document.py [--context 8192] [--max-calls 24]

Prints: the document's pages and tokens; the model calls made (map and answer); the
tokens sent to the model against the document's tokens; how many pages' text reached a map
call; Docent's own time beside the time spent inside the model; and the same for asking
again (which must make no map call).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.container import Services  # noqa: E402
from app.services.chat import Done, Progress  # noqa: E402
from bench.library import CORPUS, indexed_container  # noqa: E402
from graph.budget import estimate_tokens, message_tokens  # noqa: E402
from graph.whole import reading_prompts  # noqa: E402
from graph.whole.sections import units_of  # noqa: E402
from models.protocols import Health, Message, Usage  # noqa: E402
from tests.fakes.chat import FakeChatModel  # noqa: E402
from tests.fakes.embedder import FakeEmbedder  # noqa: E402

PDF = CORPUS / "pdfs" / "docugami__us-fed-agency-reports_2022-annual-performance-report.pdf"


def is_map(messages: Sequence[Message]) -> bool:
    return messages[0]["content"].startswith(reading_prompts.MAP_SYSTEM[:30])


def note(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | None:
    if not is_map(messages):
        return None
    labels = re.findall(r"^\[(p\d+)\]$", messages[-1]["content"], re.MULTILINE)
    return f"The section covers the agency's goals and results [{labels[0]}]."


class TimedModel:
    """The fake chat model, with the time spent inside its calls and what they were sent."""

    def __init__(self, fake: FakeChatModel) -> None:
        self.fake = fake
        self.host, self.model = fake.host, fake.model
        self.seconds = 0.0
        self.calls: list[list[Message]] = []

    async def stream_chat(
        self, messages: Sequence[Message], usage: Usage | None = None
    ) -> AsyncIterator[str]:
        self.calls.append(list(messages))
        started = time.perf_counter()
        async for piece in self.fake.stream_chat(messages, usage):
            self.seconds += time.perf_counter() - started
            yield piece
            started = time.perf_counter()
        self.seconds += time.perf_counter() - started

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        self.calls.append(list(messages))
        started = time.perf_counter()
        try:
            return await self.fake.complete_json(messages, schema, timeout=timeout)
        finally:
            self.seconds += time.perf_counter() - started

    async def health(self) -> Health:
        return await self.fake.health()

    def use(self, model: str) -> None:
        self.fake.use(model)
        self.model = model

    async def aclose(self) -> None:
        await self.fake.aclose()


async def summarise(container: Services, model: TimedModel, name: str) -> dict[str, Any]:
    """One summary turn; what it cost."""
    calls_before, model_before = len(model.calls), model.seconds
    started = time.perf_counter()
    turn = container.chat.start_turn(None, f'Summarise @"{name}"', "document")
    progress = 0
    async for event in turn.events():
        progress += isinstance(event, Progress)
    done = await turn.result()
    wall = time.perf_counter() - started
    assert isinstance(done, Done), done
    calls = model.calls[calls_before:]
    return {
        "done": done,
        "calls": calls,
        "maps": [c for c in calls if is_map(c)],
        "wall": wall,
        "model": model.seconds - model_before,
        "progress": progress,
    }


def report(label: str, run: dict[str, Any], document_tokens: int) -> None:
    sent = sum(message_tokens(m) for call in run["calls"] for m in call)
    own = run["wall"] - run["model"]
    print(f"{label}:")
    print(
        f"  model calls {len(run['calls'])} ({len(run['maps'])} map, "
        f"{len(run['calls']) - len(run['maps'])} answer); progress events {run['progress']}"
    )
    print(
        f"  tokens sent {sent:,} against the document's {document_tokens:,} "
        f"({sent / max(document_tokens, 1):.2f}x)"
    )
    print(
        f"  time: Docent's own {own * 1000:,.0f} ms beside the model's "
        f"{run['model'] * 1000:,.0f} ms (wall {run['wall'] * 1000:,.0f} ms)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", type=int, default=8192)
    parser.add_argument("--max-calls", type=int, default=24)
    args = parser.parse_args()
    if not PDF.is_file():
        raise SystemExit(f"The corpus PDF is not at {PDF}; this benchmark needs it.")
    fake = FakeChatModel(default_reply="The report sets out the agency's goals [1].")
    fake.responder = note
    model = TimedModel(fake)
    with tempfile.TemporaryDirectory(prefix="docent-wholedoc-") as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        shutil.copy(PDF, docs / PDF.name)
        container = await indexed_container(
            docs,
            Path(tmp) / "data",
            llm=model,
            embedder=FakeEmbedder(384),
            context_tokens=args.context,
            max_calls_per_question=args.max_calls,
            suggestions=False,
        )
        try:
            record = container.registry.list()[0]
            key = container.retriever.library.keys_for([record.path])[0]
            chunks = container.retriever.reader.dense.document_chunks(key)
            units = units_of(chunks, record.path)
            pages = sorted({u.page for u in units if u.page is not None})
            document_tokens = sum(estimate_tokens(u.text) for u in units)
            print(
                f"{record.path}: {record.pages} pages, {len(pages)} with text, "
                f"{document_tokens:,} tokens (estimated); context {args.context:,}, "
                f"budget {args.max_calls} calls\n"
            )
            first = await summarise(container, model, record.path)
            read = "\n".join(m["content"] for call in first["maps"] for m in call)
            reached = [u for u in units if u.text[:200] in read]
            report("first summary", first, document_tokens)
            print(f"  pages whose text reached a map call: {len(reached)}/{len(units)}")
            skipped = first["done"].trace.get("reading", {}).get("skipped")
            print(f"  skipped for the budget: {skipped or 'nothing'}\n")

            again = await summarise(container, model, record.path)
            report("asked again", again, document_tokens)
            cached = again["done"].trace.get("reading", {}).get("notes_cached")
            print(f"  new map calls: {len(again['maps'])} (notes from the cache: {cached})")
        finally:
            await container.stop()


if __name__ == "__main__":
    asyncio.run(main())
