"""This browser's login, in the header: keep it across restarts, or Lock it now.

The cookie is HttpOnly, so after a change the page asks the app to set it again
(``COOKIE_PATH``); the browser keeps it across restarts only when remembered.
"""

from __future__ import annotations

import json

from nicegui import ui

from app.api.guard.guard import Access
from app.api.guard.login import COOKIE_PATH

LOCKED_RELOAD = "location.reload()"
"""After Lock the page reloads, and the guard answers with the page that asks for a link."""


class LoginMenu:
    """The header's login button and its menu, for the page's own login session."""

    def __init__(self, access: Access) -> None:
        self.access = access
        request = ui.context.client.request
        self.session_id = access.window_login(request.headers, request.url.scheme) or ""
        """What the page's cookie names; "" (no cookie) names no session."""
        hours = access.sessions.idle_seconds / 3600
        button = ui.button(icon="lock_open").props('flat round aria-label="This browser\'s login"')
        button.mark("login-menu")
        button.tooltip("This browser's login")
        with button, ui.menu().classes("max-w-xs"):
            self.keep = ui.switch(
                "Keep this browser logged in after restarts",
                value=access.sessions.is_remembered(self.session_id),
                on_change=lambda e: self.remember(bool(e.value)),
            ).classes("px-3 pt-2")
            self.keep.mark("keep-login")
            ui.label(
                f"A login ends after {hours:g} hours without use, and when you lock it."
            ).classes("text-xs docent-muted px-3 pb-2")
            ui.separator()
            ui.menu_item("Lock (log this browser out)", on_click=self.lock).mark("lock")

    def remember(self, keep: bool) -> None:
        if not self.access.sessions.remember(self.session_id, keep):
            ui.notify("This browser's login has ended; open a new login link.", type="warning")
            ui.run_javascript(LOCKED_RELOAD)
            return
        ui.run_javascript(f"fetch({json.dumps(COOKIE_PATH)}, {{method: 'POST'}})")
        if keep:
            ui.notify("This browser stays logged in when Docent restarts.")
        else:
            ui.notify("This browser's login ends when Docent restarts.")

    def lock(self) -> None:
        """End the login here and now: its cookie opens nothing any more, in any tab."""
        self.access.sessions.end(self.session_id)
        ui.run_javascript(LOCKED_RELOAD)
