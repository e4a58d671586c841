"""The services of a serving app, built once its socket listens: importing the graph,
Chroma and onnxruntime takes seconds, and a request that needs them waits meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

from app.collector import settle
from ingest.pipeline.lock import IndexLock

if TYPE_CHECKING:
    from app.container import Services
    from app.core import Core
    from app.services.status import StatusService
    from app.settings import Settings

DataDirLock = IndexLock
"""The data dir's lock, as the window holds it (ui/ sees it through app/)."""


@dataclass(frozen=True)
class Building:
    """The services' build under way (``begin_building``)."""

    status: Future[StatusService] = field(default_factory=Future)
    """Done first, before the heavy imports: `/api/status` answers from it meanwhile."""
    services: Future[Services] = field(default_factory=Future)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds each step took, filled in as it goes."""
    listening: threading.Event = field(default_factory=threading.Event)
    """Set once the server listens: the heavy imports wait for it, so that they do not slow
    (through the GIL) importing NiceGUI and opening the socket."""


LISTEN_WAIT = 10.0
"""Seconds the heavy imports wait for the server to listen before they start anyway."""

log = logging.getLogger(__name__)


class ServicesFailed(Exception):
    """The services could not be built; the message says why and what to do."""


class Starting:
    """The services' one lifespan: builds and starts them in the background, hands them
    out once started (callers wait meanwhile), and stops them."""

    def __init__(
        self,
        build: Callable[[], Services],
        *,
        status: Future[StatusService] | None = None,
        watch: bool = True,
        on_ready: Callable[[], None] | None = None,
    ) -> None:
        """``build``: the services, fully built (it runs in a worker thread); ``status``:
        the status of the light half, when it is ready before the rest."""
        self._build = build
        self._status = status
        self._watch = watch
        self._on_ready = on_ready
        """Runs in the event loop once the services have started, before anyone gets them."""
        self._task: asyncio.Task[Services] | None = None
        self._services: Services | None = None
        self.timings: dict[str, float] = {}
        """Seconds each step of the start took, in order."""

    @classmethod
    def of(cls, services: Services, *, watch: bool = True) -> Starting:
        """The lifespan of services built by the caller (tests pass fakes in)."""
        return cls(lambda: services, watch=watch)

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[Services]:
        """Start the services, yield them once started, and stop them on the way out."""
        try:
            yield await self.services()
        finally:
            await self.stop()

    def start(self) -> asyncio.Task[Services]:
        """Begin building and starting the services in the background."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="build-services")
        return self._task

    async def services(self) -> Services:
        """The started services, once they are ready."""
        if self._services is not None:
            return self._services
        try:
            return await asyncio.shield(self.start())
        except Exception as error:
            raise ServicesFailed(str(error)) from error

    async def status(self) -> StatusService:
        """The status service, as soon as the light half is open."""
        if self._status is None or self._services is not None:
            return (await self.services()).status
        try:
            return await asyncio.wrap_future(self._status)
        except Exception as error:
            raise ServicesFailed(str(error)) from error

    @property
    def ready(self) -> bool:
        return self._services is not None

    async def stop(self) -> None:
        """Stop the services, or their build if it is still running."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._services is not None:
            await self._services.stop()
            self._services = None

    async def _run(self) -> Services:
        started = time.perf_counter()
        # The build imports and loads models: a worker thread keeps the server answering.
        services = await asyncio.to_thread(self._build)
        mark = time.perf_counter()
        try:
            await services.start(watch=self._watch)
        except BaseException:
            await services.stop()
            raise
        self.timings["start"] = time.perf_counter() - mark
        if self._on_ready is not None:
            self._on_ready()
        self.timings["total"] = time.perf_counter() - started
        self._services = services
        return services


class WaitForServices:
    """ASGI: requests that need the services wait until they are built (and routed)."""

    def __init__(
        self, app: ASGIApp, starting: Starting, needs_services: Callable[[str], bool]
    ) -> None:
        self.app = app
        self.starting = starting
        self.needs_services = needs_services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] in ("http", "websocket")
            and not self.starting.ready
            and self.needs_services(scope["path"])
        ):
            with contextlib.suppress(ServicesFailed):  # the route answers 503 (or 404)
                await self.starting.services()
        await self.app(scope, receive, send)


def begin_building(
    settings: Settings, index_lock: IndexLock, *, then: Callable[[], object] = lambda: None
) -> Building:
    """Start building the services in a thread, now: before the window is imported. The
    light half comes first; the heavy half once the caller sets ``listening``. ``then``
    runs in the same thread after the build (the entry point imports the window's page)."""
    from app.paths import open_data_dir

    # The token exists before the thread starts: the window reads it meanwhile.
    open_data_dir(
        settings.paths.data_dir, settings.paths.docs_dir, local_index=not settings.paths.chroma_url
    )
    building = Building()

    def build() -> None:
        try:
            from app.core import open_core

            mark = time.perf_counter()
            core = open_core(settings)
            building.status.set_result(core.status)
            building.timings["core"] = time.perf_counter() - mark
            # At most a while: a server that never listens must not hold the build.
            building.listening.wait(LISTEN_WAIT)
            services = build_heavy_half(settings, building.timings, index_lock, core)
            mark = time.perf_counter()
            then()
            building.timings["routes"] = time.perf_counter() - mark
            settle()  # the process's long-lived objects exist now
        except BaseException as error:
            for future in (building.status, building.services):
                if not future.done():
                    future.set_exception(error)
        else:
            building.services.set_result(services)

    threading.Thread(target=build, name="build-services", daemon=True).start()
    return building


def build_heavy_half(
    settings: Settings,
    timings: dict[str, float],
    index_lock: IndexLock | None = None,
    core: Core | None = None,
) -> Services:
    """Import and build every service from ``settings`` (``build_services``), noting each
    step's seconds; ``index_lock`` and ``core`` when the caller has them already."""
    from concurrent.futures import ThreadPoolExecutor

    from app.services.embedders import build_embedder

    # Loading the model (onnxruntime builds its graph outside the GIL) overlaps importing
    # the graph and Chroma: about a second less before the services answer.
    with ThreadPoolExecutor(1, thread_name_prefix="load-embedder") as loader:
        loading = loader.submit(build_embedder, core.settings if core else settings)
        mark = time.perf_counter()
        from app.container import build_services

        timings["import"] = time.perf_counter() - mark
        mark = time.perf_counter()
        embedder = loading.result()
        timings["embedder"] = time.perf_counter() - mark  # beyond the imports
    mark = time.perf_counter()
    services = build_services(settings, core=core, embedder=embedder, index_lock=index_lock)
    timings["store"] = time.perf_counter() - mark
    return services
