"""The @ picker's logic: where a mention is being typed, fuzzy ranking, and display.

Kept free of NiceGUI so it can be measured (bench/mention_filter.py) and tested alone.
"""

from __future__ import annotations

import heapq
import os
import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import PurePosixPath

from app.services.chat import MENTION

LIMIT = 8
"""How many matches the popup shows."""
MAX_QUERY = 60
"""Past this many characters after @ the user is writing, not picking."""


@dataclass(frozen=True)
class Candidate:
    path: str
    name: str
    folder: str
    lower_name: str
    lower_path: str


class MentionIndex:
    """The library's file names, ready to be filtered as the user types after @.

    Names and paths are each one newline-joined string: the regex engine matches the whole
    library at once and Python only touches the lines that match.
    """

    def __init__(self, paths: list[str]) -> None:
        rows = []
        for p in set(paths):
            folder, _, name = p.rpartition("/")
            rows.append(Candidate(p, name, folder, name.lower(), p.lower()))
        # Folders too ("tax/2024/"): @ one of them aims the message at what it holds.
        for f in _folders(paths):
            parent, _, name = f.rstrip("/").rpartition("/")
            rows.append(Candidate(f, name + "/", parent, name.lower() + "/", f.lower()))
        # Files before folders when they match as well: a folder is the rarer pick.
        rows.sort(key=lambda c: (c.path.endswith("/"), c.lower_name, c.path))
        self.candidates = rows
        self._names = "\n".join(c.lower_name for c in rows)
        self._paths = "\n".join(c.lower_path for c in rows)
        self._name_starts = _line_starts(self._names)
        self._path_starts = _line_starts(self._paths)
        counts: dict[str, int] = {}
        for c in rows:
            counts[c.lower_name] = counts.get(c.lower_name, 0) + 1
        self._ambiguous = {name for name, count in counts.items() if count > 1}

    def __len__(self) -> int:
        return len(self.candidates)

    def search(self, query: str, limit: int = LIMIT) -> list[Candidate]:
        """Best matches first (substring, tight, word start, name before folder); an empty
        query lists names alphabetically."""
        q = query.strip().lower().replace("\n", " ")
        if not q:
            return self.candidates[:limit]
        scores: dict[int, tuple[int, int, int, int]] = {}
        names, starts = self._names, self._name_starts
        for m in re.finditer(re.escape(q), names):
            row = bisect_right(starts, m.start()) - 1
            if row not in scores:
                at = m.start() - starts[row]
                boundary = at == 0 or not names[m.start() - 1].isalnum()
                scores[row] = (0, 0 if boundary else 1, at, len(self.candidates[row].name))
        if len(scores) >= limit:  # substrings outrank every scattered match: enough
            return self._best(scores, limit)
        scattered = "[^\n]*?".join(re.escape(ch) for ch in q)
        for m in re.finditer(scattered, names):
            row = bisect_right(starts, m.start()) - 1
            if row not in scores:
                at = m.start() - starts[row]
                scores[row] = (1, m.end() - m.start(), at, len(self.candidates[row].name))
        for m in re.finditer(scattered, self._paths):
            row = bisect_right(self._path_starts, m.start()) - 1
            scores.setdefault(row, (2, m.end() - m.start(), 0, len(self.candidates[row].path)))
        return self._best(scores, limit)

    def _best(self, scores: dict[int, tuple[int, int, int, int]], limit: int) -> list[Candidate]:
        rows = self.candidates
        best = heapq.nsmallest(
            limit,
            scores.items(),
            key=lambda item: (item[1][0], rows[item[0]].path.endswith("/"), item[1], item[0]),
        )
        return [self.candidates[row] for row, _ in best]

    def token(self, candidate: Candidate) -> str:
        """What the pick inserts: the file name, or its path when two files share the name;
        a folder always by its path."""
        folder = candidate.path.endswith("/")
        ambiguous = candidate.lower_name in self._ambiguous
        label = candidate.path if folder or ambiguous else candidate.name
        return f'@"{label}"'


