"""The collector is settled once per process, after the long-lived objects exist
(that the ingest command settles it is in test_commands_ingest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
import gc
from app.collector import OLDER_THRESHOLD, YOUNG_THRESHOLD, settle
before = gc.get_threshold()
settle()
frozen = gc.get_freeze_count()
kept = [[n] for n in range(5000)]  # young objects a second freeze would take too
settle()
print(before[0], gc.get_threshold() == (YOUNG_THRESHOLD, OLDER_THRESHOLD, OLDER_THRESHOLD),
      frozen, gc.get_freeze_count() - frozen)
"""


def test_settle_freezes_what_exists_once_and_collects_less_often() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    default_young, raised, frozen, frozen_later = out
    assert default_young == "700"  # Python's own default, before
    assert raised == "True"
    assert int(frozen) > 1000  # the modules' objects, at least
    assert frozen_later == "0"  # the second call did nothing
