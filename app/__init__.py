"""Composition root, settings, chat service, HTTP API and command line."""

import models  # noqa: F401  first of all: it turns ONNX Runtime's telemetry off
