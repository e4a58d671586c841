"""Check each sentence of a text against the passages it was written from: the best span is the
window (one or two sentences) most like it in meaning and idf-weighted words; above the bar its
numbers, dates and codes must be in the span (graph/support/slots.py) and its names in the span or
earlier in the passage. ``prepare`` can embed the passages while the model still writes."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import islice

import numpy as np
import numpy.typing as npt

from graph.support.asked_for import gives_the_reference, names_another
from graph.support.claims import is_claim, is_said, not_judged
from graph.support.drawn_on import AsRead, facts_lacking
from graph.support.evidence import Evidence, SupportBars, judge
from graph.support.fact_index import FactIndex
from graph.support.facts import index_passage, sentence_facts
from graph.support.fragment import with_question
from graph.support.given import Given
from graph.support.question import GAP, SPAN_GAP, WORD_GAP, coverage, says_nothing
from graph.support.sentences import Sentence, split_sentences
from graph.support.verdicts import CHECKED, SentenceSupport, SourcePassage
from graph.support.windows import (
    Piece,
    Window,
    claimed,
    cut_pieces,
    make_windows,
    piece_texts,
    plain,
    window_vectors,
)
from graph.support.words import content_terms
from models.protocols import Embedder

NEAR_PASSAGES = 3
"""Passages whose best windows are checked for the sentence's facts, best first."""


