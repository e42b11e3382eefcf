"""litellm, imported on first use, offline and quiet. Two layers call models through it, the
embedder here and the LLM client (llm/client.py); it lives in the lower one so that memory/
never imports llm/."""

from __future__ import annotations

import os
import threading

_lock = threading.Lock()


def import_litellm():
    """litellm with its cost map read locally (no network) and its help banners off (it prints
    them to stdout on errors, which would corrupt an MCP stdio stream)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with _lock:
        import litellm

        litellm.suppress_debug_info = True
    return litellm
