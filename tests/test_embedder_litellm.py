"""A configured litellm embedding model, called over real HTTP on an OpenAI-compatible
endpoint served on loopback by the test."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from tutorialbook.memory.embedder import LiteLLMEmbedder


class FakeEmbeddings(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeEmbeddings.requests.append({"path": self.path, **body})
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 3.0, 4.0]} for i, t in enumerate(texts)
        ]
        payload = json.dumps({"object": "list", "data": data, "model": body["model"],
                              "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


def test_litellm_embedder_over_http(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeEmbeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        embedder = LiteLLMEmbedder("openai/tiny-embed", api_base=f"http://127.0.0.1:{server.server_port}/v1")
        assert embedder.dim == 3
        vectors = embedder.embed(["abcd", ""])
        assert np.allclose(vectors[0], np.array([4.0, 3.0, 4.0]) / np.linalg.norm([4.0, 3.0, 4.0]))
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
        assert FakeEmbeddings.requests[-1]["path"] == "/v1/embeddings"
        assert FakeEmbeddings.requests[-1]["model"] == "tiny-embed"
    finally:
        server.shutdown()
