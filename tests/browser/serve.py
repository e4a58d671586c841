"""Serve the real window for the browser test: `python -m tests.browser.serve PORT DATA URL
[minilm [openai]]`.

What `run.py` starts (the guarded window and API, the login link, the services built
behind the socket), pointed at the fake Ollama server the test runs. The login link is
printed as `run.py` prints it; the test opens it as a person would. With `minilm` the
library is indexed as a user's is by default: the real MiniLM embedder (its weights ship in
a package) and the default chunking, so what is retrieved is what a user would get. With
`openai`, URL is an OpenAI-compatible server's base (`--llm-api openai --llm-url URL`), as
LM Studio's would be.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.cli.main import lock_data_dir
from app.settings import Settings
from ui.window import serve

OPENAI_MODEL = "qwen2.5-7b-instruct"
"""The model the fake OpenAI-compatible server has loaded (tests.fakes.openai_server)."""


def main(port: int, data_dir: Path, ollama: str, embed: str = "ollama", api: str = "") -> int:
    common = {"port": port, "data_dir": data_dir, "ollama_host": ollama, "open_browser": False}
    if api == "openai":
        settings = Settings(
            **common,
            llm_api="openai",
            llm_url=ollama,
            chat_model=OPENAI_MODEL,
            embed_backend="minilm",
        )
    elif embed == "minilm":
        settings = Settings(**common, chat_model="llama3.2", embed_backend="minilm")
    else:  # the fake server embeds: no model on disk, paced by the test
        settings = Settings(
            **common, chat_model="llama3.2", embed_backend="ollama", chunk_size=300, chunk_overlap=0
        )
    lock = lock_data_dir(settings)
    if lock is None:
        return 1
    return serve(settings, lock)


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), Path(sys.argv[2]), *sys.argv[3:]))
