"""Chunks per second: our MiniLMEmbedder against chromadb's default embedding function.

Both run the same weights (chromadb's function is pointed at a local copy of ours, so it
never downloads); only padding and batching differ. Run from the repo root:

    uv run python -m bench.embed_throughput [--limit N] [--batch 32]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from models.embeddings import MAX_TOKENS, MiniLMEmbedder, MiniLMFiles, locate_minilm

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
PAGES = CORPUS / "handbook" / "pages"


def offline_chroma_ef(files: MiniLMFiles, workdir: Path) -> Any:
    """chromadb's ONNXMiniLM_L6_V2 reading ``files`` from ``workdir``; it never downloads.

    chromadb checks for six files in ``DOWNLOAD_PATH/onnx`` before it downloads; it only
    reads model.onnx and tokenizer.json, so the other four are minimal stand-ins.
    """
    from chromadb.utils.embedding_functions import ONNXMiniLM_L6_V2

    onnx_dir = workdir / ONNXMiniLM_L6_V2.EXTRACTED_FOLDER_NAME
    onnx_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(files.model, onnx_dir / "model.onnx")
    shutil.copyfile(files.tokenizer, onnx_dir / "tokenizer.json")
    spec = json.loads(files.tokenizer.read_text(encoding="utf-8"))
    vocab: dict[str, int] = spec["model"]["vocab"]
    (onnx_dir / "vocab.txt").write_text(
        "\n".join(sorted(vocab, key=vocab.__getitem__)) + "\n", encoding="utf-8"
    )
    (onnx_dir / "config.json").write_text(
        json.dumps({"model_type": "bert", "hidden_size": 384, "max_position_embeddings": 512})
    )
    (onnx_dir / "special_tokens_map.json").write_text(
        json.dumps(
            {
                "cls_token": "[CLS]",
                "sep_token": "[SEP]",
                "pad_token": "[PAD]",
                "unk_token": "[UNK]",
                "mask_token": "[MASK]",
            }
        )
    )
    (onnx_dir / "tokenizer_config.json").write_text(
        json.dumps({"do_lower_case": True, "model_max_length": MAX_TOKENS})
    )

    ef = ONNXMiniLM_L6_V2(preferred_providers=["CPUExecutionProvider"])
    ef.DOWNLOAD_PATH = workdir

    def refuse_download(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"chromadb tried to download its model; {onnx_dir} is incomplete")

    # Belt and braces: fail loudly instead of reaching for the network.
    ef._download = refuse_download  # type: ignore[assignment]
    return ef


def chunk_texts(size: int = 1000, overlap: int = 150) -> list[str]:
    """The handbook pages cut into chunks, with the app's chunker when it is there."""
    paths = sorted(PAGES.rglob("*.md"))
    try:
        from ingest.loaders import UnreadableFile, load
        from ingest.pipeline.chunker import chunk_pages
    except ImportError:
        # The app's loader and chunker are not in this tree: cut the raw text into
        # pieces of the same size and overlap, which is what the embedder cares about.
        step = size - overlap
        texts = [p.read_text(encoding="utf-8", errors="replace") for p in paths]
        pieces = [t[i : i + size] for t in texts for i in range(0, max(len(t) - overlap, 1), step)]
        return [piece for piece in pieces if piece.strip()]
    chunks: list[str] = []
    for path in paths:
        try:
            pages = load(path)
        except UnreadableFile:  # an empty page: the indexer records it, nothing to embed
            continue
        chunks += [c.text for c in chunk_pages(pages, size=size, overlap=overlap)]
    return chunks


QUERIES = [
    "How do I request leave?",
    "Who approves travel?",
    "What is the onboarding checklist for new hires?",
    "Where do I file an expense report?",
    "How are performance reviews scheduled?",
    "What tools do we use for chat?",
    "Can I work remotely?",
    "How does the hiring process work?",
]
"""Short texts embedded one at a time, as the retriever does for a question."""

Embed = Callable[[list[str]], Any]


def in_slices(embed: Embed, batch: int) -> Embed:
    """Call ``embed`` on consecutive slices of ``batch`` texts, as a caller batching itself."""

    def run(texts: list[str]) -> list[Any]:
        out: list[Any] = []
        for start in range(0, len(texts), batch):
            out.extend(embed(texts[start : start + batch]))
        return out

    return run


