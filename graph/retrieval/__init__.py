"""Retrieval: hybrid search, adaptive fusion, reranking, neighbours and the relevance floor.
``Search.retrieve`` is the one entry point, so ``POST /api/search`` returns exactly the passages the
generator would see."""
