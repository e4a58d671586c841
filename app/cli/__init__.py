"""The command line: `run.py` parses here (main), then runs one command: serve (the window,
in ui/), ingest and ask (commands), status, and token/open (access)."""
