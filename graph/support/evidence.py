"""What the passages offer one sentence (``Evidence``), a verdict's bars, and the verdict."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from graph.support.cause import cause_not_stated
from graph.support.fact_index import Fact, FactIndex
from graph.support.found import what_it_says
from graph.support.polarity import answers_wrongly, flipped
from graph.support.respectively import paired_wrongly
from graph.support.sentences import Sentence
from graph.support.verdicts import SentenceSupport, SourcePassage, SupportSpan, Verdict
from graph.support.windows import Window, plain


@dataclass(frozen=True)
class SupportBars:
    """The constants of a verdict.

    Tuned by ``bench/verify_eval.py --tune`` on half of bench/data/support_dev.jsonl (the other half
    held out): supported sentences scored 0.8 and up, others 0.65 and below, so the bars sit in a
    wide gap and came out equal. Freer paraphrase in real answers is the risk to measure first.
    """

    meaning: float = 0.3
    """Share of the score that is meaning (cosine); the rest is shared content words."""
    supported: float = 0.52
    """From this score up, with every fact present, a sentence is supported."""
    unsupported: float = 0.52
    """Below this score no span says it. Between the two bars: partly."""
    pair_penalty: float = 0.03
    """What a two-sentence window gives up against one sentence, so spans stay tight."""
    lacking: float = 1.0
    """Above this share of missing facts a sentence is unsupported, not partly; at 1.0 never."""


@dataclass(frozen=True)
class Evidence:
    """What the passages offer one sentence, before the bars decide a verdict."""

    sentence: Sentence
    said: str
    """The sentence as embedded: no marks, no emphasis."""
    best: Window | None
    """The best window of all passages; None when there are no passages."""
    score: float
    by_passage: dict[int, float]
    """Each passage's best window score, by passage index, best first."""
    facts: list[Fact]
    lacking: dict[int, tuple[Fact, ...]]
    """For each of the best few passages, the sentence's facts its best window lacks."""
    instead: dict[int, dict[str, str]] = field(default_factory=dict)
    """Per passage, what its window says in place of a lacking number: {"3%": "2%"}."""


def judge(
    evidence: Evidence,
    bars: SupportBars,
    passages: Sequence[SourcePassage],
    question: Sequence[str],
    facts_of: Callable[[int], FactIndex],
) -> SentenceSupport:
    """The verdict on one sentence's evidence under ``bars`` (only the two bars are read)."""
    sentence, best, score = evidence.sentence, evidence.best, evidence.score
    unsupported = SentenceSupport(sentence.text, sentence.start, sentence.end, "unsupported", score)
    if best is None or score < bars.unsupported:
        return unsupported
    near = [p for p in evidence.lacking if evidence.by_passage[p] >= bars.unsupported]
    missing = [f for f in evidence.facts if all(f in evidence.lacking[p] for p in near)]
    if missing and len(missing) > bars.lacking * len(evidence.facts):
        return unsupported
    passage = passages[best.passage]
    # The words agree, but one "not" may turn the claim around: the sentence then says
    # the opposite of its span, and is partly supported with the difference named.
    span = passage.text[best.start : best.end]
    alone = plain(sentence.text)  # a fragment's question says nothing yes or no
    flip = (
        flipped(alone, span)
        or answers_wrongly(question, alone, span)
        or paired_wrongly(evidence.said, span)
        or cause_not_stated(alone, span)
    )
    verdict: Verdict = (
        "supported" if score >= bars.supported and not missing and not flip else "partly"
    )
    others = [
        p
        for p in near
        if p != best.passage
        and evidence.by_passage[p] >= bars.supported
        and not evidence.lacking[p]
        and not flip
    ]
    facts = facts_of(best.passage)
    placed = evidence.instead.get(best.passage, {})
    found = {
        f.text: text
        for f in missing
        if (
            text := placed.get(f.text)
            or what_it_says(f, evidence.said, evidence.facts, facts, best)
        )
    }
    said = [f.text for f in missing]
    if flip is not None:
        said.insert(0, flip.said)
        if flip.instead:
            found[flip.said] = flip.instead
    return SentenceSupport(
        text=sentence.text,
        start=sentence.start,
        end=sentence.end,
        verdict=verdict,
        score=score,
        missing=tuple(said),
        found=found,
        source=SupportSpan(
            n=passage.n,
            file=passage.file,
            path=passage.path,
            page=passage.page,
            text=span,
            start=best.start,
            end=best.end,
            offset=passage.offset,
        ),
        supported_by=tuple(passages[p].n for p in [best.passage, *others]),
    )
