"""The comparison table's points checked, each against its own document's pages only, since a column
may cite only its document; the prose below is checked against every page read."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace

from graph.records import NumberedPassage
from graph.support import SentenceSupport, SupportCheck, correct_citations, source_passages
from graph.whole.table import Table, respliced
from models.protocols import Embedder

log = logging.getLogger(__name__)


def check_table(
    table: Table,
    columns: Sequence[Sequence[NumberedPassage]],
    embedder: Embedder,
) -> tuple[Table, list[SentenceSupport]] | None:
    """The table, citations corrected, and each point's support placed in it; None if unchecked."""
    try:
        checks = [SupportCheck(source_passages(column), embedder) for column in columns]
        fixed: list[str] = []
        found: list[list[SentenceSupport]] = []
        for placed in table.placed:
            column = placed.point.column
            support = checks[column].check(placed.point.text)
            names = {p["source"]["n"]: p["source"]["file"] for p in columns[column]}
            cited = correct_citations(placed.point.text, support, names)
            fixed.append(cited.text)
            found.append(cited.moved(support))
    except Exception:  # an unchecked table still stands, as an unchecked answer does
        log.warning("the comparison table's check failed", exc_info=True)
        return None
    checked = respliced(table, fixed)
    support = [
        replace(s, start=s.start + placed.start, end=s.end + placed.start)
        for placed, sentences in zip(checked.placed, found, strict=True)
        for s in sentences
    ]
    return checked, support
