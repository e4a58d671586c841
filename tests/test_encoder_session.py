"""The encoder's graph is rewritten and optimised once, saved, and read back on later starts."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from app.services.embedders import build_embedder
from app.settings import Settings
from models import onnx_graph
from models.embeddings import MiniLMEmbedder, MiniLMFiles, locate_minilm
from models.onnx_graph import INT8_PROBE
from tests.small_disk import small_disk

ROOT = Path(__file__).resolve().parents[1]
TEXTS = [
    "Hi",
    "What is the process for requesting a new laptop?",
    " ".join(f"Clause {i} sets per diem rates and lodging receipts." for i in range(60)),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> MiniLMFiles:
    return locate_minilm(chroma_cache_root=tmp_path_factory.mktemp("no-chroma-cache"))


@pytest.fixture(scope="module")
def unsaved(files: MiniLMFiles) -> np.ndarray:
    """The vectors of a graph rewritten in memory, as every start made them before."""
    return np.asarray(MiniLMEmbedder(files).embed(TEXTS))


def saved_graphs(folder: Path) -> list[Path]:
    return sorted(folder.glob("*"))


def test_a_later_start_reads_the_saved_graph_and_never_imports_onnx(
    files: MiniLMFiles, unsaved: np.ndarray, tmp_path: Path
) -> None:
    folder = tmp_path / "graphs"
    first = MiniLMEmbedder(files, saved_graphs=folder)
    [saved] = saved_graphs(folder)
    made = saved.stat().st_mtime_ns

    code = (
        "import json, sys; from pathlib import Path; "
        "from models.embeddings import MiniLMEmbedder; "
        f"vectors = MiniLMEmbedder(saved_graphs=Path({str(folder)!r})).embed({TEXTS!r}); "
        "print(json.dumps({'onnx': 'onnx' in sys.modules, 'vectors': vectors}))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    later = json.loads(run.stdout)

    assert later["onnx"] is False  # no rewrite: the onnx package is not even imported
    assert saved_graphs(folder) == [saved] and saved.stat().st_mtime_ns == made
    assert np.array_equal(np.asarray(later["vectors"]), unsaved)
    assert np.array_equal(np.asarray(first.embed(TEXTS)), unsaved)


def test_the_exact_float_graph_is_saved_apart_and_gives_its_own_vectors(
    files: MiniLMFiles, tmp_path: Path
) -> None:
    exact = np.asarray(MiniLMEmbedder(files, int8_matmuls=False).embed(TEXTS))
    MiniLMEmbedder(files, int8_matmuls=False, saved_graphs=tmp_path)
    again = MiniLMEmbedder(files, int8_matmuls=False, saved_graphs=tmp_path)

    assert len(saved_graphs(tmp_path)) == 1
    assert np.array_equal(np.asarray(again.embed(TEXTS)), exact)


def test_a_damaged_saved_graph_is_made_again(
    files: MiniLMFiles, unsaved: np.ndarray, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    MiniLMEmbedder(files, saved_graphs=tmp_path)
    [saved] = saved_graphs(tmp_path)
    saved.write_bytes(saved.read_bytes()[:4096])  # cut short, as by a full disk

    with caplog.at_level(logging.WARNING, logger="models.encoder_session"):
        embedder = MiniLMEmbedder(files, saved_graphs=tmp_path)

    assert np.array_equal(np.asarray(embedder.embed(TEXTS)), unsaved)
    assert saved_graphs(tmp_path) == [saved] and saved.stat().st_size > 1_000_000
    assert str(saved) in caplog.text


def test_a_folder_that_cannot_be_written_costs_only_the_saving(
    files: MiniLMFiles, unsaved: np.ndarray, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")

    with caplog.at_level(logging.WARNING, logger="models.encoder_session"):
        embedder = MiniLMEmbedder(files, saved_graphs=blocker / "graphs")

    assert np.array_equal(np.asarray(embedder.embed(TEXTS)), unsaved)
    assert "Cannot save the encoder's graph" in caplog.text


def test_a_graph_for_another_cpu_kernel_replaces_the_old_one(
    files: MiniLMFiles, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    MiniLMEmbedder(files, saved_graphs=tmp_path)
    [before] = saved_graphs(tmp_path)
    signed = onnx_graph.signed_int8_is_exact()
    monkeypatch.setattr(onnx_graph, "signed_int8_is_exact", lambda: not signed)

    MiniLMEmbedder(files, saved_graphs=tmp_path)

    [after] = saved_graphs(tmp_path)
    assert after != before  # its own file, and the one it replaces is gone


def test_a_disk_short_of_room_gets_no_saved_graph(
    files: MiniLMFiles, unsaved: np.ndarray, tmp_path: Path
) -> None:
    # 128 MB: room for the graph (56 MB), none to spare for the index after it.
    with small_disk(tmp_path / "data", 128) as disk:
        folder = disk.path / "models" / "minilm"
        embedder = MiniLMEmbedder(files, saved_graphs=folder)

        assert saved_graphs(folder) == []  # nor any partial file
        assert np.array_equal(np.asarray(embedder.embed(TEXTS)), unsaved)


def test_a_saved_graph_gives_its_room_back_once_the_disk_is_short_of_it(
    files: MiniLMFiles, unsaved: np.ndarray, tmp_path: Path
) -> None:
    MiniLMEmbedder(files, saved_graphs=tmp_path / "roomy")
    [saved] = saved_graphs(tmp_path / "roomy")
    with small_disk(tmp_path / "data", 128) as disk:
        folder = disk.path / "models" / "minilm"
        folder.mkdir(parents=True)
        shutil.copyfile(saved, folder / saved.name)  # saved when the disk had room

        embedder = MiniLMEmbedder(files, saved_graphs=folder)

        assert saved_graphs(folder) == []
        assert np.array_equal(np.asarray(embedder.embed(TEXTS)), unsaved)


def test_the_app_keeps_the_graph_in_its_data_dir(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")

    build_embedder(settings)

    assert [p.suffix for p in saved_graphs(tmp_path / "data" / "models" / "minilm")] == [".onnx"]


def test_the_int8_probe_file_is_the_matmul_its_docstring_describes() -> None:
    depth, width = 64, 8
    node = helper.make_node(
        "DynamicQuantizeMatMul", ["a", "w", "s", "z"], ["y"], domain="com.microsoft"
    )
    graph = helper.make_graph(
        [node],
        "probe",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, depth])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, width])],
        [
            numpy_helper.from_array(np.full((depth, width), 127, np.int8), "w"),
            numpy_helper.from_array(np.ones(width, np.float32), "s"),
            numpy_helper.from_array(np.zeros(width, np.int8), "z"),
        ],
    )

    assert onnx.load(str(INT8_PROBE)).graph == graph
