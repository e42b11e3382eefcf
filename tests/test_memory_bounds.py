"""Memory a long-running process keeps does not grow with every commit: LanceDB's caches are
bounded by the settings and shared by the process's stores, and glibc's malloc arenas are capped."""

import subprocess
import sys
import textwrap

from tutorialbook.library import Library
from tutorialbook.memory import lance
from tutorialbook.memory.store import Store

INDEX, METADATA = 256 * 1024, 128 * 1024


def _commit_and_read(store: Store, n: int) -> None:
    for i in range(n):
        store.upsert("segments", [{"id": f"s{i}-{j}", "book": "b", "tutorial_id": "t", "idx": j,
                                   "text": f"word{i} text {j}", "vector": [0.1] * (store.dim - 1) + [float(i)]}
                                  for j in range(20)])
        assert len(store.rows("segments", "book = 'b'", ["id"])) == 20 * (i + 1)


def test_the_stores_caches_stay_within_their_bounds_as_commits_pile_up(tmp_path):
    library = Library(store=str(tmp_path / "a"), index_cache_mb=INDEX / 2**20, metadata_cache_mb=METADATA / 2**20)
    other = Store(str(tmp_path / "b"), dim=4, cache_bytes=(INDEX, METADATA))
    session = lance.session(INDEX, METADATA)
    unbounded = lance.session(64 * 2**20, 64 * 2**20)  # what a store's caches take when nothing bounds them
    third = Store(str(tmp_path / "c"), dim=4, cache_bytes=(64 * 2**20, 64 * 2**20))
    for store in (library.store, other, third):
        _commit_and_read(store, 60)
    # every commit is a version with metadata of its own: unbounded, the cache grows with them
    assert unbounded.size_bytes > 2 * (INDEX + METADATA), unbounded.size_bytes
    # the two stores with these bounds share one session, and it is the one they fill
    assert session.size_bytes > (INDEX + METADATA) / 2, session.size_bytes
    assert session.size_bytes <= 1.1 * (INDEX + METADATA), session.size_bytes


