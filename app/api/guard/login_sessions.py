"""Window logins as sessions kept here: what the login cookie names, and when it ends.
Browsers send a 127.0.0.1 cookie to every local port, so its value is worth as little as
it can be: a random id whose hash only is kept, ending when idle, on Lock or on a restart
(docs/api.md)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

SESSIONS_FILE = "login-sessions.json"
SAVE_EVERY = 60.0
"""Seconds between writes of a remembered session's last-seen time: after a restart it may
look up to this much older than it was, which only ends it sooner."""


@dataclass
class _Session:
    last_seen: float
    remembered: bool = False
    saved_seen: float = 0.0
    """The last-seen time the sessions file holds (remembered sessions only)."""


def _digest(session_id: str) -> str:
    # The id is 256 random bits: a plain hash is as good as a slow one, and lets a lookup
    # be a dict access.
    return hashlib.sha256(session_id.encode()).hexdigest()


class LoginSessions:
    """The live window logins of this instance; safe to call from any thread."""

    def __init__(
        self, path: Path, *, idle_seconds: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = path
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions = self._load()

    def start(self) -> str:
        """A new session; its id is the cookie's value (and is kept nowhere here)."""
        session_id = secrets.token_urlsafe(32)
        now = self._clock()
        with self._lock:
            self._prune(now)
            self._sessions[_digest(session_id)] = _Session(last_seen=now)
        return session_id

    def check(self, session_id: str, *, activity: bool) -> bool:
        """Whether ``session_id`` names a live session; ``activity`` counts this as use."""
        now = self._clock()
        key = _digest(session_id)
        with self._lock:
            session = self._sessions.get(key)
            if session is None:
                return False
            if now - session.last_seen >= self.idle_seconds:
                del self._sessions[key]
                if session.remembered:
                    self._save()
                return False
            if activity:
                session.last_seen = now
                if session.remembered and now - session.saved_seen >= SAVE_EVERY:
                    self._save()
            return True

    def end(self, session_id: str) -> None:
        """End the session at once (Lock): its cookie opens nothing from now on."""
        with self._lock:
            session = self._sessions.pop(_digest(session_id), None)
            if session is not None and session.remembered:
                self._save()

    def remember(self, session_id: str, keep: bool) -> bool:
        """Keep (or stop keeping) a live session across restarts; False if there is none."""
        if not self.check(session_id, activity=True):
            return False
        with self._lock:
            session = self._sessions.get(_digest(session_id))
            if session is None:
                return False
            if session.remembered != keep:
                session.remembered = keep
                self._save()
        return True

    def is_remembered(self, session_id: str) -> bool:
        with self._lock:
            session = self._sessions.get(_digest(session_id))
            return session is not None and session.remembered

    def _prune(self, now: float) -> None:
        gone = [k for k, s in self._sessions.items() if now - s.last_seen >= self.idle_seconds]
        for key in gone:
            session = self._sessions.pop(key)
            if session.remembered:
                self._save()

    def _load(self) -> dict[str, _Session]:
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))["sessions"]
            entries = {str(k): float(v["last_seen"]) for k, v in saved.items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            log.warning("ignoring unreadable %s (nobody stays logged in): %s", self.path, error)
            return {}
        now = self._clock()
        return {
            key: _Session(last_seen=seen, remembered=True, saved_seen=seen)
            for key, seen in entries.items()
            if now - seen < self.idle_seconds
        }

    def _save(self) -> None:
        """Write the remembered sessions (hashes and last-seen times); the lock is held."""
        kept = {k: s for k, s in self._sessions.items() if s.remembered}
        body = {"sessions": {k: {"last_seen": s.last_seen} for k, s in kept.items()}}
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}")
        # Created 0600 from the start, then swapped in whole: never readable by others,
        # never half written.
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(body, handle)
        os.replace(temporary, self.path)
        for session in kept.values():
            session.saved_seen = session.last_seen
