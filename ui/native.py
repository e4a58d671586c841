"""Whether `run.py --native` can open a native window here, and if not, why (said to the user)."""

from __future__ import annotations

import importlib.util
import os
import sys


def native_problem() -> str | None:
    """None when pywebview can open a window; else the reason, to print before a tab opens."""
    if importlib.util.find_spec("webview") is None:
        return "pywebview is not installed (`uv pip install pywebview` adds it)"
    if sys.platform.startswith("linux"):
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            return "there is no desktop display here (no DISPLAY or WAYLAND_DISPLAY)"
        gui = ("gi", "qtpy", "PyQt6", "PyQt5", "PySide6")
        if not any(importlib.util.find_spec(name) for name in gui):
            return "pywebview needs GTK (PyGObject) or Qt (PyQt/PySide) on Linux"
    return None
