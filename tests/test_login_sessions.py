"""Window logins are sessions kept by the app: they end when idle, on Lock, and on restart
unless remembered; what the person does over the window's socket keeps them alive."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.api.guard.body_limits import BodyLimits
from app.api.guard.guard import Access, install_guard
from app.api.guard.login import LoginLinks
from app.api.guard.login_sessions import SESSIONS_FILE, LoginSessions
from app.api.guard.socket_activity import LOGGED_OUT, carries_use
from tests.running import listening

HOUR = 3600.0
IDLE = 12 * HOUR


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def sessions_at(path: Path, clock: Clock) -> LoginSessions:
    return LoginSessions(path / SESSIONS_FILE, idle_seconds=IDLE, clock=clock)


def test_a_session_ends_after_the_idle_time_unless_used(tmp_path: Path) -> None:
    clock = Clock()
    sessions = sessions_at(tmp_path, clock)
    used, idle = sessions.start(), sessions.start()
    for _ in range(3):  # 33 hours in all, used every 11
        clock.now += 11 * HOUR
        assert sessions.check(used, activity=True)
    assert not sessions.check(idle, activity=False)  # 12 hours went by without use
    clock.now += 11 * HOUR
    assert sessions.check(used, activity=False)  # a look is not use ...
    clock.now += 1 * HOUR
    assert not sessions.check(used, activity=False)  # ... so 12 hours after the last use
    assert not sessions.check("made-up", activity=True)


def test_lock_ends_a_session_at_once(tmp_path: Path) -> None:
    sessions = sessions_at(tmp_path, Clock())
    kept, locked = sessions.start(), sessions.start()
    sessions.end(locked)
    assert not sessions.check(locked, activity=True)
    assert sessions.check(kept, activity=True)


def test_only_remembered_sessions_outlive_a_restart(tmp_path: Path) -> None:
    clock = Clock()
    before = sessions_at(tmp_path, clock)
    remembered, forgotten, unremembered = before.start(), before.start(), before.start()
    assert before.remember(remembered, True)
    assert before.remember(unremembered, True) and before.remember(unremembered, False)
    assert not before.remember("made-up", True)

    saved = tmp_path / SESSIONS_FILE
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    text = saved.read_text()
    assert all(sid not in text for sid in (remembered, forgotten, unremembered))  # hashes
    assert len(json.loads(text)["sessions"]) == 1

    clock.now += HOUR
    after = sessions_at(tmp_path, clock)  # the app restarted on the same data dir
    assert after.check(remembered, activity=False) and after.is_remembered(remembered)
    assert not after.check(forgotten, activity=False)
    assert not after.check(unremembered, activity=False)

    clock.now += IDLE  # the idle expiry still applies to a remembered session
    assert not sessions_at(tmp_path, clock).check(remembered, activity=False)


def test_a_remembered_session_keeps_its_last_use_across_a_restart(tmp_path: Path) -> None:
    clock = Clock()
    before = sessions_at(tmp_path, clock)
    session = before.start()
    before.remember(session, True)
    clock.now += 10 * HOUR
    assert before.check(session, activity=True)  # used: written, since it is remembered
    clock.now += 10 * HOUR  # 20 hours after the login, 10 after its last use
    assert sessions_at(tmp_path, clock).check(session, activity=False)


def test_a_locked_remembered_session_is_gone_after_a_restart(tmp_path: Path) -> None:
    clock = Clock()
    before = sessions_at(tmp_path, clock)
    session = before.start()
    before.remember(session, True)
    before.end(session)
    assert not sessions_at(tmp_path, clock).check(session, activity=False)


def test_an_unreadable_sessions_file_logs_nobody_in(tmp_path: Path) -> None:
    (tmp_path / SESSIONS_FILE).write_text("{not json")
    sessions = sessions_at(tmp_path, Clock())
    assert not sessions.check("anything", activity=False)
    assert sessions.check(sessions.start(), activity=False)


def test_what_the_person_does_counts_and_the_transport_does_not() -> None:
    assert carries_use('42["event",{"id":5,"args":"x"}]')
    assert carries_use('4217["event",{}]')  # with an ack id
    assert carries_use(b'2\x1e42["event",{}]')  # a polling body of several packets
    for transport in ("2", "3", '42["ack",{"next_message_id":4}]', '42["handshake",{}]', "40"):
        assert not carries_use(transport), transport


# -- the socket, over a real connection ---------------------------------------------------


SOCKET = "/_nicegui_ws/socket.io/"


async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for text in websocket.iter_text():
        await websocket.send_text(text)


@pytest.fixture
async def socket_app(tmp_path: Path) -> AsyncIterator[tuple[str, Access, Clock]]:
    """A socket endpoint where NiceGUI has its own, behind the guard; its URL and rules."""
    clock = Clock()
    access = Access(
        token="token",
        links=LoginLinks(clock=clock),
        sessions=sessions_at(tmp_path, clock),
        allowed_hosts=[],
        body_limits=BodyLimits(default=1024),
    )
    app = Starlette(routes=[WebSocketRoute(SOCKET, echo)])
    install_guard(app, access)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    port = await listening(server, task)
    yield f"ws://127.0.0.1:{port}{SOCKET}", access, clock
    server.should_exit = True
    await task


async def test_events_over_the_socket_keep_the_login_alive(
    socket_app: tuple[str, Access, Clock],
) -> None:
    url, access, clock = socket_app
    session = access.sessions.start()
    port = url.split(":")[2].split("/")[0]
    cookie = {"Cookie": f"docent-{port}={session}"}
    async with connect(url, additional_headers=cookie) as ws:
        for _ in range(3):  # 33 hours of working in the window, and no page load
            clock.now += 11 * HOUR
            await ws.send('42["event",{"id":3,"args":"click"}]')
            assert await ws.recv() == '42["event",{"id":3,"args":"click"}]'
        clock.now += 11 * HOUR
        await ws.send("3")  # a pong: the connection is alive, the person is not using it
        assert await ws.recv() == "3"
        clock.now += 1 * HOUR
        await ws.send("3")
        with pytest.raises(ConnectionClosed) as closed:  # idle 12 hours: the login ended
            await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == LOGGED_OUT
    assert not access.sessions.check(session, activity=False)


async def test_lock_closes_the_sockets_of_that_login(
    socket_app: tuple[str, Access, Clock],
) -> None:
    url, access, _ = socket_app
    locked, other = access.sessions.start(), access.sessions.start()
    port = url.split(":")[2].split("/")[0]
    async with (
        connect(url, additional_headers={"Cookie": f"docent-{port}={locked}"}) as first,
        connect(url, additional_headers={"Cookie": f"docent-{port}={other}"}) as second,
    ):
        access.sessions.end(locked)  # Lock, from another tab of the same login
        await first.send("3")
        with pytest.raises(ConnectionClosed):
            await first.recv()
        await second.send("3")
        assert await second.recv() == "3"
