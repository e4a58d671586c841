"""What the fake model servers share: a localhost HTTP server that can really go down.

``stop()`` cuts open keep-alive connections too, so a client sees the server as gone (not
a request served late); handlers write JSON, bytes or chunked streams and notice a client
that left.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class TrackingHTTPServer(ThreadingHTTPServer):
    """Serves each connection in a thread and can cut them all at once."""

    daemon_threads = True
    block_on_close = False  # stop() must not wait for a handler sleeping between tokens
    fake: Any
    """The fake this server speaks for; its handlers read their script from it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        self._closed = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client closing its keep-alive connection is normal, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def track(self, connection: socket.socket, *, open_: bool) -> None:
        with self._connections_lock:
            if not open_:
                self._connections.discard(connection)
            elif self._closed:  # accepted just before stop(): refuse to serve it
                _cut(connection)
            else:
                self._connections.add(connection)

    def close_connections(self) -> None:
        # Keep-alive connections would otherwise go on being served after stop().
        with self._connections_lock:
            self._closed = True
            connections, self._connections = self._connections, set()
        for connection in connections:
            _cut(connection)


def _cut(connection: socket.socket) -> None:
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class ServedFake:
    """Start, stop (and start again on the same port) a fake served by ``handler``."""

    handler: type[BaseHTTPRequestHandler]
    name = "fake server"

    def __init__(self) -> None:
        self._httpd: TrackingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port = 0

    @property
    def root(self) -> str:
        """``http://127.0.0.1:PORT``; stays the same across ``stop()`` / ``start()``."""
        if not self._port:
            raise RuntimeError(f"the {self.name} has not been started")
        return f"http://127.0.0.1:{self._port}"

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self) -> Self:
        """Listen (again, on the same port after a ``stop()``) and serve in a thread."""
        if self._httpd is not None:
            return self
        httpd = TrackingHTTPServer(("127.0.0.1", self._port), self.handler)
        httpd.fake = self
        self._port = httpd.server_address[1]
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and cut open connections: the client then sees the server as down."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        httpd.close_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class FakeHandler(BaseHTTPRequestHandler):
    """Writing helpers for the fakes' handlers, over HTTP/1.1 keep-alive."""

    disable_nagle_algorithm = True  # as Go and uvicorn servers do: no delayed-ACK stalls
    protocol_version = "HTTP/1.1"  # keep-alive and chunked transfer, as real servers do
    server: TrackingHTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, open_=True)

    def finish(self) -> None:
        self.server.track(self.connection, open_=False)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send_json(self, obj: Any, status: int = 200) -> None:
        self.send_bytes(status, json.dumps(obj).encode(), "application/json; charset=utf-8")

    def send_bytes(self, status: int, data: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            self.close_connection = True

    def start_chunks(self, content_type: str) -> Callable[[bytes], bool]:
        """Send chunked-transfer headers; return a writer of one chunk that says if it worked."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        # end_headers() writes to the socket; the writer reports a failure of either.
        sent = self.attempt(self.end_headers)

        def write(data: bytes) -> bool:
            if not sent:
                return False
            return self.attempt(lambda: self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data)))

        return write

    def end_chunks(self) -> None:
        self.attempt(lambda: self.wfile.write(b"0\r\n\r\n"))

    def attempt(self, write: Callable[[], object]) -> bool:
        try:
            write()
        except OSError:  # the client went away or stop() cut the connection
            self.close_connection = True
            return False
        return True
