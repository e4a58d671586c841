"""--chroma-url: the same pipeline against chromadb's own server, started from the package."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.container import build_services
from app.settings import Settings
from tests.fakes.chat import FakeChatModel
from tests.fakes.embedder import FakeEmbedder


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[str]:
    """`chroma run` from the installed chromadb, on a free port; skipped if it can't start."""
    cli = shutil.which("chroma", path=str(Path(sys.executable).parent))
    if cli is None:
        pytest.skip("chromadb's `chroma` command is not installed in this environment")
    port = _free_port()
    proc = subprocess.Popen(
        [
            cli,
            "run",
            "--path",
            str(tmp_path / "server"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                err = proc.stderr.read().decode()[-500:] if proc.stderr else ""
                pytest.skip(f"chromadb's server could not start here: {err}")
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.skip("chromadb's server did not answer within a minute")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def test_index_and_search_through_a_chroma_server(chroma_server: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", chroma_url=chroma_server)
    settings.paths.docs_dir.mkdir(parents=True)
    (settings.paths.docs_dir / "a.md").write_text("# Ferries\n\nThe ferry leaves at dawn.")
    (settings.paths.docs_dir / "b.md").write_text("# Ferries\n\nThe ferry leaves at dawn.")
    embedder = FakeEmbedder()
    app = build_services(settings, llm=FakeChatModel(), embedder=embedder)
    assert not (settings.paths.data_dir / "chroma").exists()  # nothing embedded on disk
    await app.indexer.index_all()
    try:
        assert len(embedder.calls) == 1  # identical files, embedded once
        hits = app.embedding.store.search("ferry dawn", k=3)
        assert len(hits) == 1 and hits[0].paths == ("a.md", "b.md")
        assert (await app.indexer.check()).differences() == []
    finally:
        app.registry.close()
        app.index_lock.release()
