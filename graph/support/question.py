"""Whether an answer addresses its question: a true, cited sentence about something else is not an
answer; it is shown marked, never withheld.

Two signs, both needed, each against the passage sentence that says most of the question: *words*
(the question's content terms covered, weighed by idf; a term only the supporting span says counts
``SPAN_SHARE``) and *meaning* (MiniLM distance). The spans alone are also weighed: an answer may
echo the question's words over a span about something else. A bare "[2] [3]" or "Sure." addresses
nothing (a reply with no words at all is set aside before this: graph/checking.py).

On 238 SQuAD questions (bench/answers_question.py) it marks 73% of right-paragraph sentences that
lack the answer, 9% of those that hold it, and 8% of bare answers; on
bench/data/check_labels_real.jsonl the spans' sign marks two wrong answers more, no right one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from graph.support.verdicts import CHECKED, SentenceSupport
from graph.support.windows import plain
from graph.support.words import checkable_terms, content_terms

WORD_GAP = 0.3
"""How much more of the question's weight the best passage sentence may cover."""
GAP = 0.1
"""How much nearer the question, in meaning, the best passage sentence may be."""
SPAN_SHARE = 0.5
"""What a term counts when only a supporting span says it."""
SPAN_GAP = 0.35
"""How much more of the question the best passage sentence may cover than the answer's spans; beyond
it the words alone say the answer doesn't address the question."""


def coverage(
    question: Sequence[str],
    support: Sequence[SentenceSupport],
    idf: Mapping[str, float],
    default_idf: float,
    pieces: Iterable[Collection[str]] = (),
) -> tuple[float, float, float] | None:
    """The question's idf-weighted share the answer covers, the most any of ``pieces`` covers, and
    the share its spans cover alone; None without a question or a checked claim."""
    asked = {t for text in question for t in checkable_terms(text)}
    claims = [s for s in support if s.verdict in CHECKED]
    if not asked or not claims:
        return None
    said = {t for s in claims for t in content_terms(plain(s.text))}
    spans = {t for s in claims if s.source is not None for t in content_terms(s.source.text)}
    weights = {t: idf.get(t, default_idf) for t in asked}
    total = sum(weights.values())
    covered = sum(
        w * (1.0 if t in said else SPAN_SHARE if t in spans else 0.0) for t, w in weights.items()
    )
    best = max((sum(w for t, w in weights.items() if t in p) for p in pieces), default=0.0)
    spanned = sum(w for t, w in weights.items() if t in spans)
    return covered / total, best / total, spanned / total


def says_nothing(question: Sequence[str], support: Sequence[SentenceSupport]) -> bool:
    """Whether the question asks something and the answer makes no claim ("[2] [3]", "Sure.")."""
    asked = any(checkable_terms(text) for text in question)
    return asked and all(s.verdict == "none" for s in support)
