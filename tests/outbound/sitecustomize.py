"""Loaded by a `run.py` started for tests/test_privacy.py: every attempt to reach beyond
this machine is refused and written to the file DOCENT_TEST_OUTBOUND_LOG names."""

import os
import sys

sys.path.insert(0, os.environ["DOCENT_TEST_REPO"])

from tests.network_guard import only_loopback  # noqa: E402


def _record(host: str) -> None:
    with open(os.environ["DOCENT_TEST_OUTBOUND_LOG"], "a", encoding="utf-8") as handle:
        handle.write(host + "\n")


# Held for the whole life of the process: were it collected, its generator would close
# and put the real socket functions back.
GUARD = only_loopback(_record)
GUARD.__enter__()
