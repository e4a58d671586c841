"""Docent's entry point: `uv run run.py [serve|ingest|status|ask|token|open] [flags]`; the
one place that knows both app/ and ui/, it hands the window to the command line."""

import time

STARTED = time.perf_counter()  # before any import: the start of the startup breakdown

import sys  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

# httpx imports its own command-line client (rich, pygments) when they are installed, as
# they are here for other packages; Docent never runs it, and /api/status waits for the
# import of httpx. A None entry makes that import fail, and httpx then skips it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

from app.cli.main import main  # noqa: E402

if TYPE_CHECKING:
    from app.settings import Settings
    from ingest.pipeline.lock import IndexLock


def serve(settings: "Settings", lock: "IndexLock") -> int:
    # Imported here so that `token`, `status` and the rest don't load NiceGUI.
    from ui.window import serve as serve_window

    return serve_window(settings, lock, started=STARTED)


if __name__ == "__main__":
    sys.exit(main(serve=serve))
