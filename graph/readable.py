"""A passage as a person reads it: markup from its source file (Markdown links, HTML,
template tags) taken out, for places that show passages instead of an answer."""

from __future__ import annotations

import html
import re

_TEMPLATE = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^\s<>]+)>")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])")
_HEADING = re.compile(r"(^|\n)\s{0,3}#{1,6}\s+")
_STRONG = re.compile(r"(\*\*|__)(.+?)\1")


def readable(text: str) -> str:
    """``text`` without its markup, on one line."""
    text = _TEMPLATE.sub(" ", text)
    text = _COMMENT.sub(" ", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _HEADING.sub(r"\1", text)
    text = _STRONG.sub(r"\2", text)
    text = html.unescape(text)
    return " ".join(text.split())
