"""The board in the frames: reading rendered boards, joining positions into moves, and whole
videos (rendered here, narrated by espeak-ng) ingested with the board fused into the narration."""

import os
import re
import shutil

import chess
import pytest

from tests.support import board_media as bm
from tests.support import media
from tutorialbook.skills.chess import board_moves
from tutorialbook.skills.chess.board import BoardReader, locate

CI = bool(os.environ.get("CI"))
needs_tools = pytest.mark.skipif(not media.have_tools() and not CI, reason="espeak-ng or ffmpeg missing")
needs_ffmpeg = pytest.mark.skipif(not shutil.which("ffmpeg") and not CI, reason="ffmpeg missing")


def _truth(board: chess.BaseBoard) -> dict:
    return {sq: (p.piece_type, p.color) for sq, p in board.piece_map().items()}


def _positions(sans):
    board, out = chess.Board(), [chess.Board()]
    for san in sans:
        board.push_san(san)
        out.append(board.copy())
    return out


LINE = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7".split()


@pytest.mark.parametrize("look", [
    bm.Look(),
    bm.Look(theme="green", pieces="glyph", size=300, x=520, y=220),
    bm.Look(theme="blue", size=420, x=90, y=120, coordinates=True, flipped=True),
    bm.Look(theme="purple", size=256, x=600, y=60, webcam=False, caption=False),
    bm.Look(theme="green", pieces="tinted", size=340, x=380, y=150),
    bm.Look(theme="brown", pieces="tinted", size=300, x=60, y=300, coordinates=True, flipped=True),
    bm.Look(theme="cream", pieces="tinted", size=240, x=700, y=300),
    bm.Look(theme="green", pieces="outline", size=240, x=500, y=100),
    bm.Look(theme="brown", pieces="tinted", size=320, x=420, y=120, piece_scale=0.6),
], ids=["brown", "glyph-set", "flipped-with-coordinates", "small-purple", "coloured-set", "coloured-set-flipped",
        "coloured-set-on-its-own-colour", "outlined-set", "coloured-set-drawn-small"])
def test_every_square_is_read_in_every_look(look):
    """Whatever the look; a set drawn in colours (ivory and dark red, not greys) too, which the
    reader must not take for arrows, on a board whose light squares are its White's colour too
    (the outlines alone tell the start, and a dark red piece on a highlighted square stays); and
    text's chess symbols, whose White is a thin outline: faint, so what is empty is learnt too;
    and the coloured set drawn small in its squares (faint and coloured at once)."""
    reader = BoardReader()
    schedule = bm.line_schedule(LINE, first=0, every=1)
    for shown in schedule:
        frame = bm.compose(bm.render_board(shown.board, look, shown.lastmove, shown.arrows), look, shown.time,
                           "and the knight goes to f3")
        reading = reader.read(frame)
        assert reading.found and reading.flipped == look.flipped
        truth = _truth(shown.board)
        unread = {sq for sq, piece in reading.placement.items() if piece is None}
        # nothing is misread; a square is left unread only under an arrow (the tracker skips it)
        assert {sq: p for sq, p in reading.placement.items() if p is not None} == \
            {sq: p for sq, p in truth.items() if sq not in unread}, shown.board.fen()
        under_arrows = {sq for a, b in shown.arrows for sq in chess.SquareSet.between(a, b) | {a, b}}
        assert unread <= under_arrows
    x, y, w, _ = bm.board_box(look)
    assert abs(reader.grid.x - x) < 2 and abs(reader.grid.y - y) < 2 and abs(8 * reader.grid.size - w) < 3


@pytest.mark.parametrize("look,first,arrows", [
    (bm.Look(theme="green", pieces="glyph", size=300, x=520, y=220, flipped=True), 5, True),
    (bm.Look(theme="blue", pieces="tinted", size=340, x=380, y=150), 5, True),
    (bm.Look(theme="green", pieces="outline", size=240, x=500, y=100), 5, True),
    (bm.Look(theme="brown", pieces="tinted", size=320, x=420, y=120, piece_scale=0.6), 5, True),
    (bm.Look(theme="blue", pieces="glyph", size=300, x=300, y=100, flipped=True), 7, False),
], ids=["glyph-set-flipped", "coloured-set", "outlined-set", "coloured-set-drawn-small",
        "white-bishop-first-on-a-highlighted-light-square"])
