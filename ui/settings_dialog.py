"""The settings dialog: hosts, models, retrieval depth, folder, and the API token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nicegui import ui

from app.preferences import InvalidSetting, Preferences

LABELS = {
    "ollama_host": "Ollama host",
    "embed_host": "Ollama host for embeddings",
    "chat_model": "Chat model",
    "embed_model": "Embedding model",
    "top_k": "Passages per answer (top-k)",
    "rerank_candidates": "Rerank depth (passages the reranker reorders)",
    "suggestions": "Suggest follow-up questions",
    "docs": "Documents folder",
}


def guide(base_url: str, token: str) -> str:
    """'Use Docent from other tools': curl, the OpenAI client, MCP."""
    return f"""
**curl**

```bash
curl -N -H "Authorization: Bearer {token}" -H 'Content-Type: application/json' \\
     -d '{{"message": "What does the report say about costs?"}}' {base_url}/api/chat
```

**OpenAI client** (any tool that speaks the OpenAI API)

```python
from openai import OpenAI
client = OpenAI(base_url="{base_url}/v1", api_key="{token}")
reply = client.chat.completions.create(
    model="docent", messages=[{{"role": "user", "content": "Summarise @\\"report.pdf\\""}}])
```

**MCP** (Claude Desktop, editors): streamable HTTP at `{base_url}/mcp` with the same
bearer token, or over stdio with `uv run run.py mcp`.
"""


def show_settings(preferences: Preferences, models: list[str], token: str, base_url: str) -> None:
    """Open the settings dialog; saving applies what can change live and says the rest."""
    fields: dict[str, Any] = {}
    with ui.dialog() as dialog, ui.card().classes("w-full max-w-xl gap-2").mark("settings-dialog"):
        with ui.row().classes("w-full items-center justify-between no-wrap"):
            ui.label("Settings").classes("text-lg font-semibold")
            ui.button(icon="close", on_click=dialog.close).props("flat round dense")
        for name, value, description in preferences.fields():
            label = LABELS.get(name, name)
            if not preferences.is_live(name):
                label += " (after restart)"
            if isinstance(value, bool):
                element: Any = ui.switch(label, value=value)
            elif isinstance(value, int):
                element = ui.number(label, value=value, min=1, precision=0).props("outlined dense")
            elif name == "chat_model" and models:
                options = sorted({*models, str(value)})
                element = ui.select(options, value=str(value), label=label, new_value_mode="add")
                element.props("outlined dense")
            else:
                shown = "" if value is None else str(value)
                element = ui.input(label, value=shown).props("outlined dense")
            element.classes("w-full").tooltip(description).mark(f"setting-{name}")
            fields[name] = (element, value)
        message = ui.label("").classes("text-sm").mark("settings-message")
        with ui.row().classes("w-full justify-end"):
            save = ui.button("Save", icon="check").props("unelevated").mark("settings-save")

        with ui.expansion("API token and other tools", icon="key").classes("w-full"):
            with ui.row().classes("w-full items-center no-wrap gap-1"):
                ui.label(token).classes("font-mono text-xs break-all select-all").mark("api-token")
                copy = ui.button(icon="content_copy").props("flat round dense")
                copy.on("click", js_handler=f"() => docent.copy('{token}')")
                copy.tooltip("Copy the token").mark("copy-token")
            ui.markdown(guide(base_url, token)).classes("text-sm w-full").mark("tools-guide")

        def changed() -> dict[str, Any]:
            out = {}
            for name, (element, old) in fields.items():
                new = element.value
                if isinstance(old, int) and not isinstance(old, bool) and new is not None:
                    new = int(new)
                if isinstance(old, Path):
                    new = Path(new).expanduser() if new else old
                if name.endswith("_host") and new == "":
                    new = None
                if new != old:
                    out[name] = new
            return out

        def save_clicked() -> None:
            try:
                restart = preferences.update(changed())
            except InvalidSetting as error:
                message.set_text(str(error))
                message.classes(replace="text-sm text-negative")
                return
            if restart:
                names = ", ".join(LABELS.get(n, n) for n in restart)
                message.set_text(f"Saved. {names}: restart Docent to apply.")
            else:
                message.set_text("Saved.")
            message.classes(replace="text-sm text-positive")
            for name, (element, _) in fields.items():
                fields[name] = (element, getattr(preferences.settings, name, element.value))

        save.on_click(save_clicked)
    dialog.open()
