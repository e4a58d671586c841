"""The composition root: builds every service from Settings, once, and runs their lifecycle."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph.state import CompiledStateGraph

from app.chat import ChatService
from app.documents import DocumentService
from app.embedding import EmbeddingModels, build_embedder
from app.health import HealthMonitor
from app.paths import make_private_dir, make_private_file
from app.preferences import ChatModels, Preferences, with_saved
from app.readers import BoundProbe, ModelBoundRetriever, reader_for
from app.services.status import StatusService
from app.sessions import SessionIndex
from app.settings import Settings
from app.token import load_or_create_token
from graph.deps import GraphDeps
from graph.graph import build_graph
from graph.options import TurnOptions
from graph.retrieval.library import RegistryLibrary
from graph.retrieval.retriever import RetrievalSettings
from graph.retrieval.shared import SharedNearest
from graph.routing import warm_opening_question
from graph.suggest import suggest_followups
from ingest.events import EventBus
from ingest.index import ChunkIndex
from ingest.indexer import PLACES, Indexer
from ingest.keyword import KeywordIndex
from ingest.lock import INDEX_LOCK_FILE, AlreadyIndexing, IndexLock
from ingest.parsing import ParserPool
from ingest.registry import Registry
from ingest.store import ChromaStore, make_chroma_client
from ingest.switch import ModelSwitch
from ingest.watcher import FolderWatcher, WatcherUnavailable
from models.llm import OllamaChat, same_model
from models.protocols import ChatModel, Embedder, Reranker
from models.reranker import FlashRankReranker

log = logging.getLogger(__name__)

__all__ = ["Container", "build_embedder", "turn_options"]


def turn_options(settings: Settings) -> TurnOptions:
    """The conversation's knobs, from the settings."""
    return TurnOptions(
        context_tokens=settings.context_tokens,
        history_tokens=settings.history_tokens,
        probe_chat_below=settings.probe_chat_below,
        probe_rag_above=settings.probe_rag_above,
        rewrite_timeout=settings.rewrite_timeout,
        expand_queries=settings.expand_queries,
        suggestions=settings.suggestions,
    )


