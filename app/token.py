"""The API token: created once per data dir, readable only by its owner."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


class NoToken(Exception):
    """The data dir has no token yet: Docent never started with it."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(
            f"There is no API token in {data_dir} yet: Docent has not been started with this "
            f"data dir. Start it once with `uv run run.py --data-dir {data_dir}`, or pass the "
            "--data-dir of the instance you run."
        )
        self.data_dir = data_dir


def read_token(path: Path) -> str:
    """The token at ``path``; raises NoToken (and creates nothing) when there is none."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if not token:
        raise NoToken(path.parent)
    return token


def load_or_create_token(path: Path) -> str:
    """Read the token at ``path``, creating it with mode 0600 on first start."""
    try:
        return read_token(path)
    except NoToken:
        pass
    path.unlink(missing_ok=True)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    # O_EXCL and the mode at creation: the token is never readable by others, not even briefly.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token
