"""`run.py` as a user starts it (window, socket and API in one subprocess), attacked over
real HTTP and websockets: nothing without the login, no foreign Origin, bodies capped."""

from __future__ import annotations

import asyncio
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import nicegui
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from app.api.guard.headers import PAGE_POLICY
from app.paths import INSTANCE_FILE
from ingest.pipeline.lock import INDEX_LOCK_FILE
from tests.fakes.ollama_server import FakeOllamaServer
from tests.running import ServedProcess, eventually, run_py, served_process

SOCKET = "/_nicegui_ws/socket.io/?EIO=4&transport="
STATIC = f"/_nicegui/{nicegui.__version__}/static/nicegui.js"
EVIL = "http://evil.example"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedProcess]:
    data = tmp_path_factory.mktemp("served") / "data"
    (data / "documents").mkdir(parents=True)
    (data / "documents" / "notes.md").write_text("The spare key is under the blue flowerpot.\n")
    with FakeOllamaServer() as ollama, served_process(data, "--ollama-host", ollama.url) as app:

        def indexed() -> bool:
            # Seen taking over 5 s on a busy machine while the app was starting.
            documents = httpx.get(
                f"{app.url}/api/documents",
                headers={"Authorization": f"Bearer {app.token}"},
                timeout=60,
            ).json()["documents"]
            return [d["status"] for d in documents] == ["ready"]

        asyncio.run(eventually(indexed, timeout=60, what="notes.md indexed"))
        yield app


@pytest.fixture(scope="module")
def cookie(served: ServedProcess) -> dict[str, str]:
    """The window's login cookie, got the way a user gets it: `run.py open`."""
    opened = run_py("open", "--no-browser", "--data-dir", str(served.data_dir), check=True)
    link = opened.stdout.strip()
    assert link.startswith(f"{served.url}/login?key=")
    login = httpx.get(link)
    assert login.status_code == 303
    return dict(login.cookies)


def anonymous_responses(served: ServedProcess) -> list[httpx.Response]:
    with httpx.Client(base_url=served.url) as client:
        return [
            client.get("/"),
            client.get("/some/page"),
            client.get(STATIC),
            client.get("/favicon.ico"),
            client.get(SOCKET + "polling"),
            client.post(SOCKET + "polling", content=b"40"),
            client.get("/api/status"),
            client.get("/api/nope"),
            client.get("/v1/models"),
            client.get("/login?key=guess"),
            client.get("/docs"),
            client.get("/openapi.json"),
        ]


def test_without_login_nothing_is_served_and_no_token_leaks(served: ServedProcess) -> None:
    responses = anonymous_responses(served)
    for response in responses:
        assert response.status_code == 401, response.request.url
        assert served.token not in response.text
        assert "client_id" not in response.text  # no page, so no handle on the socket
    assert "uv run run.py open" in responses[0].text


def test_login_link_cookie_opens_the_window(served: ServedProcess, cookie: dict[str, str]) -> None:
    with httpx.Client(base_url=served.url, cookies=cookie) as client:
        page = client.get("/")
        static = client.get(STATIC)
    assert page.status_code == 200 and "client_id" in page.text
    assert static.status_code == 200


def test_pages_cannot_be_framed(served: ServedProcess, cookie: dict[str, str]) -> None:
    with httpx.Client(base_url=served.url, cookies=cookie) as client:
        responses = [client.get("/")]
    with httpx.Client(base_url=served.url) as client:
        responses += [client.get("/"), client.get("/api/health")]
    for response in responses:
        assert response.headers["content-security-policy"] == PAGE_POLICY
        assert response.headers["x-frame-options"] == "DENY"


def test_socket_polling_refuses_strangers(served: ServedProcess, cookie: dict[str, str]) -> None:
    with httpx.Client(base_url=served.url) as client:
        anonymous = client.get(SOCKET + "polling", headers={"Origin": served.url})
    with httpx.Client(base_url=served.url, cookies=cookie) as client:
        foreign = client.get(SOCKET + "polling", headers={"Origin": EVIL})
        own = client.get(SOCKET + "polling", headers={"Origin": served.url})
    assert anonymous.status_code == 401
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "forbidden_origin"
    assert "access-control-allow-origin" not in foreign.headers
    assert own.status_code == 200 and own.text.startswith("0{")  # an engine.io handshake
    assert own.headers["access-control-allow-origin"] == served.url


async def open_socket(served: ServedProcess, origin: str | None, cookie: dict[str, str]) -> str:
    """Try the websocket upgrade; the first frame if it opens, else the refusal's status."""
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookie.items())} if cookie else {}
    url = served.url.replace("http://", "ws://") + SOCKET + "websocket"
    try:
        async with connect(url, origin=origin, additional_headers=headers) as ws:  # type: ignore[arg-type]
            return str(await ws.recv())
    except InvalidStatus as refused:
        return f"refused {refused.response.status_code}"


async def test_websocket_refuses_strangers(served: ServedProcess, cookie: dict[str, str]) -> None:
    port = served.url.rsplit(":", 1)[1]
    assert await open_socket(served, EVIL, cookie) == "refused 403"
    assert await open_socket(served, f"http://localhost:{int(port) + 1}", cookie) == "refused 403"
    assert await open_socket(served, served.url, {}) == "refused 401"
    assert (await open_socket(served, served.url, cookie)).startswith("0{")


