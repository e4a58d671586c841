"""The encoder's onnxruntime session, from a graph rewritten and optimised once per model.

Importing onnx, the rewrite and onnxruntime's passes cost about 0.5 s a start for the same
graph each time, so the first start saves the optimised graph and later ones load it with
optimisation off: 0.22 s instead of 0.53 s (``bench/embedder_start.py``). onnxruntime's
optimiser alone cannot replace the rewrite: it keeps the NaN guards and spelt-out GELU and
folds the int8 weights back into float matmuls (5.5 against 2.6 CPU s for 60 handbook pages).
The graph is a cache and gives way to the index on a nearly full disk (docs/disk-full.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

from models import onnx_graph
from models.onnx_graph import simplified_model

logger = logging.getLogger(__name__)

_CPU = ["CPUExecutionProvider"]
_PREFIX = "encoder-"
KEEP_FREE = 1 << 30
"""Free bytes the graph's disk must keep after the graph is saved. The graph saves a start
0.3 s; the indexer needs 16 MB free to start a file and the index grows about 16 kB a
chunk, so a disk with less than this has better use for 56 to 90 MB."""
_GROWTH = 4
"""The saved graph is at most this many times the model file's size: 58.6 MB (2.6×) for
the int8 graph of the shipped 22.9 MB model, 90.3 MB (3.9×) for its exact float graph."""


def encoder_session(
    model: Path, *, model_sha256: str, int8_matmuls: bool, saved_in: Path | None
) -> Any:
    """A session running ``model`` as ``models.onnx_graph`` rewrites it.

    With ``saved_in``, the optimised graph is read from there, or made and saved there while
    the disk keeps ``KEEP_FREE``; with less free, a saved graph is loaded and deleted."""
    if saved_in is None:
        return _optimised(model, int8_matmuls, save_to=None)
    saved = saved_in / saved_name(model_sha256, int8_matmuls=int8_matmuls)
    session = _load_saved(saved) if saved.is_file() else None
    free = _free_bytes(saved_in)
    if free < KEEP_FREE + (0 if session is not None else _GROWTH * model.stat().st_size):
        _delete_graphs(saved_in, keep=None)
        logger.info(
            "Not keeping the encoder's graph in %s: its disk has %d MB free, and Docent"
            " leaves at least %d MB there for its index; each start rewrites the graph"
            " (about 0.3 s)",
            saved_in,
            free >> 20,
            KEEP_FREE >> 20,
        )
        return session if session is not None else _optimised(model, int8_matmuls, save_to=None)
    if session is not None:
        return session
    # Its own name: two loads at once (a model switch) must not write into one file.
    partial = saved.with_name(f"{saved.name}.{uuid.uuid4().hex}.partial")
    try:
        saved_in.mkdir(parents=True, exist_ok=True)
        session = _optimised(model, int8_matmuls, save_to=partial)
        os.replace(partial, saved)
    except Exception as exc:  # a full or read-only disk costs this start the saving only
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        session = _optimised(model, int8_matmuls, save_to=None)  # a bad model raises here
        logger.warning(
            "Cannot save the encoder's graph in %s (%s); using it unsaved", saved_in, exc
        )
        return session
    _delete_graphs(saved_in, keep=saved)
    return session


def _load_saved(saved: Path) -> Any:
    """The session of a saved graph; None when it cannot be loaded (it is made again)."""
    import onnxruntime as ort

    try:
        return ort.InferenceSession(
            str(saved), sess_options=_options(optimise=False), providers=_CPU
        )
    except Exception as exc:  # onnxruntime raises its own untyped errors on a bad file
        logger.warning("Making the encoder's graph again: cannot load %s (%s)", saved, exc)
        return None


def _free_bytes(folder: Path) -> int:
    """Bytes free on the disk that holds (or will hold) ``folder``; 0 if it can't be told."""
    for place in (folder, *folder.parents):
        if place.exists():
            try:
                return shutil.disk_usage(place).free
            except OSError:
                return 0
    return 0


def _delete_graphs(folder: Path, *, keep: Path | None) -> None:
    """Delete the saved graphs in ``folder`` but ``keep`` (a loaded session needs no file)."""
    if not folder.is_dir():
        return
    for old in folder.glob(f"{_PREFIX}*"):
        if old != keep:
            with contextlib.suppress(OSError):
                old.unlink(missing_ok=True)


def saved_name(model_sha256: str, *, int8_matmuls: bool) -> str:
    """The saved graph's file name: a digest of all that the graph depends on.

    A new model, rewrite, int8 kernel or onnxruntime makes a new file; the old one is deleted."""
    import onnxruntime as ort

    parts = [model_sha256, ort.__version__, _source_sha256()]
    parts.append(f"int8 signed={onnx_graph.signed_int8_is_exact()}" if int8_matmuls else "float")
    return f"{_PREFIX}{hashlib.sha256(' '.join(parts).encode()).hexdigest()[:20]}.onnx"


def _source_sha256() -> str:
    """The rewrite's source and this module's: a change to either makes a new graph."""
    digest = hashlib.sha256()
    for path in (Path(onnx_graph.__file__), Path(__file__)):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _optimised(model: Path, int8_matmuls: bool, *, save_to: Path | None) -> Any:
    import onnxruntime as ort

    options = _options(optimise=True)
    if save_to is not None:
        options.optimized_model_filepath = str(save_to)
    return ort.InferenceSession(
        simplified_model(model, int8_matmuls=int8_matmuls), sess_options=options, providers=_CPU
    )


def _options(*, optimise: bool) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    # Each run on its caller's thread: no intra-op pool whose spinning workers would
    # burn the cores the rest of the machine needs (``models.embeddings.MiniLMEmbedder``).
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # Extended, not "all": no hardware-specific layouts (the graph is the same for this
    # model), so a data dir moved to another machine still loads.
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        if optimise
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    options.log_severity_level = 3
    return options
