"""Where a Docent instance keeps its files, private to their owner. Light (no pydantic):
`run.py token` and `run.py open` resolve the data dir with it in well under a second."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DATA_DIR_ENV = "DOCENT_DATA_DIR"
"""The variable Settings.data_dir reads (env prefix + field name); tests keep them in step."""

TOKEN_FILE = "api-token"
INSTANCE_FILE = "instance.json"


def default_data_dir() -> Path:
    """The platform's per-user data folder for Docent."""
    import platformdirs

    return Path(platformdirs.user_data_dir("docent"))


def resolve_data_dir(flag: Path | None, environ: Mapping[str, str] = os.environ) -> Path:
    """The data dir as Settings resolves it: the flag, the variable, else the default."""
    given = flag or (Path(environ[DATA_DIR_ENV]) if environ.get(DATA_DIR_ENV) else None)
    return (given or default_data_dir()).expanduser().resolve()


def make_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) if missing and make it readable by its owner only."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def make_private_file(path: Path) -> Path:
    """Create ``path`` empty with mode 0600 if missing (never readable by others, even
    briefly), else set 0600 on it. SQLite gives its -wal and -shm files the same mode."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        os.chmod(path, 0o600)
    return path


def open_data_dir(data_dir: Path, docs_dir: Path, *, local_index: bool = True) -> str:
    """Make the data dir ready (0700, its databases 0600) and return its API token; the
    documents folder is created if missing, and ``local_index`` False keeps no chroma/ here."""
    from app.token import load_or_create_token

    make_private_dir(data_dir)
    if local_index:
        make_private_dir(data_dir / "chroma")
    for database in ("docent.db", "sessions.db"):
        make_private_file(data_dir / database)
    docs_dir.mkdir(parents=True, exist_ok=True)
    return load_or_create_token(data_dir / TOKEN_FILE)
