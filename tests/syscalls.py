"""Read what `strace -f -e trace=connect,sendto,sendmsg,sendmmsg -s 256` saw a process tree
reach for: every network address other than this machine's loopback, and every DNS query,
named by the host it asked for.

Native code (ONNX Runtime's telemetry, a C library's update check) goes around Python's
socket module, so only the system calls show all of it. glibc's resolver sends its A and
AAAA queries with ``sendmmsg`` on a socket it ``connect``-ed to the name server; other
resolvers use ``sendto``: hence all four calls.
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

CALLS = "connect,sendto,sendmsg,sendmmsg"


def strace_command(log: Path) -> list[str]:
    """The command that runs a program under strace, writing what it saw to ``log``."""
    # --seccomp-bpf stops the traced processes at these calls only: the app runs at
    # nearly full speed instead of stopping at every system call.
    return [
        "strace",
        "--follow-forks",
        "--seccomp-bpf",
        "-qq",
        "--string-limit=256",  # enough of each buffer to read the name a DNS query asks
        f"--trace={CALLS}",
        f"--output={log}",
        "--",
    ]


def strace_unavailable() -> str | None:
    """Why strace cannot trace a program here (not installed, ptrace not permitted), or
    None when it can."""
    if shutil.which("strace") is None:
        return "strace is not installed (Debian: apt-get install strace)"
    probe = subprocess.run(
        [*strace_command(Path("/dev/null")), "true"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return f"strace cannot trace here: {probe.stderr.strip()}"
    return None


@dataclass(frozen=True)
class Call:
    """One connect or send to an IPv4 or IPv6 address."""

    pid: int
    call: str
    address: str
    port: int
    host: str | None
    """The name a DNS query asked for, decoded from the bytes sent."""
    line: str

    @property
    def leaves_loopback(self) -> bool:
        ip = ipaddress.ip_address(self.address)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return not ip.is_loopback

    def __str__(self) -> str:
        if self.host:
            what = f"DNS query for {self.host} sent to"
        elif self.port == 53:
            what = "connect to the name server"
        else:
            what = "connect to"
        return f"{what} {self.address} port {self.port}"


def summary(found: list[Call]) -> list[str]:
    """One line per distinct reach, with how often and from which threads, first seen
    first."""
    seen: dict[str, list[Call]] = {}
    for call in found:
        seen.setdefault(str(call), []).append(call)
    return [
        f"{what}: {len(same)}× ({same[0].call}; threads {sorted({c.pid for c in same})})"
        for what, same in seen.items()
    ]


_CALL = re.compile(r"^(\d+)\s+(connect|sendto|sendmsg|sendmmsg)\((\d+),\s*(.*)$")
_INET = re.compile(r'sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)')
_INET6 = re.compile(
    r'sa_family=AF_INET6, sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, "([^"]+)"'
)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(rb"\\([0-7]{1,3}|x[0-9a-fA-F]{2}|.)")
_NAMED = {b"n": 10, b"t": 9, b"r": 13, b"v": 11, b"f": 12, b"a": 7, b"b": 8}


def reaches(log: str) -> list[Call]:
    """Every call in an strace log that went beyond loopback or to a name server (port
    53, a loopback resolver such as 127.0.0.53 included)."""
    return [call for call in calls(log) if call.port == 53 or call.leaves_loopback]


def calls(log: str) -> list[Call]:
    """Every connect and send to an IP address in an strace log. AF_UNIX and netlink
    stay on the machine and are left out; a send on a socket connected earlier is given
    that socket's address (by process and descriptor)."""
    found: list[Call] = []
    connected: dict[tuple[int, int], tuple[str, int]] = {}
    for line in log.splitlines():
        match = _CALL.match(line)
        if match is None:
            continue
        pid, call, fd, rest = int(match[1]), match[2], int(match[3]), match[4]
        addresses = [(a, int(p)) for p, a in _INET.findall(rest) + _INET6.findall(rest)]
        if call == "connect":
            if addresses:
                connected[(pid, fd)] = addresses[0]
            else:
                connected.pop((pid, fd), None)  # AF_UNSPEC: the socket let go of its peer
        elif not addresses and (pid, fd) in connected:
            addresses = [connected[(pid, fd)]]
        for address, port in addresses:
            host = _queried_name(rest) if port == 53 and call != "connect" else None
            found.append(Call(pid, call, address, port, host, line))
    return found


def _queried_name(arguments: str) -> str | None:
    """The name of the first DNS question in the call's buffer, as strace printed it."""
    for literal in _STRING.findall(arguments):
        name = _dns_question(_unescape(literal))
        if name:
            return name
    return None


def _unescape(literal: str) -> bytes:
    def one(match: re.Match[bytes]) -> bytes:
        code = match[1]
        if code[:1].isdigit():
            return bytes([int(code, 8) & 0xFF])
        if code[:1] == b"x":
            return bytes([int(code[1:], 16)])
        return bytes([_NAMED[code]]) if code in _NAMED else code

    return _ESCAPE.sub(one, literal.encode("latin-1", "backslashreplace"))


def _dns_question(packet: bytes) -> str | None:
    """The name a DNS query packet asks for (labels after the 12-byte header)."""
    labels: list[str] = []
    at = 12
    while at < len(packet):
        size = packet[at]
        if size == 0:
            return ".".join(labels) or None
        if size > 63:
            return None
        labels.append(packet[at + 1 : at + 1 + size].decode("ascii", "replace"))
        at += 1 + size
    return ".".join(labels) or None  # cut short by strace's -s: what it showed
