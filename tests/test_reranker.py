"""FlashRank: the real Ranker path on a tiny model, and no download without permission."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.reranker import FlashRankReranker, RerankerUnavailable
from tests.network_guard import only_loopback
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
    with only_loopback():
        assert not reranker.prepare(download=True)
    assert "could not be loaded" in (reranker.problem or "")
    with pytest.raises(RerankerUnavailable):
        reranker.rerank("q", ["p"])
