"""Can Whisper itself pick the square a narrator said where its transcript lost it? Figures only.

    python bench/chess_hearing.py                                  # held-out voices and lessons
    python bench/chess_hearing.py --voices festival:kal --lessons caro_kann,scotch_game

A measurement for issue 14 (speech-only plies on voices the parser was not tuned on), not a
feature: nothing in ingest uses it. Each lesson of ``bench/chess_moves.py`` is spoken by a voice
(as ``bench/chess_voices.py`` renders it) and transcribed as ingest does. For every "<piece> to
<square>" the script says, the sentence's audio is scored against 64 texts, one per square, with
Whisper's teacher-forced token probabilities (CTranslate2 ``Whisper.align``: the sum of the log
probabilities of the text's tokens given the clip), and the best square is compared with the one
said. Two contexts for the rest of the sentence:

* ``script``: the script's own words — an upper bound (a real narration has no script);
* ``heard``: the transcript's words, the move phrase put where the transcript's words for it are
  (found by aligning the transcript to the script: the place is the script's, the words are not).

Beside them, how often the transcript holds the square at all (anywhere in the sentence's text,
"2D7" counting as d7: lenient to the transcript) and the seconds the scoring took.
"""

from __future__ import annotations

import argparse
import difflib
import math
import re
import sys
import time
from pathlib import Path

import chess
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.chess_moves import LESSONS, Lesson  # noqa: E402
from bench.chess_voices import DESIGN_LESSONS, HELD_OUT_VOICES, hear  # noqa: E402

MOVE = re.compile(r"\b(pawn|knight|bishop|rook|queen|king) to ([a-h][1-8])\b", re.I)
SQUARES = [f + r for f in "abcdefgh" for r in "12345678"]
FIGURES = ("said", "transcript", "script64", "played", "played_in_transcript", "script_legal", "heard_legal")


class Scorer:
    """Log probability of texts given a clip, from the bundled model ingest transcribes with."""

    def __init__(self) -> None:
        from faster_whisper.tokenizer import Tokenizer

        from tutorialbook.acquire import transcribe as tx

        self.whisper, _ = tx.get_model(None)
        self.tokenizer = Tokenizer(self.whisper.hf_tokenizer, False, task="transcribe", language="en")
        self.seconds = 0.0
        self.texts = 0

    def scores(self, clip: np.ndarray, texts: list[str]) -> list[float]:
        import ctranslate2

        clock = time.perf_counter()
        features = self.whisper.feature_extractor(clip)
        frames = features.shape[-1]
        window = self.whisper.feature_extractor.nb_max_frames
        features = np.pad(features, ((0, 0), (0, max(0, window - frames))))[:, :window]
        encoded = np.array(self.whisper.encode(features))
        tokens = [self.tokenizer.encode(" " + t.strip()) for t in texts]
        batch = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.repeat(encoded, len(texts), axis=0)))
        start = [*self.tokenizer.sot_sequence, self.tokenizer.no_timestamps]
        results = self.whisper.model.align(batch, start, tokens, [frames] * len(texts))
        self.seconds += time.perf_counter() - clock
        self.texts += len(texts)
        return [sum(math.log(max(p, 1e-9)) for p in r.text_token_probs) for r in results]


