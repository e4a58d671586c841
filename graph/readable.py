"""A passage as a person reads it, where passages stand in for an answer: links, images, HTML and
template tags taken out; Markdown's own signs (# * `) stay, since they read as the file does."""

from __future__ import annotations

import html
import re

_TEMPLATE = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^\s<>]+)>")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])")
_HIDING = [
    (_TEMPLATE, " "),
    (_COMMENT, " "),
    (_AUTOLINK, r"\1"),
    (_TAG, " "),
    (_IMAGE, r"\1"),
    (_LINK, r"\1"),
]
"""What hides words, and what each leaves of them, in the order they are taken out."""


def readable(text: str) -> str:
    """``text`` without its markup, on one line."""
    for pattern, words in _HIDING:
        text = pattern.sub(words, text)
    return " ".join(html.unescape(text).split())


_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+", re.MULTILINE)


def readable_markdown(text: str) -> str:
    """``text`` as Markdown for a quote, markup taken out as ``readable`` does and lines kept;
    heading marks go, since a heading inside a quoted passage would outshout the answer."""
    for pattern, words in _HIDING:
        text = pattern.sub(words, text)
    text = _HEADING.sub("", text)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return "\n".join(lines).strip()
