"""Files are read and chunked as streams: blocks rejoin to the file, memory stays flat."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from fpdf import FPDF

from ingest.loaders.text import MarkdownDocument, TextDocument
from ingest.pipeline.chunker import chunk_pages

ROOT = Path(__file__).resolve().parents[1]
_MB = 1024 * 1024


def _paragraphs(rng: random.Random, size: int) -> str:
    words = "the quick brown fox jumps over a lazy dog naïve café 東京 alpha beta".split()
    parts: list[str] = []
    length = 0
    while length < size:
        sentence = " ".join(rng.choice(words) for _ in range(rng.randint(4, 18))) + ". "
        parts.append(sentence + ("\n\n" if rng.random() < 0.2 else ""))
        length += len(sentence)
    return "".join(parts)


def _write_big_text(path: Path, megabytes: int) -> int:
    """A file of ``megabytes`` MiB of varied prose; returns its length in characters."""
    block = _paragraphs(random.Random(megabytes), _MB // 2)
    data = block.encode("utf-8")
    repeats = megabytes * _MB // len(data) + 1
    with path.open("wb") as fh:
        for _ in range(repeats):
            fh.write(data)
    return len(block) * repeats


def test_text_blocks_rejoin_to_the_file_and_end_at_breaks(tmp_path: Path) -> None:
    text = _paragraphs(random.Random(3), 60_000)
    path = tmp_path / "long.txt"
    path.write_text(text, encoding="utf-8")

    pages = list(TextDocument(path, block_chars=5_000).pages())

    assert len(pages) > 10
    assert "".join(page.text for page in pages) == text
    for before, after in zip(pages, pages[1:], strict=False):
        assert after.offset == before.offset + len(before.text)
        assert before.text.endswith(("\n", " "))  # cut at a break, not inside a word


def test_markdown_headings_keep_file_positions_across_blocks(tmp_path: Path) -> None:
    rng = random.Random(5)
    parts = [f"## Part {n}\n\n{_paragraphs(rng, 3_000)}\n\n" for n in range(12)]
    text = "# Book\n\n" + "".join(parts)
    path = tmp_path / "book.md"
    path.write_text(text, encoding="utf-8")

    pages = list(MarkdownDocument(path, block_chars=4_000).pages())
    chunks = list(chunk_pages(pages, size=800, overlap=100))

    starts = [s.start for page in pages for s in page.sections]
    assert starts == [0, *(text.index(f"## Part {n}\n") for n in range(12))]
    first_part = text.index("## Part 0")  # "# Book" has nothing under it: joins Part 0
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        part = text.rfind("## Part ", 0, max(chunk.start, first_part) + len("## Part "))
        assert chunk.heading == f"Book > Part {text[part + 8 : text.index(chr(10), part)]}"


_MEASURE = """
import json, sys
from pathlib import Path
from ingest.pipeline.chunker import chunk_pages
from ingest.loaders import open_document

def rss_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])

baseline = rss_kb("VmRSS:")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # resets the peak (VmHWM) to the current size
count = chars = last_end = last_page = 0
settled_kb = None  # the size once page 500 is reached: later pages must not add to it
with open_document(Path(sys.argv[1])) as document:
    for chunk in chunk_pages(document.pages(), size=1000, overlap=150):
        count += 1
        chars += len(chunk.text)
        last_end, last_page = chunk.end, chunk.page or 0
        if last_page == 500 and settled_kb is None:
            settled_kb = rss_kb("VmRSS:")
print(json.dumps({"growth_kb": rss_kb("VmHWM:") - baseline, "count": count,
                  "chars": chars, "last_end": last_end, "last_page": last_page,
                  "late_growth_kb": rss_kb("VmHWM:") - (settled_kb or baseline)}))
"""


def _peak_growth(path: Path) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, int] = json.loads(done.stdout)
    grew = figures["growth_kb"] / 1024
    print(f"\n{path.name}, {path.stat().st_size / _MB:.0f} MB: peak RSS grew {grew:.1f} MB")
    return figures


needs_proc = pytest.mark.skipif(
    not Path("/proc/self/clear_refs").exists(), reason="peak RSS is read from Linux's /proc"
)


def _check_bounded(tmp_path: Path, megabytes: int) -> None:
    path = tmp_path / "huge.txt"
    length = _write_big_text(path, megabytes)

    figures = _peak_growth(path)

    # Holding the file would cost more than its size (bytes, then a str of 2-byte chars).
    assert figures["growth_kb"] < 40 * 1024
    assert figures["last_end"] > length - 1000  # it really read to the end
    assert figures["count"] > length // 1000


@needs_proc
def test_a_large_text_file_loads_and_chunks_in_bounded_memory(tmp_path: Path) -> None:
    _check_bounded(tmp_path, 48)


@pytest.mark.slow
@needs_proc
def test_a_200_mb_text_file_loads_and_chunks_in_bounded_memory(tmp_path: Path) -> None:
    _check_bounded(tmp_path, 200)


@pytest.mark.slow
@needs_proc
def test_a_long_pdf_is_read_page_by_page_in_bounded_memory(tmp_path: Path) -> None:
    pages = 2500
    pdf = FPDF()
    pdf.set_font("Helvetica", size=10)
    for number in range(1, pages + 1):
        pdf.add_page()
        for line in range(40):
            pdf.text(10, 10 + 6 * line, f"Page {number}, line {line}: lorem ipsum dolor sit amet.")
    path = tmp_path / "long.pdf"
    pdf.output(str(path))

    figures = _peak_growth(path)

    # Unbounded, pypdf's object cache grew about 12 MB over the last 2000 pages.
    assert figures["late_growth_kb"] < 6 * 1024
    assert figures["last_page"] == pages