class SupportCheck:
    """One text's check against one list of passages. Not thread-safe: call in turn."""

    def __init__(
        self,
        passages: Sequence[SourcePassage],
        embedder: Embedder,
        bars: SupportBars | None = None,
        question: Sequence[str] = (),
        known: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        self.passages = list(passages)
        self.embedder = embedder
        self.bars = bars or SupportBars()
        self.question = [q for q in question if q.strip()]
        """What the text answers: the question as asked, and as searched."""
        self.given = Given.of(self.passages, self.question)
        self._pieces: list[Piece] | None = None
        self._windows: list[Window] = []
        self._window_vectors: npt.NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self._idf: dict[str, float] = {}
        self._default_idf = 1.0
        self._facts: dict[int, FactIndex] = {}
        self._read = AsRead(self.passages, [], [], set(), [], self._facts_of)
        self._said: dict[str, npt.NDArray[np.float32]] = {
            plain(text): np.asarray(vector, dtype=np.float32)
            for text, vector in (known or {}).items()
        }
        """Vectors of the sentences embedded so far, by their plain text (``known``: the
        question's, made by its search)."""

    def prepare(self) -> None:
        """Cut the passages into windows and embed them (once; later calls do nothing)."""
        self._ensure_windows([])

    def read_ahead(self, partial: str) -> None:
        """Embed the sentences of a text still being written that are complete already."""
        sentences = [s for s in split_sentences(partial) if is_claim(s)][:-1]
        self._ensure_windows([claimed(s.text) for s in sentences])

    def check(self, text: str, claims: int | None = None) -> list[SentenceSupport]:
        """One result per sentence (not headings nor lead-ins ending in ":"): ``none`` when nothing
        is checkable ("Thanks!"), ``unchecked`` for claims after the first ``claims``."""
        sentences = [s for s in split_sentences(text) if is_said(s)]
        judging = [s for s in sentences if is_claim(s)][:claims]
        evidence = zip(judging, self._evidence(judging), strict=True)
        judged = {s.start: self.judge(e) for s, e in evidence}
        return [
            judged.get(s.start) or not_judged(s, "unchecked" if is_claim(s) else "none")
            for s in sentences
        ]

    def rank(self, text: str) -> list[tuple[Window, float]]:
        """Every window scored against ``text`` as an answer's sentence would be, best first."""
        said = plain(text)
        self._ensure_windows([said] if said else [])
        if not said or not self._windows:
            return []
        scores = self._scores(said, self._window_vectors @ self._said[said])
        order = np.argsort(-scores, kind="stable")
        return [(self._windows[int(i)], float(scores[i])) for i in order]

    @property
    def pieces(self) -> list[Piece]:
        """The passages' sentences (long ones cut), in order, once ``prepare`` has run."""
        return list(self._pieces or [])

    def evidence(self, text: str) -> list[Evidence]:
        """What the passages offer each claim of ``text``, before any bar is applied."""
        return self._evidence([s for s in split_sentences(text) if is_claim(s)])

    def _evidence(self, sentences: Sequence[Sentence]) -> list[Evidence]:
        said = [claimed(s.text) for s in sentences]
        # Only an answer that is one short sentence is a fragment of its question: in a
        # longer one a short sentence ("It was serviced on 3 March 2024.") says its own.
        single = len(sentences) == 1
        asked = [with_question(p, self.question) if single else None for p in said]
        self._ensure_windows(said + [a for a in asked if a])
        if not sentences:
            return []
        if not self._windows:
            empty = zip(sentences, said, strict=True)
            return [Evidence(s, p, None, 0.0, {}, [], {}) for s, p in empty]
        out = []
        for sentence, alone, claim in zip(sentences, said, asked, strict=True):
            evidence = self._weigh(sentence, alone, self._window_vectors @ self._said[alone])
            if claim is not None:
                # A fragment is its claim with the question, where some passage says that
                # well enough; else the question's own wording only drags it down.
                joined = self._weigh(sentence, claim, self._window_vectors @ self._said[claim])
                evidence = joined if joined.score >= self.bars.unsupported else evidence
            out.append(evidence)
        return out

    def _ensure_windows(self, said: Sequence[str]) -> None:
        """Embed what is new in one call; a sentence copied from a passage reuses its vector."""
        first_time = self._pieces is None
        if first_time:  # the question too, unless its search embedded it: one call for all
            said = [*said, *(plain(q) for q in self.question)]
        pieces = cut_pieces(self.passages) if first_time else []
        texts = piece_texts(self.passages, pieces)
        known = self._said.keys() | set(texts)
        new = [p for p in dict.fromkeys(said) if p not in known]
        if texts or new:
            vectors = np.asarray(self.embedder.embed(texts + new), dtype=np.float32)
            for text, vector in zip(texts + new, vectors, strict=True):
                self._said.setdefault(text, vector)
        if first_time:
            self._pieces = pieces
            self._windows = make_windows(self.passages, pieces)
            if pieces:
                own = vectors[: len(texts)]
                self._window_vectors = window_vectors(self._windows, pieces, own)
            self._read = AsRead.of(self.passages, pieces, self._windows, self._facts_of)
            self._learn_words()

    def _learn_words(self) -> None:
        pieces = self._read.pieces
        frequency: Counter[str] = Counter(t for w in pieces for t in w.terms)
        count = len(pieces)
        self._idf = {t: math.log(1 + (count + 1) / (df + 1)) for t, df in frequency.items()}
        self._default_idf = math.log(2 + count)

    def _weigh(self, sentence: Sentence, said: str, cosines: npt.NDArray[np.float32]) -> Evidence:
        scores = self._scores(said, cosines)
        order = np.argsort(-scores, kind="stable")
        by_passage: dict[int, float] = {}
        best_window: dict[int, Window] = {}
        for i in order:
            by_passage.setdefault(self._windows[int(i)].passage, float(scores[i]))
            best_window.setdefault(self._windows[int(i)].passage, self._windows[int(i)])
        best_of = dict(islice(best_window.items(), NEAR_PASSAGES))
        # A fragment's claim holds the question: only what the fragment says is checked.
        own = len(said) - len(claimed(sentence.text))
        facts = [
            f
            for f in sentence_facts(said, self._read.common)
            if f.start >= own and not self.given.echoes(f, said)
        ]
        asked = said[:own]
        question_names = {f for f in facts if self.given.asks(f)}
        weighed = {
            p: facts_lacking(said, facts, window, asked, self._read, question_names)
            for p, window in best_of.items()
        }
        lacking = {p: missing for p, (missing, _) in weighed.items()}
        instead = {p: found for p, (_, found) in weighed.items() if found}
        best = self._windows[int(order[0])]
        score = float(np.clip(scores[order[0]], 0.0, 1.0))
        return Evidence(sentence, said, best, score, by_passage, facts, lacking, instead)

    def judge(self, evidence: Evidence, bars: SupportBars | None = None) -> SentenceSupport:
        """The verdict on one sentence's evidence under ``bars`` (the check's own if None)."""
        return judge(evidence, bars or self.bars, self.passages, self.question, self._facts_of)

    def _scores(self, said: str, cosines: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        terms = set(content_terms(said))
        weights = {t: self._idf.get(t, self._default_idf) for t in terms}
        total = sum(weights.values())
        cover = np.array([sum(weights[t] for t in terms & w.terms) for w in self._windows]) / (
            total or 1.0
        )
        pairs = np.array([w.first != w.last for w in self._windows], dtype=np.float64)
        meaning = self.bars.meaning
        return meaning * cosines + (1 - meaning) * cover - self.bars.pair_penalty * pairs

    def addresses_question(self, support: Sequence[SentenceSupport]) -> bool:
        """Whether the answer addresses the question (support/question.py); True if none."""
        singles = [i for i, w in enumerate(self._windows) if w.first == w.last]
        terms = [self._windows[i].terms for i in singles]
        covered = coverage(self.question, support, self._idf, self._default_idf, terms)
        if covered is None:
            return not says_nothing(self.question, support)
        if names_another(self.question, support) or gives_the_reference(self.question, support):
            return False
        by_answer, by_best, by_spans = covered
        if by_best - by_spans > SPAN_GAP:
            return False
        if by_best - by_answer <= WORD_GAP:
            return True
        claims = [s for s in support if s.verdict in CHECKED]
        said = [plain(s.text) for s in claims]
        said += [plain(s.source.text) for s in claims if s.source is not None]
        self._ensure_windows([*said, *self.question])
        asked = np.stack([self._said[q] for q in self.question])
        answer = np.stack([self._said[p] for p in said])
        best = float(np.max(asked @ self._window_vectors[singles].T))
        nearest = float(np.max(asked @ answer.T))
        return best - nearest <= GAP

    def holds_values_of(self, sentence: str) -> bool:
        """Whether any passage holds a number, date or code of ``sentence`` (not a page label nor
        the question's): the least sign it was read from them."""
        said = plain(sentence)
        values = [
            f
            for f in sentence_facts(said, self._read.common)
            if f.kind != "name"
            and not self.given.echoes(f, said)
            and f.key not in self.given.asked_keys
        ]
        return any(self._facts_of(p).has(f) for f in values for p in range(len(self.passages)))

    def _facts_of(self, passage: int) -> FactIndex:
        if passage not in self._facts:
            self._facts[passage] = index_passage(self.passages[passage].text)
        return self._facts[passage]


def verify(
    text: str,
    passages: Sequence[SourcePassage],
    embedder: Embedder,
    bars: SupportBars | None = None,
    question: Sequence[str] = (),
) -> list[SentenceSupport]:
    """Check a text against passages (one embedder call); it may repeat ``question`` unchecked."""
    return SupportCheck(passages, embedder, bars, question).check(text)