def _norm(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", word.lower())


def heard_context(said: list[str], heard: list[str], first: int, last: int) -> tuple[int, int]:
    """The transcript's word range standing for the script's words ``first``..``last`` (exclusive)."""
    matcher = difflib.SequenceMatcher(a=[_norm(w) for w in said], b=[_norm(w) for w in heard], autojunk=False)
    begin, end = len(heard), 0
    for _tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i1 < last and first < max(i2, i1 + 1):  # overlaps (an insertion counts at its place)
            if _tag == "equal":
                j1, j2 = j1 + max(0, first - i1), j2 - max(0, i2 - last)
            begin, end = min(begin, j1), max(end, j2)
    return (begin, end) if begin <= end else (begin, begin)


def _played_from(lesson: Lesson) -> dict[tuple[str, str], chess.Board]:
    """Where each (piece name, square) of the lesson's lines was first played from."""
    boards: dict[tuple[str, str], chess.Board] = {}
    for line in lesson.lines:
        board = chess.Board()
        for san in line.split():
            move = board.parse_san(san)
            piece = chess.piece_name(board.piece_type_at(move.from_square) or chess.PAWN)
            boards.setdefault((piece, chess.square_name(move.to_square)), board.copy())
            board.push(move)
    return boards


def _legal_squares(board: chess.Board, piece: str) -> list[str]:
    kind = chess.PIECE_NAMES.index(piece)
    return sorted({chess.square_name(m.to_square) for m in board.legal_moves
                   if board.piece_type_at(m.from_square) == kind})


def lesson_figures(voice: str, lesson: Lesson, work: Path, scorer: Scorer, verbose: bool) -> dict[str, int]:
    from faster_whisper.audio import decode_audio

    from bench.chess_voices import render

    wav = work / voice.replace(":", "_") / f"{lesson.name}.wav"
    got = hear(voice, "norepeat", lesson, work)
    spans = render(voice, lesson, wav)
    audio = decode_audio(str(wav), sampling_rate=16_000)
    played_from = _played_from(lesson)
    counts = dict.fromkeys(FIGURES, 0)
    for sentence, (start, end, _text) in zip(lesson.sentences, spans):
        found = list(MOVE.finditer(sentence))
        if not found:
            continue
        clip = audio[int(start * 16_000):int(end * 16_000) + 1]
        heard = " ".join(t for s, e, t in got["asr"] if s < end and e > start).split()
        said = sentence.split()
        for m in found:
            piece, square = m.group(1).lower(), m.group(2).lower()
            counts["said"] += 1
            in_transcript = square in "".join(_norm(w) for w in heard)
            counts["transcript"] += in_transcript
            first = len(sentence[:m.start()].split())
            b, e = heard_context(said, heard, first, first + len(m.group(0).split()))

            def script(sq: str, m=m) -> str:
                return sentence[:m.start(2)] + sq + sentence[m.end(2):]

            def heard_text(sq: str, b=b, e=e, piece=piece) -> str:
                return " ".join([*heard[:b], f"{piece} to {sq}", *heard[e:]])

            trials = [("script64", SQUARES, script)]
            board = played_from.get((piece, square))
            if board is not None:  # said where the lines play it: the legal squares of that piece
                counts["played"] += 1
                counts["played_in_transcript"] += in_transcript
                legal = _legal_squares(board, piece)
                trials += [("script_legal", legal, script), ("heard_legal", legal, heard_text)]
            for figure, squares, text in trials:
                texts = [text(sq) for sq in squares]
                best = squares[int(np.argmax(scorer.scores(clip, texts)))]
                counts[figure] += best == square
                if verbose and best != square:
                    print(f"    {figure}: {square} scored below {best} ({len(squares)} texts): "
                          f"{texts[squares.index(best)]!r}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", default=",".join(HELD_OUT_VOICES))
    parser.add_argument("--lessons", default="", help="comma-separated names (default: the held-out lessons)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/tutorialbook-chess-voices"))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    names = args.lessons.split(",") if args.lessons else None
    lessons = [Lesson.load(p) for p in sorted(LESSONS.glob("*.json"))
               if (p.stem in names if names else p.stem not in DESIGN_LESSONS)]
    scorer = Scorer()
    print(f"{len(lessons)} lessons: {', '.join(x.name for x in lessons)}")
    for voice in args.voices.split(","):
        total = dict.fromkeys(FIGURES, 0)
        scorer.seconds, scorer.texts = 0.0, 0
        for lesson in lessons:
            for k, v in lesson_figures(voice, lesson, args.work, scorer, args.verbose).items():
                total[k] += v
        said, played = max(total["said"], 1), max(total["played"], 1)
        print(f"{voice}: '<piece> to <square>' said {total['said']}: the square in the transcript "
              f"{total['transcript'] / said:.1%}, picked among 64 by Whisper's scores (script context) "
              f"{total['script64'] / said:.1%}")
        print(f"{'':{len(voice) + 2}}of them played in the lesson's lines {total['played']}: in the transcript "
              f"{total['played_in_transcript'] / played:.1%}; picked among the piece's legal squares, script "
              f"context {total['script_legal'] / played:.1%}, heard context {total['heard_legal'] / played:.1%}; "
              f"{scorer.seconds / max(scorer.texts, 1) * 1000:.0f} ms a text scored")

if __name__ == "__main__":
    main()