def test_glibc_arenas_are_capped_for_threads_started_after():
    child = textwrap.dedent("""
        import ctypes, ctypes.util, os, sys, tempfile, threading
        from tutorialbook.memory import allocator
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.malloc.restype = ctypes.c_void_p
        libc.free.argtypes = [ctypes.c_void_p]
        libc.fopen.restype = ctypes.c_void_p
        libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.fclose.argtypes = [ctypes.c_void_p]
        if sys.argv[1] == "capped":
            assert allocator.tune(2, 0, False) == {"arenas": True, "mmap_threshold": False,
                                                   "arrow_system_pool": False}
        started, go = threading.Barrier(17), threading.Event()
        def work():
            blocks = [libc.malloc(4096) for _ in range(64)]
            started.wait()
            go.wait()
            for b in blocks:
                libc.free(b)
        threads = [threading.Thread(target=work) for _ in range(16)]
        for t in threads:
            t.start()
        started.wait()  # all 16 threads alive at once, each holding memory
        path = tempfile.mktemp()
        handle = libc.fopen(path.encode(), b"w")
        libc.malloc_info(0, handle)
        libc.fclose(handle)
        go.set()
        for t in threads:
            t.join()
        print(open(path).read().count("<heap nr="))
        os.unlink(path)
    """)

    def arenas(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", child, mode], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return int(out.stdout.split()[-1])

    capped, free = arenas("capped"), arenas("free")
    assert capped <= 2, capped
    assert free > 2, free  # the same threads without the cap spread over more arenas


def test_large_blocks_stay_mmapped_after_one_is_freed():
    """glibc raises its mmap threshold when a mmapped block is freed, so the next block of that
    size comes from an arena and stays there when freed; with a fixed threshold it is mmapped."""
    child = textwrap.dedent("""
        import ctypes, ctypes.util, sys
        from tutorialbook.memory import allocator

        class Mallinfo2(ctypes.Structure):
            _fields_ = [(n, ctypes.c_size_t) for n in
                        ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                         "fordblks", "keepcost")]

        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.malloc.restype = ctypes.c_void_p
        libc.free.argtypes = [ctypes.c_void_p]
        libc.mallinfo2.restype = Mallinfo2
        if sys.argv[1] == "fixed":
            assert allocator.tune(0, 256 * 1024, False) == {"arenas": False, "mmap_threshold": True,
                                                            "arrow_system_pool": False}
        before = libc.mallinfo2().hblks
        libc.free(libc.malloc(4 << 20))
        block = libc.malloc(4 << 20)
        print(libc.mallinfo2().hblks - before)
        libc.free(block)
    """)

    def mmapped(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", child, mode], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return int(out.stdout.split()[-1])

    assert mmapped("fixed") == 1
    assert mmapped("glibc") == 0  # the moving threshold put the second 4 MiB block in an arena


def test_arrow_allocates_from_the_system_allocator_once_tuned():
    """pyarrow's own pool (mimalloc) kept the pages of every table a read built and dropped."""
    child = textwrap.dedent("""
        import pyarrow as pa
        from tutorialbook.library import Library
        import sys, tempfile
        print(pa.default_memory_pool().backend_name)
        Library(store=tempfile.mkdtemp(), **({"arrow_system_pool": False} if sys.argv[1] == "off" else {}))
        table = pa.table({"a": list(range(1000))}).take(list(range(0, 1000, 2)))
        print(pa.default_memory_pool().backend_name, pa.system_memory_pool().bytes_allocated() > 0)
    """)

    def pools(mode: str) -> list[str]:
        out = subprocess.run([sys.executable, "-c", child, mode], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    assert pools("on") == ["mimalloc", "system", "True"]
    assert pools("off") == ["mimalloc", "mimalloc", "False"]


def test_consolidation_reads_the_segments_a_span_holds_as_one_array(tmp_path):
    """A stored node's content (what a merge compares a new chapter with) is the unit centroid
    of the segments its spans hold, computed on one array of their vectors, in the table's order."""
    import numpy as np

    from tutorialbook.memory import where
    from tutorialbook.skills.builder import Builder

    store = Store(str(tmp_path / "s"), dim=4)
    store.upsert("segments", [{"id": f"{t}:{j}", "book": "b", "tutorial_id": t, "idx": j, "start": float(j),
                               "end": float(j + 1), "text": "x", "vector": [float(j), 1.0, 2.0, float(len(t))]}
                              for t in ("t1", "t2", "t3") for j in range(10)])
    spans = {"n1": [("t1", 2.0, 5.0)], "n2": [("t2", 0.0, 1.0), ("t2", 8.0, 10.0)], "n3": [("t4", 0.0, 9.0)]}
    builder = Builder(store, embed=None, book="b", tree=None)  # type: ignore[arg-type]
    got = builder._contents(spans)
    for node, node_spans in spans.items():
        inside = [r["vector"] for r in store.rows("segments") if any(where.lies_within(r, *s) for s in node_spans)]
        if not inside:
            assert got[node] is None
            continue
        mean = np.array(inside, dtype=np.float32).mean(axis=0)
        assert got[node].dtype == np.float32 and np.allclose(got[node], mean / np.linalg.norm(mean), atol=1e-6)
    assert [len(x) for x in ([r for r in store.rows("segments") if where.lies_within(r, *s)]
                             for s in spans["n2"])] == [1, 2]
    assert builder._contents({}) == {} and builder._contents({"n9": [("t9", 0.0, 1.0)]}) == {"n9": None}


def test_trim_hands_freed_heap_pages_back_to_the_system():
    """What a process freed in the middle of its heap stays resident until ``allocator.trim``
    (called after each ingested file) hands it back: 200 MB of small blocks freed under one
    still in use at the heap's top."""
    child = textwrap.dedent("""
        import ctypes, ctypes.util
        from tutorialbook.memory import allocator
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.malloc.restype = ctypes.c_void_p
        libc.free.argtypes = [ctypes.c_void_p]
        def rss():
            return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS")) // 1024
        blocks = [libc.malloc(64 * 1024) for _ in range(3200)]
        for b in blocks:
            ctypes.memset(b, 1, 64 * 1024)
        top = libc.malloc(64 * 1024)  # pins the heap's top: glibc trims only from there by itself
        for b in blocks:
            libc.free(b)
        before = rss()
        assert allocator.trim()
        print(before, rss())
    """)
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout
    before, after = map(int, out.split())
    assert before - after > 150, (before, after)


def test_the_embedder_hands_back_its_working_memory_after_each_call():
    """ONNX Runtime's CPU arena keeps the regions it grew (doubling 16, 32, 64 MB) for the life of
    the process unless shrunk: embedding long texts on both workers left ~50 MB mapped here (and
    ~110 MB after 20 ingested pages); now the last text of each call shrinks it back."""
    child = textwrap.dedent("""
        import ctypes, ctypes.util, random
        from tutorialbook.memory.embedder import MiniLM
        class Info(ctypes.Structure):
            _fields_ = [(n, ctypes.c_size_t) for n in
                        "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.mallinfo2.restype = Info
        model = MiniLM()
        model.embed(["warm up"])
        before = libc.mallinfo2().hblkhd
        rng = random.Random(7)
        words = "select the rows of a table where an index on the column holds each value".split()
        for _ in range(3):
            model.embed([" ".join(rng.choice(words) for _ in range(rng.randint(150, 240))) for _ in range(20)])
        print(before >> 20, libc.mallinfo2().hblkhd >> 20)
    """)
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout
    before, after = map(int, out.split())
    assert after - before < 12, (before, after)
