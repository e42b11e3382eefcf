"""How many malloc arenas the process's threads spread over (glibc only).

LanceDB runs its work on a pool of native threads that come and go; glibc gives threads up to
8 arenas a core, each holding freed memory it rarely returns. Ingesting into one store, a
process grew ~6 MB a tutorial this way; with two arenas, under half that, on the same pages
(README "Memory"). Capping them costs little here: the threads mostly wait on LanceDB's loop.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

#: glibc's mallopt parameter for the arena cap (malloc.h)
M_ARENA_MAX = -8


def limit_arenas(arenas: int) -> bool:
    """Cap the arenas new threads take at ``arenas`` (0: leave the allocator as it is).
    Returns whether the cap was set (False off glibc)."""
    if arenas <= 0 or platform.libc_ver()[0] != "glibc":
        return False
    name = ctypes.util.find_library("c")
    if not name:
        return False
    mallopt = getattr(ctypes.CDLL(name), "mallopt", None)
    return bool(mallopt is not None and mallopt(M_ARENA_MAX, int(arenas)) == 1)
