"""The composition root: ``build_services`` builds every service from Settings, once;
``Services`` holds them, fully built, and starts and stops them (``app.startup.Starting``
is their lifespan in a serving app)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from app.core import Core, open_core
from app.services.chat import ChatService
from app.services.chat_server import ChatModelsByName, server_name
from app.services.collections import open_collections
from app.services.documents import DocumentService
from app.services.embedders import build_embedder
from app.services.embedding_models import EmbeddingModels
from app.services.folder_indexing import FolderIndexing, index_options
from app.services.health import HealthMonitor
from app.services.live_settings import apply_live, retrieval_settings, turn_options
from app.services.preferences import ChatModels, Preferences
from app.services.reranking import Reranking
from app.services.search import SearchService
from app.services.sessions import SessionIndex
from app.services.status import StatusService
from app.settings import Settings
from graph.deps import GraphDeps
from graph.graph import TurnGraph, build_graph
from graph.nodes.suggest import suggest_followups
from graph.retrieval.document_paths import RegistryLibrary
from graph.retrieval.retriever import Retriever
from graph.whole.section_notes import SectionNotes
from ingest.index.chroma_calls import open_chroma
from ingest.index.keyword.index import KeywordIndex
from ingest.index.registry import Registry
from ingest.ocr.page_reader import ReaderFactory
from ingest.parsing import ParserPool
from ingest.pipeline.index_options import PLACES
from ingest.pipeline.indexer import Indexer
from ingest.pipeline.lock import INDEX_LOCK_FILE, IndexLock
from ingest.pipeline.progress import EventBus
from models.protocols import ChatModel, Embedder, Reranker
from models.reranker import FlashRankReranker

NOTES_FILE = "notes.db"
"""Section notes of documents read whole: derived, so deleting the file only costs time."""

__all__ = ["Services", "build_embedder", "build_services"]


def build_services(
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
) -> Services:
    """Every long-lived service of one Docent instance, built and wired; tests pass fakes in.
    ``core`` is opened here (with ``llm``) unless the caller opened it already;
    ``ocr_reader`` None reads scanned pages with the bundled OCR models."""
    core = core or open_core(settings, llm=llm)
    index_lock = index_lock or IndexLock(core.settings.paths.data_dir / INDEX_LOCK_FILE)
    settings = core.settings
    reranker = reranker or FlashRankReranker(settings.paths.data_dir / "models" / "flashrank")
    events = EventBus()
    collections = open_collections(
        settings,
        open_chroma(settings.paths.data_dir, settings.paths.chroma_url),
        core.registry,
        events,
        embedder or embedder_factory(settings),
        previous=previous_embedder,
    )
    keyword = KeywordIndex(settings.paths.data_dir / "keyword")
    collections.indexes.append(keyword)
    parsers = ParserPool(size=PLACES, memory_mb=settings.ingest.parser_memory_mb)
    ocr_parsers = (
        ParserPool.for_ocr(settings.ingest.ocr_memory_mb, ocr_reader)
        if settings.ingest.ocr == "auto"
        else None
    )
    notes = SectionNotes(settings.paths.data_dir / NOTES_FILE)
    indexer = Indexer(
        settings.paths.docs_dir,
        core.registry,
        collections.indexes,
        collections.embedder,
        events=events,
        parsers=parsers,
        ocr_parsers=ocr_parsers,
        on_collected=notes.forget,
        options=index_options(settings.ingest),
    )
    retriever = Retriever(
        collections.store,  # the old model's, during a switch
        keyword,
        collections.store.embedder,
        reranker,
        RegistryLibrary(core.registry),
        retrieval_settings(settings),
    )
    ready_paths = core.registry.ready_paths
    deps = GraphDeps(core.llm, retriever, ready_paths, turn_options(settings), notes)
    sessions = SessionIndex(settings.paths.data_dir / "docent.db")
    graph = build_graph()
    other_models = ChatModelsByName(settings.models, core.llm)
    embedding = EmbeddingModels(collections, retriever, indexer, factory=embedder_factory)
    health = HealthMonitor(core.llm, reranker)

    def live(before: Settings, now: Settings) -> None:
        apply_live(before, now, deps, core.llm, reranking)

    preferences = Preferences(settings, live, embedding=embedding.choose)
    reranking = Reranking(reranker, preferences)
    return Services(
        token=core.token,
        llm=core.llm,
        reranker=reranker,
        registry=core.registry,
        sessions=sessions,
        events=events,
        keyword=keyword,
        parsers=parsers,
        ocr_parsers=ocr_parsers,
        notes=notes,
        indexer=indexer,
        documents=DocumentService(
            settings.paths.docs_dir,
            core.registry,
            indexer,
            parsers=parsers,
            max_file_bytes=min(settings.ingest.max_file_mb, settings.server.max_upload_mb) << 20,
            size_setting="DOCENT_MAX_UPLOAD_MB"
            if settings.server.max_upload_mb <= settings.ingest.max_file_mb
            else "DOCENT_MAX_FILE_MB",
        ),
        retriever=retriever,
        embedding=embedding,
        deps=deps,
        search=SearchService(
            retriever,
            ready_paths,
            max_query_chars=settings.search.max_query_chars,
            max_text_chars=settings.search.verify_max_chars,
            verify_seconds=settings.search.verify_seconds,
        ),
        chat=ChatService(
            graph,
            sessions,
            deps,
            max_message_chars=settings.turn.max_message_chars,
            llm_for_model=other_models,
            suggest=partial(suggest_followups, deps) if settings.turn.suggestions else None,
        ),
        health=health,
        status=core.status,
        preferences=preferences,
        reranking=reranking,
        chat_models=ChatModels(
            core.llm, health, preferences, server=server_name(settings.models.llm_api)
        ),
        index_lock=index_lock,
        indexing=FolderIndexing(indexer, keyword, index_lock),
        graph=graph,
        other_models=other_models,
    )


@dataclass(eq=False)
class Services:
    """Every long-lived service of one Docent instance, fully built (``build_services``);
    ``start`` opens the conversations' store and starts indexing, ``stop`` closes all."""

    token: str
    llm: ChatModel
    reranker: Reranker
    registry: Registry
    sessions: SessionIndex
    events: EventBus
    keyword: KeywordIndex
    parsers: ParserPool
    """The worker processes every file is opened in, for the indexer and MCP alike."""
    ocr_parsers: ParserPool | None
    """The OCR lane's one worker process (None when OCR is off)."""
    notes: SectionNotes
    """What the model wrote about each section of a document read whole; a content's
    notes go when its chunks do."""
    indexer: Indexer
    documents: DocumentService
    retriever: Retriever
    embedding: EmbeddingModels
    """The answering collection, a new model's being built, and switching models."""
    deps: GraphDeps
    search: SearchService
    """Search and verify, for the API and MCP alike."""
    chat: ChatService
    """Turns for the window, the API and MCP; their conversations are saved from ``start``."""
    health: HealthMonitor
    status: StatusService
    preferences: Preferences
    reranking: Reranking
    chat_models: ChatModels
    index_lock: IndexLock
    """Held by the one process of this data dir that indexes (the app, or `ingest`);
    the window takes it before it listens and passes it in."""
    indexing: FolderIndexing
    """Catching the keyword index up, the indexer, the watcher and the start-up scan."""
    graph: TurnGraph
    other_models: ChatModelsByName
    _checkpoint_db: aiosqlite.Connection | None = field(default=None, init=False)

    @property
    def settings(self) -> Settings:
        """The settings now (``Preferences`` holds the snapshot a live change replaces)."""
        return self.preferences.settings

    async def start(self, *, watch: bool = True, scan: bool = True) -> None:
        """Open the session store, start indexing and (by default) watching the folder."""
        self._checkpoint_db = await aiosqlite.connect(self.settings.paths.data_dir / "sessions.db")
        checkpointer = AsyncSqliteSaver(self._checkpoint_db)
        await checkpointer.setup()  # WAL
        # Each graph step commits a checkpoint, some before a turn's first token: in WAL
        # mode NORMAL skips the fsync per commit (as the registry does); a crash of the
        # app loses nothing, a power cut at most the last turn, never the file.
        await self._checkpoint_db.execute("PRAGMA synchronous=NORMAL")
        # The saver needs the running loop (the services may be built in a thread without
        # one): the graph built with them gets it here, before any turn runs.
        self.graph.checkpointer = checkpointer
        self.status.follow(
            embed_model=lambda: self.embedding.embedder.name,
            queued=lambda: self.indexer.queued,
            waiting_for_space=lambda: len(self.indexer.waiting_for_space),
            disk_full=lambda: self.indexer.disk_full,
        )
        self.reranking.prepare(self.settings.search.rerank_download)
        if not await self.indexing.start(
            self.settings.paths, self.embedding.store, watch=watch, scan=scan
        ):
            return
        self.health.start()
        self.embedding.start()

    async def stop(self) -> None:
        """Stop watching, let running turns finish, and close every store."""
        await self.health.stop()
        self.indexing.stop()
        self.embedding.stop()
        await self.chat.aclose()
        await self.indexer.stop()
        await asyncio.to_thread(self.parsers.close)
        if self.ocr_parsers is not None:
            await asyncio.to_thread(self.ocr_parsers.close)
        if self._checkpoint_db is not None:
            await self._checkpoint_db.close()
        await self.llm.aclose()
        await self.other_models.aclose()
        self.sessions.close()
        self.registry.close()
        self.notes.close()
        self.index_lock.release()
