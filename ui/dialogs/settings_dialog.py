"""The settings dialog: hosts, models, retrieval depth, folder, and the API token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nicegui import ui

from app.services.embedding_models import BUILT_IN_MODEL, EmbeddingModels, EmbeddingUnavailable
from app.services.model_catalog import ModelCatalog
from app.services.preferences import InvalidSetting, Preferences
from app.services.reranking import DownloadProgress, Reranking
from app.settings import EDITABLE


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


BUILT_IN = "minilm"
"""The embedding choice that means the in-process model (its weights ship with Docent); the
others are "<backend>:<model>", backend 'ollama' or 'openai'."""
SERVED_BY = {"ollama": "Ollama", "openai": "model server"}


SERVERS = {
    "ollama": "Ollama",
    "openai": "OpenAI-compatible (LM Studio, llama-server, vLLM, LocalAI, Jan)",
}
RESTART_NOTE = "Switching the model server takes effect when Docent restarts."


def embedding_options(
    backend: str, model: str, installed: list[str], server: str = "ollama"
) -> dict[str, str]:
    """The built-in model, the chat ``server``'s models (embedders first), the one in use."""
    names = sorted({*installed, *([model] if backend == server else [])})
    names.sort(key=lambda n: "embed" not in n)
    options = {BUILT_IN: f"{BUILT_IN_MODEL} (built in, works offline)"}
    options.update({f"{server}:{n}": f"{n} ({SERVED_BY[server]})" for n in names})
    if backend not in (BUILT_IN, server):
        options[f"{backend}:{model}"] = f"{model} ({SERVED_BY[backend]})"
    return options


def embedding_choice(value: str | None, model: str, server: str = "ollama") -> tuple[str, str]:
    """(embed_backend, embed_model) for a choice; a typed name is a model of the chat server."""
    if not value or value == BUILT_IN:
        return "minilm", model
    backend, _, name = value.partition(":")
    if backend in SERVED_BY and name:
        return backend, name
    return server, value


def chosen_embedding(backend: str, model: str) -> str:
    return BUILT_IN if backend == BUILT_IN else f"{backend}:{model}"


def _ask_for_the_server_chosen(fields: dict[str, Any], in_use: str, url: str | None) -> None:
    """Show only the chosen server's address field (OpenAI-compatible URL or Ollama host)."""
    if "llm_api" not in fields:
        return
    chosen: ui.select = fields["llm_api"][0]

    def show(server: str) -> None:
        by_url = server == "openai" or (server == in_use == "ollama" and bool(url))
        if "llm_url" in fields:
            fields["llm_url"][0].set_visibility(by_url)
        if "ollama_host" in fields:
            fields["ollama_host"][0].set_visibility(not by_url)

    show(str(chosen.value))
    chosen.on_value_change(lambda event: show(str(event.value)))


def _reranking_line(reranking: Reranking) -> None:
    """Reranking off said in a line, not a warning; it follows the download, Retry on failure."""
    with ui.row().classes("w-full items-center no-wrap gap-1"):
        line = ui.label(reranking.status()).classes("text-xs docent-muted flex-grow")
        line.mark("reranking-status")
        retry = ui.button("Retry", icon="refresh", on_click=reranking.retry)
        retry.props("flat dense no-caps size=sm").mark("reranking-retry")
        retry.set_visibility(reranking.progress.state == "failed")

    def follow(progress: DownloadProgress) -> None:
        if line.is_deleted:
            unsubscribe()
            return
        line.set_text(reranking.status())
        retry.set_visibility(progress.state == "failed")

    unsubscribe = reranking.subscribe(follow)


EMBED_HOST_LABELS = {
    "ollama": EDITABLE["embed_host"].label,
    "openai": "Embedding server URL (ends in /v1; blank: the chat model server)",
}


def _ask_for_the_embedding_server(fields: dict[str, Any], server: str) -> None:
    """The embedding server's address, named for it, only for a model a server runs."""
    if "embed_host" not in fields or "embed_model" not in fields:
        return
    host, chosen = fields["embed_host"][0], fields["embed_model"][0]
    restart = " (after restart)" if "(after restart)" in str(host.props.get("label")) else ""

    def show(value: str | None) -> None:
        backend, _ = embedding_choice(value, "", server)
        host.set_visibility(backend != BUILT_IN)
        if backend in EMBED_HOST_LABELS:
            host.props["label"] = EMBED_HOST_LABELS[backend] + restart
            host.update()

    show(chosen.value)
    chosen.on_value_change(lambda event: show(event.value))


