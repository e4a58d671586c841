"""Scopes: the part of the library a question is aimed at, as a list of folders ("tax/2024/") and
documents; empty is the whole library. A scope resolves to document keys, which both indexes filter
by: no copy, no second index."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

Scope = list[str]
"""Folders (ending in "/") and documents; empty means the whole library."""

# @tax/ or @"tax returns/2024/": a mention that ends in a slash names a folder. A word
# such as "in" before it goes with it: "which files in @tax/ mention X" asks about X.
FOLDER_MENTION = re.compile(
    r"(?:\b(?:in|from|under|inside|within)\s+(?:the\s+)?)?"
    r'(?<![\w@])@(?:"([^"\n]*/)"|([^\s@"]*/))(?=[\s.,;:!?)\]]|$)',
    re.IGNORECASE,
)


class BadScope(ValueError):
    """A scope entry that cannot name part of the documents folder."""


def clean_entry(entry: str) -> str:
    """One scope entry with forward slashes and no leading slash, folders keeping their trailing
    one; refuses entries that climb out of the documents folder."""
    text = entry.replace("\\", "/").strip()
    folder = text.endswith("/")
    parts = [p for p in text.strip("/").split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise BadScope(f"'{entry}' leaves the documents folder; name a folder inside it.")
    if not parts:
        return ""
    joined = "/".join(parts)
    return joined + "/" if folder else joined


def normalise(entries: Iterable[str]) -> Scope:
    """The scope's entries cleaned, each once; the whole library ("" or "/") drops the rest."""
    cleaned = [clean_entry(e) for e in entries]
    if any(e == "" for e in cleaned):
        return []
    return list(dict.fromkeys(cleaned))


def in_scope(paths: Sequence[str], scope: Sequence[str]) -> list[str]:
    """The ``paths`` under one of ``scope``'s folders or named by one of its documents (path or file
    name, any case); an empty scope keeps them all."""
    if not scope:
        return list(paths)
    folders = tuple(e.lower() for e in scope if e.endswith("/"))
    files = {e.lower() for e in scope if not e.endswith("/")}
    kept = []
    for path in paths:
        low = path.lower()
        if low.startswith(folders) or low in files or PurePosixPath(low).name in files:
            kept.append(path)
    return kept


def folders_of(paths: Iterable[str]) -> list[str]:
    """Every folder holding at least one of ``paths`` (with its parents), sorted."""
    found: set[str] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            found.add("/".join(parts[:depth]) + "/")
    return sorted(found)


def take_folder_mentions(text: str, known: Sequence[str]) -> tuple[Scope, str]:
    """The known folders that ``@folder/`` mentions name, and the message without them (and a
    preposition before them); a mention of no such folder stays in the text."""
    return _take(text, folders_of(known))


def drop_folder_mentions(text: str, folders: Sequence[str]) -> str:
    """``text`` without its mentions of ``folders``, for the steps after the router."""
    return _take(text, folders)[1] if folders else text


def _take(text: str, folders: Iterable[str]) -> tuple[Scope, str]:
    existing = {f.lower(): f for f in folders}
    taken: Scope = []

    def take(match: re.Match[str]) -> str:
        said = match.group(1) or match.group(2) or ""
        try:
            entry = clean_entry(said)
        except BadScope:
            return match.group(0)
        found = existing.get(entry.lower())
        if found is None:
            return match.group(0)
        taken.append(found)
        return " "  # the scope says it now; the folder's name would only be searched for

    rest = FOLDER_MENTION.sub(take, text)
    return list(dict.fromkeys(taken)), " ".join(rest.split())


def describe(scope: Sequence[str]) -> str:
    """The scope in a few words, for status lines and the window's chip."""
    if not scope:
        return "the whole library"
    if len(scope) == 1:
        return scope[0]
    return f"{scope[0]} and {len(scope) - 1} more"
