"""Window login the way Jupyter does it: a one-time link becomes an HttpOnly cookie.

Each start (and each `run.py open`) issues a link carrying a one-time secret. Opening it
sets a cookie signed with the API token and redirects to the clean URL. Signing with the
token keeps a window logged in across restarts, and a new token (delete ``api-token``)
logs every window out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from html import escape

LOGIN_PATH = "/login"
LOGIN_QUERY = "key"
LINK_SECONDS = 10 * 60
"""How long a login link works if nobody opens it; `run.py open` makes a fresh one."""
COOKIE_SECONDS = 30 * 24 * 3600
OPEN_COMMAND = "uv run run.py open"


class LoginLinks:
    """This run's one-time login secrets, and the session cookies they turn into."""

    def __init__(self, token: str, *, clock: Callable[[], float] = time.time) -> None:
        self._key = hashlib.sha256(b"docent window cookie\0" + token.encode()).digest()
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

    def new_cookie(self) -> str:
        issued = str(int(self._clock()))
        nonce = secrets.token_urlsafe(16)
        return f"{issued}.{nonce}.{self._sign(issued, nonce)}"

    def valid_cookie(self, value: str) -> bool:
        issued, _, rest = value.partition(".")
        nonce, _, signature = rest.partition(".")
        if not (issued.isdigit() and nonce and signature):
            return False
        if not hmac.compare_digest(signature, self._sign(issued, nonce)):
            return False
        return self._clock() - int(issued) < COOKIE_SECONDS

    def _sign(self, issued: str, nonce: str) -> str:
        return hmac.new(self._key, f"{issued}.{nonce}".encode(), hashlib.sha256).hexdigest()


def cookie_name(port: int) -> str:
    # Browsers share cookies between ports of one host: name ours after the port so two
    # instances (or another app on localhost) don't overwrite each other's.
    return f"docent-{port}"


def set_cookie_header(name: str, value: str) -> str:
    return f"{name}={value}; Max-Age={COOKIE_SECONDS}; Path=/; HttpOnly; SameSite=Strict"


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
    "one in your browser when it started (and printed one with <code>--no-browser</code>)."
    "</p><p>For a fresh link, run this in a terminal, in the folder you start Docent from:"
    f"</p><p><code>{OPEN_COMMAND}</code></p><p>Add the <code>--data-dir</code> you started "
    "Docent with, if any.</p>",
)

LINK_REFUSED_PAGE = _page(
    "This login link no longer works",
    "<p>Each login link works once and only for a few minutes. Get a fresh one with "
    f"<code>{OPEN_COMMAND}</code> in a terminal.</p>",
)