def test_a_board_first_shown_after_the_start_learns_its_pieces_from_a_position_of_theory(look, first, arrows):
    """A lesson that opens on the Ruy Lopez after 3.Bb5 or 4.Ba4, never on the starting position:
    where its pieces stand and which are lighter name one position of opening theory, so the set
    (one python-chess's templates do not know) is learnt from it, the board's side too, in every
    colour, faint or not. An arrow on the first frame is no piece of a set drawn in greys (the
    position is named under it); for a set drawn in colours it could be one, so that frame names
    nothing and the next does. After 4.Ba4 White's light-squared bishop stood only on a
    highlighted square, and a white piece looks another on a light square near its fill's
    colour: each piece is learnt as it would look on either shade."""
    reader = BoardReader()
    schedule = bm.line_schedule(LINE, first=0, every=1, arrows=arrows)[first:]
    for n, shown in enumerate(schedule):
        reading = reader.read(bm.compose(bm.render_board(shown.board, look, shown.lastmove, shown.arrows), look,
                                         shown.time))
        if n == 0 and look.pieces == "tinted":
            assert shown.arrows and not reader.templates.calibrated
            continue
        assert reader.templates.calibrated and reading.flipped == look.flipped
        under_arrows = {sq for a, b in shown.arrows for sq in chess.SquareSet.between(a, b) | {a, b}}
        read = {sq: p for sq, p in reading.placement.items() if p is not None}
        assert read == {sq: p for sq, p in _truth(shown.board).items() if sq in read}, shown.board.fen()
        assert set(_truth(shown.board)) - set(read) <= under_arrows  # unread only under an arrow


def test_a_position_no_line_of_theory_passes_through_teaches_no_pieces():
    """Pieces on squares no opening reaches (1.a4 h5 2.Ra3 Rh6 3.Rg3 Rb6), or an opening's squares
    with the colours the other way round, name nothing: the reader keeps python-chess's templates."""
    look = bm.Look(theme="green", pieces="glyph", size=300, x=520, y=220)
    board = chess.Board()
    for san in "a4 h5 Ra3 Rh6 Rg3 Rb6".split():
        board.push_san(san)
    reader = BoardReader()
    assert reader.read(bm.compose(bm.render_board(board, look), look, 0.0)).found
    assert not reader.templates.calibrated
    ruy = _positions(LINE[:6])[-1]
    swapped = chess.Board(None)
    for square, piece in ruy.piece_map().items():
        swapped.set_piece_at(square, chess.Piece(piece.piece_type, not piece.color))
    reader = BoardReader()
    assert reader.read(bm.compose(bm.render_board(swapped, look), look, 0.0)).found
    assert not reader.templates.calibrated


def test_a_coloured_set_calibrates_under_an_arrow_and_arrows_stay_arrows():
    """An arrow drawn on the starting position of a set drawn in colours: the arrow's colour is
    not taken for a piece's, then or later (an arrow over an empty square leaves it empty)."""
    look = bm.Look(theme="blue", pieces="tinted", size=360, x=200, y=100)
    reader = BoardReader()
    start = reader.read(bm.compose(bm.render_board(chess.Board(), look, None, [(chess.G1, chess.F3)]), look, 0.0))
    assert start.found and reader.templates.calibrated and not start.flipped
    assert {sq: p for sq, p in start.placement.items() if p is not None} == _truth(chess.Board())
    board = chess.Board()
    board.push_san("e4")
    arrows = [(chess.B8, chess.C6), (chess.D1, chess.H5)]
    reading = reader.read(bm.compose(bm.render_board(board, look, board.peek(), arrows), look, 1.0))
    read = {sq: p for sq, p in reading.placement.items() if p is not None}
    assert read == {sq: p for sq, p in _truth(board).items() if sq in read}  # nothing misread
    assert set(_truth(board)) - set(read) <= {chess.B8, chess.D1}  # unread only where an arrow starts
    for empty in (chess.C6, chess.E2, chess.F3, chess.G4):  # under the arrows
        assert empty not in reading.placement


