"""litellm, imported on first use, offline and quiet: shared by the litellm embedder (here, in
memory/) and the chat backend (llm/client.py), which sits above memory and may import it."""

from __future__ import annotations

import os
import threading

_lock = threading.Lock()


def import_litellm():
    """litellm (it takes seconds to import), with its model price map read locally and its help
    banners off: it prints them to stdout on errors, which would corrupt an MCP stdio stream."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with _lock:
        import litellm

        litellm.suppress_debug_info = True
    return litellm
