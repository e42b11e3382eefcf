"""Many processes on one store: every write lands once, every process sees the others',
a writer killed mid-batch leaves no partial batch, and the same holds on an S3-compatible
object store (moto's server on 127.0.0.1)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tutorialbook.library import Library
from tutorialbook.memory import store as store_module

PROCESSES = 8
LESSONS_EACH = 200
SINGLE = 10  # of each process's lessons, this many through record_lesson one by one; the rest in batches
BATCH = 19

WRITER = r"""
import json, os, sys, time
from pathlib import Path
from tutorialbook.library import Library

store, sync = sys.argv[1], Path(sys.argv[6])
me, n, single, batch = (int(a) for a in sys.argv[2:6])
agent = f"agent{me}"
library = Library(store=store, agent=agent)
root = library.tree("shared").root_id
procs = int(os.environ["PROCS"])

def barrier(name):
    (sync / f"{name}-{me}").touch()
    deadline = time.time() + 600
    while len(list(sync.glob(f"{name}-*"))) < procs:
        if time.time() > deadline:
            sys.exit(f"barrier {name} timed out")
        time.sleep(0.05)

text = lambda i: f"Agent {me} observation {i}: batch size {me * 1000 + i} changed the proof time."
barrier("ready")  # everyone starts writing at once
start = time.time()
seen_others = 0
for i in range(single):
    library.record_lesson(text(i), "shared", "note", node_id=root)
for first in range(single, n, batch):
    items = [{"lesson": text(i), "node_id": root} for i in range(first, min(first + batch, n))]
    results = library.record_lessons(items, "shared")
    assert not any(r.merged for r in results)
    seen_others = max(seen_others, library.store.count("lessons", f"agent != '{agent}'"))
elapsed = time.time() - start
barrier("done")  # now every process has written everything
book = next(b for b in library.books() if b.name == "shared")
by_agent = {}
for row in library.store.rows("lessons", "book = 'shared'", ["agent"]):
    by_agent[row["agent"]] = by_agent.get(row["agent"], 0) + 1
found = library.retrieve(f"Agent {(me + 1) % procs} observation 7", "shared", k=1).lessons
print(json.dumps({"agent": agent, "seconds": elapsed, "lessons": book.lessons, "by_agent": by_agent,
                  "seen_others_while_writing": seen_others,
                  "neighbour_found": [l.agent for l in found]}))
"""


@pytest.mark.slow
def test_eight_processes_record_two_hundred_lessons_each(store_path, tmp_path):
    library = Library(store=str(store_path))
    library.ensure_book("shared")
    sync = tmp_path / "sync"
    sync.mkdir()
    env = dict(os.environ, PROCS=str(PROCESSES))
    started = time.time()
    children = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(store_path), str(i), str(LESSONS_EACH), str(SINGLE),
                          str(BATCH), str(sync)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for i in range(PROCESSES)
    ]
    outputs = []
    for child in children:
        out, err = child.communicate(timeout=900)
        assert child.returncode == 0, err[-3000:]
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    wall = time.time() - started
    expected = {f"agent{i}": LESSONS_EACH for i in range(PROCESSES)}
    for out in outputs:  # each process sees every other process's lessons, without reopening
        assert out["lessons"] == PROCESSES * LESSONS_EACH
        assert out["by_agent"] == expected
        assert out["neighbour_found"] and out["neighbour_found"][0] != out["agent"]

    rows = Library(store=str(store_path)).store.rows("lessons", None, ["id", "text", "agent", "merged_count"])
    assert len(rows) == PROCESSES * LESSONS_EACH  # none lost
    assert len({r["id"] for r in rows}) == len(rows) and len({r["text"] for r in rows}) == len(rows)  # none doubled
    assert all(r["merged_count"] == 1 for r in rows)
    events = library.history("shared", action="lesson")
    assert len(events) == len(rows) and all(e.logged for e in events)  # each write has its history line
    assert {e.agent for e in events} == set(expected)
    writing = [o["seconds"] for o in outputs]
    print(f"\n8x200 lessons: {len(rows)} rows; writing phase per process {min(writing):.1f}-{max(writing):.1f} s "
          f"({len(rows) / max(writing):.0f} lessons/s overall); wall {wall:.1f} s with start-up; "
          f"others' lessons seen while writing: {sorted(o['seen_others_while_writing'] for o in outputs)}")


KILLED = r"""
import os, signal, sys, threading, time
from pathlib import Path
from tutorialbook.library import Library
from tutorialbook.memory.store import Store

