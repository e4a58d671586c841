"""One composition root: ``build_services`` gives every service, chat included, and one
lifespan starts and stops them."""

from __future__ import annotations

import ast
from pathlib import Path

from app.container import build_services
from app.mcp.tools import DocentTools
from app.settings import Settings
from app.startup import Starting
from ingest.pipeline.lock import INDEX_LOCK_FILE, IndexLock
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder
from tests.running import eventually

ANSWER = "The spare key is under the flowerpot [1]."
"""Copied from notes.md: the answer check lets it stand as the model wrote it."""


async def test_chat_exists_once_the_services_do_and_the_lifespan_runs_them(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "notes.md").write_text("The spare key is under the flowerpot.\n")
    services = build_services(
        settings, llm=FakeChatModel(default_reply=ANSWER), embedder=FakeEmbedder()
    )
    # Built, not started: callers take the chat service itself, as MCP's tools do.
    tools = DocentTools(services.chat, services.search, services.documents)
    async with Starting.of(services, watch=False).lifespan() as started:
        assert started is services
        await eventually(lambda: bool(services.registry.ready_paths()), what="notes.md indexed")
        answer = await tools.ask("Where is the spare key?")
        assert answer.answer == ANSWER
        assert answer.sources[0]["file"] == "notes.md"
        # Running, the services hold the data dir: another Docent is refused it.
        assert not IndexLock(settings.paths.data_dir / INDEX_LOCK_FILE).acquire()
    # Stopped on the way out: the data dir is free again.
    after = IndexLock(settings.paths.data_dir / INDEX_LOCK_FILE)
    assert after.acquire()
    after.release()


def test_startup_imports_nothing_of_the_api() -> None:
    """app/api/ imports app/startup.py (the waiter, the lifespan): the way back would be a
    circle, lazy imports included."""
    source = Path(__file__).parent.parent / "app" / "startup.py"
    imported = {
        node.module or ""
        for node in ast.walk(ast.parse(source.read_text()))
        if isinstance(node, ast.ImportFrom)
    } | {
        alias.name
        for node in ast.walk(ast.parse(source.read_text()))
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert not [name for name in imported if name == "app.api" or name.startswith("app.api.")]
