"""Spoken chess moves recovered from narrated opening lessons: from the script text and from audio.

    python bench/chess_moves.py                     # text, then audio through Library.ingest
    python bench/chess_moves.py --text-only         # the script text only (seconds)
    python bench/chess_moves.py --openings 2        # the first two lessons only
    python bench/chess_moves.py --save-asr asr.json # keep what the ASR heard ...
    python bench/chess_moves.py --replay-asr asr.json  # ... and re-read it after parser work

The lessons (``bench/data/chess_lessons/*.json``) are scripts of our own: sentences a narrator
says, with branches ("instead of ...", "go back to the position after ...", "suppose black
plays ...") and traps ("don't play ...", "a common mistake is ..."), and as ground truth the lines
of SAN moves they speak. Ground truth is the set of (position before, SAN) pairs along those
lines; a recovered move is a pair too, so a move counts only when it is placed in the position
where it was said.

Text: each sentence becomes a Segment and goes through ``track_lines`` (target: 100% recall).
Audio: each script is spoken by espeak-ng under a still frame (MP4), ingested with the default
model into a temporary store (``Library.ingest(domain="chess")``), and the ``positions`` table
is read back (target: >= 95% recall). ``--replay-asr`` skips rendering and transcription and runs
``track_lines`` on saved ASR segments: what ingest would index, without the minutes of audio work.

Missed plies are printed with the script sentence that said them and what the ASR heard there;
spurious moves with the sentence they came from. Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tutorialbook.skills.chess.lines import track_lines  # noqa: E402
from tutorialbook.acquire.transcript import Segment  # noqa: E402

LESSONS = ROOT / "bench" / "data" / "chess_lessons"
BOOK = "chess-bench"
SLACK = 0.6  # seconds either side of a sentence when looking up what the ASR heard there

Pair = tuple[str, str]  # (EPD before the move, SAN)


@dataclass
class Lesson:
    name: str
    opening: str
    sentences: list[str]
    lines: list[str]
    truth: dict[Pair, str] = field(default_factory=dict)
    """Each spoken (position, SAN) with a label such as "3...Bc5 (line 1)"."""

    @classmethod
    def load(cls, path: Path) -> Lesson:
        data = json.loads(path.read_text(encoding="utf-8"))
        lesson = cls(path.stem, data["opening"], data["sentences"], data["lines"])
        for n, line in enumerate(lesson.lines, 1):
            board = chess.Board()
            for san in line.split():
                move = board.parse_san(san)  # a bad script fails loudly here
                number = f"{board.fullmove_number}{'.' if board.turn else '...'}"
                lesson.truth.setdefault((board.epd(), board.san(move)), f"{number}{board.san(move)} (line {n})")
                board.push(move)
        return lesson


@dataclass
class Score:
    spoken: int = 0
    recovered: int = 0
    found: int = 0
    spurious: int = 0

    def add(self, other: Score) -> None:
        self.spoken += other.spoken
        self.recovered += other.recovered
        self.found += other.found
        self.spurious += other.spurious

    @property
    def recall(self) -> float:
        return self.recovered / self.spoken if self.spoken else 0.0

    @property
    def precision(self) -> float:
        return (self.found - self.spurious) / self.found if self.found else 1.0

    def row(self, name: str) -> str:
        return (
            f"{name:<26} {self.spoken:>6} {self.recovered:>9} {self.recall:>8.1%}"
            f" {self.spurious:>9} {self.precision:>10.1%}"
        )


HEADER = f"{'':<26} {'spoken':>6} {'recovered':>9} {'recall':>8} {'spurious':>9} {'precision':>10}"


def score(lesson: Lesson, found: set[Pair]) -> Score:
    return Score(
        spoken=len(lesson.truth),
        recovered=len(found & lesson.truth.keys()),
        found=len(found),
        spurious=len(found - lesson.truth.keys()),
    )


def text_segments(lesson: Lesson, spans: list[tuple[float, float, str]] | None = None) -> list[Segment]:
    """The script as segments: one per sentence, timed like the rendered audio when known."""
    if spans:
        return [Segment(start, end, text) for start, end, text in spans]
    return [Segment(5.0 * i, 5.0 * i + 4.0, text) for i, text in enumerate(lesson.sentences)]


def pairs_of(events) -> dict[Pair, object]:
    out: dict[Pair, object] = {}
    for ev in events:
        out.setdefault((ev.epd_before, ev.san), ev)
    return out


def said_where(lesson: Lesson, segments: list[Segment]) -> dict[Pair, int]:
    """For each truth pair, the index of the script sentence that says it (from the text run)."""
    out: dict[Pair, int] = {}
    for ev in track_lines(segments):
        pair = (ev.epd_before, ev.san)
        if pair in lesson.truth and pair not in out:
            out[pair] = next(i for i, s in enumerate(segments) if s.start == ev.start)
    return out


def heard_between(asr: list[Segment], start: float, end: float) -> str:
    return " | ".join(s.text.strip() for s in asr if s.end >= start - SLACK and s.start <= end + SLACK)


def report_text(lessons: list[Lesson]) -> Score:
    print("== from the script text (track_lines on the sentences; target 100%) ==")
    print(HEADER)
    total = Score()
    for lesson in lessons:
        found = pairs_of(track_lines(text_segments(lesson), lesson.opening))
        s = score(lesson, set(found))
        total.add(s)
        print(s.row(lesson.opening))
        for pair, label in lesson.truth.items():
            if pair not in found:
                print(f"    missed   {label}")
        for pair, ev in found.items():
            if pair not in lesson.truth:
                print(f"    spurious {ev.san} at {pair[0]!r} (line {ev.line} ply {ev.ply}) from: {ev.quote!r}")
    print(total.row("total"))
    print()
    return total


def report_audio(lessons: list[Lesson], results: dict[str, dict], title: str) -> Score:
    """results[name] = {"spans": [...], "asr": [[start, end, text]...], "found": {pair: (quote, start)}}"""
    print(f"== {title} (target >= 95%) ==")
    print(HEADER)
    total = Score()
    details = []
    for lesson in lessons:
        r = results[lesson.name]
        spans = [tuple(x) for x in r["spans"]]
        asr = [Segment(*x) for x in r["asr"]]
        found: dict[Pair, tuple[str, str, float]] = r["found"]
        s = score(lesson, set(found))
        total.add(s)
        print(s.row(lesson.opening))
        where = said_where(lesson, text_segments(lesson, spans))
        for pair, label in lesson.truth.items():
            if pair in found:
                continue
            i = where.get(pair)
            if i is None:
                details.append(f"  {lesson.opening}: missed {label} (missed from the text too)")
                continue
            start, end, said = spans[i]
            details.append(
                f"  {lesson.opening}: missed {label}\n      said : {said}\n"
                f"      heard: {heard_between(asr, start, end)}"
            )
        for pair, (san, quote, start) in found.items():
            if pair not in lesson.truth:
                details.append(
                    f"  {lesson.opening}: spurious {san} at {start:.1f}s in {pair[0]!r}\n      heard: {quote}"
                )
    print(total.row("total"))
    if details:
        print("\nmis-recovered plies (what the script said, what the ASR heard there):")
        print("\n".join(details))
    print()
    return total


def ingest_all(lessons: list[Lesson], workdir: Path) -> dict[str, dict]:
    """Render, ingest through Library.ingest (domain chess), read the positions table back."""
    from tests.support import media
    from tutorialbook.library import Library
    from tutorialbook.memory.where import quote

    library = Library(store=str(workdir / "store"), allowed_roots=(str(workdir),))  # its videos are made here
    results: dict[str, dict] = {}
    try:
        for lesson in lessons:
            video = workdir / f"{lesson.name}.mp4"
            clock = time.perf_counter()
            spans = media.narrated_video(lesson.sentences, video)
            rendered = time.perf_counter() - clock
            clock = time.perf_counter()
            report = library.ingest(str(video), book=BOOK, title=lesson.opening, domain="chess", refine_rounds=0)
            took = time.perf_counter() - clock
            tutorial = report.tutorials[0]
            where = f"tutorial_id = {quote(tutorial.tutorial_id)}"
            rows = sorted(library.store.rows("positions", where), key=lambda r: (r["start"], r["ply"]))
            asr = sorted(library.store.rows("segments", where), key=lambda r: r["idx"])
            found: dict[Pair, tuple[str, str, float]] = {}
            for row in rows:
                found.setdefault((row["epd"], row["move_san"]), (row["move_san"], row["quote"], row["start"]))
            results[lesson.name] = {
                "spans": [list(s) for s in spans],
                "asr": [[r["start"], r["end"], r["text"]] for r in asr],
                "found": found,
            }
            print(
                f"  {lesson.opening}: {spans[-1][1]:.0f} s of narration rendered in {rendered:.1f} s, ingested in"
                f" {took:.1f} s ({tutorial.domain}, {tutorial.segments} segments, {len(rows)} position rows)",
                flush=True,
            )
    finally:
        library.close()
    print()
    return results


def replay(lessons: list[Lesson], saved: dict[str, dict]) -> dict[str, dict]:
    """track_lines on saved ASR segments: what the chess pack would index from that transcript."""
    out = {}
    for lesson in lessons:
        r = saved[lesson.name]
        found: dict[Pair, tuple[str, str, float]] = {}
        for ev in track_lines([Segment(*x) for x in r["asr"]], lesson.opening):
            found.setdefault((ev.epd_before, ev.san), (ev.san, ev.quote, ev.start))
        out[lesson.name] = {**r, "found": found}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openings", type=int, default=0, help="only the first N lessons (default: all)")
    parser.add_argument("--text-only", action="store_true", help="score the script text only")
    parser.add_argument("--save-asr", type=Path, help="write what the ASR heard (and its spans) to this JSON")
    parser.add_argument("--replay-asr", type=Path, help="no audio work: re-read ASR segments saved by --save-asr")
    args = parser.parse_args()

    lessons = [Lesson.load(p) for p in sorted(LESSONS.glob("*.json"))]
    if args.openings:
        lessons = lessons[: args.openings]
    print(
        f"{len(lessons)} lessons, {sum(len(x.sentences) for x in lessons)} sentences,"
        f" {sum(len(x.truth) for x in lessons)} spoken plies (distinct position + move pairs)\n"
    )
    text = report_text(lessons)
    audio = None
    if args.replay_asr:
        saved = json.loads(args.replay_asr.read_text(encoding="utf-8"))
        lessons = [x for x in lessons if x.name in saved]
        audio = report_audio(lessons, replay(lessons, saved), f"from saved ASR of {args.replay_asr.name}, replayed")
    elif not args.text_only:
        from tutorialbook.acquire import transcribe as tx

        model, resolved = tx.get_model()
        print(f"== rendering with espeak-ng and ingesting with {resolved.name} (Library.ingest, domain chess) ==")
        with tempfile.TemporaryDirectory() as tmp:
            results = ingest_all(lessons, Path(tmp))
        if args.save_asr:
            args.save_asr.write_text(
                json.dumps({k: {"spans": v["spans"], "asr": v["asr"]} for k, v in results.items()}, indent=1),
                encoding="utf-8",
            )
        audio = report_audio(lessons, results, "from the audio, positions table after Library.ingest")
    print(
        f"summary: text recall {text.recall:.1%} ({text.recovered}/{text.spoken}), precision {text.precision:.1%}",
        end="",
    )
    if audio is not None:
        print(
            f"; audio recall {audio.recall:.1%} ({audio.recovered}/{audio.spoken}),"
            f" precision {audio.precision:.1%} ({audio.spurious} spurious)"
        )
    else:
        print()


if __name__ == "__main__":
    main()
