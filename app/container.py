"""The composition root: builds every service from Settings, once, and runs their lifecycle."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from app.core import Core, open_core
from app.services.chat import ChatService
from app.services.chat_server import build_chat_model, server_name
from app.services.collections import open_collections
from app.services.documents import DocumentService
from app.services.embedders import build_embedder
from app.services.embedding_models import EmbeddingModels
from app.services.health import HealthMonitor
from app.services.preferences import ChatModels, Preferences
from app.services.reranking import Reranking
from app.services.search import SearchService
from app.services.sessions import SessionIndex
from app.settings import Settings
from graph.deps import GraphDeps
from graph.graph import build_graph
from graph.nodes.suggest import suggest_followups
from graph.options import TurnOptions
from graph.retrieval.library import RegistryLibrary
from graph.retrieval.retriever import RetrievalSettings, Retriever
from graph.whole.notes import SectionNotes
from ingest.index.chroma_calls import open_chroma
from ingest.index.keyword.index import KeywordIndex
from ingest.index.vectors import ChromaStore
from ingest.ocr.types import ReaderFactory
from ingest.parsing import ParserPool
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.lock import INDEX_LOCK_FILE, AlreadyIndexing, IndexLock
from ingest.pipeline.options import PLACES, IndexOptions
from ingest.pipeline.progress import EventBus
from ingest.pipeline.switch import ModelSwitch
from ingest.pipeline.watcher import FolderWatcher, WatcherUnavailable
from models.llm import same_model
from models.protocols import ChatModel, Embedder, Reranker
from models.reranker import FlashRankReranker

log = logging.getLogger(__name__)

NOTES_FILE = "notes.db"
"""Section notes of documents read whole: derived, so deleting the file only costs time."""

__all__ = ["Container", "build_embedder", "turn_options"]


def turn_options(settings: Settings) -> TurnOptions:
    """The conversation's knobs, from the settings."""
    return TurnOptions(
        context_tokens=settings.context_tokens,
        history_tokens=settings.history_tokens,
        focus_tokens=settings.focus_tokens,
        probe_chat_below=settings.probe_chat_below,
        probe_rag_above=settings.probe_rag_above,
        rewrite_timeout=settings.rewrite_timeout,
        expand_queries=settings.expand_queries,
        suggestions=settings.suggestions,
        max_calls=settings.max_calls_per_question,
    )


