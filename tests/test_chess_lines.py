"""Lines through narrated lessons: restarts, branches, references, transpositions and advice."""

import pytest

from tutorialbook.skills.chess.events import MoveEvent
from tutorialbook.skills.chess.lines import track_lines
from tutorialbook.acquire.transcript import Segment
from tests.support.chess_lessons import epd_after


def segments(*texts: str) -> list[Segment]:
    return [Segment(10.0 * i, 10.0 * i + 9, text) for i, text in enumerate(texts)]


def moves(events: list[MoveEvent]) -> list[tuple]:
    return [(e.line, e.ply, e.san, e.branch_of) for e in events]


def test_one_line_event_fields():
    events = track_lines(segments("We start with 1. e4 e5 2. Nf3.", "Black answers knight c6."))
    assert moves(events) == [(1, 1, "e4", None), (1, 2, "e5", None), (1, 3, "Nf3", None), (1, 4, "Nc6", None)]
    nf3, nc6 = events[2], events[3]
    assert (nf3.uci, nf3.epd_before, nf3.epd_after) == ("g1f3", epd_after("e4 e5"), epd_after("e4 e5 Nf3"))
    assert (nf3.start, nf3.end, nf3.quote) == (0.0, 9.0, "We start with 1. e4 e5 2. Nf3.")
    assert (nc6.start, nc6.end, nc6.quote) == (10.0, 19.0, "Black answers knight c6.")
    assert all(e.kind == "move" and e.reason == "" and e.transposes_to is None for e in events)


@pytest.mark.parametrize(
    "restart",
    [
        "Let's start again with 1. d4 d5 2. c4.",
        "Going back to the start, d4 d5 c4.",
        "From the starting position, pawn to d4, pawn to d5, pawn to c4.",
        "After 1. d4 d5 2. c4 we reach the Queen's Gambit.",
        "1. d4 d5 2. c4 is the Queen's Gambit.",
    ],
)
def test_restart_starts_a_new_line(restart):
    events = track_lines(segments("We start with 1. e4 e5 2. Nf3 Nc6.", restart))
    assert moves(events)[4:] == [(2, 1, "d4", None), (2, 2, "d5", None), (2, 3, "c4", None)]


def test_restart_that_replays_known_moves_follows_the_line():
    events = track_lines(
        segments("We start with 1. e4 e5 2. Nf3 Nc6.", "Let's start again. 1. e4 e5 2. Nf3 d6 is the Philidor.")
    )
    assert moves(events)[4:] == [(1, 1, "e4", None), (1, 2, "e5", None), (1, 3, "Nf3", None), (2, 4, "d6", 1)]


@pytest.mark.parametrize(
    "branch",
    [
        "Instead of 3. Bb5, white can play 3. Bc4 Bc5.",
        "Instead of the bishop to b5, white can play bishop c4 and black bishop c5.",
        "Instead of Bb5, Bc4 Bc5 is the Italian.",
    ],
)
def test_instead_of_forks_before_the_replaced_move(branch):
    events = track_lines(segments("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6.", branch))
    assert moves(events)[6:] == [(2, 5, "Bc4", 1), (2, 6, "Bc5", 1)]
    assert events[6].epd_before == events[3].epd_after


def test_moves_before_instead_of_in_the_same_sentence_are_played():
    events = track_lines(segments("1. e4 e5 2. Nf3 Nc6.", "White plays Bb5, but instead of Bb5, Bc4 is popular too."))
    assert moves(events)[4:] == [(1, 5, "Bb5", None), (2, 5, "Bc4", 1)]


def test_instead_of_a_bare_square():
    events = track_lines(segments("1. e4 e5 2. Nf3 Nc6.", "Instead of e5, black can play c5."))
    assert moves(events)[4:] == [(2, 2, "c5", 1)]
    assert events[4].epd_before == epd_after("e4")


def test_branches_of_branches_name_the_line_they_share_the_fork_with():
    events = track_lines(
        segments(
            "1. e4 e5 2. Nf3 Nc6 3. Bb5.",
            "Instead of 3. Bb5, 3. Bc4 Bc5.",
            "Instead of e5, black can play c5.",
            "Then white plays Nf3 and d6.",
        )
    )
    assert moves(events)[7:] == [(3, 2, "c5", 1), (3, 3, "Nf3", 1), (3, 4, "d6", 1)]


