"""Which embedding model answers, and switching it while the app runs (docs/retrieval.md).

A model that can't be loaded changes nothing: the old one keeps answering, nothing is
saved, and ``state().problem`` says why. Choosing again while a rebuild runs cancels that
rebuild (its partial collection is dropped); choosing the model that answers just cancels it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from app.services.collections import Collections
from app.services.embedders import (
    build_embedder,
    checked_embedder,
    embedder_spec,
    is_named,
    model_label,
)
from app.services.embedding_state import EmbeddingState, EmbeddingUnavailable
from app.services.listeners import Listeners
from app.settings import Settings
from graph.retrieval.ports import Reader
from graph.retrieval.retriever import Retriever
from ingest.index.vectors import ChromaStore
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.progress import IngestEvent
from ingest.pipeline.switch import ModelSwitch
from models.embeddings import MODEL_NAME
from models.protocols import Embedder

log = logging.getLogger(__name__)

T = TypeVar("T")

BUILT_IN_MODEL = MODEL_NAME
"""The embedding model that runs in-process; its weights ship with Docent."""


class EmbeddingModels:
    """The answering collection, the one being built, and switching between models."""

    def __init__(
        self,
        collections: Collections,
        retriever: Retriever,
        indexer: Indexer,
        *,
        factory: Callable[[Settings], Embedder] = build_embedder,
    ) -> None:
        self.settings = collections.settings
        """The settings that chose the configured model."""
        self.chroma = collections.chroma
        self.registry = collections.registry
        self.events = collections.events
        self.factory = factory
        self.embedder = collections.embedder
        """The configured model: the one answering, or the one being built."""
        self.store = collections.store
        """The collection that answers."""
        self.indexes = collections.indexes
        """Every index the pipeline writes (the same list the indexer writes through)."""
        self.switch = collections.switch
        """Set while a new embedding model's collection is being built."""
        self.loading: str | None = None
        self.problem: str | None = None
        self.pending: asyncio.Task[str] | None = None
        """The last choice being applied; its result is the message for the person."""
        self._retriever = retriever
        """Swapped to the new model's reader at the end of a switch."""
        self._indexer = indexer
        """Waited for: files being indexed when a switch begins or a collection retires."""
        self._task: asyncio.Task[None] | None = None
        self._copying: asyncio.Future[Any] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._lock = asyncio.Lock()
        self._failed: tuple[dict[str, Any], Settings, Callable[[dict[str, Any]], None]] | None = (
            None
        )
        """The last choice whose model couldn't load, for a retry."""
        self._listeners = Listeners[EmbeddingState]("embedding listener failed")
        self.events.subscribe(self._on_event)

    # -- what the window shows --------------------------------------------------------

    def state(self) -> EmbeddingState:
        switch = self.switch
        return EmbeddingState(
            answering=self.store.embedder.name,
            building=switch.new.embedder.name if switch else None,
            done=switch.done if switch else 0,
            total=switch.total if switch else 0,
            loading=self.loading,
            problem=self.problem,
        )

    def subscribe(self, listener: Callable[[EmbeddingState], None]) -> Callable[[], None]:
        """Call ``listener`` on the event loop after every change; returns the unsubscribe."""
        return self._listeners.subscribe(listener)

    def retry(self) -> asyncio.Task[str] | None:
        """Try the last choice that failed again (after pulling the model, say)."""
        if self.problem is None or self._failed is None:
            return None
        return self.choose(*self._failed)

    def dismiss(self) -> None:
        """Forget why the last chosen model couldn't be used (the person has read it)."""
        self.problem = None
        self._tell()

    def _tell(self) -> None:
        self._listeners.tell(self.state())

    def _on_event(self, event: IngestEvent) -> None:
        if event.kind == "switch":
            self._tell()

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Go on with a switch the settings asked for before this start."""
        if self.switch is not None:
            self._task = asyncio.create_task(self._run(self.switch), name="embedding-switch")

    def stop(self) -> None:
        """Stop copying (a switch goes on from where it stopped at the next start)."""
        if self.switch is not None:
            self.switch.stop.set()
        for task in (self._task, *self._background):
            if task is not None:
                task.cancel()

    # -- choosing a model ---------------------------------------------------------------

    def choose(
        self, changes: dict[str, Any], target: Settings, save: Callable[[dict[str, Any]], None]
    ) -> asyncio.Task[str]:
        """Switch to the model ``target`` names, in the background (call on the event loop).

        ``save`` gets ``changes`` once the model has loaded. The task's result says what
        happens now; it raises ``EmbeddingUnavailable`` if the model can't load.
        """
        self.pending = asyncio.get_running_loop().create_task(self._choose(changes, target, save))
        self.pending.add_done_callback(_quiet)
        return self.pending

    async def _choose(
        self, changes: dict[str, Any], target: Settings, save: Callable[[dict[str, Any]], None]
    ) -> str:
        label = model_label(target)
        async with self._lock:
            self.loading, self.problem = label, None
            self._tell()
            try:
                embedder = self._loaded(target)
                if embedder is None:
                    embedder = await asyncio.to_thread(checked_embedder, self.factory, target)
            except Exception as error:
                reason = str(error).strip().rstrip(".") or type(error).__name__
                self.loading = None
                self.problem = (
                    f"Docent can't use the embedding model {label}: {reason}. "
                    f"It keeps answering with {self.store.embedder.name}."
                )
                self._failed = (changes, target, save)
                self._tell()
                raise EmbeddingUnavailable(self.problem) from error
            self._failed = None
            try:
                save(changes)
                self.settings = target  # what the registry's record of the model reads
                return await self._switch_to(embedder)
            finally:  # one change seen from loading to rebuilding: never "done" between
                self.loading = None
                self._tell()

    def _loaded(self, target: Settings) -> Embedder | None:
        """The answering or building model, when ``target`` names it: no second copy."""
        candidates = [self.store.embedder] + ([self.switch.new.embedder] if self.switch else [])
        return next((e for e in candidates if is_named(e, target)), None)

    async def _switch_to(self, embedder: Embedder) -> str:
        name, answering = embedder.name, self.store
        self.embedder = embedder
        if self.switch is not None:
            if self.switch.new.embedder.name == name:
                return f"The index is already being rebuilt with {name}."
            await self._cancel()
        if name == answering.embedder.name:  # the answering model, perhaps on another host
            if embedder is not answering.embedder:
                answering.embedder = embedder
                self._retriever.activate(Reader(answering, embedder))
            self.registry.set_state("embedder", embedder_spec(embedder, self.settings))
            return f"Searches use {name}."
        new = ChromaStore(self.chroma, embedder, lookup=self.registry)
        new.building = True
        self.indexes.append(new)
        self.switch = ModelSwitch(self.registry, answering, new, self.events)
        self._task = asyncio.create_task(self._run(self.switch), name="embedding-switch")
        return (
            f"Rebuilding the index with {name} in the background; "
            f"{answering.embedder.name} answers until it is done."
        )

    # -- the switch -----------------------------------------------------------------------

    async def _run(self, switch: ModelSwitch) -> None:
        """Fill the new collection, then let it answer and drop the old one."""
        try:
            if not await self._in_thread(switch.run):
                return
            await self._indexer.wait_idle()  # files being indexed when the switch began
            await self._in_thread(switch.catch_up)
            if switch.stop.is_set():
                return
            # From here to the end of the swap nothing awaits: no search sees half of it.
            switch.new.building = False
            old_reader = self._retriever.activate(Reader(switch.new, switch.new.embedder))
            self.store = switch.new
            self.indexes.remove(switch.old)
            self.registry.set_state("embedder", embedder_spec(switch.new.embedder, self.settings))
            self.switch = None
            self._tell()
            log.info("now answering with %s", switch.new.embedder.name)
            self._retire(switch.old, old_reader)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("the embedding model switch failed; the old index keeps answering")
            if self.switch is switch:
                self.problem = (
                    f"Rebuilding the index with {switch.new.embedder.name} failed: {error}. "
                    f"{switch.old.embedder.name} keeps answering."
                )
                self._abandon(switch)
                self._tell()

    async def _cancel(self) -> None:
        """Stop the rebuild under way and drop what it built."""
        switch = self.switch
        if switch is None:
            return
        switch.stop.set()
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._copying is not None:  # the copying thread stops after its current document
            await asyncio.gather(self._copying, return_exceptions=True)
        self._abandon(switch)

    def _abandon(self, switch: ModelSwitch) -> None:
        self.switch = None
        if switch.new in self.indexes:
            self.indexes.remove(switch.new)
        self._retire(switch.new, None)

    def _retire(self, store: ChromaStore, reader: Reader | None) -> None:
        """Drop ``store``'s collection once no search and no file being indexed uses it."""

        async def drop() -> None:
            if reader is not None:
                await asyncio.to_thread(self._retriever.wait_unused, reader)
            await self._indexer.wait_idle()
            async with self._lock:  # a new choice may have made the same collection again
                live = {self.store.name} | (
                    {self.switch.new.name, self.switch.old.name} if self.switch else set()
                )
                if store.name not in live:
                    await asyncio.to_thread(store.drop)

        task = asyncio.create_task(drop(), name=f"drop-{store.name}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(_quiet)

    async def _in_thread(self, work: Callable[[], T]) -> T:
        """Copy in a thread that a cancelled caller doesn't abandon half-way."""
        future: asyncio.Future[T] = asyncio.ensure_future(asyncio.to_thread(work))
        self._copying = future
        return await asyncio.shield(future)


def _quiet(task: asyncio.Task[Any]) -> None:
    """Retrieve a background task's outcome, logging what nobody awaited."""
    if task.cancelled():
        return
    error = task.exception()
    if error is not None and not isinstance(error, EmbeddingUnavailable):
        log.error("embedding task failed", exc_info=error)
