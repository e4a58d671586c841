"""How much of the library an answer read (the contract's ``coverage``), from what the model was
given after the budget trimmed it, never from what it says."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from graph.records import Coverage
from graph.scope import in_scope
from graph.state import AgentState, Source


def coverage_of(
    state: AgentState, read: Sequence[Source], known_files: Callable[[], list[str]]
) -> Coverage | None:
    """The documents and pages of the passages in the prompt, a find's match count (else None) and
    the documents in scope; None for an answer that searched nothing."""
    if state.get("route") not in ("rag", "find"):
        return None
    found = state.get("found")
    if found is not None:
        in_scope_count = int(found["searched"])
    else:
        aim = state.get("aim") or []
        in_scope_count = len(in_scope(known_files(), aim))
    return {
        "documents_read": len({s["path"] for s in read}),
        "documents_matched": int(found["matched"]) if found is not None else None,
        "documents_in_scope": in_scope_count,
        "pages_read": len({(s["path"], s["page"]) for s in read}),
    }
