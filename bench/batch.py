"""Folder ingest with --workers 2 beside --workers 1, on the same files in the same run.

    python bench/batch.py [--workers 2] [--videos 4] [--sentences 12] [--text DIR]

Two folders, each ingested into a fresh store by ``tutorialbook ingest FOLDER --workers N``
(the CLI in a subprocess, start-up included, default settings), N=1 then N=2:

* text: the Flask tutorial's Sphinx sources (Debian ``python-flask-doc``, 12 files), or --text DIR;
* videos: narrated videos made from those sources' prose (espeak-ng + ffmpeg, tests/media.py),
  one per file, ``--sentences`` sentences each, transcribed by faster-whisper.

Printed: wall time of each run, the ratio, and the stage seconds summed over the files (what
workers spend reading in parallel, and waiting for their turn to write). The load average is
printed too: on a machine shared with other work the figures move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import media  # noqa: E402

FLASK = Path("/usr/share/doc/python-flask-doc/html/_sources/tutorial")


def prose(path: Path, n: int) -> list[str]:
    """The first ``n`` plain sentences of a reStructuredText file (no code, no markup lines)."""
    lines, in_code = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip().endswith("::") or line.startswith(".. "):
            in_code = True
            continue
        if in_code and (line.startswith(" ") or not line.strip()):
            continue
        in_code = False
        if re.fullmatch(r"[=\-~^*#]{3,}", line.strip()):
            continue
        lines.append(line.strip())
    text = re.sub(r":\w+:`([^`<]*)[^`]*`|``([^`]*)``|`([^`<]*)[^`]*`_?",
                  lambda m: next(g for g in m.groups() if g is not None), " ".join(lines))
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text)]
    return [s for s in sentences if 5 <= len(s.split()) <= 30 and not re.search(r"[{}<>$=/\\]", s)][:n]


def run(folder: Path, store: Path, workers: int) -> tuple[float, dict]:
    env = dict(os.environ, TUTORIALBOOK_ALLOWED_ROOTS=os.pathsep.join([str(folder.parent), str(ROOT)]))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store), "--json", "ingest",
                           str(folder), "--book", "bench", "--workers", str(workers)],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"ingest --workers {workers} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)


def stages(report: dict) -> str:
    total: dict[str, float] = {}
    for t in report["tutorials"]:
        for stage, seconds in t["stage_seconds"].items():
            total[stage] = total.get(stage, 0.0) + seconds
    return ", ".join(f"{k} {v:.1f}" for k, v in total.items() if v >= 0.05)


def compare(kind: str, folder: Path, work: Path, workers: int) -> None:
    files = len([p for p in folder.iterdir() if p.is_file()])
    results = {}
    for n in (1, workers):
        load = os.getloadavg()[0]
        seconds, report = run(folder, work / f"{kind}-store-{n}", n)
        added = sum(f["status"] == "added" for f in report["files"])
        results[n] = seconds
        print(f"{kind:6} --workers {n}: {seconds:7.1f} s wall for {files} files ({added} added), load {load:.1f} "
              f"at start; stage seconds summed: {stages(report)}")
    print(f"{kind:6} speed-up --workers {workers} over --workers 1: {results[1] / results[workers]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--videos", type=int, default=4)
    parser.add_argument("--sentences", type=int, default=12)
    parser.add_argument("--text", type=Path, default=FLASK)
    parser.add_argument("--skip", choices=["text", "videos"], help="leave one kind out")
    args = parser.parse_args()
    if not args.text.is_dir():
        raise SystemExit(f"{args.text} not found: apt-get install python-flask-doc, or pass --text DIR")
    sources = sorted(p for p in args.text.iterdir() if p.is_file())
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.skip != "text":
            compare("text", args.text, work, args.workers)
        if args.skip != "videos":
            videos = work / "videos"
            videos.mkdir()
            seconds = 0.0
            for source in [s for s in sources if len(prose(s, args.sentences)) >= 4][: args.videos]:
                name = source.name.split(".")[0]
                spans = media.narrated_video(prose(source, args.sentences), videos / f"{name}.mp4")
                seconds += spans[-1][1]
            print(f"videos: {len(list(videos.iterdir()))} narrated from {args.text}, {seconds:.0f} s of speech")
            compare("videos", videos, work, args.workers)


if __name__ == "__main__":
    main()
