"""Adapters to local inference engines (chat, embedders, reranker); data shapes live with
their owners.

Importing it turns ONNX Runtime's telemetry off for this process and its children, so ``app``
and ``ingest`` (the first package a parser or OCR worker imports) import it first thing.
"""

import os

# ONNX Runtime 1.32 on Linux writes usage events (program path, OS, CPU, memory) under
# ~/.cache/Microsoft/DeveloperTools and about 9 s later looks up
# mobile.events.data.microsoft.com to send them. It reads this variable once, as it loads;
# neither `disable_telemetry_events()` nor setting it after the import stops the lookups
# (strace). Forced on: Docent promises to reach nothing but the model server.
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
