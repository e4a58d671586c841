"""Nothing leaves the machine, seen at the system calls: `run.py` under strace indexes a
typed PDF, a scan (so OCR runs) and a spreadsheet, answers, summarises a document and
checks a text, and not one of its processes (parsers and OCR worker included) connects
beyond loopback or asks a name server anything.

tests/test_privacy.py guards Python's sockets; this one also sees native code, such as
ONNX Runtime's telemetry, which looks up its collector's name from C++.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.ollama_server import FakeOllamaServer
from tests.pdfs import make_pdf
from tests.running import ServedProcess, eventually, served_process
from tests.scans import image_pdf, page_image, workbook
from tests.syscalls import calls, reaches, strace_command, strace_unavailable, summary

UNAVAILABLE = strace_unavailable()


@pytest.mark.skipif(UNAVAILABLE is not None, reason=UNAVAILABLE or "")
def test_run_py_reaches_nothing_beyond_loopback_and_resolves_no_name(tmp_path: Path) -> None:
    documents = tmp_path / "data" / "documents"
    make_pdf(documents / "house.pdf", ["The spare key is under the blue flowerpot."])
    scan = page_image(["The boiler was serviced on", "the third of March by Hollis."])
    image_pdf(documents / "boiler.pdf", [scan])
    workbook(documents / "budget.xlsx", {"Costs": [["Item", "Cost"], ["Paint", 120]]})
    log = tmp_path / "strace.log"
    cache = tmp_path / "cache"
    env = {
        "XDG_CACHE_HOME": str(cache),  # where ONNX Runtime queues its usage events
        "LANGSMITH_TRACING": "true",  # a user who traces other work is not traced here
        "LANGCHAIN_TRACING_V2": "true",
        "LANGSMITH_API_KEY": "lsv2_not_a_real_key",
    }

    with FakeOllamaServer() as ollama:
        ollama.enqueue_reply("It is under the blue flowerpot [1].")
        flags = ("--ollama-host", ollama.url)
        wrap = strace_command(log)
        with served_process(tmp_path / "data", *flags, env=env, wrap=wrap) as app:
            headers = {"Authorization": f"Bearer {app.token}"}
            asyncio.run(eventually(lambda: _indexed(app, headers), timeout=240, what="3 files"))
            found = _post(app, "/api/search", {"query": "boiler serviced Hollis"}, headers)
            assert [r["file"] for r in found["results"]][:1] == ["boiler.pdf"]  # OCR read it
            question = {"message": "Where is the spare key?", "mode": "rag", "stream": False}
            assert "flowerpot" in _post(app, "/api/chat", question, headers)["answer"]
            whole = {"message": "Summarise @house.pdf", "mode": "document", "stream": False}
            assert _post(app, "/api/chat", whole, headers)["trace"]["route"] == "document"
            checked = {"text": "The spare key is under the blue flowerpot."}
            verdicts = _post(app, "/api/verify", checked, headers)["sentences"]
            assert [s["verdict"] for s in verdicts] == ["supported"]

    seen = log.read_text()
    port = int(ollama.url.rsplit(":", 1)[1])
    assert any(c.port == port for c in calls(seen)), "strace saw no call to the model server"
    outside = reaches(seen)
    # Nor may anything wait in a queue to be sent later, once a network is there.
    queued = [f"queued in {p}" for p in sorted(cache.rglob("*")) if p.is_file()]
    assert not outside and not queued, "\n".join(
        ["reached beyond loopback, asked DNS or queued to send:", *summary(outside), *queued]
        + [f"first as: {outside[0].line}" for _ in outside[:1]]
    )


def _indexed(app: ServedProcess, headers: dict[str, str]) -> bool:
    listed = httpx.get(f"{app.url}/api/documents", headers=headers, timeout=60).json()["documents"]
    errors = [d for d in listed if d["status"] == "error"]
    assert not errors, errors
    return len(listed) == 3 and all(d["status"] == "ready" for d in listed)


def _post(
    app: ServedProcess, path: str, body: Mapping[str, object], headers: dict[str, str]
) -> Any:
    response = httpx.post(f"{app.url}{path}", json=body, headers=headers, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


# Lines as Debian's strace 6.1 writes them (-f -s 256), from runs of the app before the fix.
LOG = r"""
5583  connect(8, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16 <unfinished ...>
5584  connect(9, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)
5583  <... connect resumed>)            = 0
5583  sendto(8, "\311\262\1\0\0\1\0\0\0\0\0\0\6mobile\6events\4data\tmicrosoft\3com\0\0\34\0\1", 50, MSG_NOSIGNAL, NULL, 0 <unfinished ...>
8682  connect(3, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.53")}, 16) = 0
8682  sendmmsg(3, [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="B\223\1\0\0\1\0\0\0\0\0\0\7example\3com\0\0\1\0\1", iov_len=29}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=29}], 1, MSG_NOSIGNAL) = 1
8682  connect(4, {sa_family=AF_INET6, sin6_port=htons(11434), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0
8682  connect(5, {sa_family=AF_INET, sin_port=htons(11434), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
8682  sendto(5, "GET /api/tags HTTP/1.1\r\n", 24, 0, NULL, 0) = 24
8682  sendto(6, "\24\0\0\0\22\0\1\3\0\0\0\0\0\0\0\0", 20, 0, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 20
8682  connect(7, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH
8682  connect(9, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("192.0.2.1")}, 16) = -1 EINPROGRESS
"""  # noqa: E501


def test_the_log_reader_names_each_query_and_address_beyond_loopback() -> None:
    assert [str(reach) for reach in reaches(LOG)] == [
        "connect to the name server 10.255.255.53 port 53",
        "DNS query for mobile.events.data.microsoft.com sent to 10.255.255.53 port 53",
        "connect to the name server 127.0.0.53 port 53",
        "DNS query for example.com sent to 127.0.0.53 port 53",
        "connect to 2001:db8::1 port 443",
        "connect to 192.0.2.1 port 443",
    ]
    assert len([c for c in calls(LOG) if c.port == 11434]) == 3  # loopback: fine
