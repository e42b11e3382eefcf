"""glibc's malloc tuned for a long-running process whose native threads come and go.

LanceDB runs its work on a pool of native threads; glibc gives threads up to 8 arenas a core,
each keeping the memory freed in it, and it raises its mmap threshold each time a large block
is freed, so later large buffers (Arrow batches, index pages) come from the arenas too and stay
there as holes between live blocks. Ingesting page after page into one store, the process's
resident memory climbed with each tutorial; with two arenas and a fixed mmap threshold, large
buffers go back to the system when freed (README "Memory that does not grow with the store").
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

#: glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8


def _mallopt():
    if platform.libc_ver()[0] != "glibc":
        return None
    name = ctypes.util.find_library("c")
    return getattr(ctypes.CDLL(name), "mallopt", None) if name else None


def tune(arenas: int, mmap_threshold: int) -> dict[str, bool]:
    """Cap the arenas new threads take at ``arenas`` and serve blocks of ``mmap_threshold``
    bytes or more by mmap (a fixed threshold); 0 leaves that one as glibc has it. Returns which
    were set (none off glibc)."""
    mallopt = _mallopt()
    done = {"arenas": False, "mmap_threshold": False}
    if mallopt is None:
        return done
    if arenas > 0:
        done["arenas"] = mallopt(M_ARENA_MAX, int(arenas)) == 1
    if mmap_threshold > 0:
        done["mmap_threshold"] = mallopt(M_MMAP_THRESHOLD, int(mmap_threshold)) == 1
    return done
