"""The window and the API in one process: what `run.py` (serve) starts.

The server listens first and builds the services behind it, so `/api/health` and the window
answer within a second or two; what needs the services waits (the log's `startup:` line).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
import time
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

from nicegui import app, core, ui
from nicegui.server import Server

from app.api import api_routers, include_routes, secure
from app.api.guard.body_limits import MB
from app.api.guard.login import LINK_SECONDS
from app.instance import base_url, open_in_browser, remove_instance, write_instance
from app.paths import make_private_dir
from app.settings import Settings
from app.startup import Building, ServicesFailed, Starting, begin_building
from app.token import load_or_create_token
from ui.starting import open_window

if TYPE_CHECKING:
    from app.startup import DataDirLock

log = logging.getLogger(__name__)

HEAVY = ("langgraph", "chromadb", "onnxruntime", "numpy")
"""What the services need and the server must not wait for: imported behind the socket."""


def serve(
    settings: Settings,
    lock: DataDirLock,
    *,
    started: float | None = None,
    building: Building | None = None,
) -> int:
    """Run the window and the API in this process until it is stopped; the exit status.

    ``lock`` is the data dir's, taken before it listens or writes; ``started`` is run.py's
    first line, for the breakdown; ``building`` a build the entry point already began.
    """
    building = building or begin_building(settings, lock, then=warm_imports)
    began = time.perf_counter() if started is None else started
    window = Window(settings, building, started=began)
    ui.run(
        window.root,
        host=settings.server.host,
        port=settings.server.port,
        title="Docent",
        native=settings.server.native,
        show=False,  # we open the login link ourselves, once the server listens
        reload=False,
        show_welcome_message=False,
        favicon="📚",
        language="en-US",  # <html lang>: screen readers pick their voice by it
    )
    return 1 if window.failed else 0


class Window:
    """One serving process: its guard, its login link and its services' lifecycle."""

    def __init__(self, settings: Settings, building: Building, *, started: float) -> None:
        self.settings = settings
        self.started = started
        self.marks = {"entered": self._since_start()}
        self.failed: str | None = None
        make_private_dir(settings.paths.data_dir)
        token = load_or_create_token(settings.paths.token_path)
        self.build_timings = building.timings
        self.listening = building.listening
        # The build runs in its own thread already: this only waits for it, off the loop.
        self.starting = Starting(
            building.services.result,
            status=building.status,
            on_ready=lambda: include_routes(app, api_routers()),
        )
        self.access = access = secure(app, self.starting, settings, token)
        # NiceGUI's ui.upload posts one file per request to its client's upload route.
        access.body_limits.allow(
            "POST",
            "/_nicegui/client/*",
            settings.server.max_upload_mb * MB,
            setting="max_upload_mb",
        )
        # Socket.IO checks Origin itself too: agree with the guard instead of allowing '*'.
        core.sio.eio.cors_allowed_origins = lambda origin, environ: access.own_origin(
            origin, environ.get("HTTP_HOST", ""), environ.get("wsgi.url_scheme", "http")
        )
        self.url = base_url(settings.server.host, settings.server.port)
        self.link = access.links.issue(self.url)
        if settings.server.native:
            app.native.window_args["url"] = self.link  # pywebview opens the login link
        self._lifespan = AsyncExitStack()
        """The services' lifespan (``Starting.lifespan``), entered once the server listens."""
        app.on_startup(self._on_startup)
        app.on_shutdown(self._on_shutdown)
        self.marks["ready_to_listen"] = self._since_start()
        self.loaded_early = [name for name in HEAVY if name in sys.modules]

    def _since_start(self) -> float:
        return time.perf_counter() - self.started

    async def root(self) -> None:
        """The page at / (and any other window path)."""
        await open_window(self.starting, self.access)

    def _on_startup(self) -> None:
        app.state.after_listening = asyncio.create_task(self._after_listening())

    async def _after_listening(self) -> None:
        while not getattr(Server.instance, "started", False):
            await asyncio.sleep(0.02)
        self.marks["listening"] = self._since_start()
        self.listening.set()
        # CPU seconds spent so far (the build starts only now): what an idle machine would wait.
        self.marks["cpu_to_listen"] = time.process_time()
        write_instance(self.settings.paths.data_dir, self.url)
        self._announce()
        try:
            await self._lifespan.enter_async_context(self.starting.lifespan())
        except ServicesFailed as error:
            print(f"Docent cannot start: {error}", file=sys.stderr)
            self.failed = str(error)
            app.shutdown()
            return
        self.marks["services_ready"] = self._since_start()
        steps = {**self.marks, **self.build_timings, **self.starting.timings}
        log.info(
            "startup: %s; imported before listening: %s",
            ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()),
            ", ".join(self.loaded_early) or "none of " + ", ".join(HEAVY),
        )

    async def _on_shutdown(self) -> None:
        remove_instance(self.settings.paths.data_dir)
        await self._lifespan.aclose()
        await self.starting.stop()  # a build still under way (the lifespan not entered)

    def _announce(self) -> None:
        print(f"Docent is at {self.url}  (documents: {self.settings.paths.docs_dir})", flush=True)
        if self.settings.server.native:
            return
        if self.settings.server.open_browser and open_in_browser(self.link):
            print("Opened it in your browser. Another login link: `uv run run.py open`.")
        else:
            print(
                f"Log in with {self.link}\n(it works once, for {LINK_SECONDS // 60} minutes; "
                "`uv run run.py open` gives you a fresh one)"
            )
        sys.stdout.flush()


def warm_imports() -> None:
    """Import the routers and chat page in the build thread; in the event loop they stall it."""
    api_routers()
    importlib.import_module("ui.page")
