"""The real models on pages made here: turned pages read upright and in order, a page in
a script the models do not know is not read, and nothing connects anywhere meanwhile.

These run the engine in the test's own process: the bytes are the test's, not a user's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.loaders import open_document
from ingest.loaders.errors import UNREAD_SCRIPT, UnreadableFile
from ingest.ocr.reader import RapidReader
from tests.network_guard import only_loopback
from tests.scans import FONT, page_image

LINES = ["Sideways pages still read.", "Second line of the notice."]


@pytest.fixture(scope="module")
def reader() -> RapidReader:
    return RapidReader(threads=1)


@pytest.mark.parametrize("turn", [0, 90, 180, 270])
def test_a_page_turned_any_way_reads_upright_and_in_order(reader: RapidReader, turn: int) -> None:
    image = page_image(LINES, size=(1100, 320), rotate=turn)
    with only_loopback() as attempts:
        read = reader.read(lambda: image)
    assert attempts == []
    assert read.text.split("\n") == LINES
    assert read.confidence is not None and read.confidence > 0.9


def test_a_slightly_skewed_noisy_page_reads(reader: RapidReader) -> None:
    lines = ["The ferry leaves at noon on Fridays.", "Tickets are sold at the harbour."]
    image = page_image(lines, size=(1200, 400), rotate=1.5, speckle=0.003)
    read = reader.read(lambda: image)
    assert read.text.split("\n") == lines


@pytest.mark.skipif(not Path(FONT).exists(), reason="needs DejaVu Sans for Cyrillic")
def test_a_page_in_a_script_the_models_do_not_know_says_it_was_not_read(
    reader: RapidReader, tmp_path: Path
) -> None:
    russian = [
        "Съешь же ещё этих мягких французских булок,",
        "да выпей чаю. Москва является столицей.",
        "Река течёт медленно через старый город,",
        "и мосты над ней построены из камня.",
    ]
    picture = tmp_path / "letter.png"
    page_image(russian, size=(1200, 500)).save(picture)
    with pytest.raises(UnreadableFile) as caught, open_document(picture, reader) as document:
        list(document.pages())
    assert caught.value.reason == UNREAD_SCRIPT
