"""Batch ingest across processes and Ray tasks writes the book a single process writes.

A folder of real tutorials (the shipped examples and learning-bench texts, where a later file
extends a node an earlier one made, so the order matters), a broken file and an unsupported one:
ingested by one process, by `tutorialbook ingest --workers 2`, with a worker SIGKILLed mid-commit
(once: its file is retried; always: its file fails, its commit rolled back), and as Ray tasks on
a local Ray cluster writing to an S3-compatible store (moto's server on 127.0.0.1). Each time the
stored rows (content: ids are derived from content, timestamps and owners are left out) are the
single process's, and a re-run adds nothing.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.examples import EXAMPLES, ROOT
from tutorialbook.library import Library

LEARNING = ROOT / "bench" / "data" / "learning"
TABLES = ("books", "tutorials", "segments", "nodes", "skills", "positions", "screen", "questions", "lessons")
VOLATILE = {"created_at", "updated_at", "owner"}  # when and by which process, not what
GOOD = ["a-basics.md", "b-trouble.srt", "d-rebase.txt", "e-houseplants.md"]


def make_folder(where: Path) -> Path:
    where.mkdir()
    shutil.copy(EXAMPLES / "sourdough-basics.md", where / "a-basics.md")
    shutil.copy(EXAMPLES / "sourdough-troubleshooting.srt", where / "b-trouble.srt")  # extends a's node
    (where / "c-broken.srt").write_text("not subtitles at all\n")  # fails: no cues
    shutil.copy(LEARNING / "git-rebase.txt", where / "d-rebase.txt")
    shutil.copy(LEARNING / "houseplants.md", where / "e-houseplants.md")
    (where / "notes.xyz").write_text("an unsupported file")
    return where


def rows_of(store: str) -> dict:
    """Every table's rows as content, in a stable order; events as (action, target, summary)."""
    library = Library(store=store)
    out = {}
    for name in TABLES:
        rows = []
        for row in library.store.rows(name):
            row = {k: v for k, v in row.items() if k not in VOLATILE and not k.startswith("_")}
            if row.get("vector") is not None:
                row["vector"] = [round(float(x), 5) for x in row["vector"]]
            if name == "tutorials":  # the stored report, less its stage timings
                report = json.loads(row["report"])
                report.pop("stage_seconds")
                row["report"] = report
            rows.append(json.dumps(row, sort_keys=True))
        out[name] = sorted(rows)
    out["events"] = sorted((r["action"], r["target"], r["summary"]) for r in library.store.rows("events"))
    return out


def cli(store, *args, env=None):
    return subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store), *args],
                          capture_output=True, text=True, cwd=ROOT, env=env or dict(os.environ), timeout=1200)


def report_view(report: dict) -> list:
    """A folder report without timings and paths: each file's name, status and reason; each tutorial's counts."""
    files = [(Path(f["source"]).name, f["status"], f["reason"].replace(str(Path(f["source"]).parent), ""))
             for f in report["files"]]
    tutorials = [{k: v for k, v in t.items() if k not in ("stage_seconds", "source")} for t in report["tutorials"]]
    return [files, tutorials, report["failed"], report["skipped"]]


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """The folder, and what one process makes of it (CLI, JSON report)."""
    base = tmp_path_factory.mktemp("single")
    source, store = make_folder(base / "tutorials"), base / "store"
    run = cli(store, "--json", "ingest", str(source), "--book", "baking")
    assert run.returncode == 1, run.stderr  # the broken file failed
    return source, str(store), json.loads(run.stdout)


def test_two_workers_write_the_rows_one_process_writes(single, tmp_path):
    source, reference, reference_report = single
    store = tmp_path / "store"
    batch = cli(store, "--json", "ingest", str(source), "--book", "baking", "--workers", "2")
    assert batch.returncode == 1, batch.stderr
    assert report_view(json.loads(batch.stdout)) == report_view(reference_report)  # timings aside
    assert rows_of(str(store)) == rows_of(reference)

    again = cli(store, "ingest", str(source), "--book", "baking", "--workers", "2")
    assert again.returncode == 1, again.stderr
    lines = again.stdout.splitlines()
    statuses = [line.split()[0] for line in lines if not line.startswith(" ")]  # each file's line, in order
    assert statuses[:6] == ["unchanged", "unchanged", "failed", "unchanged", "unchanged", "skipped"]
    assert "c-broken.srt" in again.stdout and "no subtitle cues" in again.stdout
    assert "notes.xyz" in again.stdout and "unsupported file type '.xyz'" in again.stdout
    assert lines[-1] == "4 unchanged, 1 failed, 1 skipped"
    assert rows_of(str(store)) == rows_of(reference)  # a re-run adds nothing


KILLER = r"""
# Test hook, loaded by every process of a test's batch (sitecustomize): a batch worker SIGKILLs
# itself right after the segments of TB_KILL_FILE are written (mid-commit), once or every time.
import multiprocessing, os, signal
from pathlib import Path
from tutorialbook.memory.store import Store

_insert = Store.insert

def insert(self, table, rows, _insert=_insert):
    result = _insert(self, table, rows)
    target, marker = os.environ["TB_KILL_FILE"], Path(os.environ["TB_KILL_MARKER"])
    if table == "segments" and multiprocessing.current_process().name == "tutorialbook-batch":
        tutorial = self.get("tutorials", rows[0]["tutorial_id"])
        if tutorial["source"].endswith(target) and (os.environ["TB_KILL"] == "always" or not marker.exists()):
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
    return result

Store.insert = insert
"""


def killing_env(tmp_path: Path, target: str, mode: str) -> dict:
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(KILLER)
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")]),
                TB_KILL_FILE=target, TB_KILL_MARKER=str(tmp_path / "killed"), TB_KILL=mode)


