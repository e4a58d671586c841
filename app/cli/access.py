"""`run.py token` and `run.py open`: how a person gets into the Docent they run. Both read
the data dir and create nothing; neither imports pydantic or the app."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

from app.instance import base_url, open_in_browser, read_instance
from app.paths import TOKEN_FILE, resolve_data_dir
from app.token import NoToken, read_token


def print_token(data_dir_flag: Path | None) -> int:
    """Print the API token of the data dir (stdout) and say which data dir that is (stderr)."""
    data_dir = resolve_data_dir(data_dir_flag)
    try:
        token = read_token(data_dir / TOKEN_FILE)
    except NoToken as error:
        print(error, file=sys.stderr)
        return 1
    print(f"API token of data dir {data_dir}:", file=sys.stderr)
    print(token)
    return 0


def open_login(
    data_dir_flag: Path | None, *, host: str | None, port: int | None, browser: bool
) -> int:
    """Ask the running instance for a fresh login link; print it and open it."""
    data_dir = resolve_data_dir(data_dir_flag)
    try:
        token = read_token(data_dir / TOKEN_FILE)
    except NoToken as error:
        print(error, file=sys.stderr)
        return 1
    instance = read_instance(data_dir)
    if host is not None or port is not None:
        url = base_url(host or "127.0.0.1", port or 8080)
    elif instance is not None:
        url = instance.url
    else:
        print(
            f"Docent is not running with data dir {data_dir}. Start it with "
            f"`uv run run.py{_data_dir_flag(data_dir_flag)}`; it opens the window for you.",
            file=sys.stderr,
        )
        return 1
    request = urllib.request.Request(
        f"{url}/api/login-link", method="POST", headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            link = json.load(response)["url"]
    except urllib.error.HTTPError as error:
        if error.code == 401:
            print(
                f"The Docent at {url} does not take the token of data dir {data_dir}: it "
                "runs with another data dir. Pass that one with --data-dir.",
                file=sys.stderr,
            )
        else:
            print(f"The Docent at {url} answered {error.code}: {error.read()!r}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError):
        print(
            f"No Docent answers at {url}. Start it with "
            f"`uv run run.py{_data_dir_flag(data_dir_flag)}`.",
            file=sys.stderr,
        )
        return 1
    print(link)
    opened = browser and open_in_browser(link)
    print(
        "Opened it in your browser. " if opened else "Open it in your browser: ",
        "it works once, for a few minutes.",
        sep="",
        file=sys.stderr,
    )
    return 0


def _data_dir_flag(flag: Path | None) -> str:
    return f" --data-dir {flag}" if flag else ""
