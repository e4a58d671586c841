"""The part of a passage that bears on a question, for the answer shown when no model can write one:
a passage's first 250 characters often stopped before the sentence that answers. A long passage
shows its sentences richest in the question's words and the best one's neighbours."""

from __future__ import annotations

import re

from graph.support.sentences import Sentence, split_sentences
from ingest.index.keyword.terms import terms

EXCERPT_CHARS = 480
"""A passage up to this long is shown whole; a longer one is cut to about this much."""
GAP = " … "


def excerpt(passage: str, question: str, limit: int = EXCERPT_CHARS) -> str:
    """The sentences of ``passage`` that answer ``question``, about ``limit`` characters."""
    passage = passage.strip()
    if len(passage) <= limit:
        return passage
    sentences = [s for s in split_sentences(passage) if s.text.strip()]
    if not sentences:
        return _around(passage, 0, limit)
    asked = set(terms(question))
    scores = [len(asked & set(terms(s.text))) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    if _length(sentences[best]) > limit:  # one long sentence: the window round its words
        return _around(passage, _first_term_at(sentences[best], asked), limit)
    chosen = {best}
    room = limit - _length(sentences[best])
    # Sentences elsewhere that hold as much of the question, richest first; then the best
    # one's neighbours, the one after first (what a sentence sets up usually follows it),
    # each side until a sentence no longer fits: no gap opens inside the context.
    strong = [i for i in range(len(sentences)) if i != best and 2 * scores[i] >= scores[best] > 0]
    for i in sorted(strong, key=lambda i: (-scores[i], i)):
        if _length(sentences[i]) + len(GAP) <= room:
            chosen.add(i)
            room -= _length(sentences[i]) + len(GAP)
    sides = {1: best + 1, -1: best - 1}
    while sides:
        for step, i in list(sides.items()):
            size = _length(sentences[i]) + 1 if 0 <= i < len(sentences) else room + 1
            if i in chosen:
                sides[step] = i + step
            elif size <= room:
                chosen.add(i)
                room -= size
                sides[step] = i + step
            else:
                del sides[step]
    return _joined(passage, [sentences[i] for i in sorted(chosen)])


def _length(sentence: Sentence) -> int:
    return sentence.end - sentence.start


def _joined(passage: str, kept: list[Sentence]) -> str:
    """The kept sentences with the text between neighbours, and "…" across a gap."""
    parts: list[str] = ["… "] if kept[0].start > 0 else []
    for i, sentence in enumerate(kept):
        if i:
            before = kept[i - 1]
            touching = not passage[before.end : sentence.start].strip()
            parts.append(passage[before.end : sentence.start] if touching else GAP)
        parts.append(sentence.text)
    if passage[kept[-1].end :].strip():
        parts.append(" …")
    return "".join(parts).strip()


def _first_term_at(sentence: Sentence, asked: set[str]) -> int:
    """Where in the passage the sentence's first word of the question is."""
    for word in re.finditer(r"\S+", sentence.text):
        if asked & set(terms(word.group(0))):
            return sentence.start + word.start()
    return sentence.start


def _around(text: str, at: int, limit: int) -> str:
    """About ``limit`` characters of ``text`` from a little before ``at``, cut at spaces."""
    start = max(0, min(at - limit // 4, len(text) - limit))
    if start:
        start = text.find(" ", start) + 1 or start
    end = min(len(text), start + limit)
    if end < len(text):
        end = text.rfind(" ", start, end) if text.rfind(" ", start, end) > start else end
    shown = text[start:end].strip()
    return ("… " if start else "") + shown + (" …" if end < len(text) else "")
