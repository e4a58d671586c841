"""The header's chat model menu: the server's models, the one that answers, Pull."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.services.model_catalog import ModelCatalog, details, is_current, named
from app.services.preferences import ChatModels


class ModelMenu:
    """The chat model's button and its menu; picking a model makes it answer."""

    def __init__(self, models: ChatModels, on_pull: Callable[[str], Any]) -> None:
        self.models = models
        self.on_pull = on_pull
        self.catalog: ModelCatalog | None = None
        """The server's models as last asked: chat and embedding models apart."""
        self.button = (
            ui.button(models.current, icon="memory")
            .props("flat no-caps dense")
            .classes("docent-model")
            .mark("model")
        )
        self.button.tooltip("Chat model")
        with self.button:
            self.menu = ui.menu().mark("model-menu")
        self.menu.on("before-show", self.refresh)
        self.fill()
        ui.timer(0, self.refresh, once=True)

    def fill(self, found: ModelCatalog | None = None) -> None:
        """Chat models, then embedding models apart; until ``found``, the last health check's."""
        models = self.models
        self.button.set_text(models.current)
        shown = found or named(models.installed)
        self.menu.clear()
        with self.menu:
            if not shown.chat and not shown.embedding:
                ui.menu_item(f"No models listed (is {models.server} running?)").props("disable")
            for model in shown.chat:
                chosen = is_current(model.name, models.current)
                with ui.menu_item(on_click=lambda n=model.name: self.choose(n)) as item:
                    item.mark(f"model-option model-{model.name}")
                    with ui.item_section():
                        ui.item_label(("✓ " if chosen else "   ") + model.name)
                        if details(model):
                            ui.item_label(details(model)).props("caption").mark("model-details")
            if shown.embedding:
                ui.separator()
                ui.item_label("Embedding models: for search, chosen in Settings").props(
                    "header"
                ).classes("text-xs")
                for model in shown.embedding:
                    with ui.menu_item().props("disable") as item:
                        item.mark(f"embed-option embed-{model.name}")
                        with ui.item_section():
                            ui.item_label(model.name)
                            if details(model):
                                ui.item_label(details(model)).props("caption")
            if models.can_pull:
                ui.separator()
                ui.menu_item("Pull a model…", on_click=lambda: self.on_pull("")).mark("pull-model")

    async def refresh(self) -> None:
        """Ask the server for its models' sizes and capabilities, and redraw the menu."""
        found = await self.models.catalog()
        self.catalog = found
        if not self.menu.is_deleted:
            self.fill(found)

    def choose(self, name: str) -> None:
        self.models.choose(name)
        self.button.set_text(name)
        ui.notify(f"Answers now come from {name}.")

    def known(self) -> ModelCatalog:
        """The server's models as last asked, else the names of the last health check."""
        return self.catalog or named(self.models.installed)
