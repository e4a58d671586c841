"""The model menu's facts: chat and embedding models apart, each once, with sizes; a
pull's size, speed and time left."""

from __future__ import annotations

from app.services.model_catalog import PullMeter, catalog, details, duration_text
from models.protocols import ModelInfo


def test_models_are_listed_once_and_apart_by_capability() -> None:
    found = catalog(
        [
            ModelInfo("llama3.2:latest", 2_019_393_189, "3.2B", "Q4_K_M", ("completion", "tools")),
            ModelInfo("llama3.2", 2_019_393_189, "3.2B", "Q4_K_M", ("completion", "tools")),
            ModelInfo("nomic-embed-text:latest", 274_302_450, "137M", "F16", ("embedding",)),
            ModelInfo("mystery:7b"),  # the host said nothing: offered, as before
        ]
    )
    assert [m.name for m in found.chat] == ["llama3.2", "mystery:7b"]
    assert [m.name for m in found.embedding] == ["nomic-embed-text"]
    assert details(found.chat[0]) == "2.0 GB · 3.2B · Q4_K_M"
    assert details(found.embedding[0]) == "274 MB · 137M · F16"
    assert details(found.chat[1]) == ""


def test_a_pull_says_how_much_how_fast_and_how_long() -> None:
    meter = PullMeter()
    assert meter.step("pulling manifest", None, None, now=0.0) is None
    assert meter.step("pulling aa", 0, 2_000_000_000, now=10.0) == "0 MB of 2.0 GB"
    line = meter.step("pulling aa", 500_000_000, 2_000_000_000, now=20.0)
    assert line == "500 MB of 2.0 GB · 50 MB/s · about 30 s left"
    line = meter.step("pulling bb", 0, 1_000_000_000, now=20.0)  # a second layer adds up
    assert line == "500 MB of 3.0 GB · 50 MB/s · about 50 s left"
    assert duration_text(3_900) == "1 h 5 min" and duration_text(150) == "2 min"
