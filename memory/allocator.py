"""Native memory tuned for a long-running process: glibc's malloc, and the pool Arrow allocates from.

LanceDB runs its work on a pool of native threads; glibc gives threads up to 8 arenas a core,
each keeping the memory freed in it, and it raises its mmap threshold each time a large block
is freed, so later large buffers (Arrow batches, index pages) come from the arenas too and stay
there as holes between live blocks. And pyarrow allocates from its own mimalloc pool, which
kept the pages of the tables a read built and dropped (a 1 GiB reservation, 100-170 MB of it
resident after a few hundred ingests, with 3 MB live). Ingesting page after page into one store,
the process's resident memory climbed with each tutorial; with two arenas, a fixed mmap
threshold and Arrow on the system allocator, it stays near flat (README "Memory that does not
grow with the store").
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import platform

#: glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8


@functools.cache
def _libc(function: str):
    """A glibc function (None off glibc)."""
    if platform.libc_ver()[0] != "glibc":
        return None
    name = ctypes.util.find_library("c")
    return getattr(ctypes.CDLL(name), function, None) if name else None


def trim() -> bool:
    """Hand the pages glibc's malloc holds free back to the system (``malloc_trim``): after an
    ingest, what its reads, embeddings and commits freed would otherwise stay resident in the
    arenas, and a long run of ingests piles up holes the next one cannot fill. A few ms; False
    off glibc."""
    malloc_trim = _libc("malloc_trim")
    return bool(malloc_trim(0)) if malloc_trim is not None else False


def tune(arenas: int, mmap_threshold: int, arrow_system_pool: bool = True) -> dict[str, bool]:
    """Cap the arenas new threads take at ``arenas`` and serve blocks of ``mmap_threshold``
    bytes or more by mmap (a fixed threshold); 0 leaves that one as glibc has it. With
    ``arrow_system_pool``, Arrow allocates from the system allocator from now on. Returns which
    were set (the glibc ones: none off glibc)."""
    done = {"arenas": False, "mmap_threshold": False, "arrow_system_pool": False}
    if arrow_system_pool:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())
        done["arrow_system_pool"] = True
    mallopt = _libc("mallopt")
    if mallopt is None:
        return done
    if arenas > 0:
        done["arenas"] = mallopt(M_ARENA_MAX, int(arenas)) == 1
    if mmap_threshold > 0:
        done["mmap_threshold"] = mallopt(M_MMAP_THRESHOLD, int(mmap_threshold)) == 1
    return done
