"""Chunker: spans are exact, chunks stay inside pages, cuts land on boundaries."""

from __future__ import annotations

import random

import pytest

from ingest.chunker import PageChunk, chunk_pages
from ingest.types import Page

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


def _check(pages: list[Page], chunks: list[PageChunk], size: int) -> None:
    by_number = {page.number: page for page in pages}
    for chunk in chunks:
        page = by_number[chunk.page]
        assert page.text[chunk.start : chunk.end] == chunk.text
        assert 0 < len(chunk.text) <= size
        assert chunk.text.strip() == chunk.text  # trimmed, never whitespace-only


@pytest.mark.parametrize("seed", range(40))
def test_span_property_holds_for_random_pages(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([50, 100, 300, 1000])
    overlap = rng.randrange(0, size // 2)
    pages = [Page(number=n, text=_random_text(rng)) for n in range(1, rng.randint(1, 6))]

    chunks = chunk_pages(pages, size=size, overlap=overlap)

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

    chunks = chunk_pages(pages, size=200, overlap=20)

    assert chunks[0] == PageChunk(page=1, start=0, end=17, text="Short first page.")
    assert chunks[-1].page == 3 and chunks[-1].text == "End."
    assert {c.page for c in chunks} == {1, 2, 3}


def test_prefers_paragraph_then_sentence_then_word_boundaries() -> None:
    para = "First paragraph sentence one. Sentence two is here."
    text = f"{para}\n\n{'Another paragraph that keeps going. ' * 4}"
    chunks = chunk_pages([Page(None, text)], size=80, overlap=0)
    assert chunks[0].text == para

    sentences = "One two three four five. Six seven eight nine ten eleven twelve."
    chunks = chunk_pages([Page(None, sentences)], size=40, overlap=0)
    assert chunks[0].text == "One two three four five."

    words = "word " * 30
    chunks = chunk_pages([Page(None, words)], size=22, overlap=0)
    assert all(c.text.split() == ["word"] * len(c.text.split()) for c in chunks)
    assert all(not c.text.startswith("ord") for c in chunks)


def test_overlap_repeats_the_end_of_the_previous_chunk() -> None:
    text = " ".join(f"w{i:03d}" for i in range(400))
    chunks = chunk_pages([Page(None, text)], size=200, overlap=50)

    for before, after in zip(chunks, chunks[1:], strict=False):
        assert after.start < before.end  # they share text
        assert before.end - after.start <= 50
        assert text[after.start - 1] == " "  # and start on a word


def test_whitespace_only_pages_give_no_chunks() -> None:
    assert chunk_pages([Page(1, "   \n\n\t "), Page(2, "")]) == []


def test_defaults_match_settings() -> None:
    text = "lorem ipsum dolor sit amet " * 200
    chunks = chunk_pages([Page(1, text)])
    assert max(len(c.text) for c in chunks) <= 1000
    assert len(chunks) >= len(text) // 1000


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 100), (100, -1)])
def test_rejects_bad_sizes(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_pages([Page(1, "text")], size=size, overlap=overlap)
