"""The services of a serving app, built once its socket listens.

Importing the graph, Chroma and onnxruntime and loading the embedder take seconds; the
server answers `/api/health` (and shows the window) before that work is done, and every
request that needs the services waits for them.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

from app.collector import settle
from ingest.pipeline.lock import IndexLock

if TYPE_CHECKING:
    from app.container import Container
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
    container: Future[Container] = field(default_factory=Future)
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds each step took, filled in as it goes."""
    listening: threading.Event = field(default_factory=threading.Event)
    """Set once the server listens: the heavy imports wait for it, so that they do not
    slow (through the GIL) importing NiceGUI and opening the socket, which the window and
    the status wait for."""


LISTEN_WAIT = 10.0
"""Seconds the heavy imports wait for the server to listen before they start anyway."""

log = logging.getLogger(__name__)


class ServicesFailed(Exception):
    """The services could not be built; the message says why and what to do."""


class Services:
    """Hands out the started container; callers wait while it is being built."""

    def __init__(
        self,
        build: Callable[[], Container],
        *,
        status: Future[StatusService] | None = None,
        watch: bool = True,
        on_ready: Callable[[], None] | None = None,
    ) -> None:
        """``status``: the status of the light services, when they are ready before the
        container (otherwise the container's, once it is built)."""
        self._build = build
        self._status = status
        self._watch = watch
        self._on_ready = on_ready
        """Runs in the event loop once the container has started, before anyone gets it."""
        self._task: asyncio.Task[Container] | None = None
        self._container: Container | None = None
        self.timings: dict[str, float] = {}
        """Seconds each step of the build took, in order."""

    @classmethod
    def of(cls, container: Container, *, watch: bool = True) -> Services:
        """Services around a container built by the caller (tests pass fakes in)."""
        return cls(lambda: container, watch=watch)

    def start(self) -> asyncio.Task[Container]:
        """Begin building and starting the container in the background."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="build-services")
        return self._task

    async def container(self) -> Container:
        """The started container, once it is ready."""
        if self._container is not None:
            return self._container
        try:
            return await asyncio.shield(self.start())
        except Exception as error:
            raise ServicesFailed(str(error)) from error

    async def status(self) -> StatusService:
        """The status service, as soon as the light services are open."""
        if self._status is None or self._container is not None:
            return (await self.container()).status
        try:
            return await asyncio.wrap_future(self._status)
        except Exception as error:
            raise ServicesFailed(str(error)) from error

    @property
    def ready(self) -> bool:
        return self._container is not None

    async def stop(self) -> None:
        """Stop the container, or the build if it is still running."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._container is not None:
            await self._container.stop()
            self._container = None

    async def _run(self) -> Container:
        started = time.perf_counter()
        # The build imports and loads models: a worker thread keeps the server answering.
        container = await asyncio.to_thread(self._build)
        mark = time.perf_counter()
        try:
            await container.start(watch=self._watch)
        except BaseException:
            await container.stop()
            raise
        self.timings["start"] = time.perf_counter() - mark
        if self._on_ready is not None:
            self._on_ready()
        self.timings["total"] = time.perf_counter() - started
        self._container = container
        return container


class WaitForServices:
    """ASGI: requests that need the services wait until they are built (and routed)."""

    def __init__(
        self, app: ASGIApp, services: Services, needs_services: Callable[[str], bool]
    ) -> None:
        self.app = app
        self.services = services
        self.needs_services = needs_services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] in ("http", "websocket")
            and not self.services.ready
            and self.needs_services(scope["path"])
        ):
            try:
                await self.services.container()
            except ServicesFailed:
                pass  # the route itself answers 503 (or 404, never added)
        await self.app(scope, receive, send)


def begin_building(
    settings: Settings, index_lock: IndexLock, *, then: Callable[[], object] = lambda: None
) -> Building:
    """Start building the services in a thread, now: before the window is imported.

    The light services (``open_core``) come first, so the status answers as soon as the
    server listens. Importing the graph, Chroma and onnxruntime and loading the models
    follow once the caller sets ``listening``. ``then`` runs in the same thread after the
    build (the entry point imports the window's page there).
    """
    from app.paths import open_data_dir

    # The token exists before the thread starts: the window reads it meanwhile.
    open_data_dir(settings.data_dir, settings.docs_dir, local_index=not settings.chroma_url)
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
            container = build_container(settings, building.timings, index_lock, core)
            mark = time.perf_counter()
            from app.api import api_routers

            api_routers()  # imported now, added to the app once the services have started
            then()
            building.timings["routes"] = time.perf_counter() - mark
            settle()  # the process's long-lived objects exist now
        except BaseException as error:
            for future in (building.status, building.container):
                if not future.done():
                    future.set_exception(error)
        else:
            building.container.set_result(container)

    threading.Thread(target=build, name="build-services", daemon=True).start()
    return building


def build_container(
    settings: Settings,
    timings: dict[str, float],
    index_lock: IndexLock | None = None,
    core: Core | None = None,
) -> Container:
    """Import and build every service from ``settings``, noting each step's seconds.

    ``index_lock``: the data dir's lock, when the caller took it already; ``core``: the
    light services, when the caller opened them already.
    """
    from concurrent.futures import ThreadPoolExecutor

    from app.services.embedders import build_embedder

    # Loading the model (onnxruntime builds its graph outside the GIL) overlaps importing
    # the graph, Chroma and the routers: about a second less before the services answer.
    with ThreadPoolExecutor(1, thread_name_prefix="load-embedder") as loader:
        loading = loader.submit(build_embedder, core.settings if core else settings)
        mark = time.perf_counter()
        from app.container import Container

        timings["import"] = time.perf_counter() - mark
        mark = time.perf_counter()
        embedder = loading.result()
        timings["embedder"] = time.perf_counter() - mark  # beyond the imports
    mark = time.perf_counter()
    container = Container(settings, core=core, embedder=embedder, index_lock=index_lock)
    timings["store"] = time.perf_counter() - mark
    return container
