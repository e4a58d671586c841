"""The command line of shared/CONTRACT.md. Each command imports only what it uses, so
`token` and `open` answer in well under a second and `status` in about one."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.settings import Settings
    from ingest.pipeline.lock import IndexLock

Serve = Callable[["Settings", "IndexLock"], int]
"""Runs the window until it stops, holding the data dir's lock; returns the exit status."""

COMMANDS = ("serve", "ingest", "status", "ask", "token", "open", "mcp")


def build_parser() -> argparse.ArgumentParser:
    """The command and what only the command line says; ``parse`` adds a flag per setting."""
    parser = argparse.ArgumentParser(
        prog="run.py", description="Docent: chat with the documents on your own machine."
    )
    parser.add_argument(
        "command",
        nargs="?",
        default="serve",
        choices=COMMANDS,
        help="serve (default) · ingest · status · ask · token (the API token) · "
        "open (a fresh login link for the running window) · mcp (MCP tools over stdio)",
    )
    parser.add_argument("question", nargs="?", help="the question, for `ask`")
    parser.add_argument(
        "--no-browser", action="store_true", help="don't open a browser tab (serve, open)"
    )
    parser.add_argument(
        "--mode", choices=("auto", "rag", "chat", "document"), default="auto", help="for `ask`"
    )
    parser.add_argument(
        "--check", action="store_true", help="for `status`: check folder, registry and indexes"
    )
    return parser


def parse(argv: Sequence[str]) -> tuple[argparse.Namespace, Settings]:
    """The command line's own flags, and the settings: environment first, flags on top (a
    flag for each setting by its flat name, e.g. ``--top-k``, whichever group holds it)."""
    from pydantic_settings import BaseSettings, CliSettingsSource

    from app.settings import FLAT, Settings

    parser = build_parser()
    flags: CliSettingsSource[BaseSettings] = CliSettingsSource(
        FLAT, root_parser=parser, cli_kebab_case=True, cli_implicit_flags=True
    )
    args = parser.parse_args(list(argv))
    given: dict[str, Any] = flags(parsed_args=args)()
    if args.no_browser:
        given["open_browser"] = False
    return args, Settings(**given)


def _access_command(argv: Sequence[str]) -> argparse.Namespace | None:
    """`token` and `open`, parsed without pydantic, so they answer in well under a second;
    None for every other command."""
    head = argparse.ArgumentParser(add_help=False)
    head.add_argument("command", nargs="?")
    found, _ = head.parse_known_args(argv)
    if found.command not in ("token", "open"):
        return None
    parser = argparse.ArgumentParser(prog=f"run.py {found.command}")
    parser.add_argument("command", choices=("token", "open"))
    parser.add_argument("--data-dir", type=Path, help="the data dir of the running Docent")
    parser.add_argument("--host", help="where the running window listens (open)")
    parser.add_argument("--port", type=int, help="the port it listens on (open)")
    parser.add_argument("--no-browser", action="store_true", help="only print the link (open)")
    return parser.parse_args(argv)


def setup_logging(settings: Settings) -> None:
    from logging.handlers import RotatingFileHandler

    from app.paths import make_private_dir, make_private_file

    logs = make_private_dir(make_private_dir(settings.paths.data_dir) / "logs")
    file_handler = RotatingFileHandler(
        make_private_file(logs / "docent.log"), maxBytes=2_000_000, backupCount=3
    )
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    logging.basicConfig(level=logging.INFO, handlers=[file_handler, console], force=True)
    for noisy in ("httpx", "chromadb", "pypdf", "watchdog"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None, *, serve: Serve | None = None) -> int:
    """Run one command; ``serve`` starts the window (the entry point passes it in,
    since app/ must not import ui/)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    asked = _access_command(argv)
    if asked is not None:
        from app.cli import access

        if asked.command == "token":
            return access.print_token(asked.data_dir)
        return access.open_login(
            asked.data_dir, host=asked.host, port=asked.port, browser=not asked.no_browser
        )

    from pydantic import ValidationError

    try:
        args, settings = parse(argv)
    except ValidationError as error:
        print(f"Invalid setting: {error}", file=sys.stderr)
        return 2
    if args.command == "status":
        from app.cli.status_command import status

        return status(settings, check=args.check)
    if args.command == "serve":
        if problem := _cannot_serve(settings):
            print(problem, file=sys.stderr)
            return 1
        lock = lock_data_dir(settings)
        if lock is None:
            return 1
        try:
            setup_logging(settings)
            # The window builds the services after it listens and reports their failures.
            return _serve(settings, serve, lock)
        finally:
            lock.release()
    setup_logging(settings)
    from ingest.index.chroma_calls import StoreUnavailable
    from ingest.pipeline.lock import AlreadyIndexing
    from models.embeddings import EmbedderUnavailable

    try:
        return _run(args, settings)
    except (StoreUnavailable, EmbedderUnavailable, AlreadyIndexing) as error:
        print(f"Docent cannot start: {error}", file=sys.stderr)
        return 1


def _cannot_serve(settings: Settings) -> str | None:
    """Said first, before the window is imported or a data dir is made: a taken port."""
    from app.instance import exposure_warning, port_problem

    if warning := exposure_warning(settings.server.host):
        print(warning, file=sys.stderr)
    return port_problem(settings.server.host, settings.server.port)


def lock_data_dir(settings: Settings) -> IndexLock | None:
    """The data dir's lock, taken before anything listens or is written; None (and why,
    on stderr) when another Docent holds it."""
    from app.paths import make_private_dir
    from ingest.pipeline.lock import INDEX_LOCK_FILE, IndexLock

    if not settings.paths.data_dir.exists():
        make_private_dir(settings.paths.data_dir)
    lock = IndexLock(settings.paths.data_dir / INDEX_LOCK_FILE)
    if lock.acquire():
        return lock
    pid = lock.holder()
    print(
        f"Another Docent{f' (process {pid})' if pid else ''} is using {settings.paths.data_dir}."
        " `uv run run.py open` gives you a login link for it; or start this one with its"
        " own --data-dir.",
        file=sys.stderr,
    )
    return None


def _serve(settings: Settings, serve: Serve | None, lock: IndexLock) -> int:
    if serve is None:
        print("This entry point has no window; use `uv run run.py`.", file=sys.stderr)
        return 2
    if settings.server.native and importlib.util.find_spec("webview") is None:
        print(
            "--native needs pywebview. Install it with `uv pip install pywebview`, "
            "or leave out --native to use a browser tab.",
            file=sys.stderr,
        )
        return 2
    return serve(settings, lock)


def _run(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "mcp":
        from app.mcp.server import serve_stdio  # the MCP SDK loads only for this command

        return asyncio.run(serve_stdio(settings))
    from app.cli import commands

    if args.command == "ingest":
        return asyncio.run(commands.ingest(settings))
    if not args.question:
        print('Usage: run.py ask "your question" [--mode auto|rag|chat|document]', file=sys.stderr)
        return 2
    return asyncio.run(commands.ask(settings, args.question, args.mode))