@pytest.mark.parametrize(
    "alternative",
    [
        "Alternatively, black plays d6.",
        "Another option is d6.",
        "Instead, black can play d6.",
        "Black can also play d6.",
    ],
)
def test_alternative_replaces_the_last_move_of_that_side(alternative):
    events = track_lines(segments("1. e4 e5 2. Nf3 Nc6.", alternative))
    assert moves(events)[4:] == [(2, 4, "d6", 1)]


def test_suppose_tries_the_current_position_first():
    events = track_lines(
        segments("1. e4 e5 2. Nf3 Nc6 3. Bb5.", "Suppose black plays a6.", "Suppose instead black plays Nf6.")
    )
    assert moves(events)[5:] == [(1, 6, "a6", None), (2, 6, "Nf6", 1)]


def test_go_back_to_the_position_after():
    events = track_lines(
        segments("1. e4 e5 2. Nf3 Nc6 3. Bb5.", "Let's go back to the position after 2. Nf3. Now black can play d6.")
    )
    assert moves(events)[5:] == [(2, 4, "d6", 1)]


def test_references_do_not_repeat_events():
    events = track_lines(
        segments("1. e4 e5 2. Nf3 Nc6.", "After 2. Nf3 Nc6, white plays Bb5.", "After Bb5, black plays a6.")
    )
    assert moves(events) == [
        (1, 1, "e4", None),
        (1, 2, "e5", None),
        (1, 3, "Nf3", None),
        (1, 4, "Nc6", None),
        (1, 5, "Bb5", None),
        (1, 6, "a6", None),
    ]


def test_a_move_said_again_is_not_played_twice():
    events = track_lines(segments("1. e4 e5 2. Nf3.", "Nf3 attacks the pawn. Black defends with Nc6."))
    assert [e.san for e in events] == ["e4", "e5", "Nf3", "Nc6"]


def test_transposition_reaches_the_same_position_in_two_lines():
    events = track_lines(
        segments("1. d4 Nf6 2. c4 e6.", "From the starting position, 1. c4 e6 2. d4 Nf6 reaches the same position.")
    )
    assert moves(events) == [
        (1, 1, "d4", None),
        (1, 2, "Nf6", None),
        (1, 3, "c4", None),
        (1, 4, "e6", None),
        (2, 1, "c4", None),
        (2, 2, "e6", None),
        (2, 3, "d4", None),
        (2, 4, "Nf6", None),
    ]
    assert events[3].epd_after == events[7].epd_after
    assert [e.transposes_to for e in events] == [None] * 7 + [1]


def test_recommendations_and_warnings():
    events = track_lines(
        segments(
            "1. e4 e5 2. Nf3.",
            "The best move here is knight c6 because it defends the pawn.",
            "You should play d4 to open the center.",
            "Don't play f6 because Nxe5 wins.",
            "Black plays exd4.",
            "Nf3 is the main move.",
        )
    )
    table = [(e.line, e.ply, e.san, e.kind, e.reason) for e in events[3:]]
    assert table == [
        (1, 4, "Nc6", "recommend", "it defends the pawn"),
        (1, 5, "d4", "recommend", "open the center"),
        (2, 6, "f6", "avoid", "Nxe5 wins"),
        (2, 7, "Nxe5", "move", ""),
        (1, 6, "exd4", "move", ""),
        (1, 3, "Nf3", "recommend", "Nf3 is the main move."),
    ]
    assert events[5].branch_of == 1 and events[5].epd_before == events[4].epd_after


@pytest.mark.parametrize(
    ("sentence", "kind", "reason"),
    [
        ("I recommend Bb5, which pins the knight.", "recommend", "pins the knight"),
        ("The strongest is Bb5 since it attacks the defender of e5.", "recommend", "it attacks the defender of e5"),
        ("The main move is Bb5.", "recommend", "The main move is Bb5."),
        ("Bb5 is a mistake here, because of a6.", "avoid", "a6"),
        ("Never play Ba6 as it loses the bishop.", "avoid", "it loses the bishop"),
        ("White plays Bb5.", "move", ""),
    ],
)
def test_advice_kinds_and_reasons(sentence, kind, reason):
    events = track_lines(segments("1. e4 e5 2. Nf3 Nc6.", sentence))
    assert (events[4].kind, events[4].reason) == (kind, reason)