class Container:
    """Every long-lived service of one Docent instance. Tests pass fakes in."""

    def __init__(
        self,
        settings: Settings,
        *,
        core: Core | None = None,
        llm: ChatModel | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        previous_embedder: Embedder | None = None,
        embedder_factory: Callable[[Settings], Embedder] = build_embedder,
        index_lock: IndexLock | None = None,
        ocr_reader: ReaderFactory | None = None,
    ) -> None:
        """``core``: the light services, when the caller opened them already (a serving
        app does, before it listens); otherwise they are opened here, with ``llm``.
        ``ocr_reader``: what reads scanned pages (None: the bundled OCR models)."""
        core = core or open_core(settings, llm=llm)
        settings = core.settings
        self.settings = settings
        self.token = core.token
        self.llm: ChatModel = core.llm
        self.reranker: Reranker = reranker or FlashRankReranker(
            settings.data_dir / "models" / "flashrank"
        )
        self.registry = core.registry
        self.sessions = SessionIndex(settings.data_dir / "docent.db")
        self.events = EventBus()
        collections = open_collections(
            settings,
            open_chroma(settings.data_dir, settings.chroma_url),
            self.registry,
            self.events,
            embedder or embedder_factory(settings),
            previous=previous_embedder,
        )
        self.keyword = KeywordIndex(settings.data_dir / "keyword")
        collections.indexes.append(self.keyword)
        self.parsers = ParserPool(size=PLACES, memory_mb=settings.parser_memory_mb)
        """The worker processes every file is opened in, for the indexer and MCP alike."""
        self.ocr_parsers = (
            ParserPool.for_ocr(settings.ocr_memory_mb, ocr_reader)
            if settings.ocr == "auto"
            else None
        )
        """The OCR lane's one worker process (None when OCR is off)."""
        self.notes = SectionNotes(settings.data_dir / NOTES_FILE)
        """What the model wrote about each section of a document read whole; a content's
        notes go when its chunks do."""
        self.indexer = Indexer(
            settings.docs_dir,
            self.registry,
            collections.indexes,
            collections.embedder,
            events=self.events,
            parsers=self.parsers,
            ocr_parsers=self.ocr_parsers,
            on_collected=self.notes.forget,
            options=IndexOptions(
                chunk_size=settings.chunk_size,
                chunk_overlap=settings.chunk_overlap,
                max_file_bytes=settings.max_file_mb << 20,
                time_budget=settings.file_time_budget,
                workers=PLACES,
                ocr_page_seconds=settings.ocr_page_seconds,
                ocr_max_pages=settings.ocr_max_pages,
            ),
        )
        self.documents = DocumentService(
            settings.docs_dir,
            self.registry,
            self.indexer,
            parsers=self.parsers,
            max_file_bytes=min(settings.max_file_mb, settings.max_upload_mb) << 20,
            size_setting="DOCENT_MAX_UPLOAD_MB"
            if settings.max_upload_mb <= settings.max_file_mb
            else "DOCENT_MAX_FILE_MB",
        )
        self.retriever = Retriever(
            collections.store,  # the old model's, during a switch
            self.keyword,
            collections.store.embedder,
            self.reranker,
            RegistryLibrary(self.registry),
            RetrievalSettings(
                top_k=settings.top_k,
                rerank_candidates=settings.rerank_candidates,
                sentence_order=settings.sentence_order,
                context_chars=settings.context_chars,
            ),
        )
        self.embedding = EmbeddingModels(
            collections, self.retriever, self.indexer, factory=embedder_factory
        )
        """The answering collection, a new model's being built, and switching models."""
        self.deps = GraphDeps(
            self.llm, self.retriever, self.ready_paths, turn_options(settings), self.notes
        )
        self.search = SearchService(
            self.retriever,
            self.ready_paths,
            max_query_chars=settings.max_query_chars,
            max_text_chars=settings.verify_max_chars,
            verify_seconds=settings.verify_seconds,
        )
        """Search and verify, for the API and MCP alike."""
        self.health = HealthMonitor(self.llm, self.reranker)
        self.status = core.status
        live = {
            "chat_model": self.llm.use,
            "top_k": lambda k: self.retriever.configure(top_k=k),
            "rerank_candidates": lambda n: self.retriever.configure(rerank_candidates=n),
            "rerank_download": self._prepare_reranker,
            "sentence_order": lambda on: self.retriever.configure(sentence_order=on),
            "max_calls_per_question": lambda n: self.deps.tune(max_calls=n),
        }
        self.preferences = Preferences(settings, live, embedding=self.embedding.choose)
        self.reranking = Reranking(self.reranker, self.preferences)
        self.chat_models = ChatModels(
            self.llm, self.health, self.preferences, server=server_name(settings.llm_api)
        )
        self.index_lock = index_lock or IndexLock(settings.data_dir / INDEX_LOCK_FILE)
        """Held by the one process of this data dir that indexes (the app, or `ingest`);
        the window takes it before it listens and passes it in."""
        self._checkpoint_db: aiosqlite.Connection | None = None
        self._model_llms: dict[str, ChatModel] = {}
        self._chat: ChatService | None = None
        self._watcher: FolderWatcher | None = None
        self._scan: asyncio.Task[int] | None = None

    @property
    def embedder(self) -> Embedder:
        """The configured embedding model (during a switch, the one being built)."""
        return self.embedding.embedder

    @property
    def store(self) -> ChromaStore:
        """The collection that answers searches now."""
        return self.embedding.store

    @property
    def switch(self) -> ModelSwitch | None:
        """Set while a new embedding model's collection is being built."""
        return self.embedding.switch

    def ready_paths(self) -> list[str]:
        """Relative paths of the documents that can be searched."""
        return self.registry.ready_paths()

    @property
    def chat(self) -> ChatService:
        if self._chat is None:
            raise RuntimeError("the container is not started")
        return self._chat

    async def start(self, *, watch: bool = True, scan: bool = True) -> None:
        """Open the session store, start indexing and (by default) watching the folder."""
        self._checkpoint_db = await aiosqlite.connect(self.settings.data_dir / "sessions.db")
        checkpointer = AsyncSqliteSaver(self._checkpoint_db)
        await checkpointer.setup()  # WAL
        # Each graph step commits a checkpoint, some before a turn's first token: in WAL
        # mode NORMAL skips the fsync per commit (as the registry does); a crash of the
        # app loses nothing, a power cut at most the last turn, never the file.
        await self._checkpoint_db.execute("PRAGMA synchronous=NORMAL")
        self._chat = ChatService(
            build_graph(checkpointer),
            self.sessions,
            self.deps,
            max_message_chars=self.settings.max_message_chars,
            llm_for_model=self._llm_for_model,
            suggest=partial(suggest_followups, self.deps) if self.settings.suggestions else None,
        )
        self.status.follow(
            embed_model=lambda: self.embedder.name,
            queued=lambda: self.indexer.queued,
            waiting_for_space=lambda: len(self.indexer.waiting_for_space),
            disk_full=lambda: self.indexer.disk_full,
        )
        self._prepare_reranker(self.settings.rerank_download)
        if not self.index_lock.acquire():
            pid = self.index_lock.holder()
            if watch or scan:
                raise AlreadyIndexing(
                    f"Another Docent{f' (process {pid})' if pid else ''} is using"
                    f" {self.settings.data_dir}. Stop it, or give this one its own --data-dir."
                )
            # `ask` or `mcp` beside the running app: read only, the app does the indexing.
            log.info("another Docent (process %s) indexes this data dir; only reading", pid)
            return
        # Before indexing starts: chunks the keyword index missed (a crash, or a library
        # indexed before it existed) come from the store, without embedding anything.
        added, removed = await asyncio.to_thread(self.keyword.catch_up, self.store)
        if added or removed:
            log.info("keyword index caught up: %d documents added, %d removed", added, removed)
        await self.indexer.start()
        if watch:
            self._watcher = FolderWatcher(
                self.settings.docs_dir, self.indexer, asyncio.get_running_loop()
            )
            try:
                self._watcher.start()
            except WatcherUnavailable as error:
                # Serving without live updates beats not serving: the start-up scan
                # and reindex still pick files up.
                log.warning("%s", error)
                self._watcher = None
        if scan:
            self._scan = asyncio.create_task(self.indexer.scan(), name="startup-scan")
        self.health.start()
        self.embedding.start()

    def _prepare_reranker(self, download: bool) -> None:
        """Load the reranking model in the background (``Reranking.prepare``)."""
        self.reranking.prepare(download)

    def _llm_for_model(self, model: str) -> ChatModel:
        """Another model of the chat server to answer a turn with, made once per model."""
        if same_model(model, self.llm.model):
            return self.llm
        llm = self._model_llms.get(model)
        if llm is None:
            llm = build_chat_model(self.settings, model)
            self._model_llms[model] = llm
        return llm

    async def stop(self) -> None:
        """Stop watching, let running turns finish, and close every store."""
        await self.health.stop()
        if self._watcher:
            self._watcher.stop()
        if self._scan and not self._scan.done():
            self._scan.cancel()
        self.embedding.stop()
        if self._chat:
            await self._chat.aclose()
        await self.indexer.stop()
        await asyncio.to_thread(self.parsers.close)
        if self.ocr_parsers is not None:
            await asyncio.to_thread(self.ocr_parsers.close)
        if self._checkpoint_db is not None:
            await self._checkpoint_db.close()
        await self.llm.aclose()
        for llm in self._model_llms.values():
            await llm.aclose()
        self.sessions.close()
        self.registry.close()
        self.notes.close()
        self.index_lock.release()
