"""What an answer may say without a passage stating it: its sources' names, their page labels and
what the question names; else a verbatim sentence citing "DEN08CA034Belen.pdf (page 2)" is only
partly found. The question's numbers, dates and codes are still checked."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from graph.support.fact_index import Fact
from graph.support.facts import sentence_facts
from graph.support.verdicts import SourcePassage
from graph.support.words import content_terms

_LABEL = re.compile(
    r"\b(?:pages?|pp?\.|sources?|passages?|documents?|excerpts?|chunks?|sections?|"
    r"slides?|sheets?|rows?|lines?)\s*(?:no\.\s*|#\s*)?(?:\d+\s*(?:[-–,]|and|to)\s*)*$",
    re.IGNORECASE,
)
"""What stands before a number that labels a place in a source: "page 4", "pp. 3-4", "row 12"."""


@dataclass(frozen=True)
class Given:
    """The file names of a check's passages and what its question names."""

    files: frozenset[str] = frozenset()
    """Each source's file name and path, and their stems, lower case."""
    asked: frozenset[str] = frozenset()
    """The question's content terms."""
    asked_keys: frozenset[str] = frozenset()
    """The keys of the question's numbers, dates, codes and names."""

    @classmethod
    def of(cls, passages: Iterable[SourcePassage], question: Sequence[str] = ()) -> Given:
        """What ``passages`` and the ``question`` (its texts: as asked, as searched) give."""
        files: set[str] = set()
        for passage in passages:
            for name in (passage.file, passage.path):
                if name:
                    files |= {name.lower(), PurePosixPath(name).stem.lower()}
                    files.add(PurePosixPath(name).name.lower())
        asked = {term for text in question for term in content_terms(text)}
        keys = {f.key for text in question for f in sentence_facts(text)}
        return cls(frozenset(files), frozenset(asked), frozenset(keys))

    def echoes(self, fact: Fact, sentence: str) -> bool:
        """Whether ``fact`` is a source's name or a page label, not a claim to find."""
        if fact.kind in ("code", "name") and _file_name(fact.text) in self.files:
            return True
        return fact.kind == "number" and bool(_LABEL.search(sentence[: fact.start]))

    def asks(self, fact: Fact) -> bool:
        """Whether ``fact`` is a name the question says, which the answer may repeat where its
        passage is about it, though not in the span itself."""
        parts = fact.key.split()
        return fact.kind == "name" and bool(parts) and all(p in self.asked for p in parts)


def _file_name(text: str) -> str:
    return text.strip("*_`'\"“”‘’()[]").lower()