def one_by_one(embed: Embed) -> Embed:
    """Call ``embed`` once per text."""
    return lambda texts: [embed([text])[0] for text in texts]


def measure(variants: dict[str, Embed], texts: list[str], repeat: int) -> dict[str, list[float]]:
    """Seconds per run of each variant; runs interleave so machine noise hits all alike."""
    seconds: dict[str, list[float]] = {label: [] for label in variants}
    for _ in range(repeat):
        for label, embed in variants.items():
            start = time.perf_counter()
            embed(texts)
            seconds[label].append(time.perf_counter() - start)
    return seconds


def report(title: str, seconds: dict[str, list[float]], count: int, unit: str) -> None:
    """One line per variant: median seconds and items per second (best run in brackets)."""
    print(title)
    width = max(len(label) for label in seconds)
    for label, runs in seconds.items():
        median, best = float(np.median(runs)), min(runs)
        print(
            f"  {label:<{width}}  {median:7.2f} s  {count / median:7.1f} {unit}/s"
            f"  (best {count / best:.1f})"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="embed only the first N chunks")
    parser.add_argument("--batch", type=int, default=32, help="texts per call (chromadb: per run)")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs of each variant")
    args = parser.parse_args(argv)
    if not PAGES.is_dir():
        sys.exit(f"The handbook corpus is not at {PAGES}: this bench needs shared/corpus.")

    texts = chunk_texts()[: args.limit]
    files = locate_minilm()
    ours = MiniLMEmbedder(files)
    counter = Tokenizer.from_file(str(files.tokenizer))
    counter.no_truncation()
    counter.no_padding()
    lengths = np.array([len(e.ids) for e in counter.encode_batch(texts)])
    print(f"weights: {files.source} ({files.model})")
    print(f"chunks: {len(texts)} from {PAGES}")
    print(
        f"tokens per chunk: mean {lengths.mean():.1f}, median {np.median(lengths):.0f}, "
        f"{(lengths > MAX_TOKENS).mean():.0%} over {MAX_TOKENS} (truncated to {MAX_TOKENS})"
    )

    with tempfile.TemporaryDirectory(prefix="docent-bench-") as workdir:
        chroma = offline_chroma_ef(files, Path(workdir))
        for embed in (ours.embed, chroma):  # warm up: sessions load on first use
            embed(texts[:4])
        ours_label = "MiniLMEmbedder, all chunks in one call"
        chroma_label = f"chromadb ONNXMiniLM_L6_V2, one call per {args.batch}"
        chunk_seconds = measure(
            {
                ours_label: ours.embed,
                f"MiniLMEmbedder, one call per {args.batch}": in_slices(ours.embed, args.batch),
                chroma_label: in_slices(chroma, args.batch),
            },
            texts,
            args.repeat,
        )
        query_seconds = measure(
            {"MiniLMEmbedder": one_by_one(ours.embed), "chromadb": one_by_one(chroma)},
            QUERIES,
            max(args.repeat, 3),
        )
        sample = [texts[i] for i in np.linspace(0, len(texts) - 1, min(64, len(texts)), dtype=int)]
        ours_v = np.asarray(ours.embed(sample), dtype=np.float32)
        chroma_v = np.asarray(chroma(sample), dtype=np.float32)

    report(f"chunks ({args.repeat} run(s) each):", chunk_seconds, len(texts), "chunks")
    ratio = np.median(chunk_seconds[chroma_label]) / np.median(chunk_seconds[ours_label])
    print(f"  speed-up of MiniLMEmbedder (one call) over chromadb: {ratio:.2f}x")
    report("single short queries, one call each:", query_seconds, len(QUERIES), "queries")
    q_ratio = np.median(query_seconds["chromadb"]) / np.median(query_seconds["MiniLMEmbedder"])
    print(f"  speed-up of MiniLMEmbedder over chromadb: {q_ratio:.2f}x")
    cosines = np.sum(ours_v * chroma_v, axis=1)
    print(
        f"cosine ours vs chromadb on {len(sample)} chunks: "
        f"min {cosines.min():.6f}, mean {cosines.mean():.6f}"
    )


if __name__ == "__main__":
    main()