def test_noise_of_a_video_does_not_turn_a_piece_filled_near_its_squares_colour_into_another():
    """python-chess's white pieces are filled #ffffff; on the blue theme's light squares (#dee3e6)
    that is 33 grey levels off, one under what counts as piece: a re-encoded video's noise put
    part of a knight's fill over the line in some frames and not in others (its light squares came
    out a level darker or lighter), and a 480p copy read the knight on b1 as a pawn in 9 frames of
    50. Frames whose levels drift a little (a gamma of 0.92-1.08, grain of 2 levels) are read
    alike."""
    import numpy as np

    look = bm.Look(theme="blue", pieces="cburnett", size=300, x=80, y=100, flipped=True)
    rng = np.random.default_rng(7)

    def noisy(board, lastmove=None, gamma=None):
        gamma = rng.uniform(0.92, 1.08) if gamma is None else gamma
        frame = 255 * (bm.compose(bm.render_board(board, look, lastmove), look, 0.0) / 255) ** gamma
        return np.clip(frame + rng.normal(0, 2, frame.shape), 0, 255).round().astype(np.uint8)

    reader = BoardReader()
    assert reader.read(noisy(chess.Board(), gamma=1.08)).found and reader.templates.calibrated  # fill over the line
    misread, unread = [], 0
    for _ in range(3):
        board = chess.Board()
        for san in RUY:
            board.push_san(san)
            reading = reader.read(noisy(board, board.peek()))
            misread += [(chess.square_name(sq), p) for sq, p in reading.placement.items()
                        if p is not None and _truth(board).get(sq) != p]
            unread += reading.unknown
            assert len(reading.placement) == len(board.piece_map())
    assert misread == [] and unread == 0


