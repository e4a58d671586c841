"""Window login the way Jupyter does it: a one-time link (each start, each `run.py open`)
becomes an HttpOnly cookie naming a login session, then redirects to the clean URL."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from html import escape

LOGIN_PATH = "/login"
LOGIN_QUERY = "key"
COOKIE_PATH = "/login/cookie"
"""POST here (with the login cookie) sets the cookie again as the session now is: kept by
the browser across restarts if the session is remembered, else for this browser run."""
LINK_SECONDS = 10 * 60
"""How long a login link works if nobody opens it; `run.py open` makes a fresh one."""
REMEMBERED_SECONDS = 400 * 24 * 3600
"""Max-Age of a remembered login's cookie (browsers cap it at 400 days): the browser keeps
it across its restarts, and the session's idle expiry, kept here, still ends it."""
OPEN_COMMAND = "uv run run.py open"


class LoginLinks:
    """This run's one-time login secrets."""

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._pending: dict[str, float] = {}

    def issue(self, base_url: str) -> str:
        """A fresh login link under ``base_url`` (e.g. ``http://127.0.0.1:8080``)."""
        now = self._clock()
        self._pending = {s: t for s, t in self._pending.items() if t > now}
        secret = secrets.token_urlsafe(32)
        self._pending[secret] = now + LINK_SECONDS
        return f"{base_url.rstrip('/')}{LOGIN_PATH}?{LOGIN_QUERY}={secret}"

    def redeem(self, secret: str) -> bool:
        """True once per issued secret, within its lifetime."""
        expires = self._pending.pop(secret, None)
        return expires is not None and expires > self._clock()


def cookie_name(port: int) -> str:
    # Browsers share cookies between ports of one host: name ours after the port so two
    # instances (or another app on localhost) don't overwrite each other's.
    return f"docent-{port}"


def set_cookie_header(name: str, value: str, *, remembered: bool) -> str:
    """The login cookie: without Max-Age (gone with the browser) unless remembered."""
    max_age = f"Max-Age={REMEMBERED_SECONDS}; " if remembered else ""
    return f"{name}={value}; {max_age}Path=/; HttpOnly; SameSite=Strict"


def _page(title: str, body: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>body{{font-family:system-ui,sans-serif;"
        "max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1e293b}"
        "code{background:#f1f5f9;padding:.1em .3em;border-radius:4px}</style></head>"
        f"<body><h1>{escape(title)}</h1>{body}</body></html>"
    )


LOCKED_PAGE = _page(
    "Docent needs a login link",
    "<p>This window only opens with the login link Docent gives its owner. Docent opened "
    "one in your browser when it started (and printed one with <code>--no-browser</code>). "
    "A login ends when the window is locked, after a while without use, and when Docent "
    "restarts (unless this browser was kept logged in).</p><p>For a fresh link, run this "
    "in a terminal, in the folder you start Docent from:"
    f"</p><p><code>{OPEN_COMMAND}</code></p><p>Add the <code>--data-dir</code> you started "
    "Docent with, if any.</p>",
)

LINK_REFUSED_PAGE = _page(
    "This login link no longer works",
    "<p>Each login link works once and only for a few minutes. Get a fresh one with "
    f"<code>{OPEN_COMMAND}</code> in a terminal.</p>",
)
