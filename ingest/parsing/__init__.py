"""Untrusted bytes are parsed in worker processes with limits, never in the app's own.

``ParserPool`` (``pool``) keeps the workers and hands out ``Lease``s; ``RemoteDocument``
(``remote``) is the LoadedDocument the pipeline and the MCP tools read. ``worker_process``
starts and stops one worker; ``worker`` is the process's loop, ``tasks`` what it runs,
``wire`` what crosses the pipe.
"""

from ingest.parsing.pool import Lease, ParserPool
from ingest.parsing.remote import RemoteDocument
from ingest.parsing.worker_process import Cancelled, ParserUnavailable

__all__ = ["Cancelled", "Lease", "ParserPool", "ParserUnavailable", "RemoteDocument"]
