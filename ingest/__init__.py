"""From files in the documents folder to searchable chunks in the store."""

# First of all, in the app and in each parser or OCR worker (whose first import is this
# package): it turns ONNX Runtime's telemetry off before Chroma or rapidocr can load it.
import models  # noqa: F401
