"""A folder ingest with bad and unsupported files in it: every file is tried, each good one
committed on its own, each reported (added / unchanged / failed with its reason / skipped as
unsupported) in text and JSON, and the command exits non-zero when any failed."""

import json
import os
import shutil
import subprocess
import sys

from tests.support.examples import EXAMPLES, ROOT
from tutorialbook.library import Library


def folder(tmp_path):
    where = tmp_path / "tutorials"
    where.mkdir()
    shutil.copy(EXAMPLES / "sourdough-basics.md", where / "a-basics.md")
    (where / "b-broken.srt").write_text("not subtitles at all\n")  # fails: no cues
    (where / "c-binary.md").write_bytes(b"\xff\xfe\x00garbage")  # fails: binary
    shutil.copy(EXAMPLES / "sourdough-troubleshooting.srt", where / "d-trouble.srt")  # after the failures
    (where / "notes.xyz").write_text("an unsupported file")
    return where


def cli(store, *args):
    return subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store), *args],
                          capture_output=True, text=True, cwd=ROOT, env=dict(os.environ), timeout=600)


def test_folder_with_bad_files_reports_each_and_continues(tmp_path):
    source, store = folder(tmp_path), tmp_path / "store"
    text = cli(store, "ingest", str(source), "--book", "baking", "--refine-rounds", "0")
    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    assert [line.split()[0] for line in lines[:5]] == ["added", "failed", "failed", "added", "skipped"]
    assert "b-broken.srt" in lines[1] and "no subtitle cues" in lines[1]
    assert "c-binary.md" in lines[2] and "binary" in lines[2]
    assert "notes.xyz" in lines[4] and "unsupported file type '.xyz'" in lines[4]
    assert lines[-1] == "2 added, 2 failed, 1 skipped"

    again = cli(store, "--json", "ingest", str(source), "--book", "baking", "--refine-rounds", "0")
    assert again.returncode == 1, again.stderr
    report = json.loads(again.stdout)
    assert [(f["source"].rsplit("/", 1)[1], f["status"]) for f in report["files"]] == [
        ("a-basics.md", "unchanged"), ("b-broken.srt", "failed"), ("c-binary.md", "failed"),
        ("d-trouble.srt", "unchanged"), ("notes.xyz", "skipped")]
    assert all(f["reason"] for f in report["files"] if f["status"] in ("failed", "skipped"))
    assert report["failed"] == 2 and report["skipped"] == 1 and len(report["tutorials"]) == 2

    library = Library(store=str(store))
    assert [t.title for t in library.tutorials("baking")] == ["Sourdough bread basics", "D trouble"]
    assert library.store.count("tutorials") == 2  # nothing of the failed files was written

    # a folder without failures exits 0 (a skipped file is not a failure)
    (source / "b-broken.srt").unlink()
    (source / "c-binary.md").unlink()
    clean = cli(store, "ingest", str(source), "--book", "baking", "--refine-rounds", "0")
    assert clean.returncode == 0 and clean.stdout.splitlines()[-1] == "2 unchanged, 1 skipped"


def test_one_bad_file_named_alone_is_still_an_error(tmp_path):
    source = folder(tmp_path)
    single = cli(tmp_path / "store", "ingest", str(source / "b-broken.srt"), "--book", "baking")
    assert single.returncode == 2 and "no subtitle cues" in single.stderr


def test_a_folders_page_with_nothing_to_learn_is_skipped_not_failed(tmp_path):
    """PostgreSQL's tutorial folder holds its chapter's contents page (headings and links only):
    it failed the whole ingest (exit 1) though nothing was wrong with it. A lone file of that kind
    is still an error (tests/test_bad_input.py)."""
    where = tmp_path / "manual"
    where.mkdir()
    shutil.copy(EXAMPLES / "sourdough-basics.md", where / "a-basics.md")
    (where / "b-contents.md").write_text("# Getting started\n\n## Installation\n\n## Architecture\n")
    text = cli(tmp_path / "store", "ingest", str(where), "--book", "baking", "--refine-rounds", "0")
    assert text.returncode == 0, text.stdout + text.stderr
    lines = text.stdout.splitlines()
    assert lines[1].split()[0] == "skipped" and "b-contents.md" in lines[1] and "no paragraphs" in lines[1]
    assert lines[-1] == "1 added, 1 skipped"
