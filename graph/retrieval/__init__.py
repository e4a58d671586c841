"""Retrieval: hybrid search, adaptive fusion, reranking, neighbours and the relevance floor.

``Retriever.retrieve`` is the one entry point; the retriever node and ``POST /api/search``
both call it, so the API returns exactly the passages the generator would see.
"""