def test_sentence_across_segments_times_each_move_by_its_segment():
    events = track_lines(segments("After 1. e4 e5 2. Nf3 the knight", "goes to c6 for black."))
    assert [(e.san, e.start) for e in events] == [("e4", 0.0), ("e5", 0.0), ("Nf3", 0.0), ("Nc6", 10.0)]
    assert events[3].quote == "After 1. e4 e5 2. Nf3 the knight goes to c6 for black."


def test_speech_recognition_narration():
    events = track_lines(
        segments("Point 24, pawn to e5.", "Night to F3 and height to c6.", "Bishup to b5, pawn to 86.")
    )
    assert [e.san for e in events] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def test_no_moves_in_ordinary_talk():
    assert track_lines(segments("Hello and welcome.", "Today we look at the d5 square and the knight on f3.")) == []
    assert track_lines([]) == []


def test_illegal_mentions_are_skipped():
    events = track_lines(segments("1. e4 e5 2. Ke8 Nf3 Nc3."))
    assert [e.san for e in events] == ["e4", "e5", "Nf3"]


def test_instead_of_after_going_back_names_the_move_the_line_continues_with():
    events = track_lines(
        segments(
            "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3.",
            "Let's go back to the position after bishop to c4.",
            "Instead of bishop to c5, black can play knight to f6.",
        )
    )
    assert moves(events)[7:] == [(2, 6, "Nf6", 1)]
    assert events[7].epd_before == epd_after("e4 e5 Nf3 Nc6 Bc4")


def test_instead_of_castling_after_going_back_is_the_next_castling_not_an_earlier_one():
    events = track_lines(
        segments(
            "1. d4 Nf6 2. c4 g6 3. Nc3 Bg7 4. e4 d6 5. Nf3 O-O 6. Be2 e5 7. O-O Nc6.",
            "Go back to the position after pawn to e5.",
            "Instead of castling, white can play d takes e5, and d takes e5.",
        )
    )
    assert moves(events)[14:] == [(2, 13, "dxe5", 1), (2, 14, "dxe5", 1)]


def test_alternative_after_going_back_replaces_the_continuation():
    events = track_lines(
        segments(
            "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3.",
            "Go back to the position after bishop to g5.",
            "Black can also play knight b d7.",
        )
    )
    assert moves(events)[9:] == [(2, 8, "Nbd7", 1)]
    assert events[9].epd_before == epd_after("d4 d5 c4 e6 Nc3 Nf6 Bg5")


@pytest.mark.parametrize("verb", ["should not", "shouldn't", "must not"])
def test_should_not_warns(verb):
    events = track_lines(
        segments("1. d4 Nf6 2. c4 g6 3. Nc3 Bg7 4. e4 d6 5. Nf3 O-O 6. Be2 e5 7. O-O Nc6.",
                 f"Black {verb} take with e takes d4, because knight takes d4 is good for white.")
    )
    assert [(e.line, e.ply, e.san, e.kind) for e in events[14:]] == [(2, 14, "exd4", "avoid"), (2, 15, "Nxd4", "move")]
    assert events[14].epd_before == epd_after("d4 Nf6 c4 g6 Nc3 Bg7 e4 d6 Nf3 O-O Be2 e5 O-O")


def test_after_a_move_of_a_side_line_resumes_that_line():
    events = track_lines(
        segments(
            "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Nbd7 5. cxd5 exd5.",
            "A common mistake is knight takes d5, because knight takes d5, bishop takes d8, "
            "and bishop to b4 check wins.",
            "After bishop to b4 check, white must give back the queen with queen to d2.",
            "Then bishop takes d2 check and king takes d2.",
        )
    )
    trap = "d4 d5 c4 e6 Nc3 Nf6 Bg5 Nbd7 cxd5 exd5 Nxd5 Nxd5 Bxd8 Bb4+"
    assert [(e.line, e.ply, e.san) for e in events[14:]] == [(2, 15, "Qd2"), (2, 16, "Bxd2+"), (2, 17, "Kxd2")]
    assert events[14].epd_before == epd_after(trap)


