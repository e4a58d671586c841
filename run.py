"""Docent's entry point: `uv run run.py [serve|ingest|status|ask|token] [flags]`."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
