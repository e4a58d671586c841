"""Reading order: OCR'd lines back into the text a person reads, paragraph by paragraph.

Boxes are turned upright and deskewed, cut into bands, and bands with the same columns
read column by column; aligned narrow cells read row by row as a table. A larger gap or a
change of height starts a paragraph, so the chunker treats it as typed text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import median

from ingest.ocr.page_reader import Line, Lines

_SAME_BAND = 0.25
"""Boxes overlapping by this share of the smaller height are in one band (a box's
padding makes neighbouring lines touch; a real overlap is deeper)."""
_GUTTER = 0.7
"""A horizontal gap wider than this many line heights splits columns."""
_PARAGRAPH_GAP = 0.6
"""A vertical gap between lines taller than this share of a line starts a paragraph."""
_HEADING = 1.3
"""A line this much taller or shorter than the one before starts a paragraph."""
_TABLE_CELL = 15
"""Columns whose lines average fewer characters than this hold cells, not prose."""


@dataclass
class Box:
    """A line straightened: its extent, text and confidence."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    score: float

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def middle(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass
class _Block:
    spans: list[tuple[float, float]]
    columns: list[list[Box]] = field(default_factory=list)
    rows: list[list[Box]] = field(default_factory=list)
    """Each band's boxes, left to right (read row by row when the block is a table)."""


def reading_text(found: Lines, keep: list[Line] | None = None) -> str:
    """The lines of ``found`` (or only ``keep``) as text, paragraphs apart by a blank line."""
    boxes = straighten(found, found.lines if keep is None else keep)
    paragraphs = [p for block in _blocks(_bands(boxes)) for p in _read(block)]
    return "\n\n".join("\n".join(lines) for lines in paragraphs if lines)


def straighten(found: Lines, lines: list[Line]) -> list[Box]:
    """The lines as upright, unskewed boxes."""
    upright = [[_turn(x, y, found) for x, y in line.points] for line in lines]
    slants = [angle for points in upright if (angle := _slant(points)) is not None]
    skew = median(slants) if slants else 0.0
    cos, sin = math.cos(skew), math.sin(skew)
    boxes = []
    for line, points in zip(lines, upright, strict=True):
        cx = sum(x for x, _ in points) / len(points)
        cy = sum(y for _, y in points) / len(points)
        x, y = cx * cos + cy * sin, -cx * sin + cy * cos
        first, second = _side(points[0], points[1]), _side(points[1], points[2])
        length, thickness = max(first, second), min(first, second)
        boxes.append(
            Box(
                x - length / 2,
                y - thickness / 2,
                x + length / 2,
                y + thickness / 2,
                line.text,
                line.score,
            )
        )
    return boxes


def _turn(x: float, y: float, found: Lines) -> tuple[float, float]:
    """A point of the image as it sits on the page turned upright."""
    if found.rotation == 90:  # the text ran top to bottom
        return y, found.width - x
    if found.rotation == 180:
        return found.width - x, found.height - y
    if found.rotation == 270:
        return found.height - y, x
    return x, y


def _side(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(b[0] - a[0], b[1] - a[1])


def _slant(points: list[tuple[float, float]]) -> float | None:
    """The angle (radians) of a long box's long side; None for a short box."""
    first, second = _side(points[0], points[1]), _side(points[1], points[2])
    a, b = (points[0], points[1]) if first >= second else (points[1], points[2])
    if max(first, second) < 3 * min(first, second):
        return None
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    while angle > math.pi / 4:
        angle -= math.pi / 2
    while angle <= -math.pi / 4:
        angle += math.pi / 2
    return angle


def _bands(boxes: list[Box]) -> list[list[Box]]:
    """Boxes cut into horizontal bands, top to bottom, where nothing spans the gap."""
    bands: list[list[Box]] = []
    bottom = -math.inf
    for box in sorted(boxes, key=lambda b: b.y0):
        if bands and box.y0 < bottom - _SAME_BAND * min(box.height, _last_height(bands[-1])):
            bands[-1].append(box)
            bottom = max(bottom, box.y1)
        else:
            bands.append([box])
            bottom = box.y1
    return bands


def _last_height(band: list[Box]) -> float:
    return median(b.height for b in band)


def _columns(band: list[Box]) -> list[list[Box]]:
    """A band's boxes split at wide empty gaps, left to right."""
    gutter = _GUTTER * median(b.height for b in band)
    columns: list[list[Box]] = []
    right = -math.inf
    for box in sorted(band, key=lambda b: b.x0):
        if columns and box.x0 - right < gutter:
            columns[-1].append(box)
            right = max(right, box.x1)
        else:
            columns.append([box])
            right = box.x1
    return columns


def _blocks(bands: list[list[Box]]) -> list[_Block]:
    """Consecutive bands with the same columns, as blocks, top to bottom."""
    blocks: list[_Block] = []
    for band in bands:
        columns = _columns(band)
        spans = [(min(b.x0 for b in c), max(b.x1 for b in c)) for c in columns]
        block = blocks[-1] if blocks else None
        where = _fit(spans, block.spans) if block is not None else None
        if block is None or where is None:
            block = _Block(spans, [[] for _ in spans])
            blocks.append(block)
            where = list(range(len(spans)))
        for index, column, span in zip(where, columns, spans, strict=True):
            block.columns[index].extend(column)
            low, high = block.spans[index]
            block.spans[index] = (min(low, span[0]), max(high, span[1]))
        block.rows.append(sorted(band, key=lambda b: b.x0))
    return blocks


def _fit(spans: list[tuple[float, float]], block: list[tuple[float, float]]) -> list[int] | None:
    """Which of the block's columns each span belongs to; None when the band does not
    continue the block (more columns, or a span across its gutter)."""
    if len(block) == 1:
        return [0] if len(spans) == 1 else None
    where: list[int] = []
    for low, high in spans:
        touched = [i for i, (a, b) in enumerate(block) if low < b and a < high]
        if len(touched) != 1:
            return None
        where.append(touched[0])
    return where


def _read(block: _Block) -> list[list[str]]:
    """The block's paragraphs, each a list of lines."""
    if len(block.columns) > 1 and _is_table(block):
        return [[" ".join(b.text for b in row) for row in block.rows]]
    paragraphs: list[list[str]] = []
    for column in block.columns:
        paragraphs.extend(_paragraphs(_lines(column)))
    return paragraphs


def _is_table(block: _Block) -> bool:
    lengths = [len(b.text) for column in block.columns for b in column]
    return sum(lengths) / len(lengths) < _TABLE_CELL


def _lines(boxes: list[Box]) -> list[Box]:
    """Boxes on the same line joined, left to right; the lines top to bottom."""
    lines: list[list[Box]] = []
    for box in sorted(boxes, key=lambda b: b.middle):
        if lines:
            current = lines[-1]
            middle = median(b.middle for b in current)
            if abs(box.middle - middle) < 0.5 * min(box.height, _last_height(current)):
                current.append(box)
                continue
        lines.append([box])
    joined = []
    for parts in lines:
        parts.sort(key=lambda b: b.x0)
        joined.append(
            Box(
                min(b.x0 for b in parts),
                min(b.y0 for b in parts),
                max(b.x1 for b in parts),
                max(b.y1 for b in parts),
                " ".join(b.text.strip() for b in parts),
                min(b.score for b in parts),
            )
        )
    return joined


def _paragraphs(lines: list[Box]) -> list[list[str]]:
    """Lines grouped into paragraphs at a larger gap or a change of size."""
    if not lines:
        return []
    usual = median(line.height for line in lines)
    paragraphs: list[list[str]] = [[lines[0].text]]
    for before, line in zip(lines, lines[1:], strict=False):
        gap = line.y0 - before.y1
        ratio = line.height / before.height if before.height > 0 else 1.0
        if gap > _PARAGRAPH_GAP * usual or not 1 / _HEADING < ratio < _HEADING:
            paragraphs.append([])
        paragraphs[-1].append(line.text)
    return paragraphs