store, when, kill_batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
library = Library(store=store, agent="doomed")
root = library.tree("shared").root_id
original = Store.insert
calls = {"n": 0}

def die_when_data_lands(data: Path, before: set):
    # SIGKILL the moment LanceDB creates the batch's data file: written or half-written, not committed
    while True:
        if any(p.name not in before for p in data.iterdir()):
            os.kill(os.getpid(), signal.SIGKILL)

def insert(self, table, rows, _original=original):
    if table == "lessons":
        calls["n"] += 1
        if calls["n"] == kill_batch:
            if when == "data-file":
                data = Path(store) / "lessons.lance" / "data"
                threading.Thread(target=die_when_data_lands, args=(data, {p.name for p in data.iterdir()}),
                                 daemon=True).start()
            else:
                threading.Timer(float(when), os.kill, (os.getpid(), signal.SIGKILL)).start()
    return _original(self, table, rows)

Store.insert = insert
for b in range(1000):
    library.record_lessons([{"lesson": f"batch {b} lesson {i}: rest the dough {b * 100 + i} minutes",
                             "context": f"batch-{b}", "node_id": root} for i in range(50)], "shared")
"""


@pytest.mark.slow
@pytest.mark.parametrize("when", ["data-file", "0.0", "0.05"])
def test_writer_killed_mid_batch_leaves_no_partial_batch(store_path, when):
    """SIGKILL while LanceDB writes the third batch (as its data file appears), just as the
    write starts, or a little later (the batch committed, its history line maybe not)."""
    library = Library(store=str(store_path))
    library.ensure_book("shared")
    child = subprocess.run([sys.executable, "-c", KILLED, str(store_path), when, "3"],
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]

    reopened = Library(store=str(store_path))  # the store opens
    rows = reopened.store.rows("lessons", None, ["id", "context"])
    per_batch: dict[str, int] = {}
    for r in rows:
        per_batch[r["context"]] = per_batch.get(r["context"], 0) + 1
    print(f"\nkilled at {when} in batch 3: batches stored {sorted(per_batch)}")
    assert set(per_batch.values()) <= {50}, per_batch  # every batch whole, or absent
    assert {"batch-0", "batch-1"} <= set(per_batch) and len(per_batch) <= 3
    assert reopened.store.table("lessons").count_rows() == len(rows)
    history = reopened.history("shared", action="lesson")
    assert sorted(e.target for e in history) == sorted(r["id"] for r in rows)  # history covers each lesson once

    after = reopened.record_lessons([{"lesson": f"after the crash {i}", "context": "after"} for i in range(5)],
                                    "shared", agent="survivor")
    assert len({r.lesson_id for r in after}) == 5
    assert reopened.store.count("lessons", "context = 'after'") == 5
    again = reopened.record_lessons([{"lesson": "batch 2 lesson 0: rest the dough 200 minutes", "context": "batch-2",
                                      "node_id": reopened.tree("shared").root_id}], "shared")
    assert again[0].merged == ("batch-2" in per_batch)  # a batch that did not land can simply be sent again


BUMPER = r"""
import sys
from tutorialbook.memory.store import Store
store = Store(sys.argv[1])
for _ in range(int(sys.argv[2])):
    store.update_sql("skills", "id = 's_race'", {"helpful": "helpful + 1"})
