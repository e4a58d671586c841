"""Record (and refuse) every attempt to reach anything but this machine."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def _is_local(host: Any) -> bool:
    if not isinstance(host, str):
        return True  # AF_UNIX paths and the like never leave the machine
    if host.lower() in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class _Attempts(list[str]):
    def __init__(self, on_attempt: Callable[[str], None] | None) -> None:
        super().__init__()
        self._on_attempt = on_attempt

    def append(self, host: str) -> None:
        super().append(host)
        if self._on_attempt is not None:
            self._on_attempt(host)


@contextmanager
def only_loopback(on_attempt: Callable[[str], None] | None = None) -> Iterator[list[str]]:
    """Inside the block, connecting to or resolving a non-loopback host fails and is listed
    (and handed to ``on_attempt``, for a process that must report it elsewhere)."""
    attempts = _Attempts(on_attempt)
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family == getattr(socket, "AF_UNIX", None):
            return  # a path on this machine (the parser processes' fork server listens so)
        host = address[0] if isinstance(address, tuple) else address
        if not _is_local(host):
            attempts.append(str(host))
            raise ConnectionRefusedError(f"test forbids connecting to {host}")

    def connect(self: socket.socket, address: Any) -> None:
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(self, address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not _is_local(host if isinstance(host, str) else host.decode()):
            attempts.append(str(host))
            raise socket.gaierror(f"test forbids resolving {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
    try:
        yield attempts
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo
