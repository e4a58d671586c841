"""The router's cheapest tier: keyword and pattern rules that settle the obvious turns."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graph.nodes.chat_rules import (
    ABOUT_ME,
    ARITHMETIC,
    GENERAL,
    GREETING_FIRST,
    INLINE_WRITING,
    PROGRAMMING,
    SMALL_TALK,
    TRANSLATE,
    WRITING,
)
from graph.nodes.rule import Rule, compile_rule

_DOC_NOUNS = (
    r"documents?|docs?|files?|pdfs?|reports?|papers?|articles?|manuals?|handbook|guides?|"
    r"contracts?|agreements?|polic(?:y|ies)|notes|slides?|presentations?|spreadsheets?|"
    r"books?|chapters?|sections?|pages?|appendix|tables?|figures?|memos?|minutes|"
    r"transcripts?|invoices?|statements?|proposals?|spec(?:ification)?s?|readme|wiki|"
    r"text|passages?|paragraphs?|excerpts?|sources?|library|folder|attachments?|"
    r"studies|study|thesis|brochures?|leaflets?|datasheets?|terms|faq"
)


_DOC_PLURALS = (
    r"documents|docs|files|pdfs|reports|papers|pages|notes|invoices|contracts|memos|"
    r"agreements|policies|manuals|guides|statements|proposals|articles|spreadsheets"
)
_FIND_VERBS = (
    r"mention|mentions|contain|contains|talk about|talks about|discuss|discusses|refer to|"
    r"refers to|cover|covers|include|includes|deal with|deals with|are about|is about|"
    r"say anything about|says anything about|have|has|use|uses|cite|cites|name|names"
)

FIND = compile_rule(
    "asks which documents",
    "find",
    r"^\W*(?:in\s+)?(?:which|what)\s+(?:of\s+(?:my|the|our|these)\s+)?(?:\w+\s){0,2}?(?:"
    + _DOC_NOUNS
    + r")\s+(?:\w+\s){0,2}?(?:"
    + _FIND_VERBS
    + r")\b|"
    r"\bhow many\s+(?:of\s+(?:my|the|our|these)\s+)?(?:\w+\s){0,2}?(?:" + _DOC_NOUNS + r")\b|"
    r"\b(?:list|show|find|give me|count|name)\s+(?:me\s+)?(?:all|every|each|any)\s+"
    r"(?:of\s+)?(?:the\s+|my\s+|our\s+)?(?:\w+\s){0,2}?(?:" + _DOC_NOUNS + r")\b|"
    r"^\W*(?:in\s+|from\s+)?(?:which|what)\s+(?:of\s+(?:my|the|our)\s+)?(?:"
    + _DOC_PLURALS
    + r")\b|"
    r"\blist\s+(?:the\s+|these\s+|those\s+)?(?:" + _DOC_PLURALS + r")\b|"
    r"\bcount\s+(?:up\s+)?(?:the\s+|all\s+|my\s+)?(?:\w+\s){0,2}?(?:" + _DOC_NOUNS + r")\b|"
    r"\b(?:every|all(?:\s+the)?)\s+(?:\w+\s)?(?:" + _DOC_NOUNS + r")\s+"
    r"(?:that|which|mentioning|about|on|with|containing)\b",
)
"""Questions about the set of documents, not their content: which, how many, list all."""

COUNTS_IN_A_TEXT = compile_rule(
    "asks a count a text gives",
    "rag",
    r"\bhow many\s+(?:of\s+(?:my|the|our|these)\s+)?(?:\w+\s){0,2}?(?:"
    + _DOC_NOUNS
    + r")\s+(?:can|could|will|would|should|may|might|must|do|does|did|has|had)\s+"
    r"(?!(?:i|we|you)\s+(?:have|got|keep|store)\b|there\b)",
)
"""A count the documents give of a thing also named like a document ("How many pages does the form
have?"); a count of documents ("How many pages mention GitHub?") is ``FIND``'s."""

FIND_HINT = re.compile(
    r"\b(?:list|count|all of them|every one|each of them|how many|which)\b.*\b(?:"
    + _DOC_PLURALS
    + r")\b|\b(?:"
    + _DOC_PLURALS
    + r")\b.*\b(?:list|all of them|every one|each of them)\b",
    re.IGNORECASE,
)
"""Words that may ask for a set of documents, which the probe can't tell: the LLM decides."""

NAMES_DOCUMENTS = re.compile(r"\b(?:" + _DOC_NOUNS + r")\b", re.IGNORECASE)
"""A word for documents or their parts: a question about the set of them names one."""

DOCUMENTS = compile_rule(
    "names the documents",
    "rag",
    r"\b(?:the|this|that|these|those|my|our|your|attached|uploaded|above|previous|"
    r"same|each|every|which|all the|any of the)\s+(?:\w+[\s-]){0,2}?(?:" + _DOC_NOUNS + r")\b|"
    r"\b(?:in|from|of|across|through)\s+(?:my|our)\s+(?:\w+\s)?(?:" + _DOC_NOUNS + r")\b",
)

READING = compile_rule(
    "asks what a text says",
    "rag",
    r"\baccording to\b|\bas (?:stated|described|mentioned|written|defined|explained) in\b|"
    r"\b(?:mentioned|stated|described|written|defined|listed|cited|quoted|covered) in\b|"
    r"\bwhat do(?:es)? (?:it|they|\w+(?:\s\w+){0,4}) (?:say|state|claim|mention|recommend|"
    r"require|conclude|suggest|propose|argue|find|report)\b|\bwhere does it say\b|"
    r"\b(?:summari[sz]e|summary|summarise|tl;?dr|key (?:points|takeaways|findings)|"
    r"main (?:points|ideas|findings|argument)|takeaways)\b|"
    r"\b(?:page|p\.|pp\.|section|chapter|clause|article|appendix|figure|table)\s*\d+|"
    r"\b(?:cite|citation|quote)\b|\bsearch (?:for|through|in)\b|\blook (?:it )?up\b|"
    r"\bfind (?:me )?(?:the |a )?(?:part|passage|place|line|bit|mention|section)\b",
)

FOLLOW_UP = compile_rule(
    "follows up a search",
    "rag",
    r"^\W*(?:and|also|but|so|what about|how about|and what about|what else|anything else|"
    r"tell me more|more on|more about|go on|continue|elaborate|explain|why|how so|"
    r"which one|which ones|who|when|where|how (?:much|many|long|often))\b|"
    r"\b(?:it|its|it's|they|their|them|theirs|this|that|these|those|he|she|his|her|"
    r"the latter|the former|the first|the second|the last|same)\b",
)

FOLLOW_UP_WORDS = 14
"""A follow-up is short; a long message stands on its own and goes through the tiers."""

_WHOLE_NOUNS = (
    r"documents?|docs?|files?|pdfs?|reports?|papers?|articles?|contracts?|agreements?|"
    r"books?|thesis|memos?|presentations?|decks?|transcripts?|proposals?|studies|study"
)
"""Nouns that name a whole file; not "policy" or "guide", which in a library of short pages name a
topic ("summarise the policy on leave")."""

_THIS_DOCUMENT = (
    r"\b(?:this|that|the|whole|entire|full|attached|above|uploaded)\s+"
    r"(?:whole\s+|entire\s+|full\s+)?(?:document|doc|file|pdf|report|paper|article|contract|"
    r"agreement|book|thesis|memo|presentation|deck|transcript|proposal|study)\b"
    r"(?!\s+(?:on|about|regarding)\s+\w|\s+says?\b)"
)
"""One file, in the singular: "the docs" is the whole library, a question to search."""

WHOLE_DOCUMENT = compile_rule(
    "asks about a whole document",
    "document",
    r"\b(?:summari[sz]e|summary|summarise|overview|outline|tl;?dr|gist|synopsis|"
    r"key (?:points|takeaways|findings)|main (?:points|ideas|findings|argument)|takeaways|"
    r"explain|walk me through|go through|what(?:'s| is) (?:it|(?:this|that|the)(?: \w+)?) about)\b|"
    r"\bwhat(?:'s| is) [^?]{1,80}? about\W*$",
)

NAMES_A_DOCUMENT = compile_rule("names a document", "document", _THIS_DOCUMENT)

FOCUSED = compile_rule(
    "asks about a topic inside it",
    "rag",
    r"\b(?:says?|said|mentions?) (?:about|on|regarding)\b|\bregarding\b|\bconcerning\b|"
    r"\bwith respect to\b|\brelated to\b|\bthe part (?:on|about)\b|"
    r"\b(?:the|this|that|its) (?:\w+ )?"
    r"(?:section|chapter|clause|appendix|paragraph|table|figure)\b|"
    r"\b(?:section|chapter|clause|appendix|page|table|figure) \d",
)

COMPARE = compile_rule(
    "compares documents",
    "compare",
    r"\b(?:compare|comparison|comparing|contrast|differences?|differ(?:s|ent|ently)?|versus|vs\.?|"
    r"side by side|similarit(?:y|ies))\b",
)

SEVERAL_DOCUMENTS = compile_rule(
    "names several documents",
    "compare",
    r"\b(?:two|both|these|those|three)\s+(?:\w+\s)?(?:" + _WHOLE_NOUNS + r")\b",
)


def whole_document_rule(question: str, mentioned: int) -> Rule | None:
    """The rule that makes this a whole-document turn (one named file, asked whole, not narrowed to
    a topic) or a compare turn (two named files), or None."""
    text = question.strip()
    if COMPARE.pattern.search(text) and (mentioned >= 2 or SEVERAL_DOCUMENTS.pattern.search(text)):
        return COMPARE
    if FOCUSED.pattern.search(text) or not WHOLE_DOCUMENT.pattern.search(text):
        return None
    if mentioned >= 1 or NAMES_A_DOCUMENT.pattern.search(text):
        return WHOLE_DOCUMENT
    return None


_ORDER = (
    SMALL_TALK,
    ABOUT_ME,
    INLINE_WRITING,
    COUNTS_IN_A_TEXT,
    FIND,
    DOCUMENTS,
    READING,
    WRITING,
    TRANSLATE,
    ARITHMETIC,
    PROGRAMMING,
    GENERAL,
)


def apply_rules(question: str, *, after_search: bool) -> Rule | None:
    """The first rule that settles the route, or None when the question is ambiguous.

    In order: small talk; a question about the set of documents finds; naming the documents or
    asking what a text says searches, even with writing ("summarize the report as a poem"); then the
    chat rules. A leading greeting is small talk only if nothing follows it. ``after_search``: a
    short follow-up of a search searches again.
    """
    text = question.strip()
    if SMALL_TALK.pattern.search(text):
        return SMALL_TALK
    text = GREETING_FIRST.sub("", text, count=1) or text
    for rule in _ORDER[1:]:
        if rule.pattern.search(text):
            return rule
    if after_search and len(text.split()) <= FOLLOW_UP_WORDS and FOLLOW_UP.pattern.search(text):
        return FOLLOW_UP
    return None


@dataclass(frozen=True)
class Verdict:
    """What the rules make of one message: judged once a turn, by ``judge``."""

    text: str
    """The message as judged (its @mentions replaced by the file names)."""
    mentioned: int
    """How many files it names."""
    after_search: bool
    rule: Rule | None
    """``apply_rules``'s: the first rule that settles the route, if any."""
    whole: Rule | None
    """``whole_document_rule``'s: a whole-document or compare turn, if it is one."""
    asks_for_a_set: bool
    """Words that may ask for a set of documents (``FIND_HINT``): the probe cannot tell."""
    wants_whole_passages: bool
    """It asks for a summary, outline or explanation, which cut passages would lose."""

    def of(self, text: str, mentioned: int, after_search: bool) -> bool:
        """Whether this is the verdict on ``text``, naming ``mentioned`` files, so read."""
        return (self.text, self.mentioned, self.after_search) == (text, mentioned, after_search)


def judge(text: str, *, mentioned: int, after_search: bool) -> Verdict:
    """Every rule's say on ``text`` (which names ``mentioned`` files), at once."""
    return Verdict(
        text=text,
        mentioned=mentioned,
        after_search=after_search,
        rule=apply_rules(text, after_search=after_search),
        whole=whole_document_rule(text, mentioned),
        asks_for_a_set=bool(FIND_HINT.search(text)),
        wants_whole_passages=bool(WHOLE_DOCUMENT.pattern.search(text)),
    )
