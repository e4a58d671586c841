"""Test doubles: an Ollama-protocol HTTP server and in-process fakes behind our protocols."""
