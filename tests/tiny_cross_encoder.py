"""Builds a tiny ONNX cross-encoder in FlashRank's file layout, so tests run the real Ranker.

Its logit is the sum of per-word weights over the (query, passage) pair: a passage with a
weighted word outranks one without it. No weights are downloaded.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace

from models.reranker import DEFAULT_MODEL, _model_file

SPECIAL = ["[PAD]", "[UNK]"]


def build(cache_dir: Path, words: list[str], weights: dict[str, float]) -> Path:
    """Write the model for ``DEFAULT_MODEL`` under ``cache_dir``; returns its folder."""
    folder = cache_dir / DEFAULT_MODEL
    folder.mkdir(parents=True)
    vocab = {token: i for i, token in enumerate(SPECIAL + words)}
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(json.dumps({"pad_token_id": 0}))
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"model_max_length": 128, "pad_token": "[PAD]"})
    )
    (folder / "special_tokens_map.json").write_text(
        json.dumps({"pad_token": "[PAD]", "unk_token": "[UNK]"})
    )
    table = np.zeros((len(vocab), 1), dtype=np.float32)
    for word, weight in weights.items():
        table[vocab[word], 0] = weight
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["per_token"], axis=0),
            helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["mask", "last"], ["mask3"]),
            helper.make_node("Mul", ["per_token", "mask3"], ["kept"]),
            helper.make_node("ReduceSum", ["kept", "tokens_axis"], ["logits"], keepdims=0),
        ],
        "tiny-cross-encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
            # Pairs get segment ids 0/1, which FlashRank then passes; this model ignores them.
            helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(np.asarray([2], dtype=np.int64), "last"),
            numpy_helper.from_array(np.asarray([1], dtype=np.int64), "tokens_axis"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / _model_file(DEFAULT_MODEL)))
    return folder