# --- speech recognition in running narration (found by bench/chess_moves.py) -----------------------


def test_instead_on_is_heard_instead_of():
    events = track_lines(segments("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6.", "Instead on pawn to a6, black plays knight to f6."))
    assert moves(events)[6:] == [(2, 6, "Nf6", 1)]


def test_a_stop_between_piece_and_square_does_not_split_the_move():
    events = track_lines(
        segments(
            "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Nbd7 5. cxd5 exd5.",
            "A common mistake is knight takes d5, because knight takes d5, bishop takes d8, "
            "and bishop to b4 check wins.",
            "After bishop.",
            "To b4, check, white must give back the queen with queen to d2.",
        )
    )
    assert events[-1].san == "Qd2" and events[-1].epd_before == epd_after(
        "d4 d5 c4 e6 Nc3 Nf6 Bg5 Nbd7 cxd5 exd5 Nxd5 Nxd5 Bxd8 Bb4+"
    )
    assert "After bishop  To b4" in events[-1].quote


def test_a_tie_between_sound_alikes_goes_to_the_move_that_stays_in_theory():
    events = track_lines(segments("1. d4 Nf6 2. c4 g6 3. Nc3 Bg7.", "Then pawn to d4, pawn to d6, knight to f3."))
    assert [e.san for e in events[6:]] == ["e4", "d6", "Nf3"]  # d4 is taken; b4, e4, g4 sound alike


def test_a_move_invented_by_speech_recognition_is_replaced_when_the_next_moves_confirm():
    events = track_lines(
        segments(
            "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6, knight to f3.",  # the last words were never said
            "The English attack starts with bishop to e3, and black answers pawn to e5.",
        )
    )
    najdorf = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"
    assert [(e.san, e.epd_before) for e in events[11:]] == [
        ("Be3", epd_after(najdorf)),
        ("e5", epd_after(najdorf + " Be3")),
    ]


def test_a_plan_of_two_moves_in_a_row_is_not_a_replacement():
    events = track_lines(segments("1. e4 e5 2. Nf3 Nc6.", "White plays Bc4, and later d3."))
    assert [e.san for e in events] == ["e4", "e5", "Nf3", "Nc6", "Bc4"]


def test_a_move_said_again_beats_a_sound_alike_new_one_outside_theory():
    events = track_lines(
        segments(
            "1. e4 e6 2. d4 d5 3. e5 c5 4. c3 Nc6 5. Nf3 Qb6 6. Bd3 cxd4 7. cxd4.",
            "Remember pawn to e5.",  # e5 was played; the sound-alike g5 is legal but leaves theory
        )
    )
    assert [e.san for e in events][-1] == "cxd4" and len(events) == 13


def sans(events: list[MoveEvent], line: int | None = None) -> list[str]:
    return [e.san for e in events if line is None or e.line == line]


def test_a_spoken_move_number_before_a_square_numbers_the_move():
    """ "One d4, d5. Two, bishop f4. Three e3": a number said before a square counts moves (no
    pawn starts on rank one or three); it was read as the rank the piece comes from."""
    events = track_lines(segments("One d4, d5.", "Two, bishop f4, knight f6.", "Three e3, and black plays e6."))
    assert sans(events) == ["d4", "d5", "Bf4", "Nf6", "e3", "e6"]


def test_the_queens_knight_and_the_kings_pawn_name_which_piece():
    """Both knights reach d2 in the London; the queen's knight is the one that started on b1."""
    events = track_lines(segments("One d4, d5. Two, bishop f4, knight f6. Three e3, e6. Four, knight f3, c5.",
                                  "Five c3, knight c6.", "Six, the queen's knight goes to d2."))
    assert sans(events)[-1] == "Nbd2"
    kings = track_lines(segments("One d4, d5. Two, bishop f4, knight f6. Three e3, e6. Four, knight f3, c5.",
                                 "Five c3, knight c6.", "Six, the king's knight goes to d2."))
    assert sans(kings)[-1] == "Nfd2"
    pawns = track_lines(segments("We start with e4 d5, c4 e6.", "The king's pawn takes on d5."))
    assert sans(pawns)[-1] == "exd5"  # the c-pawn takes on d5 as well


