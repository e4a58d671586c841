"""The records of ``graph/records.py``, for the window, which imports only ``app``."""

from graph.records import (
    CHECKED,
    INTERRUPTED_NOTICE,
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
    StoppedReading,
    SupportSource,
    Verdict,
)
from graph.trace_records import Feedback, Trace

__all__ = [
    "CHECKED",
    "INTERRUPTED_NOTICE",
    "Feedback",
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
    "StoppedReading",
    "SupportSource",
    "Trace",
    "Verdict",
]
