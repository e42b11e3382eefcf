"""Sequential WhisperModel.transcribe vs BatchedInferencePipeline on a generated ~2 min narration.

    python bench/transcribe_modes.py [--repeats N] [--keep DIR]

Renders a cooking tutorial with espeak-ng under a still frame (MP4), decodes it once, then times each
mode on the same audio with the same model and settings (CPU int8, threads = cores, VAD on, word
timestamps, beam 5): N interleaved runs after a warm-up, median and best shown. Prints the times, the
ratio, the realtime factor, and how far the sentence starts (words regrouped as ``transcribe`` does)
land from where each sentence was spoken, then the end-to-end ``transcribe()`` (decode + model +
regroup) with the kept default.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import media  # noqa: E402
from tutorialbook.acquire import transcribe as tx  # noqa: E402
from tutorialbook.acquire.media import decode_audio  # noqa: E402

SCRIPT = [
    "Welcome to this cooking tutorial about making a simple tomato pasta sauce.",
    "First, fill a large pot with water and put it on the stove.",
    "Add a generous pinch of salt once the water starts to boil.",
    "While the water heats, peel and chop two cloves of garlic.",
    "Cut one small onion into thin slices.",
    "Warm three tablespoons of olive oil in a wide pan over medium heat.",
    "Add the onion and cook it slowly until it turns soft and golden.",
    "Then add the garlic and stir for about one minute.",
    "Do not let the garlic burn, or the sauce will taste bitter.",
    "Pour in one can of crushed tomatoes.",
    "Season the sauce with salt, black pepper and a little sugar.",
    "Let it simmer gently for fifteen minutes, stirring now and then.",
    "Meanwhile, put the pasta into the boiling water.",
    "Cook it two minutes less than the time printed on the package.",
    "Before you drain the pasta, keep one cup of the cooking water.",
    "Move the pasta straight into the pan with the sauce.",
    "Add a splash of the cooking water and toss everything together.",
    "The starch in the water helps the sauce cling to the pasta.",
    "Tear a few fresh basil leaves over the top.",
    "Finish with grated parmesan cheese and a drizzle of olive oil.",
    "Taste it once more and adjust the salt if needed.",
    "Serve the pasta right away while it is hot.",
    "Leftover sauce keeps in the fridge for up to three days.",
    "If the sauce gets too thick, loosen it with a little more pasta water.",
    "You can also add chili flakes for a bit of heat.",
    "Next time we will make a creamy mushroom sauce.",
    "Thank you for watching, and enjoy your meal.",
]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def start_errors(segments, spans) -> tuple[list[float], int]:
    """|segment start - when its sentence was spoken| for each sentence that opens a segment (the
    best word overlap), and how many sentences were merged into the previous one's segment (the ASR
    missed a full stop, so their own start is not a segment boundary)."""
    errors, merged, previous = [], 0, None
    for start, _end, text in spans:
        want = _words(text)
        best = max(range(len(segments)), key=lambda i: len(want & _words(segments[i].text)) / len(want))
        if best == previous:
            merged += 1
        else:
            errors.append(abs(segments[best].start - start))
        previous = best
    return errors, merged


def run_mode(whisper, audio, mode: str, batch_size: int):
    segs, _info = tx._run_whisper(whisper, audio, mode=mode, batch_size=batch_size)
    words = [(w.start, w.end, w.word) for s in segs for w in (s.words or ())]
    return tx.regroup_words(words)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="only sequential vs the kept batch size")
    ap.add_argument("--keep", type=Path, help="write the generated video here instead of a temp dir")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        video = out_dir / "pasta_tutorial.mp4"
        t0 = time.perf_counter()
        spans = media.narrated_video(SCRIPT, video, pause_s=1.0)
        print(f"rendered {video.name}: {len(SCRIPT)} sentences in {time.perf_counter() - t0:.1f} s")

        t0 = time.perf_counter()
        audio = decode_audio(video).samples
        duration = audio.shape[0] / 16000
        print(f"decoded {duration:.1f} s of audio in {time.perf_counter() - t0:.2f} s")

        t0 = time.perf_counter()
        whisper, resolved = tx.get_model(None)
        print(f"model {resolved.name} ({resolved.origin}) loaded in {time.perf_counter() - t0:.2f} s; "
              f"{tx.DEVICE} {tx.COMPUTE_TYPE}, cpu_threads={os.cpu_count()}, beam {tx.BEAM_SIZE}, VAD on, "
              "word timestamps")  # fmt: skip
        run_mode(whisper, audio[: 16000 * 10], "sequential", 1)  # warm-up

        modes = [("sequential", 1), ("batched", 8), ("batched", 4), ("batched", 2), ("batched", 1)]
        if args.quick:
            modes = [("sequential", 1), ("batched", tx.BATCH_SIZE)]
        times: dict[tuple[str, int], list[float]] = {m: [] for m in modes}
        result: dict[tuple[str, int], list] = {}
        for _ in range(args.repeats):  # interleaved, so background load hits every mode alike
            for key in modes:
                t0 = time.perf_counter()
                result[key] = run_mode(whisper, audio, *key)
                times[key].append(time.perf_counter() - t0)

        print(f"\n{'mode':<22}{'median s':>9}{'min s':>7}{'x realtime':>12}{'segments':>10}"
              f"{'start err mean/max s':>23}{'merged':>8}")  # fmt: skip
        for key in modes:
            errs, merged = start_errors(result[key], spans)
            label = key[0] if key[0] == "sequential" else f"batched (batch {key[1]})"
            med = statistics.median(times[key])
            print(f"{label:<22}{med:>9.2f}{min(times[key]):>7.2f}{duration / med:>12.1f}{len(result[key]):>10}"
                  f"{sum(errs) / len(errs):>13.2f} / {max(errs):.2f}{merged:>8}")  # fmt: skip
        print(f"({len(spans)} sentences spoken; 'merged': sentences the ASR ran into the previous one)")

        seq = statistics.median(times[("sequential", 1)])
        bat = statistics.median(times[("batched", tx.BATCH_SIZE)])
        faster = "batched" if bat < seq else "sequential"
        print(f"\nsequential {seq:.2f} s vs batched (batch {tx.BATCH_SIZE}) {bat:.2f} s (medians of {args.repeats}): "
              f"ratio sequential/batched = {seq / bat:.2f}; realtime factor {duration / seq:.1f}x vs "
              f"{duration / bat:.1f}x; faster here: {faster}; default kept: {tx.MODE}")  # fmt: skip

        t0 = time.perf_counter()
        transcript = tx.transcribe(video)
        dt = time.perf_counter() - t0
        print(f"transcribe() end to end (decode + {tx.MODE} + regroup): {dt:.2f} s, {duration / dt:.1f}x "
              f"realtime, {len(transcript.segments)} segments for {len(SCRIPT)} sentences")  # fmt: skip


if __name__ == "__main__":
    main()