def test_swaps_exchanges_and_trades_are_captures():
    opening = "We start with e4 e5, knight f3 knight c6, d4, e takes d4, knight takes d4, knight f6."
    events = track_lines(segments(opening, "White swaps knights on c6.",
                                  "Black recaptures toward the center with the b-pawn."))
    assert sans(events)[-2:] == ["Nxc6", "bxc6"]
    traded = track_lines(segments(opening, "White exchanges knights on c6, and black takes back with the d-pawn."))
    assert sans(traded)[-2:] == ["Nxc6", "dxc6"]


def test_a_recapture_on_a_named_square_and_the_noun_recapture():
    events = track_lines(segments(
        "We start with e4 d5, and e takes d5.",
        "Black can also wait with the recapture and play knight f6 first.",
        "White's best is d4, and black takes back with the knight on d5."))
    assert sans(events) == ["e4", "d5", "exd5", "Nf6", "d4", "Nxd5"]


def test_a_move_offered_before_instead_of_is_the_alternative():
    """ "If black plays c5 instead of knight f6, the simple answer is e3": c5 replaces Nf6 and e3
    answers c5, in a line branching where Nf6 was played."""
    events = track_lines(segments("One d4, d5. Two, bishop f4, knight f6. Three e3, e6.",
                                  "Let's go back to move two.",
                                  "If black plays c5 instead of knight f6, the simple answer is e3."))
    branch = [e for e in events if e.line == 2]
    assert [(e.ply, e.san) for e in branch] == [(4, "c5"), (5, "e3")] and branch[0].branch_of == 1


def test_it_stands_for_the_piece_just_named_where_it_stands():
    """ "The knight on d5 is hit, so it drops back to b6": the knight, not the b-pawn."""
    events = track_lines(segments("We start with c4 e5, knight c3 knight f6, g3 d5.",
                                  "After c takes d5, the knight takes back on d5.", "White plays bishop g2.",
                                  "The knight on d5 is hit, so it drops back to b6."))
    assert sans(events)[-1] == "Nb6"


def test_it_stands_for_the_piece_named_since_the_last_move():
    """ "c4, kicking the knight again, and it goes to e6" (b6 heard as e6): "it" is the knight just
    named, so the knight's b6, not the pawn's e6."""
    events = track_lines(segments("White opens with e4, and black plays knight f6.", "White chases it with e5.",
                                  "The knight jumps to d5.", "White plays d4, and black d6.",
                                  "White plays c4, kicking the knight again, and it goes to e6."))
    assert sans(events)[-2:] == ["c4", "Nb6"]


@pytest.mark.parametrize("said", ["After d3, black tucks the king away as well.",
                                  "White plays d3, and black brings the king to safety."])
def test_the_king_tucked_away_is_castling(said):
    events = track_lines(segments("White opens with c4, black replies with e5.", "Knight c3, knight f6, g3 and d5.",
                                  "After c takes d5, the knight takes back on d5.", "Bishop g2, knight b6.",
                                  "Knight f3, knight c6.", "White castles short, black plays bishop e7.", said))
    assert sans(events)[-2:] == ["d3", "O-O"]


@pytest.mark.parametrize("number", ["three d4", "3 d4", "three, d4"])
def test_a_move_number_said_without_its_full_stop_places_the_move(number):
    """ "A second try for White is three d4": White's third move, a branch, not a move at the end of the line."""
    events = track_lines(segments("We begin with e4 e5, knight f3, and black counterattacks with knight f6.",
                                  "White takes on e5, d6 kicks the knight, and it retreats to f3.",
                                  f"A second try for White is {number}, hitting the center right away."))
    branch = [e for e in events if e.line == 2]
    assert [(e.ply, e.san) for e in branch] == [(5, "d4")] and branch[0].branch_of == 1


