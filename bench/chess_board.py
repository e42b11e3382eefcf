"""Chess lessons as videos whose board follows the narration: what reading the board adds.

    python bench/chess_board.py                 # every lesson in bench/data/chess_lessons
    python bench/chess_board.py --lessons 2     # the first two only
    python bench/chess_board.py --no-flite      # skip the second synthesizer's speech-only run
    python bench/chess_board.py --encodings     # only: squares read after harsher video encodings,
                                                # and on boards never shown at the start

Each lesson script (see bench/chess_moves.py) is spoken by espeak-ng; its lines (every move
played, timed where ``track_lines`` places it in the script text) drive a board (python-chess
SVG rendered by cairosvg) that shows each position as its sentence is said, goes back where the
narrator goes back, highlights the last move and draws an arrow for the next one now and then. The board is placed in a
1280x720, 25 fps frame beside a webcam box, a caption bar and a moving overlay in a corner, in a
different look per lesson (colour theme, piece set — python-chess's, a font's chess glyphs the
reader has no template for, or python-chess's shapes drawn in ivory and dark red rather than greys
— size, place, coordinates, one board flipped).

Printed, in the same run:
* per-square accuracy of the reader on sampled frames (an unread square counts as wrong);
* board reading speed (frames/s, one thread, decoding included);
* plies recovered (the (position, SAN) pairs of the script's lines) from the video with a board
  (Library.ingest, board fused with speech) vs speech only (the same narration as audio);
* whole ingest time vs bare transcription of the same file (targets: 99% plies, <= 1.3x), in
  seconds and in CPU seconds of the process (the machine may be shared: CPU time is what the
  ingest costs whatever else runs); ``--screen-baseline``: also with the screen-text reader
  running to the end, as before it gave way to the board reader;
* speech only in a second synthesizer (flite), against the same truth (target >= 95%).
``--encodings`` prints only the reader's per-square accuracy on each look's video of one line
(the Ruy Lopez, 20 plies) as rendered, and again after re-encoding it as videos are shared: H.264
at CRF 36, scaled to 854x480 and to 640x360 (a 300-px board becomes 150 px: 19-px squares), and
480p at CRF 32; and of the same line shown from 3...a6 on, the starting position never shown (as
rendered): squares read, and the moves the board alone recovers (frames read and joined as an
ingest does, no narration; the reader learns the set and the tracker starts from a position of
theory).
Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import board_media as bm  # noqa: E402
from tests.support import media  # noqa: E402
from bench.chess_moves import LESSONS, Lesson, text_segments  # noqa: E402
from tutorialbook.skills.chess.lines import track_lines  # noqa: E402

BOOK = "chess-board-bench"
LOOKS = [
    bm.Look(theme="brown", pieces="cburnett", size=400, x=40, y=60),
    bm.Look(theme="green", pieces="glyph", size=360, x=420, y=200, coordinates=True),
    bm.Look(theme="blue", pieces="cburnett", size=460, x=80, y=100, flipped=True, coordinates=True),
    bm.Look(theme="purple", pieces="glyph", size=300, x=60, y=330),
    bm.Look(theme="green", pieces="cburnett", size=520, x=300, y=20, background=(245, 245, 245)),
    bm.Look(theme="brown", pieces="glyph", size=420, x=700, y=150, webcam=False, flipped=True),
    bm.Look(theme="blue", pieces="tinted", size=380, x=40, y=40, coordinates=True),
]
FPS = 25
#: how a shared video may have been re-encoded: ffmpeg's arguments (None: as rendered)
ENCODINGS = {"as rendered": None, "crf 36": ["-crf", "36"], "480p": ["-vf", "scale=854:480"],
             "360p": ["-vf", "scale=640:360"], "480p crf 32": ["-vf", "scale=854:480", "-crf", "32"]}
ENCODED_LINE = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7".split()
LATER_START = 6  # the line's position a video never showing the start opens on (after 3...a6)


def schedule_for(lesson: Lesson, spans: list[tuple[float, float, str]]) -> list[bm.Shown]:
    """The board following the script's lines: each move shown as its share of the sentence that
    says it is spoken (placed by ``track_lines`` on the script text); a move the text parse does not
    place ("tucks the king away") is shown 0.9 s after the move before it, as a narrator's board
    shows every move played; a move played from another position is preceded by that position
    (the narrator went back)."""
    said: dict[tuple[str, str], float] = {}
    by_sentence: dict[float, list] = {}
    for ev in track_lines(text_segments(lesson, spans)):
        by_sentence.setdefault(ev.start, []).append(ev)
    for start, evs in by_sentence.items():
        end = next(e for s, e, _ in spans if s == start)
        step = max(0.9, (end - start) / len(evs))
        for j, ev in enumerate(evs):
            said.setdefault((ev.epd_before, ev.san), start + 0.3 + j * step)
    plies: list[tuple[float, int, chess.Board, chess.Move]] = []  # (time, order, before, move)
    placed: set[tuple[str, str]] = set()
    for line in lesson.lines:
        board, t = chess.Board(), 0.0
        for san in line.split():
            move = board.parse_san(san)
            pair = (board.epd(), board.san(move))
            t = said.get(pair, t + 0.9)
            if pair not in placed:
                placed.add(pair)
                plies.append((t, len(plies), board.copy(), move))
            board.push(move)
    shown = [bm.Shown(0.0, chess.Board())]
    for t, _, before, move in sorted(plies, key=lambda p: (p[0], p[1])):
        if before.epd() != shown[-1].board.epd():
            shown.append(bm.Shown(t, before.copy(), before.move_stack[-1] if before.move_stack else None))
            t += 0.8
        board = before.copy()
        board.push(move)
        shown.append(bm.Shown(max(t, shown[-1].time + 0.5), board, move))
    for n, s in enumerate(shown[:-1]):  # an arrow for the next move on every third position
        nxt = shown[n + 1]
        if n % 3 == 1 and nxt.lastmove is not None and nxt.board.move_stack[:-1] == s.board.move_stack:
            s.arrows.append((nxt.lastmove.from_square, nxt.lastmove.to_square))
    return shown


def square_accuracy(video: Path, schedule: list[bm.Shown], every: int = 3) -> tuple[int, int, int, float]:
    """Reader accuracy on every `every`-th sampled frame, away from changes: (squares right,
    squares compared, frames, frames read per second of reading)."""
    from tutorialbook.acquire.frames import sample_frames
    from tutorialbook.skills.chess.board import BoardReader

    reader = BoardReader()
    right = total = frames = 0
    clock = time.perf_counter()
    times = [s.time for s in schedule]
    for n, frame in enumerate(sample_frames(video, fps=4.0, max_side=960, on_change=False)):
        reading = reader.read(frame)
        frames += 1
        if n % every:
            continue
        i = max(k for k, t in enumerate(times) if t <= frame.time + 1e-6) if frame.time >= times[0] else None
        if i is None or (i + 1 < len(times) and times[i + 1] - frame.time < 0.1) or frame.time - times[i] < 0.1:
            continue
        truth = schedule[i].board
        for square in chess.SQUARES:
            piece = truth.piece_at(square)
            want = (piece.piece_type, piece.color) if piece else "empty"
            got = reading.placement.get(square, "empty") if reading.found else "unread"
            right += got == want
            total += 1
    return right, total, frames, frames / (time.perf_counter() - clock)


def recovered(library, report, lesson: Lesson) -> set:
    from tutorialbook.memory.where import quote

    rows = library.store.rows("positions", f"tutorial_id = {quote(report.tutorial_id)}")
    return {(r["epd"], r["move_san"]) for r in rows} & set(lesson.truth)


def plies_from_board(video: Path, schedule: list[bm.Shown]) -> tuple[int, int]:
    """The moves between the schedule's positions that the board alone recovers (the video's
    frames read and joined as an ingest does, no narration), of all of them."""
    from tutorialbook.skills.chess import board_moves

    truth = {(before.board.epd(), before.board.san(after.board.move_stack[-1]))
             for before, after in zip(schedule, schedule[1:])}
    seen = board_moves.sight(board_moves.read_frames(video))
    return len(truth & {(m.epd_before, m.san) for m in seen.moves}), len(truth)


def encodings() -> None:
    """Per-square accuracy of each look's board video, as rendered and re-encoded (``ENCODINGS``),
    and of the line shown from its seventh position on (``LATER_START``: no starting position)."""
    schedule = bm.line_schedule(ENCODED_LINE)
    later = [dataclasses.replace(s, time=s.time - schedule[LATER_START].time + 1.0) for s in schedule[LATER_START:]]
    print(f"{'look':<28} " + " ".join(f"{name:>12}" for name in ENCODINGS) + f" {'later start':>12}"
          f" {'later plies':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for n, look in enumerate(LOOKS):
            video = bm.board_video(schedule, look, Path(tmp) / f"look{n}.mp4", seconds=schedule[-1].time + 2)
            row = []
            for name, args in ENCODINGS.items():
                encoded = video
                if args is not None:
                    encoded = Path(tmp) / f"look{n}-{len(row)}.mp4"
                    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", str(video), *args,
                                    "-c:v", "libx264", "-pix_fmt", "yuv420p", str(encoded)], check=True)
                right, squares, _, _ = square_accuracy(encoded, schedule)
                row.append(f"{right / max(squares, 1):>12.2%}")
            video = bm.board_video(later, look, Path(tmp) / f"look{n}-later.mp4", seconds=later[-1].time + 2)
            right, squares, _, _ = square_accuracy(video, later)
            row.append(f"{right / max(squares, 1):>12.2%}")
            found, plies = plies_from_board(video, later)
            row.append(f"{f'{found}/{plies}':>12}")
            name = f"{look.theme}/{look.pieces}/{look.size}px{'/flipped' if look.flipped else ''}"
            print(f"{name:<28} " + " ".join(row), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lessons", type=int, default=0, help="only the first N lessons")
    parser.add_argument("--no-flite", action="store_true", help="skip the flite speech-only run")
    parser.add_argument("--screen-baseline", action="store_true",
                        help="also ingest each video with the screen-text reader running to the end (as before "
                             "it gave way to the board reader), timed in the same run")
    parser.add_argument("--encodings", action="store_true",
                        help="only print squares read after harsher encodings (CRF 36, 480p, 360p) and "
                             "on boards never shown at the start")
    args = parser.parse_args()
    if args.encodings:
        return encodings()
    from tutorialbook.acquire import transcribe as tx
    from tutorialbook.library import Library
    from tutorialbook.skills.chess.vocabulary import INITIAL_PROMPT

    lessons = [Lesson.load(p) for p in sorted(LESSONS.glob("*.json"))]
    lessons = lessons[: args.lessons] if args.lessons else lessons
    totals = {k: 0.0 for k in ("truth", "board", "speech", "flite", "right", "squares", "frames",
                               "read_s", "ingest_s", "bare_s", "audio_s", "screen_s", "ingest_cpu", "bare_cpu")}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        library = Library(store=str(work / "store"), allowed_roots=(str(work),))  # its videos are made here
        media.speak("The model is loaded before anything is timed.", work / "warm.wav")
        tx.transcribe(work / "warm.wav")  # the models loaded before anything is timed
        library.embed(["the embedder loaded before anything is timed"])
        print(f"{'lesson':<24} {'look':<28} {'plies':>5} {'board+speech':>12} {'speech':>7} {'flite':>6} "
              f"{'squares':>8} {'read f/s':>8} {'ingest':>7} {'bare':>6} {'ratio':>6}")
        try:
            for n, lesson in enumerate(lessons):
                look = LOOKS[n % len(LOOKS)]
                wav = work / f"{lesson.name}.wav"
                spans = media.narrated_wav(lesson.sentences, wav)
                schedule = schedule_for(lesson, spans)
                video = bm.board_video(schedule, look, work / f"{lesson.name}.mp4", seconds=spans[-1][1] + 1.5,
                                       fps=FPS, audio=wav, captions=spans)
                right, squares, frames, speed = square_accuracy(video, schedule)
                screen_before = totals["screen_s"]
                clock, cpu = time.perf_counter(), time.process_time()
                tx.transcribe(video, initial_prompt=INITIAL_PROMPT)
                bare, bare_cpu = time.perf_counter() - clock, time.process_time() - cpu
                clock, cpu = time.perf_counter(), time.process_time()
                with_board = library.ingest(str(video), book=BOOK, title=lesson.opening, domain="chess",
                                            refine_rounds=0).tutorials[0]
                whole, whole_cpu = time.perf_counter() - clock, time.process_time() - cpu
                if args.screen_baseline:
                    from tutorialbook import ingest as ingest_module

                    claimed, ingest_module.claimed = ingest_module.claimed, lambda watching: ""
                    clock = time.perf_counter()
                    try:
                        library.ingest(str(video), book=BOOK + "-screen", title=lesson.opening, domain="chess",
                                       refine_rounds=0)
                    finally:
                        ingest_module.claimed = claimed
                    totals["screen_s"] += time.perf_counter() - clock
                clock = time.perf_counter()
                speech = library.ingest(str(wav), book=BOOK + "-speech", title=lesson.opening, domain="chess",
                                        refine_rounds=0).tutorials[0]
                audio_only = time.perf_counter() - clock
                got_board, got_speech = recovered(library, with_board, lesson), recovered(library, speech, lesson)
                got_flite: set = set()
                if not args.no_flite:
                    fwav = work / f"{lesson.name}-flite.wav"
                    media.narrated_wav(lesson.sentences, fwav, synthesizer="flite")
                    flite = library.ingest(str(fwav), book=BOOK + "-flite", title=lesson.opening, domain="chess",
                                           refine_rounds=0).tutorials[0]
                    got_flite = recovered(library, flite, lesson)
                plies = len(lesson.truth)
                name = f"{look.theme}/{look.pieces}/{look.size}px{'/flipped' if look.flipped else ''}"
                print(f"{lesson.opening:<24} {name:<28} {plies:>5} {len(got_board) / plies:>12.1%} "
                      f"{len(got_speech) / plies:>7.1%} {len(got_flite) / plies if not args.no_flite else 0:>6.1%} "
                      f"{right / max(squares, 1):>8.2%} {speed:>8.1f} {whole:>6.1f}s {bare:>5.1f}s "
                      f"{whole / bare:>5.2f}x cpu {whole_cpu / bare_cpu:.2f}x"
                      + (f" (screen read too: {totals['screen_s'] - screen_before:.1f}s)"
                                                   if args.screen_baseline else ""), flush=True)
                print(f"{'':<24} report: frames {with_board.frames_read}, positions {with_board.positions_seen}, "
                      f"board moves {with_board.moves_from_board}, speech moves {with_board.moves_from_speech}, "
                      f"disagreements {with_board.disagreements}; stages {with_board.stage_seconds}, audio only "
                      f"{speech.stage_seconds}; missed with board: "
                      f"{sorted(lesson.truth[p] for p in set(lesson.truth) - got_board)[:6]}", flush=True)
                for key, value in (("truth", plies), ("board", len(got_board)), ("speech", len(got_speech)),
                                   ("flite", len(got_flite)), ("right", right), ("squares", squares),
                                   ("frames", frames), ("read_s", frames / speed), ("ingest_s", whole),
                                   ("bare_s", bare), ("audio_s", audio_only), ("ingest_cpu", whole_cpu),
                                   ("bare_cpu", bare_cpu)):
                    totals[key] += value
        finally:
            library.close()
    t = totals
    print()
    print(f"plies recovered with a board (board + speech): {t['board'] / t['truth']:.1%}  (target 99%)")
    print(f"plies recovered from speech only, espeak-ng:   {t['speech'] / t['truth']:.1%}")
    if not args.no_flite:
        print(f"plies recovered from speech only, flite:       {t['flite'] / t['truth']:.1%}  (target 95%)")
    print(f"per-square accuracy on sampled frames:         {t['right'] / max(t['squares'], 1):.2%} "
          f"({int(t['squares'])} squares)")
    print(f"board reading speed:                           {t['frames'] / t['read_s']:.1f} frames/s "
          f"(1280x720 frames scaled to 960, decoding included)")
    print(f"whole ingest vs bare transcription:            {t['ingest_s']:.1f} s vs {t['bare_s']:.1f} s = "
          f"{t['ingest_s'] / t['bare_s']:.2f}x  (target <= 1.3x)")
    print(f"the same in CPU seconds of this process:  {t['ingest_cpu']:.1f} s vs {t['bare_cpu']:.1f} s = "
          f"{t['ingest_cpu'] / t['bare_cpu']:.2f}x  (what other processes' load does not change)")
    if args.screen_baseline:
        print(f"baseline, screen text read to the end too:  {t['screen_s']:.1f} s vs {t['bare_s']:.1f} s = "
              f"{t['screen_s'] / t['bare_s']:.2f}x")
    print(f"ingest of the narration alone (audio, no frames): {t['audio_s']:.1f} s = "
          f"{t['audio_s'] / t['bare_s']:.2f}x bare transcription")


if __name__ == "__main__":
    main()
