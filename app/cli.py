"""The command line of shared/CONTRACT.md: serve (default), ingest, status, ask, token."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import logging
import sys
from collections.abc import Callable, Sequence
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.settings import Settings
from app.token import load_or_create_token
from ingest.lock import AlreadyIndexing
from ingest.store import StoreUnavailable
from models.embeddings import EmbedderUnavailable

COMMANDS = ("serve", "ingest", "status", "ask", "token", "mcp")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="run.py", description="Docent: chat with the documents on your own machine."
    )
    parser.add_argument("command", nargs="?", default="serve", choices=COMMANDS)
    parser.add_argument("question", nargs="?", help="the question, for `ask`")
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default 8080)")
    parser.add_argument("--data-dir", type=Path, help="where the index and sessions live")
    parser.add_argument("--docs", type=Path, help="the watched documents folder")
    parser.add_argument("--ollama-host", help="Ollama server (default http://127.0.0.1:11434)")
    parser.add_argument("--chat-model", help="Ollama model for answers (default llama3.2)")
    parser.add_argument("--no-browser", action="store_true", help="don't open a browser tab")
    parser.add_argument("--native", action="store_true", help="open a native window (pywebview)")
    parser.add_argument("--mode", choices=("auto", "rag", "chat"), default="auto", help="for `ask`")
    parser.add_argument(
        "--check", action="store_true", help="for `status`: check folder, registry and indexes"
    )
    parser.add_argument("--chroma-url", help="a Chroma server instead of the embedded store")
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    """Environment first, flags on top: a flag wins when both are set."""
    overrides: dict[str, Any] = {
        name: getattr(args, name)
        for name in ("host", "port", "data_dir", "docs", "ollama_host", "chat_model", "chroma_url")
        if getattr(args, name) is not None
    }
    if args.no_browser:
        overrides["open_browser"] = False
    if args.native:
        overrides["native"] = True
    return Settings(**overrides)


def setup_logging(settings: Settings) -> None:
    logs = settings.data_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    file_handler = RotatingFileHandler(logs / "docent.log", maxBytes=2_000_000, backupCount=3)
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    logging.basicConfig(level=logging.INFO, handlers=[file_handler, console], force=True)
    for noisy in ("httpx", "chromadb", "pypdf", "watchdog"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def main(
    argv: Sequence[str] | None = None, *, serve: Callable[[Settings], None] | None = None
) -> int:
    """Run one command; ``serve`` starts the window (the entry point passes it in,
    since app/ must not import ui/)."""
    args = build_parser().parse_args(argv)
    try:
        settings = settings_from(args)
    except ValidationError as error:
        print(f"Invalid setting: {error}", file=sys.stderr)
        return 2
    if args.command == "token":
        print(load_or_create_token(settings.token_path))
        return 0
    setup_logging(settings)
    try:
        return _run(args, settings, serve)
    except (StoreUnavailable, EmbedderUnavailable, AlreadyIndexing) as error:
        print(f"Docent cannot start: {error}", file=sys.stderr)
        return 1


def _run(
    args: argparse.Namespace, settings: Settings, serve: Callable[[Settings], None] | None
) -> int:
    if args.command == "serve":
        if serve is None:
            print("This entry point has no window; use `uv run run.py`.", file=sys.stderr)
            return 2
        if settings.native and importlib.util.find_spec("webview") is None:
            print(
                "--native needs pywebview. Install it with `uv pip install pywebview`, "
                "or leave out --native to use a browser tab.",
                file=sys.stderr,
            )
            return 2
        serve(settings)
        return 0

    if args.command == "mcp":
        from app.mcp_server import serve_stdio  # the MCP SDK loads only for this command

        return asyncio.run(serve_stdio(settings))
    from app import commands

    if args.command == "ingest":
        return asyncio.run(commands.ingest(settings))
    if args.command == "status":
        return asyncio.run(commands.status(settings, check=args.check))
    if not args.question:
        print('Usage: run.py ask "your question" [--mode auto|rag|chat]', file=sys.stderr)
        return 2
    return asyncio.run(commands.ask(settings, args.question, args.mode))
