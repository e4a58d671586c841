"""The records of ``graph/records.py``, for the window, which imports only ``app``."""

from graph.records import (
    Coverage,
    DocumentView,
    FindResponse,
    KeptMessage,
    NearPassage,
    Searched,
    SearchResultPublic,
    SentenceSupportPublic,
    SessionPublic,
    Source,
    SupportSource,
    Verdict,
)

__all__ = [
    "Coverage",
    "NearPassage",
    "Searched",
    "DocumentView",
    "FindResponse",
    "KeptMessage",
    "SearchResultPublic",
    "SentenceSupportPublic",
    "SessionPublic",
    "Source",
    "SupportSource",
    "Verdict",
]
