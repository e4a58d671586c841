"""Where the shared test corpus is: beside the repo, or wherever DOCENT_CORPUS says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CORPUS = Path(
    os.environ.get("DOCENT_CORPUS")
    or Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
)

needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason=f"shared corpus not found at {CORPUS} (set DOCENT_CORPUS to its folder)",
)
