"""`run.py status` in about a second: it reads the registry directly (SQLite, safe while the
app runs) and asks the model server with the standard library, never loading Chroma, the
graph, numpy or httpx (together seconds of imports), and never creates a data dir."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

from app.instance import Instance, read_instance
from app.paths import TOKEN_FILE
from app.services.status import StatusService
from app.settings import Settings
from app.token import NoToken, read_token
from ingest.disk import short_of_room
from ingest.document_parts import DocStatus
from ingest.index.registry import Registry
from models import openai_words as words
from models.protocols import Health

REGISTRY_FILE = "docent.db"
MINILM_NAME = "all-MiniLM-L6-v2"
"""models.embeddings.MODEL_NAME, without importing numpy for it (a test keeps them equal)."""
PROBE_SECONDS = 5.0
"""models.llm.HEALTH_TIMEOUT (a test keeps the two probes' answers equal)."""


def embed_model_label(settings: Settings) -> str:
    if settings.models.embed_backend == "ollama":
        return f"{settings.models.embed_model} (Ollama at {settings.models.embed_ollama_host})"
    if settings.models.embed_backend == "openai":
        return f"{settings.models.embed_model} (model server at {settings.models.embed_url})"
    return MINILM_NAME


def probe_ollama(host: str, model: str) -> Health:
    """What OllamaChat.health says, from one GET /api/tags with the standard library."""
    try:
        with urllib.request.urlopen(f"{host}/api/tags", timeout=PROBE_SECONDS) as response:
            listing = json.load(response)
        models = [m.get("model") or m.get("name") for m in listing.get("models", [])]
    except urllib.error.HTTPError as error:
        refused = f"Ollama at {host} answered with an error (HTTP {error.code})."
        return Health(reachable=True, host=host, error=refused)
    except TimeoutError:
        slow = f"Ollama at {host} did not answer within {PROBE_SECONDS:g} seconds."
        return Health(reachable=False, host=host, error=slow)
    except (urllib.error.URLError, ConnectionError):
        down = f"Ollama is not running at {host}. Start it with `ollama serve`."
        return Health(reachable=False, host=host, error=down)
    except (ValueError, AttributeError, OSError) as exc:
        other = f"Something answered at {host}, but not like Ollama: {exc}"
        return Health(reachable=False, host=host, error=other)
    names = [name for name in models if isinstance(name, str) and name]
    if any(_with_tag(name) == _with_tag(model) for name in names):
        return Health(reachable=True, host=host, models=names)
    missing = (
        f"The model '{model}' is not installed in Ollama at {host}. "
        f"Install it with `ollama pull {model}`."
    )
    return Health(reachable=True, host=host, models=names, error=missing)


def probe_chat_server(settings: Settings) -> Health:
    """What the configured chat model server's adapter would say of its health."""
    if settings.models.llm_api == "openai":
        return probe_openai(
            settings.models.chat_url, settings.models.chat_model, settings.models.llm_api_key
        )
    return probe_ollama(settings.models.chat_url, settings.models.chat_model)


def probe_openai(url: str, model: str, api_key: str | None = None) -> Health:
    """What OpenAIChat.health says, from one GET /models with the standard library."""
    request = urllib.request.Request(f"{url}/models")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=PROBE_SECONDS) as response:
            models = [str(card["id"]) for card in json.load(response)["data"]]
    except urllib.error.HTTPError as error:
        text = error.read().decode("utf-8", "replace")
        return _openai(True, url, error=words.refusal(error.code, text, url, "/models"))
    except TimeoutError:
        return _openai(False, url, error=words.too_slow(url, PROBE_SECONDS))
    except (urllib.error.URLError, ConnectionError):
        return _openai(False, url, error=words.server_down(url))
    except (ValueError, KeyError, TypeError, OSError) as exc:
        return _openai(False, url, error=words.not_openai(url, exc))
    if any(_with_tag(name) == _with_tag(model) for name in models):
        return _openai(True, url, models)
    return _openai(True, url, models, error=words.model_not_loaded(url, model, models))


def health_from_app(running: Instance, settings: Settings) -> Health | None:
    """The model server's health as the running app last saw it (``/api/status``), or None
    when the app doesn't answer so."""
    try:
        token = read_token(settings.paths.data_dir / TOKEN_FILE)
    except NoToken:
        return None
    request = urllib.request.Request(f"{running.url}/api/status")
    request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=PROBE_SECONDS) as response:
            server = json.load(response)["model_server"]
        return Health(
            bool(server["reachable"]),
            str(server["host"]),
            [str(m) for m in server["models"]],
            server.get("error"),
            api="openai" if server.get("api") == "openai" else "ollama",
        )
    except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError):
        return None


def _openai(
    reachable: bool, url: str, models: list[str] | None = None, *, error: str | None = None
) -> Health:
    return Health(reachable, url, models or [], error, api="openai")


def _with_tag(name: str) -> str:
    # As models.llm.same_model: `llama3.2` is `llama3.2:latest`.
    name = name.strip().lower()
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def status(settings: Settings, *, check: bool = False) -> int:
    """Print what Docent knows and whether answers can be written; exits 0. With ``check``,
    also compare the folder, the registry and every index (this loads the store); exit 1
    and say what differs when they disagree."""
    print(f"Data dir: {settings.paths.data_dir}")
    running = read_instance(settings.paths.data_dir) if settings.paths.data_dir.is_dir() else None
    print(f"Docent: running at {running.url}" if running else "Docent: not running")
    print(f"Documents folder: {settings.paths.docs_dir}")
    registry_path = settings.paths.data_dir / REGISTRY_FILE
    if registry_path.is_file():
        registry = Registry(registry_path)
        try:
            index = _service(settings, registry).index()
        finally:
            registry.close()
        for state in DocStatus:
            print(f"  {state.value:9} {index.by_status.get(state, 0)}")
        print(f"Chunks: {index.chunks}")
        if index.disk_full:
            print(f"Indexing waits: {index.disk_full}")
    else:
        print("  nothing indexed yet: Docent has not run with this data dir")
    print(f"Embedding model: {embed_model_label(settings)}")
    print(f"Chat model: {settings.models.chat_model}")
    # A running Docent knows its server's health without asking it: asking from here could
    # cut the answer it is streaming (llama-cpp-python's server cancels one on any request).
    health = (running and health_from_app(running, settings)) or probe_chat_server(settings)
    server = "Ollama" if health.api == "ollama" else "Model server (OpenAI API)"
    if not health.reachable:
        print(f"{server}: not reachable at {health.host}")
    else:
        models = ", ".join(health.models) or "none"
        print(f"{server}: reachable at {health.host}; models: {models}")
    if health.error:
        print(f"Warning: {health.error} Until then, answers show the most relevant passages only.")
    if check:
        from app.cli.commands import check as check_consistency

        return asyncio.run(check_consistency(settings))
    return 0


def _service(settings: Settings, registry: Registry) -> StatusService:
    """The StatusService of /api/status, asking the model server with the standard library."""

    async def health() -> Health:
        return await asyncio.to_thread(probe_chat_server, settings)

    return StatusService(
        registry,
        health,
        chat_model=lambda: settings.models.chat_model,
        embed_model=lambda: embed_model_label(settings),
        disk_full=lambda: short_of_room(settings.paths.data_dir),
    )