def test_no_board_and_half_drawn_boards_are_not_read():
    look = bm.Look()
    assert locate(bm.compose(None, look, 0.0, "no board yet")) is None
    picture = bm.render_board(chess.Board(), look)
    picture[picture.shape[0] // 2:] = look.background
    assert locate(bm.compose(picture, look, 0.0)) is None


def _readings(boards, times, extra=()):
    readings = [(t, _truth(b)) for t, b in zip(times, boards)]
    for t, placement in extra:
        readings.append((t, placement))
    return sorted(readings, key=lambda r: r[0])


def test_positions_become_moves_and_a_take_back_becomes_a_branch():
    main = _positions("e4 e5 Nf3 Nc6 Bc4".split())
    side = _positions("e4 e5 Nf3 Nc6 Bb5 a6".split())
    boards = main + [main[4], side[5], side[6]]  # back to the position after 2...Nc6, then 3. Bb5 a6
    times = [0, 2, 4, 6, 8, 10, 12, 14, 16]
    moves, dropped, shown_at = board_moves.track(board_moves.stable(_readings(boards, times)))
    assert [m.san for m in moves] == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bb5", "a6"]
    assert [m.line for m in moves] == [1, 1, 1, 1, 1, 2, 2] and moves[5].branch_of == 1
    assert moves[5].epd_before == main[4].epd() and moves[5].shown == 8  # when that position was first shown
    assert [m.played for m in moves[:5]] == [2, 4, 6, 8, 10] and not dropped
    assert shown_at[main[3].epd()] == 6


def test_transitions_are_skipped_and_unexplained_readings_dropped():
    boards = _positions("d4 d5 c4".split())
    mixed = dict(_truth(boards[1]))
    mixed.update({chess.E5: (chess.KNIGHT, True)})  # a crossfade caught between two pictures
    readings = _readings(boards, [0, 2, 4, 6], extra=[(3.9, mixed)])
    moves, dropped, _ = board_moves.track(board_moves.stable(readings))
    assert [m.san for m in moves] == ["d4", "d5", "c4"] and not dropped
    nonsense = _truth(boards[3])
    nonsense[chess.A5] = (chess.QUEEN, False)
    nonsense.pop(chess.D8)
    moves, dropped, _ = board_moves.track(board_moves.stable(readings + [(8.0, dict(nonsense))]))
    assert [m.san for m in moves] == ["d4", "d5", "c4"] and dropped == 1


def test_two_moves_in_one_jump_are_joined_three_are_not_guessed():
    boards = _positions("Nf3 Nf6 c4 e6".split())
    moves, dropped, _ = board_moves.track(board_moves.stable(_readings([boards[0], boards[2]], [0, 3])))
    assert [m.san for m in moves] == ["Nf3", "Nf6"] and [m.played for m in moves] == [3, 3]
    boards = _positions("a3 a6 h3".split())  # no line of theory passes through it
    moves, dropped, _ = board_moves.track(board_moves.stable(_readings([boards[0], boards[3]], [0, 3])))
    assert moves == [] and dropped == 1


def test_a_reading_matches_a_board_exactly_when_every_square_read_agrees():
    """What a reading matches, square by square (the tracker checks it as bitboards: a two-move
    search tries ~900 boards a reading): every square read holds that piece, no piece stands on
    a square read empty, unread squares match anything, and more than six unread match nothing."""
    import random

    def by_squares(placement, board):
        if sum(piece is None for piece in placement.values()) > 6:
            return False
        pieces = board.piece_map()
        return all(piece is None or square in pieces and (pieces[square].piece_type, pieces[square].color) == piece
                   for square, piece in placement.items()) and all(square in placement for square in pieces)

    rng = random.Random(7)
    agreed = {True: 0, False: 0}
    for _ in range(400):
        board = chess.Board()
        for _ in range(rng.randrange(0, 40)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        placement = _truth(board)
        change = rng.randrange(6)
        if change == 1:  # some squares unread
            for square in rng.sample(chess.SQUARES, rng.randrange(1, 9)):
                placement[square] = None
        elif change == 2 and placement:  # a piece read as another
            square = rng.choice(sorted(placement))
            placement[square] = (rng.choice(chess.PIECE_TYPES), rng.choice(chess.COLORS))
        elif change == 3 and placement:  # a piece missed: its square read empty
            placement.pop(rng.choice(sorted(placement)))
        elif change == 4:  # a piece seen on an empty square
            empty = [sq for sq in chess.SQUARES if sq not in placement]
            placement[rng.choice(empty)] = (chess.PAWN, rng.choice(chess.COLORS))
        expected = by_squares(placement, board)
        assert board_moves.matches(placement, board) is expected, (board.fen(), change)
        agreed[expected] += 1
    assert min(agreed.values()) >= 100  # both answers tried often


def test_the_moves_joining_two_readings_are_all_found_from_the_squares_that_differ():
    """The search for the one or two moves from a board to a reading tries only moves from the
    squares where they differ or that were not read: on random positions, readings one or two
    moves on (some squares unread), it finds what trying every legal move finds."""
    import random

    def every_sequence(board, placement):
        found = [[m] for m in board.legal_moves if board_moves.matches(placement, _after(board, m))]
        if found:
            return found
        return [[m, r] for m in board.legal_moves for r in _after(board, m).legal_moves
                if board_moves.matches(placement, _after(board, m, r))]

    rng = random.Random(11)
    tracker = board_moves._Tracker(set())
    joined = 0
    for _ in range(150):
        board = chess.Board()
        for _ in range(rng.randrange(0, 30)):
            board.push(rng.choice(list(board.legal_moves)))
        later = board.copy()
        for _ in range(rng.choice((1, 2))):
            if later.legal_moves.count():
                later.push(rng.choice(list(later.legal_moves)))
        placement = _truth(later)
        for square in rng.sample(chess.SQUARES, rng.randrange(0, 4)):
            placement[square] = None
        want = every_sequence(board, placement)
        got = tracker.sequences(board.copy(), board_moves._Picture.of(placement))
        assert sorted(map(tuple, got)) == sorted(map(tuple, want)), board.fen()
        joined += bool(want)
    assert joined >= 120


def _after(board, *moves):
    board = board.copy()
    for move in moves:
        board.push(move)
    return board


def test_a_position_of_theory_no_move_explains_starts_a_line_there():
    """A lesson that opens on the Ruy Lopez after 3...a6 (the start never shown), or jumps there:
    the moves that reached it were not shown, so none is counted, but the lesson is followed from
    it (its side to move and castling rights are theory's); a position outside theory is dropped."""
    ruy = _positions(RUY + ["Ba4", "Nf6", "O-O"])
    moves, dropped, shown_at = board_moves.track(board_moves.stable(_readings(ruy[6:], [0, 2, 4, 6])))
    assert [m.san for m in moves] == ["Ba4", "Nf6", "O-O"] and not dropped
    assert moves[0].epd_before == ruy[6].epd() and moves[0].shown == 0 and [m.played for m in moves] == [2, 4, 6]
    assert shown_at[ruy[6].epd()] == 0
    boards = _positions("d4 d5".split())
    moves, dropped, _ = board_moves.track(board_moves.stable(_readings(boards + ruy[6:8], [0, 2, 4, 6, 8])))
    assert [m.san for m in moves] == ["d4", "d5", "Ba4"] and moves[2].line != moves[0].line and not dropped
    odd = _positions("a3 a6 h3 h6".split())
    moves, dropped, _ = board_moves.track(board_moves.stable(_readings(odd[4:], [0])))
    assert moves == [] and dropped == 1


# -- videos ---------------------------------------------------------------------------------------

SCRIPT = [
    "Welcome to this short lesson on the Ruy Lopez.",
    "White starts with pawn to e4.",
    "Black answers with pawn to e5.",
    "The knight comes out to f3, attacking the pawn.",
    "Black defends it with knight to c6.",
    "The best move now is bishop to b5, pinning the knight. This is the Ruy Lopez.",
    "Black asks the bishop a question with pawn to a6.",
    "That is all for today.",
]
RUY = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def _lesson_video(tmp_path, look, schedule_for, name="lesson.mp4"):
    wav = tmp_path / "narration.wav"
    spans = media.narrated_wav(SCRIPT, wav, pause_s=0.6)
    schedule = schedule_for(spans)
    return bm.board_video(schedule, look, tmp_path / name, seconds=spans[-1][1] + 1.0, fps=10, audio=wav,
                          captions=spans), schedule, spans


def _follow(spans, sans=RUY):
    """The starting position from 0 s, each move shown as its sentence begins."""
    boards = _positions(sans)
    schedule = [bm.Shown(0.0, boards[0])]
    for n, board in enumerate(boards[1:], 1):
        schedule.append(bm.Shown(spans[n][0] + 0.3, board, board.move_stack[-1]))
    return schedule


@pytest.mark.slow
@needs_tools
def test_a_video_whose_board_follows_the_line_indexes_every_position_when_shown(library, tmp_path):
    path, schedule, _ = _lesson_video(tmp_path, bm.Look(theme="green", size=320, x=60, y=80, frame=(960, 540)),
                                      _follow)
    report = library.ingest(str(path), book="chess", domain="chess", refine_rounds=0).tutorials[0]
    assert report.moves_from_board == len(RUY) and report.positions_seen == len(RUY) + 1
    assert report.frames_read > 10 and report.disagreements == 0
    rows = {(r["epd"], r["move_san"]): r for r in library.store.rows("positions")}
    for before, after in zip(schedule, schedule[1:]):
        row = rows[(before.board.epd(), before.board.san(after.board.move_stack[-1]))]
        assert abs(row["start"] - before.time) <= 0.5, row  # the position was on screen from then
        assert abs(row["end"] - after.time) <= 0.5
    taught = library.evaluate_position(moves="e4 e5 Nf3 Nc6", book="chess", depth=1).taught
    bb5 = [m for m in taught.moves if m.move_san == "Bb5"]
    assert taught.at == "this position" and bb5 and abs(bb5[0].evidence.start - schedule[4].time) <= 0.5
    fen = schedule[4].board.fen()
    top = library.retrieve("which move to play here", book="chess", k=3, fen=fen).skills[0]
    assert "Bb5" in top.name and top.evidence and abs(top.evidence[0].start - schedule[4].time) <= 0.5
    shown = [re.fullmatch(r"On the board at 0:\d\d \(([\d.]+) s\)\.", step) for step in top.steps]
    assert any(m and abs(float(m.group(1)) - schedule[4].time) <= 0.5 for m in shown), top.steps  # when shown
    assert report.screen.startswith("not read: a chessboard is on screen")  # the board reader reads it


@pytest.mark.slow
@needs_tools
def test_a_flipped_board_with_a_take_back_branches_where_the_board_went_back(library, tmp_path):
    def schedule_for(spans):
        boards = _positions(RUY[:5])
        side = _positions(["e4", "e5", "Nf3", "Nc6", "Bc4"])
        shown = [bm.Shown(0.0, boards[0])]
        for n in range(1, 6):
            shown.append(bm.Shown(spans[n][0] + 0.3, boards[n], boards[n].move_stack[-1]))
        shown.append(bm.Shown(spans[6][0] + 0.2, boards[4]))  # the move taken back
        shown.append(bm.Shown(spans[6][0] + 2.0, side[5], side[5].move_stack[-1]))
        return shown

    look = bm.Look(theme="brown", size=360, x=300, y=40, flipped=True, coordinates=True, frame=(960, 540))
    path, _, _ = _lesson_video(tmp_path, look, schedule_for)
    report = library.ingest(str(path), book="chess", domain="chess", refine_rounds=0).tutorials[0]
    assert report.moves_from_board == 6
    rows = library.store.rows("positions")
    bc4 = [r for r in rows if r["move_san"] == "Bc4"]
    bb5 = [r for r in rows if r["move_san"] == "Bb5"]
    assert bc4 and bb5 and bc4[0]["epd"] == bb5[0]["epd"] and bc4[0]["line"] != bb5[0]["line"]


@pytest.mark.slow
@needs_tools
def test_a_video_that_never_shows_the_start_is_read_from_the_position_of_theory_it_opens_on(library, tmp_path):
    """The board appears after 3.Bb5, drawn in a font's glyphs (a set python-chess's templates do
    not know): the reader learns the set from that position, the tracker follows the lesson from
    it, and 3...a6 is the board's move, timed when it was shown."""
    def schedule_for(spans):
        boards = _positions(RUY)
        return [bm.Shown(spans[5][0] + 0.3, boards[5], boards[5].move_stack[-1]),
                bm.Shown(spans[6][0] + 0.3, boards[6], boards[6].move_stack[-1])]

    look = bm.Look(theme="green", pieces="glyph", size=320, x=60, y=80, frame=(960, 540))
    path, schedule, _ = _lesson_video(tmp_path, look, schedule_for)
    report = library.ingest(str(path), book="chess", domain="chess", refine_rounds=0).tutorials[0]
    assert report.moves_from_board == 1 and report.positions_seen == 2 and report.disagreements == 0
    row = next(r for r in library.store.rows("positions") if r["move_san"] == "a6")
    assert row["epd"] == schedule[0].board.epd() and abs(row["start"] - schedule[0].time) <= 0.5


@pytest.mark.slow
@needs_tools
def test_a_video_without_a_board_falls_back_to_speech_and_says_so(library, tmp_path):
    path, _, _ = _lesson_video(tmp_path, bm.Look(frame=(640, 360)), lambda spans: [], name="talk.mp4")
    report = library.ingest(str(path), book="chess", domain="chess", refine_rounds=0).tutorials[0]
    assert report.moves_from_board == 0 and report.moves_from_speech >= 4 and report.frames_read >= 1
    assert any("no chessboard" in w for w in report.warnings)
    assert library.store.count("positions") >= 4


@pytest.mark.slow
@needs_ffmpeg
def test_frames_undecodable_past_a_point_keep_what_was_read_and_warn(tmp_path):
    look = bm.Look(size=300, frame=(640, 360), webcam=False, caption=False)
    schedule = bm.line_schedule(RUY, first=0.0, every=1.0, arrows=False)
    whole = bm.board_video(schedule, look, tmp_path / "whole.mp4", seconds=8, fps=10)
    cut = media.truncated_copy(
        media.faststart_copy(whole, tmp_path / "fast.mp4"), tmp_path / "cut.mp4", 0.9
    )  # the first key frame is most of the bytes
    frames = board_moves.read_frames(cut)
    sight = board_moves.sight(frames)
    assert frames.warnings and "kept" in frames.warnings[0]
    assert 2 <= len(sight.moves) < len(RUY)
    assert [m.san for m in sight.moves] == RUY[: len(sight.moves)]


def test_the_board_wins_a_disagreement_and_keeps_the_reason_and_talked_about_lines_stay():
    from tutorialbook.acquire.transcript import Segment
    from tutorialbook.skills.chess.fuse import fuse
    from tutorialbook.skills.chess.lines import track_lines

    boards = _positions("e4 e5 Nf3 Nc6 Bb5".split())
    moves, _, _ = board_moves.track(board_moves.stable(_readings(boards, [0, 2, 4, 6, 8, 10])))
    said = ["White plays pawn to e4.", "Black answers pawn to e5.", "The knight comes to f3.",
            "Black plays knight to c6.", "The best move is bishop to c4, to aim at the f7 square.",
            "Instead of knight to c6, black can play pawn to d6, the Philidor Defense."]
    segments = [Segment(2.0 * n + 1.6, 2.0 * n + 3.4, s) for n, s in enumerate(said)]
    fusion = fuse(moves, track_lines(segments), segments)
    assert fusion.from_board == 5 and fusion.disagreements == 1
    bb5 = next(e for e in fusion.events if e.san == "Bb5")
    assert bb5.kind == "recommend" and "aim at the f7 square" in bb5.reason and bb5.start == 8
    spoken = [e for e in fusion.events if e.line > max(m.line for m in moves)]
    assert [e.san for e in spoken] == ["d6"] and fusion.from_speech == 1
    assert all(e.san != "Bc4" for e in fusion.events)


@pytest.mark.slow
@needs_tools
def test_a_board_on_screen_makes_an_auto_ingest_chess(library, tmp_path):
    path, _, _ = _lesson_video(tmp_path, bm.Look(theme="blue", pieces="glyph", size=300, x=40, y=40,
                                                  frame=(960, 540)), _follow, name="video-0042.mp4")
    report = library.ingest(str(path), book="any", refine_rounds=0).tutorials[0]
    assert report.domain == "chess" and report.moves_from_board == len(RUY)


@pytest.mark.slow
@needs_ffmpeg
def test_half_drawn_and_crossfading_frames_of_a_video_are_skipped_not_misread(tmp_path):
    boards = _positions(RUY)
    schedule, transitions = [bm.Shown(0.0, boards[0])], []
    for n, board in enumerate(boards[1:], 1):
        t = 1.5 * n
        schedule.append(bm.Shown(t - 0.6, board, half_drawn=True))  # being drawn
        schedule.append(bm.Shown(t - 0.3, board, fade_from=boards[n - 1]))  # fading in over the last one
        schedule.append(bm.Shown(t, board, board.move_stack[-1]))
        transitions.append((t - 0.6, t))
    look = bm.Look(size=320, frame=(640, 360), webcam=False)
    video = bm.board_video(schedule, look, tmp_path / "fades.mp4", seconds=1.5 * len(RUY) + 1.5, fps=10)
    frames = board_moves.read_frames(video)
    sampled = [t for t, _ in frames.readings if any(a - 0.05 <= t < b - 0.05 for a, b in transitions)]
    assert len(sampled) >= len(RUY)  # transition frames were sampled and read
    sight = board_moves.sight(frames)
    assert [m.san for m in sight.moves] == RUY and sight.dropped == 0
    for move, (start, end) in zip(sight.moves, transitions):
        assert end - 0.05 <= move.played <= end + 0.4  # timed by the finished board, not the transition
