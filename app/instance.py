"""The running instance as other commands see it: ``<data dir>/instance.json`` (mode 0600),
written once it listens and removed when it stops. Light on purpose: no pydantic, no NiceGUI.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from app.paths import INSTANCE_FILE

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class Instance:
    url: str
    pid: int


def base_url(host: str, port: int) -> str:
    """The URL a browser on this machine uses for a server bound to ``host``."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def write_instance(data_dir: Path, url: str) -> None:
    path = data_dir / INSTANCE_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"url": url, "pid": os.getpid()}, handle)


def remove_instance(data_dir: Path) -> None:
    """Forget the instance file, if it is this process's."""
    found = read_instance(data_dir)
    if found is not None and found.pid == os.getpid():
        (data_dir / INSTANCE_FILE).unlink(missing_ok=True)


def read_instance(data_dir: Path) -> Instance | None:
    """The instance serving this data dir, or None (no file, or its process is gone)."""
    try:
        record = json.loads((data_dir / INSTANCE_FILE).read_text(encoding="utf-8"))
        found = Instance(url=str(record["url"]), pid=int(record["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(found.pid, 0)
    except ProcessLookupError:
        return None  # left behind by a process that was killed
    except PermissionError:
        pass  # alive, someone else's
    return found


def port_problem(host: str, port: int) -> str | None:
    """Why Docent can't listen on ``host:port`` (said before anything else), or None."""
    if port == 0:
        return None
    error = _try_bind(host, port)
    if error is None:
        return None
    if error.errno == errno.EADDRINUSE:
        free = next((p for p in range(port + 1, port + 50) if _try_bind(host, p) is None), None)
        hint = f"`uv run run.py --port {free}`" if free else "`uv run run.py --port <port>`"
        return (
            f"Port {port} on {host} is already in use (by another program, or a Docent "
            f"that is already running: `uv run run.py open` gives you a login link for "
            f"it). Start on another port with {hint}."
        )
    if error.errno == errno.EADDRNOTAVAIL:
        return f"Cannot listen on {host}: this machine has no such address. Check --host."
    if error.errno == errno.EACCES:
        return f"Not allowed to listen on port {port} (ports below 1024 need root). Use --port."
    return f"Cannot listen on {host}:{port}: {error.strerror or error}."


def _try_bind(host: str, port: int) -> OSError | None:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return OSError(errno.EADDRNOTAVAIL, str(error))
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        # As uvicorn does: a port left in TIME_WAIT by a previous run is free.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as error:
            return error
    return None


def exposure_warning(host: str) -> str | None:
    """What listening beyond this machine exposes, or None for a loopback address."""
    if host in LOOPBACK_HOSTS or host.startswith("127."):
        return None
    return (
        f"Warning: --host {host} makes Docent reachable from other machines on your "
        "network, over plain unencrypted HTTP. Anyone who gets a login link or the API "
        "token can read your documents, your sessions and ask in your name. Use "
        "--host 127.0.0.1 unless you mean it."
    )


def open_in_browser(url: str) -> bool:
    """Open ``url`` in a graphical browser, if this session has one; False if not."""
    # Without a display, webbrowser falls back to terminal browsers (lynx, w3m), which
    # would take over the terminal Docent runs in.
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    import webbrowser

    # A thread: some browsers block webbrowser.open until they exit.
    threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    return True