def active_query(text: str, caret: int) -> tuple[int, str] | None:
    """The mention being typed at ``caret``: (index of its @, what follows it), or None."""
    before = text[:caret]
    at = before.rfind("@")
    if at < 0 or (at > 0 and not (before[at - 1].isspace() or before[at - 1] in "([")):
        return None  # no @, or an e-mail address
    fragment = before[at + 1 :]
    if fragment.startswith('"'):
        return None if '"' in fragment[1:] else (at, fragment[1:])
    # File names have spaces, so the query may too (the picker closes once nothing
    # matches), but not a line break or a whole sentence.
    if "\n" in fragment or len(fragment) > MAX_QUERY or fragment[:1].isspace():
        return None
    return at, fragment


def insert(text: str, caret: int, at: int, token: str) -> tuple[str, int]:
    """Replace the mention being typed with ``token``; returns the text and the new caret."""
    rest = text[caret:]
    spaced = token + ("" if rest.startswith(" ") else " ")
    return text[:at] + spaced + rest, at + len(spaced)


@dataclass(frozen=True)
class Picked:
    """A file picked into the message: a chip, sent as ``token`` at index ``at`` of the text."""

    path: str
    token: str
    at: int


def remove_query(text: str, caret: int, at: int) -> tuple[str, int]:
    """The text without the mention being typed (from its @ to the caret); the new caret."""
    return text[:at] + text[caret:], at


def shift_anchor(picked: Picked, before: str, after: str) -> Picked:
    """``picked`` moved along an edit from ``before`` to ``after``; an edit around it leaves
    it where the edit began."""
    if before == after:
        return picked
    start = len(os.path.commonprefix([before, after]))
    limit = min(len(before), len(after))
    end = 0  # how many characters at the end are unchanged, not reaching into the prefix
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    if picked.at <= start:
        return picked
    if picked.at >= len(before) - end:
        return Picked(picked.path, picked.token, picked.at + len(after) - len(before))
    return Picked(picked.path, picked.token, start)


def with_mentions(text: str, picked: list[Picked]) -> str:
    """The message to send: ``text`` with each picked file's token at its place."""
    # From the end, so earlier places stay valid; of two at one place, the later pick last.
    for _, p in sorted(enumerate(picked), key=lambda ip: (ip[1].at, ip[0]), reverse=True):
        at = min(max(p.at, 0), len(text))
        before, after = text[:at], text[at:]
        lead = "" if not before or before[-1].isspace() else " "
        text, _ = insert(before + lead + after, at + len(lead), at + len(lead), p.token)
    return text.strip()


def segments(text: str) -> list[tuple[str, str]]:
    """The message split into ("text", ...) and ("mention", file name) parts, for chips."""
    out: list[tuple[str, str]] = []
    last = 0
    for m in MENTION.finditer(text):
        if m.start() > last:
            out.append(("text", text[last : m.start()]))
        if m.group(1) is not None:
            out.append(("mention", m.group(1).strip()))
            last = m.end()
        else:  # "@notes.md?": the question mark ends the sentence, not the name
            name = m.group(2).rstrip(TRAILING)
            if not name:  # "@?" names nothing
                out.append(("text", m.group(0)))
                last = m.end()
                continue
            out.append(("mention", name))
            last = m.start(2) + len(name)
    if last < len(text):
        out.append(("text", text[last:]))
    return out


TRAILING = ".,;:!?)]}'\u2019\""
"""Punctuation after an unquoted mention that belongs to the sentence (as the graph reads it)."""


def plain_title(title: str) -> str:
    """A session title with @"x.pdf" shown as x.pdf (also when the title cut it short)."""
    plain = MENTION.sub(lambda m: PurePosixPath((m.group(1) or m.group(2)).strip()).name, title)
    return _UNCLOSED.sub(lambda m: m.group(1).rsplit("/", 1)[-1], plain)


_UNCLOSED = re.compile(r'@"([^"]*)$')


def _folders(paths: list[str]) -> list[str]:
    """Every folder holding one of ``paths``, its parents included, ending in "/"."""
    found: set[str] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        found.update("/".join(parts[: i + 1]) + "/" for i in range(len(parts)))
    return sorted(found)


def _line_starts(blob: str) -> list[int]:
    return [0, *(line_end.end() for line_end in re.finditer("\n", blob))]