def test_back_to_a_move_number_and_a_move_chosen_instead():
    """ "Going back to move one, black can choose the symmetrical c5 instead": a branch at Black's
    first move, continued by the moves said next."""
    events = track_lines(segments("White opens with c4, black replies with e5, and knight c3 knight f6.",
                                  "Going back to move one, black can choose the symmetrical c5 instead.",
                                  "Then knight c3 and knight c6 keep the symmetry."))
    branch = [(e.ply, e.san) for e in events if e.line == 2]
    assert branch == [(2, "c5"), (3, "Nc3"), (4, "Nc6")]


def test_back_to_a_move_number_heard_as_its_sound_alike():
    """Speech recognition writes "back to move two." as "back to move to." and "one" as "won": the
    branch starts at that move, not at the last one played."""
    opening = "White opens with c4, black replies with e5, and knight c3 knight f6, g3 d5."
    two = track_lines(segments(opening, "Let's go back to move to.", "Black can choose knight c6 instead."))
    assert [(e.ply, e.san) for e in two if e.line == 2] == [(4, "Nc6")]
    one = track_lines(segments(opening, "Let's go back to move won.", "Black can choose the symmetrical c5 instead."))
    assert [(e.ply, e.san) for e in one if e.line == 2] == [(2, "c5")]
    # a "to" that goes on is no number: "back to move to the centre" leaves the cursor where it was
    on = track_lines(segments(opening, "Let's go back to move to the centre.", "Black can choose knight c6 instead."))
    assert [(e.ply, e.san) for e in on if e.line == 2] == [(6, "Nc6")]


def test_a_misheard_file_that_derails_the_line_is_heard_again():
    # "e5" heard as "d5": legal (the Scandinavian), so it was played, and the moves that need the
    # e-pawn gone (the bishop to c5, then castling) fit nowhere; of the rhyming files only e5 lets
    # every move fit
    said = segments("White opens with e4, and black answers d5.",
                    "Then the knights come out, knight f3 for white, knight c6 for black.",
                    "White develops the bishop to c4, and black the bishop to c5.",
                    "Then c3 and knight f6.", "White castles short, and black castles short too.")
    assert [e.san for e in track_lines(said)] == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "O-O", "O-O"]


def test_a_square_said_as_heard_stays_when_hearing_it_again_places_nothing_more():
    # the Scandinavian as said: a later move that fits nowhere (a misheard piece) does not make
    # an earlier square be heard as another
    said = segments("After e4, black plays d5.", "White takes on d5, and the queen takes back on d5.",
                    "Then the height goes to z9.", "Knight c3 hits the queen.")
    assert [e.san for e in track_lines(said)] == ["e4", "d5", "exd5", "Qxd5", "Nc3"]


def test_hearing_again_is_bounded(monkeypatch):
    from tutorialbook.skills.chess import lines, rehearing

    placed = []
    real = lines._place
    monkeypatch.setattr(lines, "_place", lambda *a: placed.append(1) or real(*a))
    track_lines(segments(*["Knight to z9, bishop takes q4, pawn to e4 and d5, c5 and g5." for _ in range(30)]))
    assert len(placed) <= rehearing.BUDGET + 1


@pytest.mark.parametrize(
    "said, played",
    [
        # a move verb in any tense says a move is made: "putting the bishop on e2" is Be2, not a place
        ("White breaks the pin by putting the bishop on e2.", "Be2"),
        ("White is landing the bishop on e2.", "Be2"),
    ],
)
def test_a_move_verb_in_any_form_makes_the_move(said, played):
    events = track_lines(segments("1. e4 Nf6 2. e5 Nd5 3. d4 d6 4. Nf3 Bg4.", said))
    assert moves(events)[-1] == (1, 9, played, None)


@pytest.mark.parametrize(
    "said", ["Black puts the light-squared bishop on g4.", "Black puts the light squared bishop on g4."]
)
def test_which_of_two_like_pieces_is_part_of_the_move(said):
    """ "puts the light-squared bishop on g4": the words that pick one of two bishops stand between
    the verb and the piece; the verb still makes "the bishop on g4" a move, not a place."""
    events = track_lines(segments("1. e4 Nf6 2. e5 Nd5 3. d4 d6 4. Nf3.", said))
    assert moves(events)[-1] == (1, 8, "Bg4", None)


