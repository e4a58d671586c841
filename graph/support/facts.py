"""The checkable facts of a sentence (numbers, amounts, dates, codes, proper names), each under a
normalised key so "1,000" and "1000" or "March 3, 2021" and "3 March 2021" agree; a passage's
``FactIndex`` holds coarser date keys too, and its word stems for names."""

from __future__ import annotations

import re
from collections.abc import Collection
from decimal import Decimal, InvalidOperation

from graph.support.dates import MONTHS, find_dates
from graph.support.fact_index import ACRONYM_PREFIX, Fact, FactIndex, free
from graph.support.words import STOP, content_terms, stems

_NUMBER = re.compile(
    r"(?<![\w.,])(?:US\$|A\$|C\$|[$€£¥₹])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<suffix>st|nd|rd|th|s)?(?!\w)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|bn)\b)?"
    r"(?:\s?(?P<pct>%|per\s?cent\b|percent\b))?"
)
_NUMBER_WORD = re.compile(
    r"\b(?P<word>two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
    r"|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty"
    r"|sixty|seventy|eighty|ninety|hundred|dozen)\b"
    r"(?:\s(?P<scale>thousand|million|billion|trillion)\b)?"
    r"(?:\s?(?P<pct>%|per\s?cent\b|percent\b))?",
    re.IGNORECASE,
)
_WORD_VALUES = {
    w: v
    for v, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80}
_WORD_VALUES |= {"ninety": 90, "hundred": 100, "dozen": 12}
_SCALES = {"thousand": 3, "million": 6, "billion": 9, "bn": 9, "trillion": 12}
_CODE = re.compile(
    r"(?<![\w-])(?=[\w./-]*\d)(?=[\w./-]*[A-Za-z])[A-Za-z0-9]+(?:[-/.][A-Za-z0-9]+)*(?![\w-])"
)
_PLAIN_NUMBER = re.compile(r"\d+(?:st|nd|rd|th|s)?")
_CITATION = re.compile(r"\[\d{1,3}(?:\s*[,;–-]\s*\d{1,3})*\]")
_TOKEN = re.compile(r"[^\W\d_][\w'’-]*")
_POSSESSIVE = re.compile(r"['’]s?$")

_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'’-]+(?:\s+(?:(?:of|for|de)\s+)?[A-Z][\w'’-]+)+")
CONNECTORS = frozenset("of de da di du del della van von der den la le bin ibn al".split())
"""Lower-case words inside a name: "University of Chicago", "Leonardo da Vinci"."""
GENERIC = frozenset(
    "university college school institute river lake mount mountain sea ocean island "
    "islands city county state states republic kingdom empire church cathedral company "
    "museum house street king queen prince princess emperor president saint st sir lord "
    "lady dr mr mrs ms prof general north south east west northern southern eastern "
    "western new old great upper lower united national royal central".split()
)
"""Words that many names share; a name's distinctive words are the others."""
OPENERS = frozenset(
    "additionally also overall notably however moreover furthermore yet still thus therefore "
    "hence consequently meanwhile similarly likewise instead finally first second third "
    "lastly later earlier today currently recently historically traditionally generally "
    "typically usually often sometimes numerous several many various most some few both "
    "each every another other such modern contemporary ancient early late main major "
    "primary key important significant according despite although though while because "
    "since unlike like based following during after before between among within without "
    "unfortunately fortunately interestingly importantly essentially specifically "
    "particularly especially initially eventually ultimately subsequently together "
    "alternatively nevertheless nonetheless accordingly indeed overall here there "
    "around about approximately roughly nearly almost over under just only exactly yes no one "
    "sure".split()
)
"""Words that open sentences (an answer's more than a passage's) and are never names."""
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


def acronyms(text: str) -> set[str]:
    """Initials of runs of capitalised words as terms ("European Court of Justice": "acr:ecj")."""
    found = set()
    for run in _CAPITALISED_RUN.finditer(text):
        words = [w for w in run.group(0).split() if w[0].isupper() and w.lower() not in STOP]
        initials = "".join(w[0] for w in words).lower()
        # "United States of America" stands for "USA" and, by its first words, "US".
        found |= {ACRONYM_PREFIX + initials[:n] for n in range(2, len(initials) + 1)}
    return found


def blank_citations(text: str) -> str:
    """``text`` with citation marks such as [1] or [4, 14] turned into spaces (same length)."""
    return _CITATION.sub(lambda m: " " * len(m.group(0)), text)


def sentence_facts(sentence: str, common: Collection[str] = ()) -> list[Fact]:
    """The facts one sentence asserts, in order; an opening capitalised word is a name only when not
    in ``common`` (words seen in lower case in the passages)."""
    text = blank_citations(sentence)
    taken: list[tuple[int, int]] = []
    facts = [fact for fact, _ in find_dates(text, taken)]
    facts += _codes(text, taken) + _numbers(text, taken)
    facts += _names(text, taken, common, opening=True)
    return sorted(facts, key=lambda f: f.start)


