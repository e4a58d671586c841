"""What the Check line under a checked answer says, in the window and on the command line."""

from __future__ import annotations

from collections.abc import Sequence

from app.records import CHECKED, SentenceSupportPublic

MISSES_QUESTION = "This doesn't seem to answer your question ·"


def checked(support: Sequence[SentenceSupportPublic]) -> list[SentenceSupportPublic]:
    """The sentences that were checked: not those with nothing to check ("Thanks!")."""
    return [s for s in support if s.get("verdict") in CHECKED]


def contradicts(sentence: SentenceSupportPublic) -> bool:
    """Whether the passage says something else in the sentence's place ("120, not 150";
    "cannot transfer, not can transfer"): the sentence is wrong, not merely unfound."""
    return sentence.get("verdict") == "partly" and bool(sentence.get("found"))


def summary(support: Sequence[SentenceSupportPublic]) -> str:
    """The line under a checked answer: what is wrong first, then how much was found."""
    support = checked(support)
    total = len(support)
    found = sum(s.get("verdict") == "supported" for s in support)
    wrong = sum(contradicts(s) for s in support)
    partly = sum(s.get("verdict") == "partly" for s in support) - wrong
    unfound = sum(s.get("verdict") == "unsupported" for s in support)
    noun = "sentence" if total == 1 else "sentences"
    if not wrong and not unfound:
        line = f"{found} of {total} {noun} found in the sources"
        return line + (f" ({partly} only in part)" if partly else "")
    problems = []
    if wrong:
        if support and contradicts(support[0]) and wrong == 1:
            problems.append("The first sentence contradicts the sources")
        else:
            verb = "contradicts" if wrong == 1 else "contradict"
            problems.append(f"{_count(wrong, 'sentence')} {verb} the sources")
    if unfound:
        problems.append(
            f"{_count(unfound, 'sentence')} not found in the sources"
            if not problems
            else f"{unfound} not found"
        )
    if partly:
        problems.append(f"{partly} only in part")
    return " · ".join([*problems, f"{found} of {total} found"])


def worrying(support: Sequence[SentenceSupportPublic]) -> bool:
    """Whether a sentence of the answer contradicts the sources: the line then warns."""
    return any(contradicts(s) for s in checked(support))


def check_line(support: Sequence[SentenceSupportPublic], *, misses_question: bool = False) -> str:
    """The whole line as text ("Check: …"), or "" when no sentence was checked."""
    if not checked(support):
        return ""
    said = [MISSES_QUESTION] if misses_question else []
    return " ".join(["Check:", *said, summary(support)])


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