def test_a_worker_killed_mid_commit_is_retried_and_loses_nothing(single, tmp_path):
    source, reference, _ = single
    store = tmp_path / "store"
    run = cli(store, "--json", "ingest", str(source), "--book", "baking", "--workers", "2",
              env=killing_env(tmp_path, "b-trouble.srt", "once"))
    assert (tmp_path / "killed").exists(), "a worker was killed mid-commit"
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert [f["status"] for f in report["files"]] == ["added", "added", "failed", "added", "added", "skipped"]
    retried = next(t for t in report["tutorials"] if t["source"].endswith("b-trouble.srt"))
    assert any("killed by SIGKILL" in w for w in retried["warnings"])
    assert any("rolled back" in w for w in retried["warnings"])
    rows = rows_of(str(store))
    rollbacks = [e for e in rows.pop("events") if e[0] == "rollback"]
    assert len(rollbacks) == 1 and retried["tutorial_id"] == rollbacks[0][1]
    expected = rows_of(reference)
    expected.pop("events")
    assert rows == expected  # the retry wrote what one process writes, in the same order


def test_a_file_whose_workers_always_die_fails_and_is_rolled_back(single, tmp_path):
    source, reference, _ = single
    store = tmp_path / "store"
    run = cli(store, "--json", "ingest", str(source), "--book", "baking", "--workers", "2",
              env=killing_env(tmp_path, "e-houseplants.md", "always"))  # the last file: a re-run adds it in order
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert [f["status"] for f in report["files"]] == ["added", "added", "failed", "added", "failed", "skipped"]
    failed = report["files"][4]
    assert "died (killed by SIGKILL) on each of 2 attempts" in failed["reason"]
    assert "unfinished commit was rolled back" in failed["reason"]
    library = Library(store=str(store))
    assert library.store.count("tutorials") == 3 == library.store.count("tutorials", "status = 'ready'")
    assert library.store.count("segments") == sum(t["segments"] for t in report["tutorials"])

    again = cli(store, "ingest", str(source), "--book", "baking", "--workers", "2")
    assert again.returncode == 1 and again.stdout.splitlines()[-1] == "1 added, 3 unchanged, 1 failed, 1 skipped"
    rows, expected = rows_of(str(store)), rows_of(reference)
    assert [e for e in rows.pop("events") if e[0] == "rollback"] and expected.pop("events")
    assert rows == expected


WHO = r"""
# Test hook (sitecustomize): each batch worker process notes its pid beside the file it writes.
import multiprocessing, os
from tutorialbook.memory.store import Store

_insert = Store.insert

def insert(self, table, rows, _insert=_insert):
    if table == "segments" and multiprocessing.current_process().name == "tutorialbook-batch":
        with open(os.environ["TB_WHO"], "a") as out:
            out.write(f"{os.getpid()} {self.get('tutorials', rows[0]['tutorial_id'])['source']}\n")
    return _insert(self, table, rows)

Store.insert = insert
"""


def test_a_worker_that_did_its_share_of_files_is_replaced_by_a_fresh_process(single, tmp_path):
    """TUTORIALBOOK_WORKER_FILES=1: every file is ingested by a process of its own, and the
    book is the one a single process writes."""
    source, reference, reference_report = single
    hook, who = tmp_path / "hook", tmp_path / "who.txt"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(WHO)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")]),
               TB_WHO=str(who), TUTORIALBOOK_WORKER_FILES="1")
    run = cli(tmp_path / "store", "--json", "ingest", str(source), "--book", "baking", "--workers", "2", env=env)
    assert run.returncode == 1, run.stderr
    assert report_view(json.loads(run.stdout)) == report_view(reference_report)
    writers = dict(line.split(" ", 1)[::-1] for line in who.read_text().splitlines())
    assert sorted(Path(f).name for f in writers) == GOOD
    assert len(set(writers.values())) == len(GOOD)  # four files, four processes
    assert rows_of(str(tmp_path / "store")) == rows_of(reference)


@pytest.fixture
def s3_endpoint(monkeypatch):
    from moto.server import ThreadedMotoServer
    import boto3

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_REGION": "us-east-1", "AWS_ENDPOINT": endpoint, "AWS_ALLOW_HTTP": "true"}.items():
        monkeypatch.setenv(key, value)
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_bucket(Bucket="tutorialbook-batch")
    yield endpoint
    server.stop()


def test_ray_tasks_on_an_s3_store_write_the_rows_one_process_writes(single, s3_endpoint, monkeypatch):
    import ray

    source, reference, reference_report = single
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, object_store_memory=100 * 2**20, include_dashboard=False, log_to_driver=False)
    try:
        library = Library(store="s3://tutorialbook-batch/store")
        report = library.ingest_batch(str(source), "baking", ray="auto")
        assert [f.status for f in report.files] == ["added", "added", "failed", "added", "added", "skipped"]
        assert report_view(report.model_dump()) == report_view(reference_report)
        assert rows_of("s3://tutorialbook-batch/store") == rows_of(reference)
        again = library.ingest_batch(str(source), "baking", ray="auto")
        assert [f.status for f in again.files] == ["unchanged", "unchanged", "failed", "unchanged", "unchanged",
                                                   "skipped"]
        assert rows_of("s3://tutorialbook-batch/store") == rows_of(reference)
    finally:
        ray.shutdown()


def test_workers_must_be_a_sensible_number(library, tmp_path):
    from tutorialbook.errors import TutorialbookError

    for bad in (0, -1, 65, 1.5, True):
        with pytest.raises(TutorialbookError, match="workers"):
            library.ingest_batch(str(EXAMPLES), "baking", workers=bad)
