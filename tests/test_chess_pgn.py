"""PGN sources: an annotated game's moves, lines and marks are read exactly, not parsed from words."""

import pytest

from tutorialbook.errors import TutorialbookError
from tutorialbook.skills.chess.pgn import read_pgn

RUY = """[Event "Ruy Lopez lesson"]
[White "Teacher"]
[Black "Student"]
[Result "*"]

{The Ruy Lopez attacks the knight that defends e5.}
1. e4 e5 2. Nf3 Nc6 3. Bb5 {The Spanish bishop pins the knight's defence of e5.} a6
4. Ba4 Nf6 5. O-O! {Castle first: the e4 pawn is taboo for now.} Be7
(5... Nxe4 6. d4 {White regains the pawn with a strong centre.})
(5... b5 6. Bb3 Bc5?! {Too ambitious; the bishop is exposed.})
6. Re1 b5 7. Bb3 d6 8. c3 O-O *
"""
MAIN = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O".split()


def test_moves_lines_and_marks_come_from_the_game_tree():
    transcript = read_pgn(RUY, "ruy.pgn")
    events = transcript.moves
    assert [e.san for e in events if e.line == 1] == MAIN
    assert [(e.san, e.ply, e.branch_of) for e in events if e.line == 2] == [("Nxe4", 10, 1), ("d4", 11, None)]
    assert [(e.san, e.kind) for e in events if e.line == 3] == [("b5", "move"), ("Bb3", "move"), ("Bc5", "avoid")]
    castle = next(e for e in events if e.san == "O-O" and e.ply == 9)
    assert (castle.kind, castle.reason) == ("recommend", "Castle first: the e4 pawn is taboo for now.")
    assert castle.quote == "The best move is 5. O-O. Castle first: the e4 pawn is taboo for now."
    # every event points into the text at its own segment, by character offsets
    assert not transcript.timed
    for e in events:
        segment = next(s for s in transcript.segments if s.start == e.start)
        assert segment.text == e.quote and segment.end == e.end
    texts = [s.text for s in transcript.segments]
    assert "Ruy Lopez lesson, Teacher – Student. The Ruy Lopez attacks the knight that defends e5." in texts
    assert "Instead of 5... Be7:" in texts


@pytest.mark.parametrize("text,reason", [
    ("1. e4 e5 2. Ke3 *", "game 1: illegal san: 'Ke3'"),
    ('[Event "x"]\n\n*', "no game with moves"),
    ("just some words", "no game with moves"),
])
def test_bad_pgn_names_the_game_and_the_move(text, reason):
    with pytest.raises(TutorialbookError) as info:
        read_pgn(text, "bad.pgn")
    assert info.value.field == "source" and reason in info.value.reason and "bad.pgn" in info.value.reason


def test_a_pgn_lesson_is_a_chess_book_the_engine_view_can_quote(library, tmp_path):
    path = tmp_path / "ruy-lopez.pgn"
    path.write_text(RUY)
    report = library.ingest(str(path), book="chess", refine_rounds=0).tutorials[0]  # domain auto: a PGN is chess
    assert report.positions_indexed == len(read_pgn(RUY).moves)
    chapters = [c.title for c in library.browse("chess").children]
    assert chapters == ["Ruy Lopez"]
    taught = library.evaluate_position(moves="e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6", book="chess").taught
    assert taught.at == "this position"
    castle = next(m for m in taught.moves if m.move_san == "O-O")
    assert castle.kind == "recommend" and castle.reason == "Castle first: the e4 pawn is taboo for now."
    avoid = library.evaluate_position(moves="e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O b5 Bb3", book="chess").taught
    assert [(m.move_san, m.kind) for m in avoid.moves] == [("Bc5", "avoid")]
    # the same file again changes nothing
    assert library.ingest(str(path), book="chess", refine_rounds=0).tutorials[0].status == "unchanged"
