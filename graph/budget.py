"""Token budgets: what fits in the model's context, estimated without its tokenizer."""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AnyMessage, HumanMessage

from models.protocols import Message

MESSAGE_OVERHEAD = 8
"""Tokens a chat template adds around each message (role markers, separators)."""

_ASCII_PIECE = re.compile(r"\w{1,4}|[^\w\s]", re.ASCII)
_WIDE = re.compile(r"[^\x00-\x7f\s]")
_WIDE_LETTER = re.compile(r"[^\W\x00-\x7f]")
_WIDE_OTHER = re.compile(r"[^\x00-\x7f]")

MIN_CUT = 32
"""An earlier answer is cut short rather than dropped only if this much of it still fits."""
CUT_MARK = " …"


def estimate_tokens(text: str) -> int:
    """A safe over-estimate of the tokens ``text`` takes: each word or mark at least one, long words
    one per four letters, each non-ASCII character one; real tokenizers never do worse."""
    wide = 0
    if not text.isascii():
        # Every character outside ASCII but whitespace is a token of its own. Taken out of
        # words (which stay one piece) and standing in for a space elsewhere (where it
        # separated pieces), what is left counts as ASCII text does.
        wide = len(_WIDE.findall(text))
        text = _WIDE_OTHER.sub(" ", _WIDE_LETTER.sub("", text))
    # The regex engine counts: a word of n letters is n/4 pieces, rounded up.
    return wide + len(_ASCII_PIECE.findall(text))


def message_tokens(message: Message) -> int:
    """Tokens one chat message takes, template included."""
    return MESSAGE_OVERHEAD + estimate_tokens(message["content"])


def cut_to(text: str, tokens: int) -> str:
    """The longest prefix of ``text`` that fits in ``tokens``."""
    if estimate_tokens(text) <= tokens:
        return text
    low, high = 0, len(text)
    while low < high:  # binary search on the length: estimates grow with the prefix
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) <= tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def history_window(messages: Sequence[AnyMessage], budget: int) -> list[Message]:
    """The newest earlier messages that fit in ``budget`` tokens, oldest first, without the last
    (the one being answered). A long answer keeps its beginning, within half the room, so its
    question fits; the window starts on a question, never on an answer alone."""
    window: list[Message] = []
    used = 0
    for message in reversed(list(messages[:-1])):
        answer = not isinstance(message, HumanMessage)
        entry: Message = {
            "role": "assistant" if answer else "user",
            "content": str(message.content),
        }
        left = budget - used
        if answer and message_tokens(entry) > left // 2 and left // 2 > MIN_CUT + MESSAGE_OVERHEAD:
            entry["content"] = cut_to(entry["content"], left // 2 - MESSAGE_OVERHEAD) + CUT_MARK
        cost = message_tokens(entry)
        if cost > left:
            break
        window.append(entry)
        used += cost
    window.reverse()
    while window and window[0]["role"] != "user":
        window.pop(0)
    return window


def fit_blocks(
    blocks: Sequence[str], budget: int, separator_tokens: int = 1
) -> tuple[list[str], int]:
    """The leading blocks fitting ``budget``, and their tokens; the first is cut, never dropped."""
    kept: list[str] = []
    used = 0
    for block in blocks:
        cost = estimate_tokens(block) + separator_tokens
        if used + cost > budget:
            if not kept and budget > separator_tokens:
                cut = cut_to(block, budget - separator_tokens)
                kept.append(cut)
                used = estimate_tokens(cut) + separator_tokens
            break
        kept.append(block)
        used += cost
    return kept, used