def test_foreign_origin_is_refused_on_state_changing_routes(served: ServedProcess) -> None:
    headers = {"Authorization": f"Bearer {served.token}", "Origin": EVIL}
    with httpx.Client(base_url=served.url, headers=headers) as client:
        for path, body in [
            ("/api/chat", {"message": "hi"}),
            ("/api/search", {"query": "key"}),
            ("/api/login-link", {}),
        ]:
            response = client.post(path, json=body)
            assert response.status_code == 403, path
            assert response.json()["error"]["code"] == "forbidden_origin"


def test_unknown_api_paths_get_json_not_the_window(served: ServedProcess) -> None:
    with httpx.Client(
        base_url=served.url, headers={"Authorization": f"Bearer {served.token}"}
    ) as c:
        for path in ("/api/nope", "/v1/nope", "/mcp/nope", "/api"):
            response = c.get(path)
            assert response.status_code == 404, path
            assert response.json()["error"]["code"] == "not_found"
        wrong = c.put("/api/chat", json={})
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def read_response(sock: socket.socket) -> str:
    """One HTTP response, whole: its head, then as many body bytes as it announces
    (a response may arrive in several packets)."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        if not piece:
            return data.decode()
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":", 1)[1])
            for line in head.lower().split(b"\r\n")
            if line.startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        piece = sock.recv(65536)
        if not piece:
            break
        body += piece
    return (head + b"\r\n\r\n" + body).decode()


def post_raw(served: ServedProcess, head: bytes, body_mb: int) -> tuple[str, int]:
    """Send ``head``, read the answer, then try to push ``body_mb`` MB after it.

    Returns the answer and how many MB the server took before hanging up."""
    host, port = served.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head)
        answer = read_response(sock)
        sent = 0
        try:
            for _ in range(body_mb):
                sock.sendall(b"x" * 1024 * 1024)
                sent += 1
        except OSError:
            pass  # the server closed the connection: it did not read the rest
    return answer, sent


def test_oversized_bodies_are_refused_without_memory_growth(served: ServedProcess) -> None:
    before = served.rss_mb()
    head = (
        b"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 524288000\r\n\r\n"
    )
    answer, sent = post_raw(served, head, body_mb=500)
    assert answer.startswith("HTTP/1.1 401")
    assert sent < 500

    token = f"Authorization: Bearer {served.token}\r\n".encode()
    answer, sent = post_raw(served, head.replace(b"\r\n\r\n", b"\r\n" + token + b"\r\n"), 500)
    assert answer.startswith("HTTP/1.1 413") and "body_too_large" in answer
    assert sent < 500

    chunked = (
        b"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
        + token
        + b"Content-Type: application/json\r\n\r\n"
    )
    host, port = served.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(chunked)
        try:
            for _ in range(200):  # 200 MB, far past the 4 MB cap
                sock.sendall(b"100000\r\n" + b"x" * 0x100000 + b"\r\n")
        except OSError:
            pass
        else:
            pytest.fail("the server read 200 MB of a body capped at 4 MB")
    grown = served.rss_mb() - before
    assert grown < 16, f"memory grew by {grown:.1f} MB"


def test_data_dir_is_private(served: ServedProcess) -> None:
    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    data = served.data_dir
    assert mode(data) == 0o700
    for name in ("api-token", "docent.db", "sessions.db", "instance.json"):
        assert mode(data / name) == 0o600, name
    for name in ("chroma", "logs"):
        assert mode(data / name) == 0o700, name


def test_the_start_up_breakdown_is_logged(served: ServedProcess) -> None:
    log = (served.data_dir / "logs" / "docent.log").read_text()
    startup = next(line for line in log.splitlines() if "startup:" in line)
    for step in ("listening", "services_ready", "import", "embedder", "routes", "start"):
        assert f"{step} " in startup, step


def test_status_and_open_find_the_running_instance(served: ServedProcess) -> None:
    status = run_py("status", "--data-dir", str(served.data_dir), check=True)
    assert f"Docent: running at {served.url}" in status.stdout
    assert "ready     1" in status.stdout


def test_a_taken_port_is_said_first(served: ServedProcess, tmp_path: Path) -> None:
    port = served.url.rsplit(":", 1)[1]
    second = run_py("--no-browser", "--port", port, "--data-dir", str(tmp_path / "other"))
    assert second.returncode == 1
    assert f"Port {port} on 127.0.0.1 is already in use" in second.stderr
    assert "--port" in second.stderr and "Traceback" not in second.stderr
    assert "Docent is at" not in second.stdout
    assert not (tmp_path / "other").exists()


def test_a_second_instance_on_the_same_data_dir_is_refused_before_it_writes(
    served: ServedProcess,
) -> None:
    data = served.data_dir

    def snapshot() -> tuple[dict[Path, tuple[int, int]], set[Path]]:
        """The files a second instance would write first, and the files where it would
        make new ones. The first instance's own stores and log go on changing meanwhile."""
        written = [data / INSTANCE_FILE, data / INDEX_LOCK_FILE]
        stamps = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in written if p.exists()}
        return stamps, {*data.iterdir(), *(data / "logs").iterdir()}

    before = snapshot()
    second = run_py("--no-browser", "--port", "0", "--data-dir", str(data))
    assert second.returncode == 1
    assert "Another Docent" in second.stderr and str(served.process.pid) in second.stderr
    assert "Docent is at" not in second.stdout and "Log in with" not in second.stdout
    assert snapshot() == before  # no instance.json or lock file rewritten, no new file
    opened = run_py("open", "--no-browser", "--data-dir", str(data), check=True)
    assert opened.stdout.startswith(f"{served.url}/login?key=")  # the first is still found
