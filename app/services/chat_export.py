"""A chat written out to keep: Markdown with each answer's sources (made inert), or JSON
with everything. The same lines serve Copy, the window's Export and the export route."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from app.services.inert_markdown import inert_markdown
from graph.records import KeptMessage, SessionPublic

ExportFormat = Literal["markdown", "json"]

EXPORT_VERSION = 1
"""Bumped when the JSON's shape changes, so a reader can tell which it has."""

FEEDBACK = {"up": "👍 helpful", "down": "👎 not helpful"}


def source_line(source: Mapping[str, Any]) -> str:
    """``[2] report.pdf, p. 4 (reports/2024/report.pdf)``."""
    where = str(source.get("file") or source.get("path") or "")
    if source.get("page"):
        where += f", p. {source['page']}"
    path = source.get("path")
    if path and path != source.get("file"):
        where += f" ({path})"
    return f"[{source.get('n', '?')}] {where}"


def sources_markdown(sources: Sequence[Mapping[str, Any]]) -> str:
    """The sources as a Markdown list under a "Sources" line; empty when there are none."""
    if not sources:
        return ""
    return "Sources:\n" + "\n".join(f"- {source_line(s)}" for s in sources)


def answer_with_sources(text: str, sources: Sequence[Mapping[str, Any]]) -> str:
    """What Copy puts on the clipboard: the answer, then the sources it numbers."""
    listed = sources_markdown(sources)
    return f"{text.rstrip()}\n\n{listed}" if listed else text


def export_markdown(info: SessionPublic, messages: list[KeptMessage]) -> str:
    """The chat as Markdown: each question, its answer and its sources, made inert."""
    lines = [f"# {info.title}", "", f"Exported from Docent · started {info.created_at}", ""]
    for message in messages:
        if message["role"] == "user":
            lines += ["## Question", "", message["content"].rstrip(), ""]
            continue
        if message.get("interrupted"):
            lines += ["## Answer", "", "*(interrupted: no answer was saved)*", ""]
            continue
        versions = message.get("versions") or []
        for number, earlier in enumerate(versions, start=1):
            lines += [f"### Earlier answer {number} of {len(versions) + 1}", ""]
            lines += [answer_with_sources(earlier["content"], earlier.get("sources", [])), ""]
        heading = "## Answer" + (
            f" ({len(versions) + 1} of {len(versions) + 1})" if versions else ""
        )
        lines += [heading, "", answer_with_sources(message["content"], message["sources"]), ""]
        if message.get("stopped"):
            lines += ["*(stopped before the end)*", ""]
        if message.get("feedback") in FEEDBACK:
            lines += [f"Rated: {FEEDBACK[message['feedback']]}", ""]
    return inert_markdown("\n".join(lines)).rstrip() + "\n"


def export_json(info: SessionPublic, messages: list[KeptMessage]) -> str:
    """The chat with everything kept for each answer: sources, trace, feedback, versions."""
    document = {
        "docent_export": EXPORT_VERSION,
        "session": {
            "id": info.id,
            "title": info.title,
            "created_at": info.created_at,
            "updated_at": info.updated_at,
        },
        "messages": messages,
    }
    return json.dumps(document, ensure_ascii=False, indent=2, default=str)


def export_text(info: SessionPublic, messages: list[KeptMessage], fmt: ExportFormat) -> str:
    return export_markdown(info, messages) if fmt == "markdown" else export_json(info, messages)


def file_name(info: SessionPublic, fmt: ExportFormat) -> str:
    """A file name from the title: ``Where is the spare key.md``."""
    stem = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", info.title).strip(" .")[:80] or "chat"
    return f"{stem}.{'md' if fmt == 'markdown' else 'json'}"


MEDIA_TYPES: dict[ExportFormat, str] = {
    "markdown": "text/markdown; charset=utf-8",
    "json": "application/json",
}
