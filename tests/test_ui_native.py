"""`--native` says why it can't open a native window, so a browser tab opens instead."""

from __future__ import annotations

import importlib.util

import pytest

from ui.native import native_problem


def test_without_a_display_it_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    problem = native_problem()
    assert problem is not None
    if importlib.util.find_spec("webview") is None:
        assert "pywebview" in problem
    else:
        assert "display" in problem


def test_without_pywebview_it_says_how_to_add_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "webview" else real(name)
    )
    assert "uv pip install pywebview" in (native_problem() or "")