class Container:
    """Every long-lived service of one Docent instance. Tests pass fakes in."""

    def __init__(
        self,
        settings: Settings,
        *,
        llm: ChatModel | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        previous_embedder: Embedder | None = None,
        embedder_factory: Callable[[Settings], Embedder] = build_embedder,
        index_lock: IndexLock | None = None,
    ) -> None:
        settings = with_saved(settings)  # what the window's settings dialog saved
        self.settings = settings
        # LangSmith tracing would send every prompt to a cloud; Docent talks only to Ollama.
        for var in ("LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING"):
            os.environ[var] = "false"
        # Sessions, the index and the token are the user's alone: 0700 dir, 0600 databases.
        make_private_dir(settings.data_dir)
        if not settings.chroma_url:  # a Chroma server keeps the index elsewhere
            make_private_dir(settings.data_dir / "chroma")
        for database in ("docent.db", "sessions.db"):
            make_private_file(settings.data_dir / database)
        settings.docs_dir.mkdir(parents=True, exist_ok=True)
        self.token = load_or_create_token(settings.token_path)
        self.llm: ChatModel = llm or OllamaChat(
            settings.ollama_host, settings.chat_model, num_ctx=settings.context_tokens
        )
        self.reranker: Reranker = reranker or FlashRankReranker(
            settings.data_dir / "models" / "flashrank"
        )
        self.registry = Registry(settings.data_dir / "docent.db")
        self.sessions = SessionIndex(settings.data_dir / "docent.db")
        client = make_chroma_client(settings.data_dir, settings.chroma_url)
        self.events = EventBus()
        self.embedding = EmbeddingModels(
            settings,
            client,
            self.registry,
            self.events,
            embedder or embedder_factory(settings),
            pool=RetrievalSettings().pool,
            previous=previous_embedder,
            factory=embedder_factory,
        )
        """The answering collection, a new model's being built, and switching models."""
        self.indexes: list[ChunkIndex] = self.embedding.indexes
        """Every index the pipeline writes; the keyword index joins the store here."""
        self.keyword = KeywordIndex(settings.data_dir / "keyword")
        self.indexes.append(self.keyword)
        self.parsers = ParserPool(size=PLACES, memory_mb=settings.parser_memory_mb)
        """The worker processes every file is opened in, for the indexer and MCP alike."""
        self.ocr_parsers = (
            ParserPool.for_ocr(settings.ocr_memory_mb) if settings.ocr == "auto" else None
        )
        """The OCR lane's one worker process (None when OCR is off)."""
        self.indexer = Indexer(
            settings.docs_dir,
            self.registry,
            self.indexes,
            self.embedder,
            events=self.events,
            chunk_size=settings.chunk_size,
            chunk_overlap=settings.chunk_overlap,
            max_file_bytes=settings.max_file_mb << 20,
            time_budget=settings.file_time_budget,
            workers=PLACES,
            parsers=self.parsers,
            ocr_parsers=self.ocr_parsers,
            ocr_page_seconds=settings.ocr_page_seconds,
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
        self.retriever = ModelBoundRetriever(
            # the old model's, during a switch
            reader_for(self.store, RetrievalSettings().pool),
            self.keyword,
            self.reranker,
            RegistryLibrary(self.registry),
            RetrievalSettings(
                top_k=settings.top_k,
                rerank_candidates=settings.rerank_candidates,
                context_chars=settings.context_chars,
            ),
        )
        self.deps = GraphDeps(
            llm=self.llm,
            search=self.retriever,
            reranker=self.reranker,
            known_files=self.ready_paths,
            top_k=settings.top_k,
            retriever=self.retriever,
            probe=BoundProbe(self.retriever),
            options=turn_options(settings),
        )
        self.health = HealthMonitor(self.llm, self.reranker)
        self.status = StatusService(
            self.registry,
            self.llm.health,
            chat_model=lambda: self.llm.model,
            embed_model=lambda: self.embedder.name,
            queued=lambda: self.indexer.queued,
        )
        live = {
            "chat_model": lambda name: setattr(self.llm, "model", name),
            "top_k": self._set_top_k,
            "rerank_candidates": lambda n: self._retrieval(rerank_candidates=n),
        }
        self.preferences = Preferences(settings, live, embedding=self.embedding.choose)
        self.embedding.attach(self.retriever, self.indexer, self.preferences.save)
        self.chat_models = ChatModels(self.llm, self.health, self.preferences)
        self.index_lock = index_lock or IndexLock(settings.data_dir / INDEX_LOCK_FILE)
        """Held by the one process of this data dir that indexes (the app, or `ingest`);
        the window takes it before it listens and passes it in."""
        self._checkpoint_db: aiosqlite.Connection | None = None
        self._checkpointer: AsyncSqliteSaver | None = None
        self._model_graphs: dict[str, CompiledStateGraph] = {}
        self._model_llms: list[OllamaChat] = []
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

    @property
    def nearest(self) -> SharedNearest:
        """The probe's vector search, taken up by the retriever: one store search a turn."""
        return self.retriever.reader.nearest

    def _retrieval(self, **changes: Any) -> None:
        """Apply a settings-dialog change to the retriever from its next search on."""
        self.retriever.settings = dataclasses.replace(self.retriever.settings, **changes)

    def _set_top_k(self, k: int) -> None:
        self.deps.top_k = k
        self._retrieval(top_k=k)

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
        self._checkpointer = checkpointer
        graph = build_graph(self.deps, checkpointer)
        self._chat = ChatService(
            graph,
            self.sessions,
            max_message_chars=self.settings.max_message_chars,
            graph_for_model=self._graph_with_model,
            suggest=partial(suggest_followups, self.deps) if self.settings.suggestions else None,
            prepare=partial(warm_opening_question, self.deps),
        )
        if isinstance(self.reranker, FlashRankReranker):
            # Never in a turn: a turn without the model keeps the fused order.
            threading.Thread(
                target=self.reranker.prepare,
                kwargs={"download": self.settings.rerank_download},
                name="reranker-prepare",
                daemon=True,
            ).start()
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

    def _graph_with_model(self, model: str) -> CompiledStateGraph:
        """The graph answering with another Ollama chat model, built once per model."""
        if same_model(model, self.llm.model):
            return self.chat.graph
        graph = self._model_graphs.get(model)
        if graph is None:
            llm = OllamaChat(self.settings.ollama_host, model, num_ctx=self.settings.context_tokens)
            self._model_llms.append(llm)
            graph = build_graph(dataclasses.replace(self.deps, llm=llm), self._checkpointer)
            self._model_graphs[model] = graph
        return graph

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
        close = getattr(self.llm, "aclose", None)
        if close is not None:
            await close()
        for llm in self._model_llms:
            await llm.aclose()
        self.sessions.close()
        self.registry.close()
        self.index_lock.release()
