"""Whole ingest vs bare transcription, on a generated narrated video of over two minutes.

    python bench/ingest.py [--repeats N]

The whole ingest (decode, transcribe, segment, embed, consolidate, index, commit) through
``Library.ingest`` is timed beside a bare faster-whisper transcription of the same file with
the same model object and settings (batched pipeline, VAD, word timestamps, beam 5), runs
interleaved after a warm-up. Target: whole ingest <= 1.15 x bare transcription.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import media  # noqa: E402
from tutorialbook.library import Library  # noqa: E402
from tutorialbook.acquire import transcribe as tx  # noqa: E402
from tutorialbook.acquire.media import SAMPLE_RATE, decode_audio  # noqa: E402

SCRIPT = [
    "Welcome to this workshop lesson on keeping a bicycle running smoothly.",
    "We start with the chain, because a dirty chain wears out everything it touches.",
    "Shift onto the smallest cog at the back before you clean anything.",
    "Hold a rag around the lower run of the chain and turn the pedals backwards.",
    "Always use a proper degreaser rather than dish soap on the drivetrain.",
    "Scrub the cassette with a stiff brush until the metal shines.",
    "Rinse everything with a gentle stream of water, never a pressure washer.",
    "A pressure washer pushes water into the bearings and ruins them.",
    "Let the chain dry completely before you add any oil.",
    "Put one drop of lubricant on each roller while turning the cranks.",
    "Wipe off the excess oil after a few minutes, or it will collect grit.",
    "Now let's look at the brakes.",
    "Squeeze each brake lever and check that it stops well before the handlebar.",
    "If a lever pulls all the way to the bar, tighten the cable with the barrel adjuster.",
    "Look at the brake pads and replace them when the grooves are gone.",
    "Remember to clean the rims with alcohol so the new pads bite properly.",
    "Next we check the tyres.",
    "Pump the tyres to the pressure printed on the sidewall.",
    "Run your fingers carefully around the inside of each tyre to find thorns.",
    "Replace a tyre when you can see the threads of the casing.",
    "Then we check the bolts.",
    "Tighten the stem and seat post bolts to the torque printed beside them.",
    "Never overtighten carbon parts, because they crack without warning.",
    "Finally, spin each wheel and watch the gap between the rim and the brake pads.",
    "If the wheel wobbles, take it to a shop to have it trued.",
    "Do this whole check once a month and your bike will last for years.",
    "Thanks for watching, and ride safely.",
]


def bare(model, path: Path) -> float:
    """The baseline: the same model object transcribing the decoded audio, and nothing else
    (bench/screen_text.py times against it too)."""
    start = time.perf_counter()
    segments, _ = tx._run_whisper(model, decode_audio(path, sampling_rate=SAMPLE_RATE).samples)
    for _ in segments:
        pass
    return time.perf_counter() - start


def whole(path: Path, workdir: Path, n: int) -> tuple[float, dict]:
    library = Library(store=str(workdir / f"store-{n}"), allowed_roots=(str(workdir),))  # its video is made here
    library.embed(["warm up"])  # an opened library has its embedder loaded, as a server does
    start = time.perf_counter()
    report = library.ingest(str(path), book="bikes")
    return time.perf_counter() - start, report.tutorials[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        video = workdir / "bike-maintenance.mp4"
        spans = media.narrated_video(SCRIPT, video)
        duration = spans[-1][1]
        print(f"video: {duration:.1f} s of narration, {len(SCRIPT)} sentences")
        model, resolved = tx.get_model()
        print(f"model: {resolved.name} ({tx.MODE}, int8, beam {tx.BEAM_SIZE})")
        bare(model, video)
        whole(video, workdir, -1)  # warm-up: model, embedder, LanceDB
        bares, wholes = [], []
        report = None
        for n in range(args.repeats):
            bares.append(bare(model, video))
            seconds, report = whole(video, workdir, n)
            wholes.append(seconds)
        b, w = statistics.median(bares), statistics.median(wholes)
        print(
            f"bare transcription : median {b:6.2f} s  ({duration / b:5.1f}x realtime)  "
        f"runs {['%.2f' % x for x in bares]}"
        )
        print(
            f"whole ingest       : median {w:6.2f} s  ({duration / w:5.1f}x realtime)  "
        f"runs {['%.2f' % x for x in wholes]}"
        )
        print(f"ratio whole/bare   : {w / b:.3f}  (target <= 1.15)")
        print(f"stages of the last ingest: {report.stage_seconds}")
        print(f"last ingest: {report.segments} segments, {report.nodes_added} nodes, {report.skills_added} skills")


if __name__ == "__main__":
    main()
