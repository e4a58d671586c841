"""@mentions: find them in a message and match them to documents, exactly or nearly."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

import numpy as np
from rapidfuzz import fuzz, process

from graph.state import Mention

# @report.pdf, @notes/q3.md, @report, @"Annual Report 2024.pdf"; never bob@example.com.
MENTION = re.compile(r'(?<![\w@])@(?:"([^"\n]+)"|([^\s@"]+))')

_TRAILING = ".,;:!?)]}'\u2019\""
_POSSESSIVE = re.compile(r"['\u2019]s$", re.IGNORECASE)
_MAX_EXTRA_WORDS = 6
"""An unquoted mention may run on over this many words to name a file with spaces."""

FUZZY_MIN_SCORE = 80.0
"""How close (0-100) a mention's words must come, on average, to a file name's words."""
FUZZY_MIN_CHARS = 3
"""Shorter mentions only match exactly: two letters are close to too many names."""
CLOSEST = 3
_TOKEN = re.compile(r"[^\W_]+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class _Library:
    """The documents' names, keyed every way a mention may spell them."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = list(paths)
        self.keys: dict[str, list[str]] = {}
        vocab: dict[str, int] = {}
        self.words: list[list[int]] = []
        self.stem_words: list[list[int]] = []
        for path in self.paths:
            pure = PurePosixPath(path)
            for key in {path, pure.name, str(pure.with_suffix("")), pure.stem}:
                owners = self.keys.setdefault(key.lower(), [])
                if path not in owners:
                    owners.append(path)
            self.words.append([vocab.setdefault(w, len(vocab)) for w in _tokens(pure.name)] or [0])
            self.stem_words.append(
                [vocab.setdefault(w, len(vocab)) for w in _tokens(pure.stem)] or [0]
            )
        self.vocab = list(vocab) or [""]

    def exact(self, name: str) -> list[str]:
        return list(self.keys.get(name.replace("\\", "/").lower(), []))

    def near(self, runs: Sequence[str]) -> tuple[int, list[tuple[str, float]]]:
        """The length of the run that best names a document, and documents ranked by closeness."""
        if not self.paths:
            return 1, []
        words = _tokens(runs[-1])
        ends = [len(_tokens(run)) for run in runs]
        if not words:
            return 1, []
        sim = process.cdist(words, self.vocab, scorer=fuzz.ratio, dtype=np.float32)
        best_run, best_top = 1, -1.0
        best_scores = np.zeros(len(self.paths), dtype=np.float32)
        for run, end in enumerate(ends, start=1):
            if end == 0:
                continue
            scores = np.array(
                [self._score(sim[:end], f) for f in range(len(self.paths))], dtype=np.float32
            )
            top = float(scores.max())
            if top > best_top:  # a longer run must do strictly better to win
                best_run, best_scores, best_top = run, scores, top
        order = np.argsort(-best_scores, kind="stable")[:CLOSEST]
        return best_run, [(self.paths[i], float(best_scores[i])) for i in order]

    def _score(self, sim: np.ndarray, f: int) -> float:
        # Mostly how well each mention word matches a word of the name; a little for how
        # much of the name is covered, so "report" prefers report.pdf to "Annual Report".
        matched = float(sim[:, self.words[f]].max(axis=1).mean())
        covered = float((sim[:, self.stem_words[f]].max(axis=0) >= FUZZY_MIN_SCORE).mean())
        return 0.9 * matched + 10.0 * covered


def _clean(token: str) -> str:
    return token.rstrip(_TRAILING)


def _decide(said: str, length: int, ranked: list[tuple[str, float]]) -> Mention:
    """A near match counts when it is close enough and closer than any other."""
    if length >= FUZZY_MIN_CHARS and ranked and ranked[0][1] >= FUZZY_MIN_SCORE:
        # Two names equally close means the user has to say which one.
        if len(ranked) == 1 or ranked[1][1] < ranked[0][1]:
            return Mention(said=said, paths=[ranked[0][0]], closest=[])
    return Mention(said=said, paths=[], closest=[path for path, _ in ranked])


def find_mentions(text: str, known_files: Sequence[str]) -> list[Mention]:
    """Every @mention in ``text``, matched to the documents it names (maybe none): by path, file
    name or stem in any case, else by the closest file name, so typos still find their file.
    ``said`` is the exact span of the message, for the caller to take out."""
    library = _Library(known_files)
    mentions: list[Mention] = []
    position = 0
    while match := MENTION.search(text, position):
        if match.group(1) is not None:
            name = match.group(1).strip()
            if paths := library.exact(name):
                mention = Mention(said=match.group(0), paths=paths, closest=[])
            else:
                _, ranked = library.near([name])
                mention = _decide(match.group(0), len(name), ranked)
            position = match.end()
        else:
            mention, position = _unquoted(text, match, library)
        if mention["said"] and not any(m["said"] == mention["said"] for m in mentions):
            mentions.append(mention)
    return mentions


def _unquoted(text: str, match: re.Match[str], library: _Library) -> tuple[Mention, int]:
    """An unquoted mention; it may run over several words to name a file with spaces."""
    start = match.start()
    words = [match.group(2)]
    for extra in re.finditer(r"\s+(\S+)", text[match.end() :]):
        if len(words) > _MAX_EXTRA_WORDS or "@" in extra.group(1):
            break
        words.append(extra.group(1))
    runs = [_clean(" ".join(words[:count])) for count in range(1, len(words) + 1)]

    def span(name: str) -> str:
        # The run as the user typed it (spacing included), from the @ on.
        found = re.match(r"@" + r"\s+".join(map(re.escape, name.split())), text[start:])
        return found.group(0) if found else "@" + name

    # The longest run of words that names a document exactly wins...
    for run in reversed(runs):
        for candidate in (run, _POSSESSIVE.sub("", run)):
            if run and (paths := library.exact(candidate)):
                said = span(run)
                return Mention(said=said, paths=paths, closest=[]), start + len(said)
    # ...else the run whose words come closest to a document's name.
    length, ranked = library.near(runs)
    said = span(runs[length - 1]) if runs[length - 1] else ""
    mention = _decide(said, len(runs[length - 1]), ranked)
    if not mention["paths"]:
        # Unmatched: only the first word was meant as the mention.
        mention["said"] = span(runs[0]) if runs[0] else ""
    return mention, start + max(len(mention["said"]), 1)


def strip_mentions(text: str, mentioned: Sequence[Mention]) -> str:
    """The message with each @mention replaced by the file name it stands for."""
    for mention in mentioned:
        if mention["paths"]:
            names = " ".join(dict.fromkeys(PurePosixPath(p).name for p in mention["paths"]))
        else:
            names = mention["said"].lstrip("@").strip('"')
        text = text.replace(mention["said"], names)
    return " ".join(text.split())


def matched_paths(mentioned: Sequence[Mention]) -> list[str]:
    """The documents the mentions name, each once, in the order mentioned."""
    return list(dict.fromkeys(p for m in mentioned for p in m["paths"]))
