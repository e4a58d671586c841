"""A quiet, truthful first start: the reranker's download is offered once, with its size,
and fetched only after a yes; settings errors read as sentences."""

from __future__ import annotations

from pathlib import Path

import pytest
from nicegui.testing import User

from app.container import Services
from app.services.preferences import InvalidSetting, Preferences
from app.services.reranking import Reranking
from app.settings import Settings
from models.reranker import DEFAULT_MODEL, FlashRankReranker


async def test_the_reranker_download_is_offered_once_with_its_size(
    user: User, container: Services, page: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fetched: list[bool] = []
    monkeypatch.setattr(container.reranking, "prepare", fetched.append)  # no real download
    assert container.reranking.offer_pending
    await user.open("/")
    await user.should_see(marker="rerank-offer")
    await user.should_see(f"{DEFAULT_MODEL} (about 4 MB")
    await user.should_see("Download (about 4 MB)", marker="rerank-offer-yes")
    assert fetched == []  # nothing fetched before the yes
    user.find(marker="rerank-offer-yes").click()
    await user.should_not_see(marker="rerank-offer")
    assert fetched == [True] and container.settings.search.rerank_download
    assert not container.reranking.offer_pending
    await user.open("/")  # a new tab: asked once only
    await user.should_see(marker="empty-hint")
    await user.should_not_see(marker="rerank-offer")


async def test_not_now_is_remembered_and_settings_still_offers_it(
    user: User, container: Services, page: None
) -> None:
    await user.open("/")
    user.find(marker="rerank-offer-no").click()
    await user.should_not_see(marker="rerank-offer")
    assert not container.settings.search.rerank_download
    await user.open("/")
    await user.should_see(marker="empty-hint")
    await user.should_not_see(marker="rerank-offer")
    user.find(marker="settings").click()
    await user.should_see("is not downloaded", marker="reranking-status")
    await user.should_see(marker="setting-rerank_download")


def test_reranking_status_reads_as_a_sentence(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    preferences = Preferences(settings, lambda before, now: None)
    reranking = Reranking(FlashRankReranker(tmp_path / "models"), preferences)
    assert reranking.can_download and reranking.offer_pending
    assert reranking.status() == (
        f"Reranking is off: its model, {DEFAULT_MODEL} (about 4 MB, from Hugging Face), "
        "is not downloaded. Passages are ranked by search scores alone."
    )
    reranking.download()
    assert not reranking.offer_pending
    # Nothing is downloading here (the setting's hook does nothing): it says no such thing.
    assert reranking.status().startswith("Reranking is off: its model")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"top_k": 0}, "Not saved. Top K must be at least 1."),
        ({"rerank_candidates": 500}, "Not saved. Rerank depth must be at most 200."),
        ({"top_k": "many"}, "Not saved. Top K must be a whole number."),
        ({"llm_api": "other"}, "Not saved. Model server must be one of 'ollama' or 'openai'."),
    ],
)
def test_settings_errors_read_as_sentences(
    tmp_path: Path, change: dict[str, object], said: str
) -> None:
    preferences = Preferences(Settings(data_dir=tmp_path))
    with pytest.raises(InvalidSetting) as refused:
        preferences.update(change)
    assert str(refused.value) == said
