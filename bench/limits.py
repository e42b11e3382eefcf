"""Peak memory and time under the bounds of issue 17: 1-hour and 10-hour audio (transcribed in
windows), a 20 MB one-line text (ingested) and a 1 MB retrieve_skill query (refused), each in a
fresh process so its peak RSS is its own. Baselines measured in the same run: the 1-hour file
for the 10-hour one, a 200 KB text for the 20 MB one, a plain query for the 1 MB one, and an
interpreter that only imports the library.

    python bench/limits.py            # everything (the 20 MB ingest takes minutes on 2 cores)
    python bench/limits.py --quick    # 10-minute / 1-hour audio, 2 MB text
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.support import media  # noqa: E402  (espeak-ng narration, ffmpeg)

CHILD = """
import json, sys, time
kind, arg, store = sys.argv[1], sys.argv[2], sys.argv[3]
started = time.perf_counter()
out = {}
if kind == "import":
    import tutorialbook.library
elif kind == "audio":
    from tutorialbook.acquire.transcribe import transcribe
    out["duration"] = transcribe(arg).duration
elif kind == "text":
    from tutorialbook.library import Library
    t = Library(store=store).ingest(arg, book="b", refine_rounds=0).tutorials[0]
    out.update(segments=t.segments, skills=t.skills_added, warnings=t.warnings)
elif kind == "query":
    from tutorialbook.library import Library
    from tutorialbook.errors import TutorialbookError
    library = Library(store=store)
    started = time.perf_counter()
    try:
        out["skills"] = len(library.retrieve(open(arg).read(), "b").skills)
    except TutorialbookError as exc:
        out["refused"] = str(exc)
# VmHWM is this process's own peak; ru_maxrss would include the parent's (Linux keeps it across exec)
hwm_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
out.update(peak_mb=hwm_kb / 1024, seconds=time.perf_counter() - started)
print(json.dumps(out))
"""


def child(kind: str, arg: str = "", store: str = "") -> dict:
    env = dict(os.environ, TUTORIALBOOK_ALLOWED_ROOTS=tempfile.gettempdir())
    done = subprocess.run([sys.executable, "-c", CHILD, kind, str(arg), str(store)], capture_output=True,
                          text=True, env=env)
    if done.returncode:
        raise SystemExit(f"{kind} {arg}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def one_line_text(path: Path, size: int) -> Path:
    """``size`` bytes of varied baking instructions on one line."""
    verbs = "fold shape proof rest bake feed warm cool knead mix".split()
    things = "dough starter loaf crust levain batch".split()
    manners = "gently slowly twice overnight briefly firmly".split()
    parts, n, total = [], 0, 0
    while total < size:
        sentence = (f"{verbs[n % 10].capitalize()} the {things[n % 6]} {n % 97} times and "
                    f"{verbs[(n // 10) % 10]} it {manners[n % 6]}. ")
        parts.append(sentence)
        total += len(sentence)
        n += 1
    path.write_text("".join(parts)[:size])
    return path


def row(label: str, got: dict, base: dict | None = None) -> str:
    ratio = (
        f"  ({got['peak_mb'] / base['peak_mb']:.2f}x memory, {got['seconds'] / max(base['seconds'], 1e-6):.1f}x time"
        " of the baseline)"
        if base
        else ""
    )
    return f"{label:34} peak {got['peak_mb']:7.0f} MB  {got['seconds']:8.2f} s{ratio}"


def audio_rows(work: Path, short: int, long_: int) -> None:
    media.narrated_wav(["Fold the dough every thirty minutes for two hours.",
                        "Then shape the loaf and proof it overnight."], work / "speech.wav")
    short_audio = child("audio", media.long_audio(work / "speech.wav", work / "short.flac", short))
    print(row(f"transcribe {short / 3600:g} h audio", short_audio), flush=True)
    long_audio = child("audio", media.long_audio(work / "speech.wav", work / "long.flac", long_))
    print(row(f"transcribe {long_ / 3600:g} h audio", long_audio, short_audio), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="shorter audio and a 2 MB text")
    parser.add_argument("--skip-audio", action="store_true", help="only the text and query rows")
    args = parser.parse_args()
    short, long_ = (600, 3600) if args.quick else (3600, 36000)
    text_size = 2_000_000 if args.quick else 20_000_000
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        idle = child("import")
        print(row("python + import tutorialbook", idle), flush=True)
        if not args.skip_audio:
            audio_rows(work, short, long_)
        small = child("text", one_line_text(work / "small.txt", 200_000), work / "s1")
        print(
            row("ingest 200 KB one-line text", small) + f"  {small['segments']} segments, {small['skills']} skills",
            flush=True,
        )
        big = child("text", one_line_text(work / "big.txt", text_size), work / "s2")
        print(row(f"ingest {text_size / 1e6:g} MB one-line text", big, small)
              + f"  {big['segments']} segments, {big['skills']} skills")
        (work / "plain.txt").write_text("how do I shape the loaf")
        plain = child("query", work / "plain.txt", work / "s1")
        print(row("retrieve_skill, a plain query", plain))
        (work / "huge.txt").write_text("shape the loaf " * (2**20 // 15))
        huge = child("query", work / "huge.txt", work / "s1")
        print(row("retrieve_skill, a 1 MB query", huge, plain) + ("  refused: " + huge["refused"][:60]
                                                                 if "refused" in huge else "  answered"))


if __name__ == "__main__":
    main()
