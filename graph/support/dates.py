"""Dates in words ("3 March 2021") or numbers ("03/04/2021"), with the coarser dates each says."""

from __future__ import annotations

import re

from graph.support.fact_index import Fact, free

MONTHS = {
    name: number
    for number, names in enumerate(
        "january/jan february/feb march/mar april/apr may june/jun july/jul august/aug "
        "september/sep/sept october/oct november/nov december/dec".split(),
        start=1,
    )
    for name in names.split("/")
}
_MONTH = (
    r"(?P<{g}>January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_DAY = r"(?P<{g}>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?P<{g}>\d{{3,4}})(?!\d)"
_DATE = re.compile(
    r"\b(?:"
    + rf"{_DAY.format(g='d1')}\s+(?:of\s+)?{_MONTH.format(g='m1')},?\s+{_YEAR.format(g='y1')}"
    + rf"|{_MONTH.format(g='m2')}\s+{_DAY.format(g='d2')},?\s+{_YEAR.format(g='y2')}"
    + rf"|{_MONTH.format(g='m3')},?\s+{_YEAR.format(g='y3')}"
    + rf"|{_MONTH.format(g='m4')}\s+{_DAY.format(g='d4')}\b"
    + rf"|{_DAY.format(g='d5')}\s+(?:of\s+)?{_MONTH.format(g='m5')}"
    + r"|(?P<y6>\d{4})-(?P<m6>0[1-9]|1[0-2])-(?P<d6>[0-2]\d|3[01])"
    + rf"|{_MONTH.format(g='m7')}"
    + r")(?!\w)"
)
_NUMERIC_DATE = re.compile(r"(?<![\w/.])(\d{1,2})([/.])(\d{1,2})\2(\d{4})(?![\w/])")
"""11/27/2007 or 27.11.2007: which number is the month is known only when one is over 12."""


def find_dates(text: str, taken: list[tuple[int, int]]) -> list[tuple[Fact, set[str]]]:
    """Each date with the keys it implies, the coarser ones too ("1973-10" for a day)."""
    found = _numeric_dates(text, taken)
    for match in _DATE.finditer(text):
        if not free(taken, match.start(), match.end()):
            continue
        parts = {name[0]: value for name, value in match.groupdict().items() if value}
        month_name = parts["m"].rstrip(".")
        if month_name[0].islower() or (month_name == "May" and len(parts) == 1):
            continue  # "may" the verb; "May" alone is as often a name or the verb
        month = int(month_name) if month_name.isdigit() else MONTHS[month_name.lower()]
        day = int(parts["d"]) if "d" in parts else None
        year = int(parts["y"]) if "y" in parts else None
        keys = {f"date:--{month:02d}"}
        if day:
            keys.add(f"date:--{month:02d}-{day:02d}")
        if year is not None:
            keys.add(f"date:{year}-{month:02d}")
            if day:
                keys.add(f"date:{year}-{month:02d}-{day:02d}")
        key = max(keys, key=len)
        found.append((Fact("date", match.group(0), match.start(), match.end(), key), keys))
        taken.append((match.start(), match.end()))
    return found


def _numeric_dates(text: str, taken: list[tuple[int, int]]) -> list[tuple[Fact, set[str]]]:
    """Dates written in numbers: both readings of an ambiguous "03/04/2021" are kept, the US
    month-first one as the key, since reports write "11/27/2007"."""
    found = []
    for match in _NUMERIC_DATE.finditer(text):
        first, second, year = int(match[1]), int(match[3]), int(match[4])
        readings = [(m, d) for m, d in ((first, second), (second, first)) if m <= 12 and d <= 31]
        if not readings or 0 in (first, second):
            continue
        keys = set()
        for month, day in readings:
            keys |= {f"date:--{month:02d}", f"date:--{month:02d}-{day:02d}"}
            keys |= {f"date:{year}-{month:02d}", f"date:{year}-{month:02d}-{day:02d}"}
        month, day = readings[0]
        key = f"date:{year}-{month:02d}-{day:02d}"
        found.append((Fact("date", match.group(0), match.start(), match.end(), key), keys))
        taken.append((match.start(), match.end()))
    return found
