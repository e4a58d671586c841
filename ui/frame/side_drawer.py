"""The sidebar (chats and library): beside the conversation, or over it on a narrow window."""

from __future__ import annotations

import asyncio
import contextlib

from nicegui import ui

NARROW_PX = 1024
"""Below this width the drawer covers the conversation, so it closes after a pick."""


class SideDrawer:
    """The left drawer, and whether it covers the conversation."""

    def __init__(self) -> None:
        self.narrow = False
        self.element = ui.left_drawer(value=None).props(f"breakpoint={NARROW_PX} bordered")
        self.element.classes("p-3 gap-0 column no-wrap")
        self._known = asyncio.Event()
        self.element.on_value_change(self._answered)

    def _answered(self) -> None:
        if self.element.value is not None:
            self._known.set()

    async def settled(self) -> None:
        """Return once the browser has told the drawer's state (None until it connects).

        A show or hide set before that answer would be undone by it (Ctrl+K pressed as the
        page loads opened the sidebar and shut it again)."""
        if self.element.value is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._known.wait(), timeout=5)

    async def toggle(self) -> None:
        await self.settled()
        self.element.toggle()

    async def show(self) -> None:
        await self.settled()
        self.element.show()

    def covers(self) -> bool:
        """Whether it is open over the conversation (a narrow window)."""
        return self.narrow and bool(self.element.value)

    def picked(self) -> None:
        """Something was picked: on a narrow window the conversation shows again."""
        if self.narrow:
            self.element.hide()
