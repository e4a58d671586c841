""" "Why these sources?": the turn's trace as a timeline, its route, queries and scores."""

from __future__ import annotations

from typing import Any

from nicegui import ui

SCORE_COLUMNS = ("dense", "bm25", "fused", "rerank")


def timeline_options(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """An ECharts bar timeline: each node starts where the previous one ended."""
    names, offsets, lengths = [], [], []
    start = 0.0
    for node in nodes:
        ms = float(node.get("ms") or 0)
        names.append(str(node.get("node", "?")))
        offsets.append(round(start, 1))
        lengths.append(round(ms, 1))
        start += ms
    return {
        "animation": False,
        # Room on the right for the last bar's "1234.5 ms", and axis numbers that give way
        # instead of overlapping: the labels ran into each other and off the chart.
        "grid": {"left": 8, "right": 72, "top": 10, "bottom": 8, "containLabel": True},
        "tooltip": {"trigger": "axis", "axisPointer": {"type": "shadow"}},
        "xAxis": {"type": "value", "axisLabel": {"hideOverlap": True, "formatter": "{value} ms"}},
        "yAxis": {"type": "category", "data": names, "inverse": True},
        "series": [
            {
                "type": "bar",
                "stack": "t",
                "data": offsets,
                "itemStyle": {"color": "transparent"},
                "tooltip": {"show": False},
            },
            {
                "type": "bar",
                "stack": "t",
                "name": "ms",
                "data": lengths,
                "label": {"show": True, "position": "right", "formatter": "{c} ms"},
                "itemStyle": {"color": "#4f46e5", "borderRadius": 3},
            },
        ],
    }


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "" if value is None else str(value)


def used(candidate: dict[str, Any]) -> str:
    """The Used column: ✓ (and cited or not) for a passage in the prompt, else why not;
    blank where the trace does not say (answers saved before)."""
    if "used" not in candidate:
        return ""
    if candidate["used"]:
        return f"✓ cited [{candidate['source']}]" if candidate.get("cited") else "✓ not cited"
    return str(candidate.get("why") or "not used")


def candidate_rows(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per candidate: file, page, each score, and whether its passage was used."""
    rows = []
    raw = trace.get("candidates")
    if not raw:  # before retrieval records candidates, the sources are what is known
        raw = [
            {
                **s,
                "scores": s.get("scores") or {"fused": s.get("score")},
                "used": True,
                "source": s.get("n"),
            }
            for s in trace.get("sources", [])
        ]
    for i, c in enumerate(raw):
        scores = c.get("scores") or {k: c.get(k) for k in SCORE_COLUMNS}
        row = {
            "id": i,
            "file": c.get("file") or c.get("path") or "?",
            "page": c.get("page") if c.get("page") is not None else "",
            "kept": used(c),
        }
        row.update({k: _fmt(scores.get(k)) for k in SCORE_COLUMNS})
        rows.append(row)
    return rows


def reading_line(reading: dict[str, Any]) -> str:
    """A whole-document turn's reading in one sentence: what was read, how, what was not."""
    files = ", ".join(reading.get("documents") or [])
    pages = reading.get("pages", 0)
    sections = reading.get("sections", 0)
    if not sections:
        return f"Read {files} whole in one piece ({pages} pages)."
    line = (
        f"Read {files} in {sections} sections ({pages} pages): "
        f"{reading.get('note_calls', 0)} written now, {reading.get('notes_cached', 0)} from "
        "notes kept earlier."
    )
    skipped = sum(len(s.get("sections", [])) for s in reading.get("skipped") or [])
    return line + (f" {skipped} sections were skipped for the call budget." if skipped else "")


def show_trace(trace: dict[str, Any]) -> None:
    """Open the trace dialog for one turn."""
    with ui.dialog() as dialog, ui.card().classes("w-full max-w-3xl gap-3").mark("trace-dialog"):
        with ui.row().classes("w-full items-center justify-between no-wrap"):
            ui.label("Why these sources?").classes("text-lg font-semibold")
            ui.button(icon="close", on_click=dialog.close).props(
                'flat round dense aria-label="Close"'
            )
        route = trace.get("route") or "—"
        tier = trace.get("tier") or trace.get("route_reason")
        with ui.row().classes("gap-2 items-center"):
            ui.chip(f"route: {route}", icon="alt_route").props("dense outline").mark("trace-route")
            if tier:
                ui.chip(f"decided by: {tier}", icon="rule").props("dense outline")
            total = sum(float(n.get("ms") or 0) for n in trace.get("nodes", []))
            if total:
                ui.chip(f"{total:.0f} ms in all", icon="timer").props("dense outline")
        nodes = trace.get("nodes") or []
        if nodes:
            ui.echart(timeline_options(nodes)).classes("w-full").style(
                f"height: {60 + 34 * len(nodes)}px"
            ).mark("trace-timeline")
        if reading := trace.get("reading"):
            ui.label(reading_line(reading)).classes("text-sm").mark("trace-reading")
        queries = trace.get("queries") or []
        if queries:
            ui.label("Searches").classes("text-sm font-semibold")
            for q in queries:
                text = q.get("text", q) if isinstance(q, dict) else str(q)
                files = q.get("files") if isinstance(q, dict) else None
                suffix = f"  — in {', '.join(files)}" if files else ""
                ui.label(f"“{text}”{suffix}").classes("text-sm").mark("trace-query")
        rows = candidate_rows(trace)
        if rows:
            ui.label("Candidates and their scores").classes("text-sm font-semibold")
            columns = [
                {"name": "file", "label": "File", "field": "file", "align": "left"},
                {"name": "page", "label": "Page", "field": "page"},
                *[{"name": k, "label": k, "field": k} for k in SCORE_COLUMNS],
                {"name": "kept", "label": "Used", "field": "kept"},
            ]
            ui.table(columns=columns, rows=rows, row_key="id").props("dense flat bordered").classes(
                "w-full"
            ).style("overflow-x: auto").mark("trace-candidates")
    dialog.open()
