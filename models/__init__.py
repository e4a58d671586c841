"""Adapters to local inference engines (Ollama chat, embedders, reranker).

"models" means model adapters here, not pydantic data models: data shapes live
beside their owner (``graph/state.py``, ``app/api/schemas.py``, ``ingest/types.py``).
"""
