"""Retrieval: hybrid search, adaptive fusion, reranking, neighbours and the relevance floor.

``Search.retrieve`` is the one entry point: the retriever node calls it on its turn's
search, and ``POST /api/search`` on a search of its own (``Retriever.retrieve``), so the
API returns exactly the passages the generator would see.
"""