def show_settings(
    preferences: Preferences,
    models: ModelCatalog,
    token: str,
    base_url: str,
    embedding: EmbeddingModels | None = None,
    reranking: Reranking | None = None,
) -> None:
    """Open the settings dialog; saving applies what can change live and says the rest."""
    fields: dict[str, Any] = {}
    settings = preferences.settings
    with ui.dialog() as dialog, ui.card().classes("w-full max-w-xl gap-2").mark("settings-dialog"):
        with ui.row().classes("w-full items-center justify-between no-wrap"):
            ui.label("Settings").classes("text-lg font-semibold")
            ui.button(icon="close", on_click=dialog.close).props(
                'flat round dense aria-label="Close"'
            )
        for name, value, description in preferences.fields():
            if name == "embed_backend":
                continue  # one choice with the model: built in, or a server's model
            label = EDITABLE[name].label
            if not preferences.is_live(name):
                label += " (after restart)"
            if isinstance(value, bool):
                element: Any = ui.switch(label, value=value)
            elif isinstance(value, int):
                element = ui.number(label, value=value, min=1, precision=0).props("outlined dense")
            elif name == "llm_api":
                element = ui.select(SERVERS, value=value, label=label).props("outlined dense")
                description = f"{description} {RESTART_NOTE}"
            elif name == "embed_model":
                backend = settings.models.embed_backend
                names = [m.name for m in [*models.embedding, *models.chat]]
                choices = embedding_options(backend, str(value), names, settings.models.llm_api)
                chosen = chosen_embedding(backend, str(value))
                element = ui.select(choices, value=chosen, label=label, new_value_mode="add-unique")
                element.props("outlined dense")
                description = (
                    "Changing it rebuilds the index in the background; the current one answers "
                    "until the new one is complete."
                )
                value = chosen
            elif name == "chat_model" and models.chat:
                # Only models that answer: an embedding model can't be a chat model.
                options = sorted({*(m.name for m in models.chat), str(value)})
                element = ui.select(options, value=str(value), label=label, new_value_mode="add")
                element.props("outlined dense")
            else:
                shown = "" if value is None else str(value)
                element = ui.input(label, value=shown).props("outlined dense")
            element.classes("w-full").tooltip(description).mark(f"setting-{name}")
            fields[name] = (element, value)
            if name == "llm_url":
                ui.label(RESTART_NOTE).classes("text-xs docent-muted").mark("server-note")
            if name == "rerank_download" and reranking is not None:
                _reranking_line(reranking)
        _ask_for_the_server_chosen(fields, settings.models.llm_api, settings.models.llm_url)
        _ask_for_the_embedding_server(fields, settings.models.llm_api)
        message = ui.label("").classes("text-sm").mark("settings-message")
        with ui.row().classes("w-full justify-end"):
            save = ui.button("Save", icon="check").props("unelevated").mark("settings-save")

        with ui.expansion("API token and other tools", icon="key").classes("w-full"):
            with ui.row().classes("w-full items-center no-wrap gap-1"):
                ui.label(token).classes("font-mono text-xs break-all select-all").mark("api-token")
                copy = ui.button(icon="content_copy")
                copy.props('flat round dense aria-label="Copy the token"')
                copy.on("click", js_handler=f"() => docent.copy('{token}')")
                copy.tooltip("Copy the token").mark("copy-token")
            ui.markdown(guide(base_url, token)).classes("text-sm w-full").mark("tools-guide")

        def changed() -> dict[str, Any]:
            now = preferences.settings
            out: dict[str, Any] = {}
            for name, (element, old) in fields.items():
                new = element.value
                if name == "embed_model":
                    if new != old:
                        backend, model = embedding_choice(
                            new, now.models.embed_model, now.models.llm_api
                        )
                        out.update(embed_backend=backend, embed_model=model)
                    continue
                if isinstance(old, int) and not isinstance(old, bool) and new is not None:
                    new = int(new)
                if isinstance(old, Path):
                    new = Path(new).expanduser() if new else old
                if name.endswith(("_host", "_url")) and new == "":
                    new = None
                if new != old:
                    out[name] = new
            if out.get("llm_api") == "ollama" and now.models.llm_url:
                out["llm_url"] = None  # an OpenAI-compatible URL is no Ollama address
            return out

        def say(text: str, ok: bool = True) -> None:
            message.set_text(text)
            message.classes(replace="text-sm " + ("text-positive" if ok else "text-negative"))

        def remember() -> None:
            now = preferences.settings  # the snapshot the save made
            for name, (element, _) in fields.items():
                if name == "embed_model":
                    chosen = chosen_embedding(now.models.embed_backend, now.models.embed_model)
                    fields[name] = (element, chosen)
                else:
                    fields[name] = (element, now.value(name))

        async def save_clicked() -> None:
            before = embedding.pending if embedding is not None else None
            try:
                restart = preferences.update(changed())
            except InvalidSetting as error:
                say(str(error), ok=False)
                return
            said = "Saved."
            if restart:
                names = ", ".join(EDITABLE[n].label for n in restart)
                said = f"Saved. {names}: restart Docent to apply."
            say(said)
            pending = embedding.pending if embedding is not None else None
            if pending is not None and pending is not before:
                say("Loading the embedding model…" if not restart else f"{said} Loading…")
                try:
                    outcome = await pending
                except EmbeddingUnavailable as error:
                    say(str(error), ok=False)
                else:
                    say(f"{said} {outcome}")
            remember()

        save.on_click(save_clicked)
    dialog.open()
