"""The window and the API in one process: what `run.py` (serve) starts.

The server listens first and builds the services (graph, Chroma, embedder) behind it, so
`/api/health` and the window answer within a second or two; pages and API calls that need
the services wait for them.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
import time
from typing import TYPE_CHECKING

from nicegui import app, core, ui
from nicegui.server import Server

from app.api import api_routers, include_routes, secure
from app.api.login import LINK_SECONDS
from app.instance import (
    base_url,
    open_in_browser,
    remove_instance,
    write_instance,
)
from app.paths import make_private_dir
from app.settings import Settings
from app.startup import Services, ServicesFailed, build_container
from app.token import load_or_create_token

if TYPE_CHECKING:
    from fastapi import APIRouter

    from app.container import Container
log = logging.getLogger(__name__)


def serve(settings: Settings, *, started: float | None = None) -> int:
    """Run the window and the API in this process until it is stopped; the exit status."""
    started = time.perf_counter() if started is None else started
    make_private_dir(settings.data_dir)
    token = load_or_create_token(settings.token_path)
    timings: dict[str, float] = {}
    routers: list[APIRouter] = []

    def build() -> Container:
        mark = time.perf_counter()
        # The routers and the page import the graph, Chroma and the models: here, in the
        # build's worker thread, they neither delay listening nor block the event loop.
        routers.extend(api_routers())
        importlib.import_module("ui.page")
        timings["routes"] = time.perf_counter() - mark
        return build_container(settings, timings)

    services = Services(build, on_ready=lambda: include_routes(app, routers))
    access = secure(app, services, settings, token)
    # Socket.IO checks Origin itself too; make it agree with the guard rather than allow '*'.
    core.sio.eio.cors_allowed_origins = lambda origin, environ: access.own_origin(
        origin, environ.get("HTTP_HOST", ""), environ.get("wsgi.url_scheme", "http")
    )
    url = base_url(settings.host, settings.port)
    link = access.links.issue(url)
    if settings.native:
        app.native.window_args["url"] = link  # pywebview opens the login link, then /
    failed: list[str] = []
    ready_to_listen = time.perf_counter() - started

    async def root() -> None:
        waiting: ui.row | None = None
        if not services.ready:
            # Send the page now and fill it in over the socket once the services are up.
            with ui.row().classes("w-full justify-center items-center gap-2 p-8") as waiting:
                ui.spinner(size="lg")
                ui.label("Docent is starting…").mark("starting")
            await ui.context.client.connected()
        try:
            container = await services.container()
        except ServicesFailed as error:
            ui.label(f"Docent could not start: {error}").classes("text-negative p-4")
            return
        finally:
            if waiting is not None:
                waiting.delete()
        from ui.page import chat_page

        chat_page(container)

    async def after_listening() -> None:
        while not getattr(Server.instance, "started", False):
            await asyncio.sleep(0.02)
        listening = time.perf_counter() - started
        write_instance(settings.data_dir, url)
        _announce(settings, url, link)
        try:
            await services.container()
        except ServicesFailed as error:
            print(f"Docent cannot start: {error}", file=sys.stderr)
            failed.append(str(error))
            app.shutdown()
            return
        log.info(
            "startup: listening after %.2f s (ready to listen %.2f s); services ready "
            "after %.2f s (%s)",
            listening,
            ready_to_listen,
            time.perf_counter() - started,
            ", ".join(f"{step} {seconds:.2f} s" for step, seconds in timings.items()),
        )

    def on_startup() -> None:
        app.state.after_listening = asyncio.create_task(after_listening())

    async def on_shutdown() -> None:
        remove_instance(settings.data_dir)
        await services.stop()

    app.on_startup(on_startup)
    app.on_shutdown(on_shutdown)
    ui.run(
        root,
        host=settings.host,
        port=settings.port,
        title="Docent",
        native=settings.native,
        show=False,
        reload=False,
        show_welcome_message=False,
        favicon="📚",
    )
    return 1 if failed else 0


def _announce(settings: Settings, url: str, link: str) -> None:
    print(f"Docent is at {url}  (documents: {settings.docs_dir})", flush=True)
    if settings.native:
        return
    if settings.open_browser and open_in_browser(link):
        print("Opened it in your browser. Another login link: `uv run run.py open`.", flush=True)
    else:
        print(
            f"Log in with {link}\n(it works once, for {LINK_SECONDS // 60} minutes; "
            "`uv run run.py open` gives you a fresh one)",
            flush=True,
        )
