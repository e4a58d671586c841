"""The encoder's onnxruntime session, from a graph rewritten and optimised once per model.

``models.onnx_graph`` rewrites the shipped graph, and onnxruntime then optimises the
result. Both give the same graph on every start, and both cost: importing onnx (0.06 to
0.1 CPU s), the rewrite (0.1 s) and onnxruntime's passes (0.3 s). Given a folder, the
first start saves onnxruntime's optimised graph there (``optimized_model_filepath``) and
later starts load it with optimisation off: no onnx, no rewrite, no passes. Loading the
model takes 0.22 s instead of 0.53 s (``bench/embedder_start.py``).

The file's name is a digest of everything the graph depends on: the model file's sha256,
the source of the rewrite and of this module, int8 or float, the CPU's int8 kernel
(``signed_int8_is_exact``) and onnxruntime's version. A new model, rewrite or onnxruntime
makes a new file, and the old one is deleted. The graph is saved at the extended level,
which has no hardware-specific layouts (the "all" level adds them, and gives the same
graph for this model), so a data dir moved to another machine still loads.

The graph is a cache, and a nearly full disk's room is for the user's index
(``ingest.disk``): it is saved only where the disk keeps ``KEEP_FREE`` after it, and a
start that finds less than that free loads any saved graph and then deletes it. On a
64 MB data disk the 56 MB graph once left 7.8 MB free, under the 16 MB the indexer waits
for, and no file was ever indexed again.

onnxruntime's optimiser alone cannot replace the rewrite: on the shipped graph it keeps
the NaN guards and the spelt-out GELU, and folds the int8 weights back into float
matmuls, which embed at half the speed (5.5 against 2.6 CPU s for 60 handbook pages).
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
    """A session running ``model`` as ``models.onnx_graph`` rewrites it; with ``saved_in``,
    the optimised graph is read from there, or made once and saved there while the disk
    has room to spare (``KEEP_FREE``)."""
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
    """Delete the saved graphs in ``folder`` but ``keep`` (a session holds its graph in
    memory, so a loaded one may go too)."""
    if not folder.is_dir():
        return
    for old in folder.glob(f"{_PREFIX}*"):
        if old != keep:
            with contextlib.suppress(OSError):
                old.unlink(missing_ok=True)


def saved_name(model_sha256: str, *, int8_matmuls: bool) -> str:
    """The saved graph's file name: a digest of all that the graph depends on."""
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
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        if optimise
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    options.log_severity_level = 3
    return options
