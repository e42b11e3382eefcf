"""What placing a lesson remembers (``memo.lesson``) changes nothing it reads: a mention weighed or
resolved on a board is remembered by the position and what of the move stack it reads, so two
boards with one position and different histories still get what each gets worked out afresh. And a
lesson read again (``read_lesson``: ingest's outline, then refinement's questions) is read once."""

import contextlib
import dataclasses

import chess

from tutorialbook.acquire.transcript import Segment, Word
from tutorialbook.skills.chess import lines, memo
from tutorialbook.skills.chess.lines import read_lesson, track_lines
from tutorialbook.skills.chess.moves import find_mentions
from tutorialbook.skills.chess.theory import resolve


def board_after(sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return board


def uci(scored: list[tuple[float, chess.Move]]) -> list[str]:
    return [move.uci() for _, move in scored]


def test_a_recapture_remembered_on_one_history_is_not_the_answer_on_another():
    # one position, reached with Black's knight to c6 last or to f6 last: "takes back" takes on that square
    c6_last = board_after("e4 e5 Bb5 Nf6 Nf3 Nc6")
    f6_last = board_after("e4 e5 Bb5 Nc6 Nf3 Nf6")
    assert c6_last.fen().split()[:4] == f6_last.fen().split()[:4]
    (mention,) = find_mentions("White takes back.")
    fresh = [uci(mention.scored(c6_last)), uci(mention.scored(f6_last))]
    assert fresh == [["b5c6"], []]
    with memo.lesson():
        assert [uci(mention.scored(c6_last)), uci(mention.scored(f6_last))] == fresh
        assert [resolve(mention, c6_last), resolve(mention, f6_last)] == [chess.Move.from_uci("b5c6"), None]


def test_a_piece_named_by_its_wing_remembered_on_one_history_is_not_the_answer_on_another():
    # one position, the knights on c3 and f3 having come from b1 and g1, or from g1 and b1
    direct = board_after("Nc3 Nf6 Nf3 Ng8")
    swapped = board_after("Na3 Nf6 Nh3 Ng8 Nc4 Nf6 Nf4 Ng8 Ne5 Nf6 Nd5 Ng8 Nf3 Nf6 Nc3 Ng8")
    assert direct.fen().split()[:4] == swapped.fen().split()[:4]
    (mention,) = find_mentions("The king's knight goes to e5.")
    fresh = [uci(mention.scored(direct)), uci(mention.scored(swapped))]
    assert fresh[0][0] == "f3e5" and "f3e5" not in fresh[1]  # after the swap, the king's knight is on c3
    with memo.lesson():
        for board in (direct, swapped, direct):
            assert uci(mention.scored(board)) == uci(mention.scored(board.copy()))  # remembered, then reread
        assert [uci(mention.scored(direct)), uci(mention.scored(swapped))] == fresh
        assert [resolve(mention, direct), resolve(mention, swapped)] == [chess.Move.from_uci("f3e5"), None]


def test_a_lesson_placed_remembering_is_placed_as_without(monkeypatch):
    # misheard squares and a lost move: the lesson is placed again for each hearing and bridge tried
    lesson = [
        "We start with pawn to e4, pawn to c6, pawn to d4, pawn to d5, knight to c3, d takes e4, knight takes e4.",
        "Bishop to f5. The knight goes to g3 and the bishop retreats to g6.",
        "Pawn to h6, knight to f3, knight to d7, and pawn to h5.",
        "Going back to the start, we play a4. Black answers e5. Then bishop to c4, knight to f6, and queen to f3.",
    ]
    segments = [Segment(10.0 * i, 10.0 * i + 9, text) for i, text in enumerate(lesson)]
    remembering = [dataclasses.asdict(event) for event in track_lines(segments, "Caro-Kann Defense")]
    monkeypatch.setattr(memo, "lesson", contextlib.nullcontext)
    assert memo.kept("scored") is None
    assert [dataclasses.asdict(event) for event in track_lines(segments, "Caro-Kann Defense")] == remembering


def test_a_lesson_read_again_from_its_stored_transcript_is_not_placed_again(monkeypatch):
    # ingest reads a lesson for its outline, refinement from the transcript as stored (times and text)
    said = "Knight to f3, d6, and pawn to d4."
    heard = [Segment(0.0, 4.5, "We start with pawn to e4, pawn to c5."),
             Segment(4.5, 9.0, said, words=tuple(Word(4.5, 9.0, " " + w, 0.9) for w in said.split()))]
    stored = [Segment(seg.start, seg.end, seg.text) for seg in heard]
    lines._read_once.cache_clear()
    first = read_lesson(heard, "Sicilian Defense")
    assert first == track_lines(heard, "Sicilian Defense")
    placed = []
    real = lines._place
    monkeypatch.setattr(lines, "_place", lambda *a: placed.append(1) or real(*a))
    assert read_lesson(stored, "Sicilian Defense") == first and not placed
    assert read_lesson(stored, "French Defense") == track_lines(stored, "French Defense") and placed
