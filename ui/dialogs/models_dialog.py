"""The model picker's "Pull a model": Ollama's download, with a progress bar."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from nicegui import ui

from app.services.model_catalog import PullMeter
from app.services.preferences import ChatModels

SUGGESTED = ("llama3.2", "qwen2.5:7b", "mistral", "gemma3")


def show_pull(
    models: ChatModels,
    name: str = "",
    on_done: Callable[[str], Awaitable[None]] | None = None,
) -> None:
    """Open the pull dialog pre-filled with ``name``; ``on_done(name)`` once it is there."""
    with ui.dialog() as dialog, ui.card().classes("w-full max-w-md gap-3").mark("pull-dialog"):
        ui.label("Pull a model").classes("text-lg font-semibold")
        ui.label("Ollama downloads it once; after that it works offline.").classes(
            "text-sm docent-muted"
        )
        box = ui.input("Model name", value=name, autocomplete=list(SUGGESTED))
        box.props("outlined dense autofocus").classes("w-full").mark("pull-name")
        status = ui.label("").classes("text-sm").mark("pull-status")
        meter = ui.label("").classes("text-xs docent-muted").mark("pull-meter")
        bar = ui.linear_progress(value=0, show_value=False).props("rounded size=10px")
        bar.mark("pull-progress")
        bar.set_visibility(False)
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button("Close", on_click=dialog.close).props("flat")
            go = ui.button("Pull", icon="download").props("unelevated").mark("pull-start")

        async def pull() -> None:
            model = (box.value or "").strip()
            if not model:
                status.set_text("Type a model name, such as llama3.2.")
                return
            if not go.enabled:
                return  # Enter during a pull: it is under way already
            go.disable()
            bar.set_visibility(True)
            status.classes(remove="text-negative")
            counted = PullMeter()
            try:
                async for step in models.pull(model):
                    fraction = step.fraction
                    text = step.status
                    if fraction is not None:
                        bar.set_value(fraction)
                        text += f" — {fraction:.0%}"
                    status.set_text(text)
                    line = counted.step(step.status, step.completed, step.total, time.monotonic())
                    if line:
                        meter.set_text(line)
                bar.set_value(1.0)
                status.set_text(f"{model} is ready.")
                if on_done is not None:
                    await on_done(model)
            except Exception as error:  # Ollama's refusal, said as it said it
                status.set_text(str(error))
                status.classes("text-negative")
            finally:
                go.enable()

        go.on_click(pull)
        box.on("keydown.enter", pull)
    dialog.open()