"""


@pytest.mark.slow
def test_concurrent_updates_of_one_row_all_count(store_path):
    """Four processes increment one counter: LanceDB's commit conflicts are retried (by
    Lance, then by the store), and no increment is lost."""
    store = Library(store=str(store_path)).store
    store.insert("skills", [{"id": "s_race", "book": "b", "name": "race", "helpful": 0}])
    children = [subprocess.Popen([sys.executable, "-c", BUMPER, str(store_path), "15"], stderr=subprocess.PIPE,
                                 text=True) for _ in range(4)]
    for child in children:
        _, err = child.communicate(timeout=300)
        assert child.returncode == 0, err[-2000:]
    assert store.get("skills", "s_race")["helpful"] == 60


def test_conflict_errors_are_recognised():
    lance_errors = [
        "lance error: Retryable commit conflict for version 12: This Update transaction was preempted by "
        "concurrent transaction Update at version 12. Please retry.",
        "lance error: Too many concurrent writers. Attempted 10 retries.",
        "lance error: Commit conflict for version 7: ...",
    ]
    assert all(store_module._is_conflict(RuntimeError(m)) for m in lance_errors)
    assert not store_module._is_conflict(ValueError("table cannot be modified when a specific version is checked out"))
    assert not store_module._is_conflict(ValueError("Invalid user input: no column named versionx"))


# -- object storage ----------------------------------------------------------------------------

S3_WRITER = r"""
import sys
from tutorialbook.library import Library
me = int(sys.argv[2])
library = Library(store=sys.argv[1], agent=f"s3agent{me}")
for b in range(3):
    library.record_lessons([{"lesson": f"s3 agent {me} batch {b} lesson {i}"} for i in range(10)], "baking")
print(library.store.count("lessons"))
"""


@pytest.fixture
def s3_endpoint(monkeypatch):
    moto_server = pytest.importorskip("moto.server")
    boto3 = pytest.importorskip("boto3")
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
           "AWS_ENDPOINT": endpoint, "AWS_ALLOW_HTTP": "true"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_bucket(Bucket="tutorialbook-test")
    yield endpoint
    server.stop()


@pytest.mark.slow
def test_library_on_an_s3_store_with_concurrent_writers(s3_endpoint):
    """The whole library on s3://bucket/store (moto's S3 server on 127.0.0.1, which honours
    conditional PUTs as S3 does): ingest, retrieve, lessons from three processes at once,
    history, and a second process seeing it all."""
    from tests.support.examples import EXAMPLES

    uri = "s3://tutorialbook-test/store"
    library = Library(store=uri)
    report = library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking", refine_rounds=0, agent="s3-ingest")
    assert [t.status for t in report.tutorials] == ["added"]
    assert library.retrieve("how do I know the starter is ready", "baking", k=3).skills
    children = [subprocess.Popen([sys.executable, "-c", S3_WRITER, uri, str(i)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for i in range(3)]
    for child in children:
        _, err = child.communicate(timeout=600)
        assert child.returncode == 0, err[-2000:]
    other = Library(store=uri)
    rows = other.store.rows("lessons", None, ["id", "agent"])
    assert len(rows) == 90 and len({r["id"] for r in rows}) == 90
    assert {r["agent"] for r in rows} == {"s3agent0", "s3agent1", "s3agent2"}
    assert {e.action for e in other.history("baking")} == {"ingest", "lesson"}
    assert other.books()[0].tutorials == 1


SAME_FILE = r"""
import json, sys, time
from pathlib import Path
from tutorialbook.library import Library

store, source, sync, me, procs = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4], int(sys.argv[5])
library = Library(store=store)
library.embed(["warm up"])  # the model loads before the start line, so the ingests overlap
(sync / f"ready-{me}").touch()
while len(list(sync.glob("ready-*"))) < procs:
    time.sleep(0.02)
report = library.ingest(source, book="baking", refine_rounds=0)
print(json.dumps([t.status for t in report.tutorials]))
"""


@pytest.mark.slow
def test_four_processes_ingesting_one_file_store_it_once(tmp_path):
    """Concurrent ingests of the same content into one book: one adds it, the others find it
    stored ("unchanged"), and every segment is stored once."""
    from tests.support.examples import EXAMPLES

    store, sync, procs = tmp_path / "store", tmp_path / "sync", 4
    sync.mkdir()
    source = EXAMPLES / "sourdough-troubleshooting.srt"
    children = [subprocess.Popen([sys.executable, "-c", SAME_FILE, str(store), str(source), str(sync), str(n),
                                  str(procs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for n in range(procs)]
    statuses = []
    for child in children:
        out, err = child.communicate(timeout=600)
        assert child.returncode == 0, err
        statuses += json.loads(out.strip().splitlines()[-1])
    assert sorted(statuses) == ["added"] + ["unchanged"] * (procs - 1)
    library = Library(store=str(store))
    segments = library.store.rows("segments", columns=["id"])
    assert len(segments) == len({s["id"] for s in segments}) > 0
    assert library.store.count("tutorials") == 1
    assert [b.tutorials for b in library.books()] == [1]
    assert len(library.history("baking", action="ingest")) == 1
