"""The API token: created once per data dir, readable only by its owner."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def load_or_create_token(path: Path) -> str:
    """Read the token at ``path``, creating it with mode 0600 on first start."""
    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if token:
            return token
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    # O_EXCL and the mode at creation: the token is never readable by others, not even briefly.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token
