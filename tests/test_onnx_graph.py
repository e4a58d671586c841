"""The encoder graph's rewrites: the same vectors as the shipped graph with fewer passes,
and nearly the same with int8 matmuls."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from models import onnx_graph
from models.embeddings import MiniLMEmbedder, MiniLMFiles, locate_minilm
from models.onnx_graph import simplified_model

TEXTS = [
    "Hi",
    "What is the process for requesting a new laptop?",
    " ".join(f"Clause {i} sets per diem rates and lodging receipts." for i in range(60)),
    "Employees may carry over up to 240 hours of annual leave.",
]
"""One batch of very different lengths: the short texts are padded, the long one cut."""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> MiniLMFiles:
    return locate_minilm(chroma_cache_root=tmp_path_factory.mktemp("no-chroma-cache"))


def ops(model: bytes) -> Counter[str]:
    return Counter(node.op_type for node in onnx.load_from_string(model).graph.node)


def test_the_shipped_graph_loses_its_nan_guards_and_spelt_out_gelu(files: MiniLMFiles) -> None:
    before = Counter(node.op_type for node in onnx.load(str(files.model)).graph.node)
    after = ops(simplified_model(files.model, int8_matmuls=False))

    assert before["IsNaN"] == 6 and before["Erf"] == 6
    assert after["IsNaN"] == 0 and after["Erf"] == 0
    assert after["Where"] == before["Where"] - 6  # the attention mask's Where stays
    assert after["Gelu"] == 6
    assert after["Softmax"] == before["Softmax"]


def test_the_simplified_graph_gives_the_shipped_graphs_vectors(files: MiniLMFiles) -> None:
    ours = MiniLMEmbedder(files, int8_matmuls=False)
    shipped = MiniLMEmbedder(files, int8_matmuls=False)
    shipped._session = ort.InferenceSession(str(files.model), providers=["CPUExecutionProvider"])

    a = one_padded_batch(ours, TEXTS)
    b = one_padded_batch(shipped, TEXTS)

    assert np.abs(a - b).max() < 1e-5


def test_the_weight_matmuls_run_in_int8_on_the_shipped_weights(files: MiniLMFiles) -> None:
    before = Counter(node.op_type for node in onnx.load(str(files.model)).graph.node)
    after = ops(simplified_model(files.model))

    assert after["DynamicQuantizeMatMul"] == 36  # Q, K, V, output and two FFN, six layers
    assert after["MatMul"] == before["MatMul"] - 36  # attention's own products stay float
    assert after["Cast"] == before["Cast"] - 36  # the weights are no longer turned to float


def test_int8_vectors_stay_close_to_the_shipped_ones_and_ignore_their_batch(
    files: MiniLMFiles,
) -> None:
    exact = np.asarray(MiniLMEmbedder(files, int8_matmuls=False).embed(TEXTS))
    int8 = MiniLMEmbedder(files)
    ours = np.asarray(int8.embed(TEXTS))

    assert np.sum(exact * ours, axis=1).min() > 0.98
    # A text's vector is its own, whatever it is embedded with.
    alone = np.asarray([int8.embed([text])[0] for text in TEXTS])
    assert np.abs(alone - ours).max() == 0


def test_unsigned_int8_weights_give_the_signed_products(
    files: MiniLMFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unsigned form, for CPUs whose signed int8 kernel saturates, is the same arithmetic
    (where the signed kernel saturates, both embedders here are unsigned)."""
    chosen = np.asarray(MiniLMEmbedder(files).embed(TEXTS))
    monkeypatch.setattr(onnx_graph, "signed_int8_is_exact", lambda: False)
    unsigned = MiniLMEmbedder(files)

    assert ops(simplified_model(files.model))["DynamicQuantizeMatMul"] == 36
    np.testing.assert_allclose(np.asarray(unsigned.embed(TEXTS)), chosen, atol=1e-5)


def one_padded_batch(embedder: MiniLMEmbedder, texts: list[str]) -> np.ndarray:
    """The texts' vectors from one model run (``embed`` would not pad them together)."""
    ids = [np.asarray(e.ids, dtype=np.int64) for e in embedder._tokenizer.encode_batch(texts)]
    return embedder._embed_batch(ids)


def _model(nodes: list[onnx.NodeProto], initializers: list[onnx.TensorProto]) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _run(model: bytes, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": x})[0])


def _scalar(name: str, value: float) -> onnx.TensorProto:
    return helper.make_tensor(name, TensorProto.FLOAT, [], [value])


def gelu_chain(root2: float) -> onnx.ModelProto:
    """``x * (0.5 * (1 + erf(x / root2)))``, as the exporter writes GELU when root2 is √2."""
    return _model(
        [
            helper.make_node("Div", ["x", "root2"], ["scaled"]),
            helper.make_node("Erf", ["scaled"], ["erf"]),
            helper.make_node("Add", ["erf", "one"], ["plus"]),
            helper.make_node("Mul", ["half", "plus"], ["halved"]),
            helper.make_node("Mul", ["x", "halved"], ["y"]),
        ],
        [_scalar("root2", root2), _scalar("one", 1.0), _scalar("half", 0.5)],
    )


def test_a_gelu_chain_becomes_one_gelu_computing_the_same(tmp_path: Path) -> None:
    model = gelu_chain(2**0.5)
    path = tmp_path / "gelu.onnx"
    onnx.save(model, str(path))
    x = np.linspace(-4, 4, 6, dtype=np.float32).reshape(2, 3)

    rewritten = simplified_model(path)

    assert ops(rewritten) == Counter({"Gelu": 1})
    assert np.allclose(_run(rewritten, x), _run(model.SerializeToString(), x), atol=1e-6)


def test_a_chain_that_is_not_gelu_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "not-gelu.onnx"
    onnx.save(gelu_chain(2.0), str(path))

    assert ops(simplified_model(path)) == Counter({"Div": 1, "Erf": 1, "Add": 1, "Mul": 2})


def test_a_nan_guard_on_anything_but_a_softmax_is_kept(tmp_path: Path) -> None:
    # Here NaN can arrive (a log of a negative number): the guard is doing work.
    path = tmp_path / "guard.onnx"
    model = _model(
        [
            helper.make_node("Log", ["x"], ["p"]),
            helper.make_node("IsNaN", ["p"], ["nan"]),
            helper.make_node("Where", ["nan", "zero", "p"], ["y"]),
        ],
        [_scalar("zero", 0.0)],
    )
    onnx.save(model, str(path))
    x = np.asarray([[-1.0, 1.0, 2.0], [3.0, -2.0, 1.0]], dtype=np.float32)

    rewritten = simplified_model(path)

    assert ops(rewritten) == Counter({"Log": 1, "IsNaN": 1, "Where": 1})
    assert not np.isnan(_run(rewritten, x)).any()
