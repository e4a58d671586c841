"""Docent's entry point: `uv run run.py [serve|ingest|status|ask|token] [flags]`.

The one place that knows both app/ and ui/: it hands the window to the command line.
"""

import sys

from app.cli import main
from app.settings import Settings


def serve(settings: Settings) -> None:
    # Imported here so that `token`, `status` and the rest don't load NiceGUI.
    from ui.window import serve as serve_window

    serve_window(settings)


if __name__ == "__main__":
    sys.exit(main(serve=serve))
