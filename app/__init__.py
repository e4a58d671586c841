"""Composition root, settings, chat service, HTTP API and command line."""
