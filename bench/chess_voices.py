"""Speech-only move recovery in voices the parser was not designed on, per decoding setting.

    python bench/chess_voices.py                          # every voice, setting "norepeat" (ingest's)
    python bench/chess_voices.py --settings ingest,hotwords,beam1,beam8
    python bench/chess_voices.py --voices flite:rms,festival:kal --lessons 3
    python bench/chess_voices.py --replay                 # re-read the saved ASR (parser work only)

The lessons are bench/chess_moves.py's scripts and truth. Each is spoken sentence by sentence
(tests/support/media.narrated_wav) by several synthesizers and voices, transcribed as ingest does
(``transcribe`` with the ingest prompt: the title and the chess pack's vocabulary), and read by
``track_lines`` — what ``Library.ingest(domain="chess")`` indexes from a video without a board.

Voices: DESIGN are those the parser was built and tuned on (espeak-ng en-us, en-gb-x-rp,
en-gb-scotland and en-029, flite slt); every other is HELD OUT: never looked at while changing the
parser. UNSEEN voices (festival's HTS slt, first used in session 42: the speaker of flite's slt,
synthesised another way; espeak-ng's Lancaster, West Midlands and New York accents, first used in
session 50) are held out too and reported as their own role, a check on voices no rule was ever
written after.
Lessons: DESIGN_LESSONS were read when changing it; the others are scored only. Both splits are
printed, so what was tuned on stands beside what was not. Per voice and setting: plies recovered,
spurious moves, word error rate of the transcript against the script, and transcription seconds
(the machine is shared: compare seconds within one run). The ASR is saved (``--asr-dir``), so
``--replay`` re-scores a parser change in seconds without rendering or transcribing again.
Figures only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.asr import edits, words  # noqa: E402
from bench.chess_moves import LESSONS, Lesson, Score  # noqa: E402
from tutorialbook.acquire.transcript import Segment  # noqa: E402
from tutorialbook.skills.chess.lines import track_lines  # noqa: E402

DESIGN_VOICES = (
    "espeak-ng:en-us",
    "flite:slt",
    "espeak-ng:en-gb-x-rp",
    "espeak-ng:en-gb-scotland",
    "espeak-ng:en-029",
)
HELD_OUT_VOICES = ("espeak-ng:en-us+f3", "flite:rms", "flite:awb", "festival:kal")
# never transcribed before session 42's first run; "festival:kal8k" (the held-out kal's speaker at 8 kHz) was measured
# then too, and is left out of the default run: its package, festvox-kallpc8k, replaces the 16 kHz one the tests need
UNSEEN_VOICES = ("festival:slt_hts", "espeak-ng:en-gb-x-gbclan", "espeak-ng:en-gb-x-gbcwmd", "espeak-ng:en-us-nyc")
# english_opening to scotch_game were written in session 13 in other narrators' styles ("One d4, d5",
# "the queen's knight goes to d2", "swaps knights on c6", "c5 instead of knight f6") and the parser changed
# for them; kings_gambit to alekhine_defense in session 41 in still others ("which stops queen h4 check",
# "putting the bishop on e2", "on move two"), with three held out (Dutch, Two Knights, Nimzo-Indian)
# written at the same time, before any of those changes
DESIGN_LESSONS = ("caro_kann", "french_defense", "italian_game", "kings_indian",
                  "english_opening", "london_system", "scandinavian_defense", "scotch_game",
                  "kings_gambit", "slav_defense", "petrov_defense", "alekhine_defense")
SETTINGS = ("ingest", "norepeat", "penalty", "hotwords", "beam1", "beam8", "patience2", "chunk15")


def options(setting: str, title: str) -> dict:
    """Decoding options for ``transcribe``: "ingest" is the prompt alone (what ingest passed before
    the chess pack asked for ``no_repeat_ngram_size``), "norepeat" what it passes now (the pack's
    ``decoding``), the others that with one more change (hotwords, beam size, beam search patience 2,
    speech packed into windows of at most 15 s instead of 30); "penalty" is the prompt with
    ``repetition_penalty`` 1.1 instead."""
    from tutorialbook.ingest import _prompt
    from tutorialbook.skills.domains import get_pack

    pack = get_pack("chess")
    prompt = _prompt(title, pack)
    return {
        "ingest": {"initial_prompt": prompt},
        "hotwords": {"initial_prompt": prompt, "hotwords": pack.hotwords, "decoding": pack.decoding},
        "norepeat": {"initial_prompt": prompt, "decoding": pack.decoding},
        "penalty": {"initial_prompt": prompt, "decoding": {"repetition_penalty": 1.1}},
        "beam1": {"initial_prompt": prompt, "beam_size": 1, "decoding": pack.decoding},
        "beam8": {"initial_prompt": prompt, "beam_size": 8, "decoding": pack.decoding},
        "patience2": {"initial_prompt": prompt, "decoding": {**(pack.decoding or {}), "patience": 2}},
        "chunk15": {"initial_prompt": prompt, "decoding": {**(pack.decoding or {}), "chunk_length": 15}},
    }[setting]


def render(voice: str, lesson: Lesson, wav: Path) -> list:
    from tests.support import media

    synth, _, name = voice.partition(":")
    if wav.exists() and wav.with_suffix(".json").exists():
        return json.loads(wav.with_suffix(".json").read_text())
    spans = media.narrated_wav(lesson.sentences, wav, synthesizer=synth, voice=name)
    wav.with_suffix(".json").write_text(json.dumps(spans))
    return spans


def hear(voice: str, setting: str, lesson: Lesson, work: Path) -> dict:
    from tutorialbook.acquire import transcribe as tx

    wav = work / voice.replace(":", "_") / f"{lesson.name}.wav"
    wav.parent.mkdir(parents=True, exist_ok=True)
    render(voice, lesson, wav)
    clock = time.perf_counter()
    transcript = tx.transcribe(wav, **options(setting, lesson.opening))
    took = time.perf_counter() - clock
    return {"asr": [[s.start, s.end, s.text] for s in transcript.segments], "seconds": took}


def score(lesson: Lesson, asr: list) -> tuple[Score, int, int]:
    found = {(ev.epd_before, ev.san) for ev in track_lines([Segment(*x) for x in asr], lesson.opening)}
    s = Score(spoken=len(lesson.truth), recovered=len(found & lesson.truth.keys()), found=len(found),
              spurious=len(found - lesson.truth.keys()))
    ref = words(" ".join(lesson.sentences))
    return s, edits(ref, words(" ".join(x[2] for x in asr))), len(ref)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", default=",".join(DESIGN_VOICES + HELD_OUT_VOICES + UNSEEN_VOICES))
    parser.add_argument("--settings", default="norepeat", help=f"comma-separated, of {', '.join(SETTINGS)}")
    parser.add_argument("--lessons", type=int, default=0, help="only the first N lessons")
    parser.add_argument("--asr-dir", type=Path, default=Path("/tmp/tutorialbook-chess-voices"))
    parser.add_argument("--replay", action="store_true", help="score the saved ASR only")
    parser.add_argument("--misses", action="store_true", help="print missed plies (design lessons and voices only)")
    args = parser.parse_args()
    lessons = [Lesson.load(p) for p in sorted(LESSONS.glob("*.json"))]
    lessons = lessons[: args.lessons] if args.lessons else lessons
    args.asr_dir.mkdir(parents=True, exist_ok=True)
    if not args.replay:
        from tutorialbook.acquire import transcribe as tx

        tx.get_model()  # loaded before anything is timed
    print(f"{'voice':<22} {'setting':<9} {'role':<8} {'design lessons':>15} {'held-out lessons':>17} "
          f"{'spurious':>8} {'WER':>6} {'asr s':>6}")
    groups: dict[tuple[str, str], Score] = {}
    for setting in args.settings.split(","):
        for voice in args.voices.split(","):
            saved = args.asr_dir / f"{setting}-{voice.replace(':', '_')}.json"
            heard = json.loads(saved.read_text()) if saved.exists() else {}
            per = {"design": Score(), "held": Score()}
            err = ref_words = 0
            seconds = 0.0
            for lesson in lessons:
                if lesson.name not in heard:
                    if args.replay:
                        continue
                    heard[lesson.name] = hear(voice, setting, lesson, args.asr_dir)
                    saved.write_text(json.dumps(heard))
                s, e, n = score(lesson, heard[lesson.name]["asr"])
                per["design" if lesson.name in DESIGN_LESSONS else "held"].add(s)
                err, ref_words, seconds = err + e, ref_words + n, seconds + heard[lesson.name]["seconds"]
                if args.misses and voice in DESIGN_VOICES and lesson.name in DESIGN_LESSONS:
                    _misses(lesson, heard[lesson.name]["asr"])
            role = "design" if voice in DESIGN_VOICES else "unseen" if voice in UNSEEN_VOICES else "held-out"
            for part, s in per.items():
                groups.setdefault((setting, f"{role} voices, {part} lessons"), Score()).add(s)
            d, h = per["design"], per["held"]
            print(f"{voice:<22} {setting:<9} {role:<8} {d.recall:>7.1%} {d.recovered:>3}/{d.spoken:<3} "
                  f"{h.recall:>9.1%} {h.recovered:>3}/{h.spoken:<3} {d.spurious + h.spurious:>8} "
                  f"{err / max(ref_words, 1):>6.1%} {seconds:>6.1f}", flush=True)
    print()
    for (setting, group), s in groups.items():
        print(f"{setting:<9} {group:<36} recall {s.recall:6.1%} ({s.recovered}/{s.spoken}), "
              f"precision {s.precision:.1%}")


def _misses(lesson: Lesson, asr: list) -> None:
    found = {(ev.epd_before, ev.san) for ev in track_lines([Segment(*x) for x in asr], lesson.opening)}
    for pair, label in lesson.truth.items():
        if pair not in found:
            print(f"    {lesson.name}: missed {label}")
    print("      heard: " + " | ".join(x[2] for x in asr)[:3000])


if __name__ == "__main__":
    main()
