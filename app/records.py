"""The records of ``graph/records.py``, for the window, which imports only ``app``."""

from graph.records import (
    DocumentView,
    FindResponse,
    SearchResultPublic,
    SentenceSupportPublic,
    SessionPublic,
    Source,
    SupportSource,
    Verdict,
)

__all__ = [
    "DocumentView",
    "FindResponse",
    "SearchResultPublic",
    "SentenceSupportPublic",
    "SessionPublic",
    "Source",
    "SupportSource",
    "Verdict",
]