@pytest.mark.parametrize(
    "said",
    [
        "White brings the knight to f3, which stops queen h4 check.",
        "White brings the knight to f3, preventing queen h4 check.",
        "White brings the knight to f3; taking on e5 too early runs into queen h4 check.",
        "White brings the knight to f3, which stops we h4 check.",  # speech recognition's "we" for queen
    ],
)
def test_a_move_stopped_or_run_into_is_not_played(said):
    """What a move stops, prevents or runs into is a threat, not the next move of the line: the
    line goes on from the move that stops it."""
    events = track_lines(segments("1. e4 e5 2. f4 exf4.", said, "Black plays g5."))
    assert [e.san for e in events] == ["e4", "e5", "f4", "exf4", "Nf3", "g5"]


def test_a_square_stopped_as_a_place_leaves_the_next_move_alone():
    """ "a4, stopping b5, black answers bishop f5": b5 is the place stopped, and the move said after it
    is played."""
    said = "Five, a4, stopping b5, black answers bishop f5."
    events = track_lines(segments("1. d4 d5 2. c4 c6 3. Nf3 Nf6 4. Nc3 dxc4.", said))
    assert [e.san for e in events][-2:] == ["a4", "Bf5"]


def test_instead_of_an_action_is_no_alternative_move():
    """ "Instead of defending, black counterattacks with knight f6": set against defending, not
    against a move; knight f6 is the line's next move. "Instead of castling" names a move, as before."""
    events = track_lines(segments("1. e4 e5 2. Nf3.", "Instead of defending, black counterattacks with knight f6."))
    assert moves(events)[-1] == (1, 4, "Nf6", None)
    castling = track_lines(
        segments("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O.", "Instead of castling, white can play c3.")
    )
    assert moves(castling)[-1] == (2, 7, "c3", 1)


def test_a_move_turned_to_after_a_warning_is_the_lessons():
    """ "Black must not take back on e4 straight away; first, d6 kicks the knight": the knight
    capture is warned against (a side line), and d6, which cannot follow it, is played where the
    lesson was; the lesson goes on from d6."""
    events = track_lines(segments(
        "1. e4 e5 2. Nf3 Nf6 3. Nxe5.",
        "Black must not take back on e4 straight away; first, d6 kicks the knight.",
        "The knight retreats to f3.",
    ))
    assert [(e.san, e.kind) for e in events][5:] == [("Nxe4", "avoid"), ("d6", "move"), ("Nf3", "move")]
    assert events[6].epd_before == epd_after("e4 e5 Nf3 Nf6 Nxe5")
    # a move that goes on with the line warned against stays in it
    trap = track_lines(
        segments("1. e4 e5 2. Nf3 Nf6 3. Nxe5.", "Never play knight takes e4, because queen e2 wins the knight.")
    )
    assert [(e.san, e.kind) for e in trap][5:] == [("Nxe4", "avoid"), ("Qe2", "move")]


@pytest.mark.parametrize(
    "said, line",
    [
        ("A calmer way for black is to decline the gambit with bishop c5 on move two.", "e4 e5 f4"),
        ("On move two, white can also play knight f3.", "e4 e5"),
        ("Black can decline the gambit with bishop c5 on move to.", "e4 e5 f4"),  # "two" heard "to"
    ],
)
def test_on_move_n_places_the_move_said_nearest(said, line):
    """ "... with bishop c5 on move two": the move is Black's (White's) move two, a line branching
    there, not the next move of the line being read."""
    events = track_lines(segments("1. e4 e5 2. f4 exf4 3. Nf3 g5.", said))
    last = events[-1]
    assert (last.epd_before, last.line, last.branch_of) == (epd_after(line), 2, 1)


def test_pieces_named_together_go_to_both_squares():
    """ "both sides develop their bishops to d3 and d6": the second square is a bishop's too."""
    events = track_lines(segments("1. e4 e5 2. Nf3 Nf6 3. Nxe5 d6 4. Nf3 Nxe4 5. d4 d5.",
                                  "Both sides develop their bishops to d3 and d6."))
    assert [e.san for e in events][-2:] == ["Bd3", "Bd6"]
