"""Chunker: spans are exact, chunks stay inside pages and sections, cuts land on boundaries."""

from __future__ import annotations

import random

import pytest

from ingest.document_parts import Page, Section
from ingest.pipeline.chunker import PageChunk, chunk_pages

_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "東京", "naïve", "x" * 30]
_GLUE = [" ", " ", " ", "  ", ". ", "! ", "? ", "\n", "\n\n", "\t", ".\n\n"]


def _random_text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.1:
        return ""
    if kind < 0.2:
        return " \n\t " * rng.randint(1, 50)
    if kind < 0.3:  # no spaces at all, like CJK text
        return "".join(rng.choice("日本語の文章です。") for _ in range(rng.randint(1, 3000)))
    parts: list[str] = []
    for _ in range(rng.randint(1, 800)):
        parts.append(rng.choice(_WORDS))
        parts.append(rng.choice(_GLUE))
    return "".join(parts)


def _page_of(pages: list[Page], chunk: PageChunk) -> Page:
    if chunk.page is not None:
        return next(page for page in pages if page.number == chunk.page)
    return next(p for p in pages if p.offset <= chunk.start < p.offset + len(p.text))


def _check(pages: list[Page], chunks: list[PageChunk], size: int) -> None:
    for chunk in chunks:
        page = _page_of(pages, chunk)
        assert page.text[chunk.start - page.offset : chunk.end - page.offset] == chunk.text
        assert 0 < len(chunk.text) <= size
        assert chunk.text.strip() == chunk.text  # trimmed, never whitespace-only


@pytest.mark.parametrize("seed", range(40))
def test_span_property_holds_for_random_pages(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([50, 100, 300, 1000])
    overlap = rng.randrange(0, size // 2)
    pages = [Page(number=n, text=_random_text(rng)) for n in range(1, rng.randint(1, 6))]

    chunks = list(chunk_pages(pages, size=size, overlap=overlap))

    _check(pages, chunks, size)
    for page in pages:
        mine = [c for c in chunks if c.page == page.number]
        starts = [c.start for c in mine]
        assert starts == sorted(set(starts))  # moving forward, never repeating
        covered = set()
        for c in mine:
            covered.update(range(c.start, c.end))
        # Every non-space character of the page is in some chunk.
        assert all(i in covered for i, ch in enumerate(page.text) if not ch.isspace())


def test_chunks_never_cross_pages() -> None:
    pages = [Page(1, "Short first page."), Page(2, "Second page. " * 200), Page(3, "End.")]

    chunks = list(chunk_pages(pages, size=200, overlap=20))

    assert chunks[0] == PageChunk(page=1, start=0, end=17, text="Short first page.")
    assert chunks[-1].page == 3 and chunks[-1].text == "End."
    assert {c.page for c in chunks} == {1, 2, 3}


def test_prefers_paragraph_then_sentence_then_word_boundaries() -> None:
    para = "First paragraph sentence one. Sentence two is here."
    text = f"{para}\n\n{'Another paragraph that keeps going. ' * 4}"
    chunks = list(chunk_pages([Page(None, text)], size=80, overlap=0))
    assert chunks[0].text == para

    sentences = "One two three four five. Six seven eight nine ten eleven twelve."
    chunks = list(chunk_pages([Page(None, sentences)], size=40, overlap=0))
    assert chunks[0].text == "One two three four five."

    words = "word " * 30
    chunks = list(chunk_pages([Page(None, words)], size=22, overlap=0))
    assert all(c.text.split() == ["word"] * len(c.text.split()) for c in chunks)
    assert all(not c.text.startswith("ord") for c in chunks)


def test_overlap_repeats_the_end_of_the_previous_chunk() -> None:
    text = " ".join(f"w{i:03d}" for i in range(400))
    chunks = list(chunk_pages([Page(None, text)], size=200, overlap=50))

    for before, after in zip(chunks, chunks[1:], strict=False):
        assert after.start < before.end  # they share text
        assert before.end - after.start <= 50
        assert text[after.start - 1] == " "  # and start on a word


def test_whitespace_only_pages_give_no_chunks() -> None:
    assert list(chunk_pages([Page(1, "   \n\n\t "), Page(2, "")])) == []


def test_defaults_match_settings() -> None:
    text = "lorem ipsum dolor sit amet " * 200
    chunks = list(chunk_pages([Page(1, text)]))
    assert max(len(c.text) for c in chunks) <= 1000
    assert len(chunks) >= len(text) // 1000


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 100), (100, -1)])
def test_rejects_bad_sizes(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):  # at the call, not at the first chunk
        chunk_pages([Page(1, "text")], size=size, overlap=overlap)


