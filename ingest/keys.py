"""Identity and version of a file: its relative path, and the key of its content.

Chunks in every index are keyed by content, so a rename moves no chunk and identical
files share one set of chunks. The key covers what decides the chunks besides the bytes
(the chunking settings and the pipeline's version), so changing those re-indexes.
"""

from __future__ import annotations

import hashlib

PIPELINE_VERSION = 2
"""Bump when loading or chunking changes the chunks of unchanged bytes."""


def doc_id_for(rel_path: str) -> str:
    """Stable id of a document: the first 16 hex digits of sha1 of its relative path."""
    return hashlib.sha1(rel_path.encode("utf-8")).hexdigest()[:16]


def content_key(sha256: str, chunk_size: int, chunk_overlap: int) -> str:
    """The index key of a file's chunks: derived from its bytes' sha256 and the chunking."""
    salt = f"{sha256}|{chunk_size}|{chunk_overlap}|v{PIPELINE_VERSION}"
    return "c" + hashlib.sha256(salt.encode("ascii")).hexdigest()[:31]


def chunk_id(key: str, index: int) -> str:
    """The id of one chunk in every index."""
    return f"{key}:{index}"
