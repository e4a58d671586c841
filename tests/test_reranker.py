"""FlashRank: the real Ranker path on a tiny model, no download without permission, and a
download that tells how far it is and why it failed (from a fake host, never the internet)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from models.download import DownloadProgress
from models.reranker import DEFAULT_MODEL, FlashRankReranker, RerankerUnavailable
from tests.fakes.model_host import FakeModelHost, zipped
from tests.fakes.ollama_server import unused_url
from tests.network_guard import only_loopback
from tests.running import eventually
from tests.tiny_cross_encoder import build

WORDS = ["when", "does", "the", "ferry", "leave", "bus", "train", "at", "noon"]


def test_real_ranker_on_a_tiny_cross_encoder(tmp_path: Path) -> None:
    build(tmp_path / "flashrank", WORDS, {"ferry": 3.0, "noon": 1.0})
    reranker = FlashRankReranker(tmp_path / "flashrank")
    assert reranker.installed()
    with only_loopback() as outward:
        assert reranker.prepare(download=True)  # on disk: nothing to download
    assert outward == [] and reranker.problem is None
    scores = reranker.rerank(
        "when does the ferry leave", ["the bus at noon", "the ferry at noon", "the train"]
    )
    assert scores.index(max(scores)) == 1
    assert scores[0] > scores[2]  # "noon" is worth something too
    assert all(0.0 < s < 1.0 for s in scores)


def test_missing_model_is_never_fetched_without_permission(tmp_path: Path) -> None:
    reranker = FlashRankReranker(tmp_path / "flashrank")
    with only_loopback() as outward:
        assert not reranker.prepare(download=False)
    assert outward == []
    assert "not in" in (reranker.problem or "")
    with pytest.raises(RerankerUnavailable):
        reranker.rerank("q", ["p"])


def test_offline_download_fails_cleanly(tmp_path: Path) -> None:
    reranker = FlashRankReranker(tmp_path / "flashrank")
    told: list[DownloadProgress] = []
    reranker.watch(told.append)
    with only_loopback() as outward:
        assert not reranker.prepare(download=True)
    assert outward == ["huggingface.co"]  # the one place it was allowed to try
    assert "was not downloaded: huggingface.co could not be reached" in (reranker.problem or "")
    assert [p.state for p in told] == ["downloading", "failed"]
    assert reranker.progress.error and "huggingface.co could not be reached" in told[-1].error
    with pytest.raises(RerankerUnavailable):
        reranker.rerank("q", ["p"])


def model_zip(tmp_path: Path) -> bytes:
    return zipped(build(tmp_path / "made", WORDS, {"ferry": 3.0, "noon": 1.0}))


async def test_a_download_tells_its_bytes_then_the_model_reranks(tmp_path: Path) -> None:
    data = model_zip(tmp_path)
    with FakeModelHost({f"{DEFAULT_MODEL}.zip": data}, hold=True) as host:
        reranker = FlashRankReranker(tmp_path / "flashrank", source=host.source)
        told: list[DownloadProgress] = []
        reranker.watch(told.append)
        result: list[bool] = []
        thread = threading.Thread(target=lambda: result.append(reranker.prepare(download=True)))
        with only_loopback() as outward:
            thread.start()
            # Half the zip has come: the download says so while it waits for the rest.
            half = DownloadProgress("downloading", len(data) // 2, len(data))
            await eventually(lambda: reranker.progress == half, what="half the zip told")
            host.release.set()
            thread.join(timeout=60)
    assert result == [True] and outward == []
    assert host.requests == [f"/{DEFAULT_MODEL}.zip"]
    states = [p.state for p in told]
    assert states[0] == "downloading" and states[-2:] == ["unpacking", "done"]
    assert told[-1].done == len(data) and reranker.problem is None
    assert not list((tmp_path / "flashrank").glob("*.zip"))  # nothing left behind
    scores = reranker.rerank("when does the ferry leave", ["the bus at noon", "the ferry"])
    assert scores[1] > scores[0]


def test_a_host_without_the_model_is_said_plainly(tmp_path: Path) -> None:
    with FakeModelHost({"other.zip": b"PK"}) as host:
        reranker = FlashRankReranker(tmp_path / "flashrank", source=host.source)
        assert not reranker.prepare(download=True)
    assert reranker.progress.state == "failed"
    assert reranker.progress.error == f"{host.root.removeprefix('http://')} answered 404 Not Found"


def test_a_download_that_is_not_a_zip_fails_and_leaves_nothing(tmp_path: Path) -> None:
    with FakeModelHost({f"{DEFAULT_MODEL}.zip": b"<html>captive portal</html>"}) as host:
        reranker = FlashRankReranker(tmp_path / "flashrank", source=host.source)
        assert not reranker.prepare(download=True)
    assert "is not a zip file" in (reranker.progress.error or "")
    assert list((tmp_path / "flashrank").iterdir()) == []


def test_a_server_that_is_down_fails_with_where_it_tried(tmp_path: Path) -> None:
    url = unused_url()
    reranker = FlashRankReranker(tmp_path / "flashrank", source=url + "/{model}.zip")
    assert not reranker.prepare(download=True)
    assert reranker.progress.state == "failed"
    assert f"{url.removeprefix('http://')} could not be reached" in (reranker.progress.error or "")