# -- streamed pages (offsets) and sections ------------------------------------------


def _blocks(text: str, cuts: list[int]) -> list[Page]:
    """``text`` as unnumbered pages cut at ``cuts``, as a streaming loader yields it."""
    bounds = [0, *cuts, len(text)]
    return [Page(None, text[a:b], offset=a) for a, b in zip(bounds, bounds[1:], strict=False)]


@pytest.mark.parametrize("seed", range(20))
def test_spans_are_positions_in_the_whole_text_for_streamed_blocks(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(_random_text(rng) for _ in range(4))
    cuts = sorted(rng.sample(range(1, max(2, len(text))), k=min(3, max(0, len(text) - 1))))
    pages = _blocks(text, cuts)

    chunks = list(chunk_pages(pages, size=120, overlap=30))

    _check(pages, chunks, 120)
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text  # the rule, stated on the file


def test_chunks_do_not_straddle_sections_and_carry_their_heading_path() -> None:
    text = (
        "# Guide\n\nWhat this guide covers, in a few words of introduction.\n\n"
        "## Setup\n\nInstall the package and run it once to create its folders.\n\n"
        "## Usage\n\nOpen the window and drop files into the documents folder.\n"
    )
    starts = [text.index("# Guide"), text.index("## Setup"), text.index("## Usage")]
    sections = (
        Section(starts[0], ("Guide",)),
        Section(starts[1], ("Guide", "Setup")),
        Section(starts[2], ("Guide", "Usage")),
    )

    chunks = list(chunk_pages([Page(None, text, sections=sections)], size=1000, overlap=100))

    assert [c.heading for c in chunks] == ["Guide", "Guide > Setup", "Guide > Usage"]
    assert [c.start for c in chunks] == starts
    assert chunks[1].text.startswith("## Setup") and "Usage" not in chunks[1].text


def test_a_heading_with_nothing_under_it_joins_its_first_subsection() -> None:
    text = "# Setup\n\n## Install\n\nRun the installer and follow the steps it shows.\n"
    sections = (Section(0, ("Setup",)), Section(text.index("## Install"), ("Setup", "Install")))

    (chunk,) = chunk_pages([Page(None, text, sections=sections)], size=200, overlap=20)

    assert chunk.start == 0 and chunk.text.startswith("# Setup\n\n## Install")
    assert chunk.heading == "Setup > Install"


def test_a_short_section_before_a_sibling_stays_on_its_own() -> None:
    text = "## Notes\n\nShort.\n\n## Other\n\nSomething else entirely.\n"
    sections = (Section(0, ("Notes",)), Section(text.index("## Other"), ("Other",)))

    chunks = list(chunk_pages([Page(None, text, sections=sections)], size=200, overlap=20))

    assert [(c.heading, c.text) for c in chunks] == [
        ("Notes", "## Notes\n\nShort."),
        ("Other", "## Other\n\nSomething else entirely."),
    ]


def test_headings_carry_over_to_the_next_block_and_sections_use_file_positions() -> None:
    first = "# Intro\n\nFirst block of text.\n\n"
    second = "More of the intro in the second block.\n\n## Detail\n\nThe detail.\n"
    pages = [
        Page(None, first, offset=0, sections=(Section(0, ("Intro",)),)),
        Page(
            None,
            second,
            offset=len(first),
            sections=(Section(len(first) + second.index("## Detail"), ("Intro", "Detail")),),
        ),
    ]

    chunks = list(chunk_pages(pages, size=500, overlap=50))

    assert [(c.heading, c.text.split("\n")[0]) for c in chunks] == [
        ("Intro", "# Intro"),
        ("Intro", "More of the intro in the second block."),
        ("Intro > Detail", "## Detail"),
    ]
    _check(pages, chunks, 500)


def test_chunking_is_lazy() -> None:
    def pages():
        yield Page(1, "First page words.")
        raise AssertionError("the second page was read before the first chunk was used")

    chunks = chunk_pages(pages())

    assert next(chunks).text == "First page words."
