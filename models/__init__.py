"""Adapters to local inference engines (Ollama chat, embedders, reranker).

"models" means model adapters here, not pydantic data models: data shapes live
beside their owner (``graph/state.py``, ``graph/records.py``, ``ingest/document_parts.py``).

Importing this package turns ONNX Runtime's telemetry off for this process and every
process it starts, so it must come before anything that loads onnxruntime: ``app`` and
``ingest`` (the first package a parser or OCR worker imports) import it first thing.
"""

import os

# ONNX Runtime 1.32 on Linux, as it loads, writes a device id and a queue of usage events
# (the program's path, the OS, CPU and memory) under ~/.cache/Microsoft/DeveloperTools,
# then about nine seconds later looks up mobile.events.data.microsoft.com to send them,
# and again after each failure: from the app, its OCR worker, `run.py ingest` and `mcp`
# alike. It reads this variable once, as the library loads; neither
# `onnxruntime.disable_telemetry_events()` nor the variable set after the import stops
# the lookups (measured under strace). Set whatever the environment says: Docent
# promises to reach nothing but the model server.
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
