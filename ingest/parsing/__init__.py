"""Untrusted bytes are parsed in worker processes with limits, never in the app's own."""

from ingest.parsing.pool import Lease, ParserPool
from ingest.parsing.remote import RemoteDocument
from ingest.parsing.worker_process import Cancelled, ParserUnavailable

__all__ = ["Cancelled", "Lease", "ParserPool", "ParserUnavailable", "RemoteDocument"]