def index_passage(passage: str) -> FactIndex:
    """Every fact key a passage can match, with coarser dates and number words."""
    text = blank_citations(passage)
    taken: list[tuple[int, int]] = []
    index = FactIndex(text)
    spans = index.spans
    dates = find_dates(text, taken)
    spans += [(fact.start, fact.end, frozenset(keys)) for fact, keys in dates]
    index.facts = [fact for fact, _ in dates] + _codes(text, taken) + _numbers(text, taken)
    spans += [(f.start, f.end, frozenset([f.key])) for f in index.facts if f.kind != "date"]
    index.facts += _names(text, taken, (), opening=False)
    index.facts.sort(key=lambda f: f.start)
    for match in _NUMBER_WORD.finditer(text):
        value = Decimal(_WORD_VALUES[match.group("word").lower()])
        word_key = _number_key(value, match.group("scale"), match.group("pct"))
        spans.append((match.start(), match.end(), frozenset([word_key])))
    # Numbers inside dates count as numbers too: "in 1973" is in "October 1973".
    for match in _NUMBER.finditer(text):
        if number_key := _number_match_key(match):
            spans.append((match.start(), match.end(), frozenset([number_key])))
    index.keys = set().union(*(keys for _, _, keys in spans))
    index.words = set(content_terms(text)) | acronyms(text)
    return index


def _codes(text: str, taken: list[tuple[int, int]]) -> list[Fact]:
    facts = []
    for match in _CODE.finditer(text):
        token = match.group(0).rstrip(".")
        if _PLAIN_NUMBER.fullmatch(token) or not free(taken, match.start(), match.end()):
            continue
        if re.fullmatch(r"[\d.,]+", token.replace("-", "").replace("/", "")):
            continue
        end = match.start() + len(token)
        key = "code:" + re.sub(r"[-/.]", "", token.lower())
        facts.append(Fact("code", token, match.start(), end, key))
        taken.append((match.start(), end))
    return facts


def _number_key(value: Decimal, scale: str | None, pct: str | None) -> str:
    if scale:
        value = value.scaleb(_SCALES[scale.lower()])
    text = format(value.normalize(), "f")
    return f"num:{text}{'%' if pct else ''}"


def _number_match_key(match: re.Match[str]) -> str | None:
    try:
        value = Decimal(match.group("num").replace(",", ""))
    except InvalidOperation:
        return None
    if match.group("suffix") == "s":
        return f"num:{format(value.normalize(), 'f')}s"  # a decade, "1990s"
    return _number_key(value, match.group("scale"), match.group("pct"))


def _numbers(text: str, taken: list[tuple[int, int]]) -> list[Fact]:
    facts = []
    for match in _NUMBER.finditer(text):
        start = match.start() + (len(match.group(0)) - len(match.group(0).lstrip()))
        if not free(taken, start, match.end()):
            continue
        key = _number_match_key(match)
        if key is None:
            continue
        facts.append(Fact("number", text[start : match.end()], start, match.end(), key))
        taken.append((start, match.end()))
    return facts


def _names(
    text: str, taken: list[tuple[int, int]], common: Collection[str], *, opening: bool
) -> list[Fact]:
    """Runs of capitalised words (with "of", "de"... inside), as names."""
    tokens = [m for m in _TOKEN.finditer(text) if free(taken, m.start(), m.end())]
    facts: list[Fact] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        while run and run[-1].group(0).lower() in CONNECTORS:
            run.pop()
        if run:
            fact = _name_fact(text, run, common if opening else None)
            if fact is not None:
                facts.append(fact)
        run.clear()

    first_word = tokens[0].start() if tokens else -1
    for token in tokens:
        word = token.group(0)
        if run and text[run[-1].end() : token.start()].strip(" ") not in ("", "-"):
            close()  # punctuation between them: "Paris, France" is two names
        if word[0].isupper():
            lowered = word.lower()
            if len(word) == 1 or lowered in WEEKDAYS or (lowered in MONTHS and len(word) > 2):
                close()
            elif opening and token.start() == first_word and word.lower() in STOP:
                continue  # "The Normans": the name begins after "The"
            else:
                run.append(token)
        elif run and word in CONNECTORS:
            run.append(token)
        else:
            close()
    close()
    return facts


def _name_fact(text: str, run: list[re.Match[str]], common: Collection[str] | None) -> Fact | None:
    words = [_POSSESSIVE.sub("", m.group(0)) for m in run]
    if common is not None and run[0].start() == _first_token_start(text):
        word = words[0].lower()
        if len(words) == 1 and (
            word in common or word in STOP or word in OPENERS or word.endswith("ly")
        ):
            return None  # "Born in 1856, ...", "Later, ..."
    if len(words) == 1 and (words[0] == "I" or words[0].lower() in STOP):
        return None
    lowered = [w.lower() for w in words if w.lower() not in CONNECTORS]
    distinctive = stems([w for w in lowered if w not in GENERIC] or lowered)
    if not distinctive:
        return None
    start, end = run[0].start(), run[-1].end()
    return Fact("name", text[start:end], start, end, " ".join(distinctive))


def _first_token_start(text: str) -> int:
    match = _TOKEN.search(text)
    return match.start() if match else -1
