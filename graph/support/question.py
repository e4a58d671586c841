"""Whether an answer addresses its question: a true, cited sentence about something else is
not an answer.

Two signs, both needed to say it doesn't, each against the passage sentence that says
the most of the question (bench/answers_question.py measures them on SQuAD questions):

- *words*: the share of the question's content terms a text covers, each weighed by how
  rare it is in the passages ("vaccines", in every passage, says little;
  "immunocompromised" says what is asked). A term the answer says counts 1, one only its
  supporting span says 1/2: "In 1856 [1]" answers "When was Tesla born?" through "Tesla
  was born on 10 July 1856". The best passage sentence covers more than the answer by
  ``WORD_GAP``;
- *meaning*: the question's MiniLM vector is nearer the best passage sentence than any
  claim of the answer, or the span supporting it, by more than ``GAP``.

An answer can also echo the question's words over a span about something else ("The
Panthers lost to an ACL injury in a preseason game when Thomas Davis went down with a
broken arm", where the passage's Davis sentence says nothing of a preseason): its own
words cover the question and its meaning is near it. So the *spans* are weighed too,
without the answer's words: when the best passage sentence covers more of the question
than they do by ``SPAN_GAP``, the words alone say the answer doesn't address it.

An answer that makes no claim at all to a question that asks something ("[2] [3]", a
bare "Sure.") doesn't address it either.

Such an answer is shown, marked, never withheld. On 238 SQuAD questions the check says so
of 73% of sentences of the right paragraph that don't hold the answer (68% without the
spans' sign), and of 9% of those that do (8%), and of 8% of bare answers, "October 1973
[1]." (checked with their question, graph/support/fragment.py; 14% before): a mark to
read the answer against the question, not a verdict. On the real answers of
bench/data/check_labels_real.jsonl the spans' sign marks two wrong answers more and no
right one.
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
"""How much more of the question's weight the best passage sentence may cover than the
answer's spans do, whatever the answer's own words: beyond it the answer is said not to
address the question on the words alone."""


def coverage(
    question: Sequence[str],
    support: Sequence[SentenceSupport],
    idf: Mapping[str, float],
    default_idf: float,
    pieces: Iterable[Collection[str]] = (),
) -> tuple[float, float, float] | None:
    """The idf-weighted share of the question's terms the answer covers, the most that
    one of ``pieces`` (the passages' sentences, by their terms) covers, and the share the
    answer's supporting spans cover by themselves; None when there is no question to weigh
    or nothing of the answer was checked."""
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
    """Whether the question asks something and the answer makes no claim at all: only
    citation marks ("[2] [3]"), or only words with nothing to check ("Sure."). A claim
    left unchecked is still a claim."""
    asked = any(checkable_terms(text) for text in question)
    return asked and all(s.verdict == "none" for s in support)
