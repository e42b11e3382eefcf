"""Speech-only move recovery where speech recognition garbled the narration: unsure-word marks,
lost and invented moves repaired only when the rest of the sentence agrees, sound-alike files and
pieces; and the refusals that keep a wrong ply from corrupting every position after it."""

import os

import chess
import pytest

from tests.support import media
from tutorialbook.acquire.transcript import UNSURE, Segment, Word, marked
from tutorialbook.skills.chess.tracker import _Tracker
from tutorialbook.skills.chess.events import MoveEvent
from tutorialbook.skills.chess.lines import track_lines
from tutorialbook.skills.chess.moves import find_mentions, find_moves, parse_spoken_move
from tutorialbook.skills.chess.roles import _roles
from tutorialbook.skills.chess.tokens import _tokens

CARO = "Pawn to e4, pawn to c6, pawn to d4, pawn to d5, knight to c3, d takes e4, knight takes e4, bishop to f5."
ITALIAN_CHECK = "e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+ Bd2 Bxd2+"
CARO_TRAP = "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Nd7 Qe2"


def segments(*texts: str) -> list[Segment]:
    return [Segment(10.0 * i, 10.0 * i + 9, text) for i, text in enumerate(texts)]


def played(events: list[MoveEvent]) -> list[tuple[int, int, str]]:
    return [(e.line, e.ply, e.san) for e in events]


def board_after(sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return board


def doubted(text: str, unsure: set[int]) -> str:
    """`text` as a transcript shows it when the ASR doubted the words at the `unsure` indexes."""
    words = [Word(0.0, 0.0, " " + w, 0.2 if i in unsure else 0.9) for i, w in enumerate(text.split())]
    return marked(words)


LESSON = [
    "We start with pawn to e4, pawn to e6, pawn to d4, and pawn to d5.",
    "White pushes pawn to e5, and black attacks the chain with pawn to c5.",
    "Then pawn to c3, knight to c6, knight to f3, and the queen comes to b6.",
    "Go back to the position after queen to b6.",
    "White plays bishop to d3, and black takes with c takes d4.",
]


def test_unsure_marks_do_not_hide_moves_and_stay_in_the_quotes():
    clean = track_lines(segments(*LESSON))
    # every word doubted, the reference's "after" too
    shown = [doubted(s, set(range(len(s.split())))) for s in LESSON]
    assert all(UNSURE in s for s in shown)
    heard = track_lines(segments(*shown))
    assert played(heard) == played(clean)
    assert [(e.epd_before, e.san, e.start) for e in heard] == [(e.epd_before, e.san, e.start) for e in clean]
    assert played(clean)[-2:] == [(1, 11, "Bd3"), (1, 12, "cxd4")]  # placed after Qb6, not lost after the reference
    assert all(UNSURE in e.quote for e in heard)  # evidence still shows a guess as a guess


def test_unsure_marks_in_running_text_are_not_moves():
    text = doubted("I think we should be taking a break before we go to the park", {1, 4, 5, 9})
    assert UNSURE in text
    assert find_moves(chess.Board(), text) == []
    assert track_lines(segments(text)) == []


def test_a_move_lost_by_speech_recognition_is_restored_when_only_it_explains_the_sentence():
    # out of opening theory: only 2. a5 lets "pawn to a6" (and the rest) follow; "knight to h6" is Black's
    opening = "We start with pawn to a4, pawn to h5."
    events = track_lines(segments(opening, "Then knight to h6, pawn to a6, and rook to h7."))
    assert played(events) == [(1, 1, "a4"), (1, 2, "h5"), (1, 3, "a5"), (1, 4, "Nh6"), (1, 5, "a6"), (1, 6, "Rh7")]


def test_a_lost_move_is_not_guessed_from_too_little_or_when_several_fit():
    # one move said after it: too little to tell which move was lost
    short = track_lines(segments("We start with pawn to a4, pawn to h5.", "Then knight to h6, and pawn to a6."))
    assert played(short) == [(1, 1, "a4"), (1, 2, "h5")]
    # many White moves let "knight to h6, knight to c3, rook to h7" follow: none is invented, and the
    # last move is not replaced by one that then leaves the sentence unexplained
    several = track_lines(
        segments("We start with pawn to a4, pawn to h5.", "Then knight to h6, knight to c3, and rook to h7.")
    )
    assert played(several) == [(1, 1, "a4"), (1, 2, "h5"), (1, 3, "Nc3"), (1, 4, "Rh7")]


def test_the_last_move_is_replaced_only_when_the_whole_sentence_then_follows():
    # "[pawn to h4], pawn to h6, ...": replacing 5...Bg6 by h6 explains "knight to f3, knight to d7"
    # but not "pawn to h5"; the lost 6. h4 explains all of it
    events = track_lines(
        segments(
            CARO,
            "The knight goes to g3 and the bishop retreats to g6.",
            "Pawn to h6, knight to f3, knight to d7, and pawn to h5.",
        )
    )
    assert [san for _, _, san in played(events)][8:] == ["Ng3", "Bg6", "h4", "h6", "Nf3", "Nd7", "h5"]
    assert {line for line, _, _ in played(events)} == {1}


def test_a_lost_move_from_theory_must_let_the_next_moves_follow():
    # 5. Qe2 was lost ("white on the Sicilian Defense, pawn to e2"); the book's 5. Ng5 would let
    # "knight df6" follow but not "knight to d6 is checkmate": it is not invented
    events = track_lines(
        segments(
            "We start with pawn to e4, pawn to c6, pawn to d4, pawn to d5, knight to c3, d takes e4, "
            "knight takes e4, knight to d7.",
            "White on the Sicilian Defense, pawn to e2, setting a trap.",
            "Vote playite df6 out, because knight to d6 is checkmate.",
        )
    )
    sans = [san for _, _, san in played(events)]
    assert sans[:8] == "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Nd7".split()
    assert "Ng5" not in sans and "Ndf6" not in sans


@pytest.mark.parametrize("heard", ["knight be takes d2", "the knight b takes d2", "and knight dee takes d2"])
def test_a_file_heard_as_its_homophone_after_the_piece_is_the_source_file(heard):
    board = board_after(ITALIAN_CHECK)
    assert parse_spoken_move(board, "knight takes d2") is None  # two knights can: the file decides
    assert [board.san(m) for m, _ in find_moves(board, heard)] == ["Nbxd2"]


def test_a_knight_recapture_both_knights_can_make_is_the_undeveloped_knights():
    """ "and I take d2" (knight b takes d2, its file lost): in a lesson the knight still at home
    recaptures; a quiet move both knights can make stays unplaced."""
    opening = ("Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, bishop to c5, pawn to c3, "
               "knight to f6, pawn to d4, e takes d4, c takes d4, bishop to b4 check, bishop to d2.")
    events = track_lines(segments(opening, "Black trades with bishop takes d2, check, and I take d2.",
                                  "Now black strikes in the center with pawn to d5."))
    assert [e.san for e in events][-3:] == ["Bxd2+", "Nbxd2", "d5"]
    quiet = track_lines(segments("Pawn to d4, pawn to d5, knight to f3, knight to f6, pawn to e3, pawn to e6.",
                                 "Then knight to d2."))
    assert [e.san for e in quiet][-1] == "e6"


def test_a_homophone_elsewhere_is_no_file():
    board = board_after(ITALIAN_CHECK)
    assert find_moves(board, "the knight will be there, see for yourself") == []


def test_checkmate_said_after_is_belongs_to_the_move():
    mate = board_after(CARO_TRAP + " Ngf6")
    assert [mate.san(m) for m, _ in find_moves(mate, "because knight to d6 is checkmate")] == ["Nd6#"]
    # Black to move: no knight reaches d6, and the sound-alike Nb6 gives no mate
    assert find_moves(board_after(CARO_TRAP), "because knight to d6 is checkmate") == []
    assert [m.uci() for m, _ in find_moves(board_after(CARO_TRAP), "knight to d6")] == ["d7b6"]  # without it


def test_a_sound_alike_piece_is_not_swapped_for_another_on_a_sound_alike_square():
    board = board_after("e4 e5 Nf3 Nc6 Bc4 Nf6 Ng5 d5 exd5")
    # "I'd take c5": the knight (as "I'd") to d5 (as "c5") is one reading; the queen taking on g5
    # would be two guesses at once
    assert [board.san(m) for m, _ in find_moves(board, "a common mistake is I'd take c5")] == ["Nxd5"]
    # no knight can take on a rhyme of c5 here: the queen's Qxg5 is not read into it
    board = chess.Board("r1bqkb1r/ppp2ppp/2n5/4p1N1/2B5/8/PPPP1PPP/RNBQK2R b KQkq - 0 5")
    assert find_moves(board, "I'd take c5") == []
    assert [board.san(m) for m, _ in find_moves(board, "I'd take g5")] == ["Qxg5"]  # the square as heard


@pytest.mark.parametrize("plan", ["preparing", "threatening", "intending", "preventing"])
def test_a_square_named_as_a_plan_is_not_played(plan):
    # "white plays pawn to a3" heard as "white plays, pawn to e3" (no pawn reaches e3; "ee" for "ay"
    # gives back a3): the square the narrator says it prepares is not played
    events = track_lines(
        segments(
            "We start with pawn to e4, pawn to e6, pawn to d4, pawn to d5, pawn to e5, pawn to c5, "
            "pawn to c3, knight to c6, knight to f3, queen to b6.",
            f"White plays, pawn to e3, {plan} b4.",
        )
    )
    assert [san for _, _, san in played(events)] == "e4 e6 d4 d5 e5 c5 c3 Nc6 Nf3 Qb6 a3".split()
    board = board_after("e4 e5 Nf3 Nc6 Bc4 Bc5")
    assert [board.san(m) for m, _ in find_moves(board, f"white plays pawn to c3, {plan} d4")] == ["c3"]


FRENCH_TRAP = (
    "We start with pawn to e4, pawn to e6, pawn to d4, pawn to d5, pawn to e5, pawn to c5, pawn to c3, "
    "knight to c6, knight to f3, queen to b6, bishop to d3, c takes d4, c takes d4."
)


def test_a_tie_is_broken_by_the_moves_said_next():
    # "take d4": Nxd4 or Qxd4; only after Nxd4 can "knight takes d4, queen takes d4, bishop to b5"
    # all follow (after Qxd4 Nxd4 Black has no queen)
    events = track_lines(
        segments(FRENCH_TRAP, "Black can take d4, and then knight takes d4, queen takes d4, and bishop to b5 check.")
    )
    assert [san for _, _, san in played(events)][13:] == ["Nxd4", "Nxd4", "Qxd4", "Bb5+"]


def test_a_tie_the_next_moves_do_not_break_is_refused():
    # Nbd2 and Nfd2 both block the check and let Black's d5 follow: neither is guessed, and Black's
    # d5 is not played in White's turn (a recapture both knights can make goes to the undeveloped
    # one: test_a_knight_recapture_both_knights_can_make_is_the_undeveloped_knights)
    events = track_lines(
        segments(
            "We start with pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, bishop to c5, "
            "pawn to c3, knight to f6, pawn to d4, e takes d4, c takes d4, bishop to b4 check.",
            "White answers knight to d2, and black strikes with pawn to d5.",
        )
    )
    assert [san for _, _, san in played(events)][11:] == ["Bb4+"]


GIUOCO = "We start with pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, bishop to c5, pawn to c3."


def test_a_lost_move_is_the_one_of_the_piece_named_before_the_mention():
    # "black develops the other knight to f6" heard as "black the other knight then ...": theory has
    # several Black moves before 5. d4 exd4 6. cxd4; the knight named picks 4... Nf6
    events = track_lines(segments(GIUOCO, "Black the other knight then pawn to d4, e takes d4, and c takes d4."))
    assert [san for _, _, san in played(events)][7:] == ["Nf6", "d4", "exd4", "cxd4"]
    # with no piece named, or one no single fitting move moves, nothing is guessed
    for words in ("Black waits, then", "Black the queen then"):
        events = track_lines(segments(GIUOCO, f"{words} pawn to d4, e takes d4, and c takes d4."))
        assert [san for _, _, san in played(events)][7:] == []


def test_a_warned_line_cut_by_a_full_stop_goes_on_in_the_next_sentence():
    # speech recognition ended the sentence inside the line the narrator warns against
    events = track_lines(
        segments(
            FRENCH_TRAP,
            "A common mistake is knight takes d4, because knight takes d4.",
            "Queen takes d4, and bishop to b5 check wins the queen.",
            "In the game, black plays bishop to d7.",
        )
    )
    sans = [(line, san) for line, _, san in played(events)][13:]
    assert sans[:4] == [(2, "Nxd4"), (2, "Nxd4"), (2, "Qxd4"), (2, "Bb5+")]
    # the lesson resumes in its own line afterwards, not after the trap
    assert events[-1].san == "Bd7" and events[-1].epd_before == board_after(
        "e4 e6 d4 d5 e5 c5 c3 Nc6 Nf3 Qb6 Bd3 cxd4 cxd4"
    ).epd()


def test_a_sentence_that_does_not_open_with_a_move_returns_to_the_lesson():
    events = track_lines(
        segments(
            FRENCH_TRAP,
            "A common mistake is knight takes d4, because knight takes d4.",
            "So black plays queen takes d4 here.",
        )
    )
    last = events[-1]
    assert last.san == "Qxd4"
    assert last.epd_before == board_after("e4 e6 d4 d5 e5 c5 c3 Nc6 Nf3 Qb6 Bd3 cxd4 cxd4").epd()


TWO_KNIGHTS = "We start with pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, knight to f6."


def test_the_sentence_subject_is_the_side_of_its_first_move():
    # speech recognition turned "the two knights defense" into "knight to d5", read (by theory) as
    # 4. Ng5; the real "with knight to g5" then comes as "knight to d5" in Black's turn: Black's
    # Nd5 is no reading of a sentence whose subject is White
    events = track_lines(
        segments(
            TWO_KNIGHTS + " Knight to d5.",
            "White attacks f7, knight to d5, and black must play pawn to d5.",
        )
    )
    # the second "knight to d5" is 4. Ng5 said again (with the advice "must" the sentence gives)
    assert [(e.ply, e.san) for e in events][6:] == [(7, "Ng5"), (7, "Ng5"), (8, "d5")]
    # without the subject the heard square stands: Black's knight goes to d5
    events = track_lines(segments(TWO_KNIGHTS + " Knight to d5.", "Then knight to d5."))
    assert [san for _, _, san in played(events)][6:] == ["Ng5", "Nd5"]


def test_place_is_a_move_word():
    # "white plays pawn to a3" heard as "white place pawn to e3": with a move word, theory's a3 stands in
    events = track_lines(
        segments(
            "We start with pawn to e4, pawn to e6, pawn to d4, pawn to d5, pawn to e5, pawn to c5, "
            "pawn to c3, knight to c6, knight to f3, queen to b6.",
            "White place pawn to e3, preparing b4.",
        )
    )
    assert [san for _, _, san in played(events)][10:] == ["a3"]
    board = chess.Board()
    assert [board.san(m) for m, _ in find_moves(board, "white places the knight on f3")] == ["Nf3"]


FRENCH_SPOKEN = [
    "This lesson is about the French Defense.",
    "We start with pawn to e4, pawn to e6, pawn to d4, and pawn to d5.",
    "In the Advance Variation white pushes pawn to e5.",
    "Black attacks the chain with pawn to c5, and white supports it with pawn to c3.",
    "Black plays knight to c6, and white answers knight to f3.",
    "The queen comes to b6, pressing on d4.",
    "Go back to the position after queen to b6.",
    "If white plays bishop to d3, black takes with c takes d4, and white recaptures c takes d4.",
]


@pytest.mark.skipif(
    not os.environ.get("CI") and not media.have_tools(), reason="espeak-ng and ffmpeg are needed to make test media"
)
def test_real_narration_with_doubted_words_is_read_as_ingest_reads_it(tmp_path):
    """espeak-ng speaks a lesson, faster-whisper transcribes it with the chess pack's prompt and
    decoding (as ingest does): its doubted words are marked, and every move still lands."""
    from tutorialbook.acquire import transcribe as tx
    from tutorialbook.ingest import _prompt
    from tutorialbook.skills.domains import get_pack

    wav = tmp_path / "french.wav"
    media.narrated_wav(FRENCH_SPOKEN, wav)
    pack = get_pack("chess")
    transcript = tx.transcribe(wav, initial_prompt=_prompt("French Defense", pack), decoding=pack.decoding)
    assert any(UNSURE in s.text for s in transcript.segments), [s.text for s in transcript.segments]
    events = track_lines(transcript.segments)
    main = "e4 e6 d4 d5 e5 c5 c3 Nc6 Nf3 Qb6".split()
    assert [e.san for e in events] == [*main, "Bd3", "cxd4", "cxd4"]
    assert events[-3].epd_before == board_after(" ".join(main)).epd()


SCOTCH_HEARD = ["Both sides push their king pawns e4 and d5.",
                "Then the knights come out, knight f3 for white, knight c6 for black.",
                "Now white strikes right away with the d pawn to d4.",
                "Black has to take pawn, take c4, and white takes back with the knight.",
                "Black's most active answer is knight f6, hitting e4."]


def test_the_opening_a_lesson_is_titled_after_wins_a_tie_between_hearings():
    # "e4 and d5", then "take c4" fits nowhere: heard again, c5 (a Sicilian) and e5 (a Scotch)
    # place every move alike; the title says which the lesson walks through, and without it
    # neither is guessed: "d5" stays as heard
    lesson = segments(*SCOTCH_HEARD)
    scotch = ["e4", "e5", "Nf3", "Nc6", "d4", "exd4", "Nxd4", "Nf6"]
    assert [e.san for e in track_lines(lesson, "Scotch Game")] == scotch
    assert [e.san for e in track_lines(lesson, "")][:2] == ["e4", "d5"]
    assert [e.san for e in track_lines(lesson, "My favourite opening")][:2] == ["e4", "d5"]


def test_a_bare_square_whose_piece_was_lost_may_be_the_titled_move_there():
    # "gains time with knight c3" heard "gains time without c3": c3 as heard is a pawn's move out of
    # theory; the lesson's title names the Scandinavian, whose 3.Nc3 the next moves follow
    said = ["After one e4, black immediately hits the center with d5.", "White grabs the pawn, e takes d5.",
            "Black recaptures with the queen.", "The queen is exposed, so white gains time without c3, hid in third.",
            "The main retreat is queen a5.", "White continues with d4, and black develops the king's knight to f6."]
    main = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "d4", "Nf6"]
    assert [e.san for e in track_lines(segments(*said), "Scandinavian Defense")] == main
    assert [e.san for e in track_lines(segments(*said))][4] == "c3"  # without the title, what was heard stands
    # a title named only by the lesson's own first sentences does not reach bare squares
    named = segments("Today we look at the Scandinavian Defense.", *said)
    assert [e.san for e in track_lines(named, "lesson 4")][4] == "c3"


def test_a_square_said_again_after_a_place_is_the_move():
    # "White opens with the c-pawn, c4" heard "the c4, c4": a list of places names each once
    lesson = segments("White opens with the c4, c4.", "Black replies with e5, a reversed Sicilian.")
    assert [e.san for e in track_lines(lesson)] == ["c4", "e5"]
    places = segments("Pawn to e4, pawn to e5.", "White has pawns on c3, d4 and d3.")
    assert [e.san for e in track_lines(places)] == ["e4", "e5"]  # a list of places stays places


def test_a_lesson_that_plays_another_opening_than_its_title_keeps_what_was_said():
    # the title is a prior on speech recognition's guesses, not on what was clearly said: a
    # Queen's Gambit lesson that shows 1.e4 e5 (confirmed by the moves after it) keeps it
    lesson = segments("White opens with pawn to e4, black answers pawn to e5.", "Knight to f3, knight to c6.")
    assert [e.san for e in track_lines(lesson, "Queen's Gambit Declined")] == ["e4", "e5", "Nf3", "Nc6"]
    bare = segments("White plays e4 and black plays e5.", "Knight f3, knight c6, bishop c4.")
    assert [e.san for e in track_lines(bare, "Queen's Gambit Declined")] == ["e4", "e5", "Nf3", "Nc6", "Bc4"]


def test_a_file_letter_run_into_the_square_after_a_piece_is_where_the_piece_leaves():
    # "knight b d7" written "knight bd7": the b is the knight's file, not a bishop (Bd7 is legal too)
    said = ["White starts with pawn to d4, black plays pawn to d5, and white offers a pawn with c4.",
            "Black declines with pawn to e6, and white develops the knight to c3.",
            "Black plays knight to f6, and white pins it with bishop to g5.",
            "Black answers bishop to e7, then pawn to e3.", "Go back to the position after bishop to g5."]
    events = track_lines(segments(*said, "Black can also play knight bd7, setting the Elephant Trap."))
    assert [(e.line, e.san) for e in events[-3:]] == [(1, "Be7"), (1, "e3"), (2, "Nbd7")]
    assert events[-1].epd_before == events[-3].epd_before  # played where the lesson went back to
    assert track_lines(segments(*said, "Then bd7."))[-1].san == "Bd7"  # no piece named: a bishop


def test_a_lesson_whose_title_names_no_opening_leans_to_the_one_it_names_first():
    named = segments("Welcome back, today's topic is the Scotch Game.", *SCOTCH_HEARD)
    assert [e.san for e in track_lines(named, "lesson 3")][:2] == ["e4", "e5"]
    late = segments(*SCOTCH_HEARD[:3], "This is how the Scotch Game starts.", *SCOTCH_HEARD[3:])
    assert [e.san for e in track_lines(late, "lesson 3")][1] != "e5"  # named too late to lean to


def test_a_sound_alike_on_the_titled_line_beats_a_move_out_of_theory():
    # "queen to d6" (legal, out of theory) heard for Qb6 of the French Advance's main line
    lesson = segments("Pawn to e4, pawn to e6, pawn to d4, pawn to d5, pawn to e5, pawn to c5, pawn to c3, "
                      "knight to c6, knight to f3.", "The queen comes to d6.")
    assert track_lines(lesson, "French Defense: Advance Variation, Main Line")[-1].san == "Qb6"
    assert track_lines(lesson)[-1].san == "Qd6"  # without the title, what was heard stands


def test_of_several_lost_moves_theory_allows_the_titled_opening_picks_one():
    # "[pawn to d5]" lost: after it, or after 2...g6, knight to c3 is theory; only d5 is the Caro-Kann
    lesson = segments("Pawn to e4, pawn to c6, pawn to d4, and knight to c3.")
    assert [e.san for e in track_lines(lesson, "Caro-Kann Defense")] == ["e4", "c6", "d4", "d5", "Nc3"]
    assert [e.san for e in track_lines(lesson)] == ["e4", "c6", "d4"]  # several: a refusal
    # "[pawn to g6]" lost in the King's Indian: the bishop's square says which
    kid = segments("Pawn to d4, knight to f6, pawn to c4, knight to c3, bishop to g7.")
    assert [e.san for e in track_lines(kid, "King's Indian Defense")] == ["d4", "Nf6", "c4", "g6", "Nc3", "Bg7"]


def test_only_the_start_of_a_long_title_is_read_for_an_opening():
    lesson = segments(*SCOTCH_HEARD)
    long_title = "Scotch Game " + "and more words " * 140_000  # 2 MB
    assert [e.san for e in track_lines(lesson, long_title)][:2] == ["e4", "e5"]
    late = "words " * 100 + "Scotch Game"
    assert [e.san for e in track_lines(lesson, late)][:2] == ["e4", "d5"]


SLAV_HEARD = (
    "The Slav Defense,",
    "1, d4, d5, d2, c4, c6, 3, knight f3, knight f6, 4, knight c3, and now d takes c4, 5, a4, stopping b5, black "
    "answers bishop f5, getting the bishop out before e6, c6,",
    "b3, d6, 7, bishop takes c4, black replies bishop b4, pinning the knight 8, castles and black castles do.",
)


def test_squares_heard_again_never_take_the_lesson_off_the_opening_it_is_titled_after():
    # flite's narration of "Six. e3, e6" came out "e6, c6, b3, d6": those moves fit nowhere. Heard
    # again as e4, the first d4 lets more of them fit further on (a line 1.e4 d5 2.c4 c6 ...), but a
    # lesson titled "Slav Defense" that was walking through the Slav keeps it
    slav = ["d4", "d5", "c4", "c6", "Nf3", "Nf6", "Nc3", "dxc4", "a4", "Bf5"]
    assert [e.san for e in track_lines(segments(*SLAV_HEARD), "Slav Defense")][:10] == slav


def test_a_square_written_with_a_letter_that_rhymes_with_a_file_names_a_rhyming_file():
    # "tee three" for "gee three": t, p, v and z are no files but rhyme with b, c, d, e and g
    heard = CARO + " The knight goes to t3 and the bishop retreats to t6."
    assert played(track_lines(segments(heard)))[-2:] == [(1, 9, "Ng3"), (1, 10, "Bg6")]
    ruy = "Pawn to e4, pawn to e5, knight to f3, knight to c6, and white plays bishop p5."
    assert played(track_lines(segments(ruy)))[-1] == (1, 5, "Bb5")


def test_a_rhyming_letter_is_no_square_without_a_move_said():
    # a place, or a letter and a number in ordinary words: nothing is played
    text = "Pawn to e4, pawn to e5. Round t3 starts now, with a bishop on t6 and a knight on v3."
    assert played(track_lines(segments(text))) == [(1, 1, "e4"), (1, 2, "e5")]


RUY_CLOSED = ("Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to b5, pawn to a6, bishop to a4, "
              "knight to f6, white castles")


def test_a_file_heard_as_a_for_e_is_the_e_file_where_theory_confirms_it():
    # "ay" for "ee": Ba7 is no legal move, Be7 is the Closed Ruy Lopez
    assert played(track_lines(segments(RUY_CLOSED + ", and black plays bishop to a7.")))[-1] == (1, 10, "Be7")
    # a4 is legal, but the King's Indian goes on with e4 and d6
    kid = "Pawn to d4, knight to f6, pawn to c4, pawn to g6, knight to c3, bishop to g7, pawn to a4, pawn to d6."
    assert [san for _, _, san in played(track_lines(segments(kid)))][-2:] == ["e4", "d6"]


def test_an_a_file_move_said_where_it_is_legal_stays_an_a_file_move():
    assert played(track_lines(segments(RUY_CLOSED + ", and black plays pawn to a5.")))[-1] == (1, 10, "a5")


def test_a_knight_glued_to_and_or_is_is_a_knight():
    # "and knight c6" heard "andite, c6"; "is knight to a5" heard "isite to a5"
    text = "Pawn to c4, pawn to c5. Then knight c3, andite, c6."
    assert [san for _, _, san in played(track_lines(segments(text)))] == ["c4", "c5", "Nc3", "Nc6"]
    board = board_after("e4 e5 Nf3 Nc6 Bc4 Nf6 Ng5 d5 exd5")
    assert [board.san(m) for m, _ in find_moves(board, "The best move isite to a5.")] == ["Na5"]


def test_a_word_ending_like_knight_is_no_knight():
    board = board_after("e4 e5 Nf3 Nc6 Bc4 Nf6 Ng5 d5 exd5")
    # "despite", "website": no move word before the "ite"; the square alone is a pawn's
    assert [board.san(m) for m, _ in find_moves(board, "Despite to a5, the website is down.")] == ["a5"]
    assert [board.san(m) for m, _ in find_moves(board, "Our website to a5.")] == ["a5"]


def test_an_a_file_square_is_heard_again_as_e_where_the_moves_after_it_fit_nowhere():
    # "a4" for "e4": Bc4 and Qf3 fit nowhere after 1.a4 e5; heard again as e4, every move fits
    lesson = segments("We start with a4.", "Black answers e5.", "Then bishop to c4, knight to f6, and queen to f3.")
    assert [san for _, _, san in played(track_lines(lesson))] == ["e4", "e5", "Bc4", "Nf6", "Qf3"]


def test_an_a_file_move_whose_line_goes_on_is_not_heard_again():
    lesson = segments("Pawn to a4, pawn to e5, pawn to a5, knight to f6.")
    assert [san for _, _, san in played(track_lines(lesson))] == ["a4", "e5", "a5", "Nf6"]


def test_a_file_letter_heard_as_jay_or_say_and_a_rank_before_a_full_stop():
    heard = CARO + " The knight goes to j3 and the bishop retreats to j6."
    assert played(track_lines(segments(heard)))[-2:] == [(1, 9, "Ng3"), (1, 10, "Bg6")]
    italian = "Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4."
    for reply in ("The classical reply is bishop to say 5.", "The classical reply is bishop to see 5."):
        assert played(track_lines(segments(italian, reply)))[-1] == (1, 6, "Bc5")


def test_say_and_a_number_without_a_move_word_is_no_move():
    text = ["Pawn to e4, pawn to e5.", "I say 5 times: develop first.", "Let me say 5."]
    assert played(track_lines(segments(*text))) == [(1, 1, "e4"), (1, 2, "e5")]
    assert [(m.move_number, m.targets) for m in find_mentions("1. e4 e5 2. Nc3")] == [
        (1, {chess.E4: 1.0}), (None, {chess.E5: 1.0}), (2, {chess.C3: 1.0})]


SCANDINAVIAN = ("Pawn to e4, pawn to d5, e takes d5, queen takes d5, knight to c3, queen to a5, pawn to d4, "
                "knight to f6.")


def test_can_also_with_words_before_the_move_word_offers_an_alternative():
    # "he takes d5" (for "e takes d5") names the latest capture on d5, Qxd5; the knight move the
    # narrator offers instead of recapturing forks where it is legal, after exd5
    lesson = segments(SCANDINAVIAN, "Let's return to the position after he takes d5.",
                      "Black can also wait with the recapture and play knight f6 first.")
    assert played(track_lines(lesson))[-1] == (2, 4, "Nf6")


def test_can_also_then_a_next_step_is_no_alternative():
    italian = "Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, bishop to c5."
    lesson = segments(italian, "White can also wait and then play pawn to c3.")
    assert played(track_lines(lesson))[-1] == (1, 7, "c3")


def test_a_lost_ply_is_bridged_and_the_rest_of_the_line_kept():
    # "knight c6" heard as noise: Black's move is lost, and the moves said after it belong to the other side
    events = track_lines(segments("We start with e4, e5.", "Knight f3, zy takes.", "Bishop b5, a6.",
                                  "Bishop a4, knight f6.", "Castles, bishop e7.", "Rook e1, b5."), "Ruy Lopez")
    assert [san for _, _, san in played(events)] == "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5".split()
    assert {line for line, _, _ in played(events)} == {1}


def test_two_lost_plies_in_a_row_are_bridged_through_theory():
    # "knight f3, knight c6" lost together: the side to move stays right, "bishop b5, a6, bishop a4,
    # knight f6" stay legal, and castling (the knight still on g1) fits nowhere, with the rest of the
    # line; no one lost move mends it, the one pair of book moves after which the moves said follow does
    events = track_lines(segments("We start with e4, e5.", "Nights, nights.", "Bishop b5, a6.", "Bishop a4, knight f6.",
                                  "Castles, bishop e7.", "Rook e1, b5.", "Bishop b3, d6."), "Ruy Lopez")
    assert [san for _, _, san in played(events)] == "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6".split()
    assert {line for line, _, _ in played(events)} == {1}


def test_two_lost_plies_among_many_pairs_of_theory_are_bridged_on_the_titled_opening():
    # "knight f3, knight c6" lost after 1. e4 e5: "d4, e takes d4" stays legal, "knight takes d4" fits
    # nowhere; after 1. e4 e5 more pairs of book moves let the moves said follow than are tried, and
    # of them the lesson's own opening, the Scotch, has the one
    events = track_lines(segments("We start with e4, e5.", "Nights, nights.", "d4, e takes d4.",
                                  "Knight takes d4, knight f6.", "Knight takes c6, b takes c6."), "Scotch Game")
    assert [san for _, _, san in played(events)] == "e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Nf6 Nxc6 bxc6".split()


def test_two_lost_plies_are_bridged_on_the_way_to_a_move_said_sentences_later():
    # "d4, d5" lost after 1. e4 c6: "d takes e4" fits nowhere, and several pairs of theory before "knight
    # c3" let it follow, none alone best judged just past it; the moves said after it fit nowhere too, and
    # judged at one sentences on (beyond `REACH`), of the pairs before the moves played on the way to
    # it, d4 and d5 alone do best
    sans = "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Bf5 Ng3 Bg6 h4 h6 Nf3 Nd7 h5 Bh7 Bd3 Bxd3 Qxd3".split()
    events = track_lines(segments("We start with e4, c6.", "Nights, nights.", "Knight c3, d takes e4.",
                                  "Knight takes e4, bishop f5.", "Knight g3, bishop g6.", "H4, h6.",
                                  "Knight f3, knight d7.", "H5, bishop h7.", "Bishop d3, bishop takes d3.",
                                  "Queen takes d3."), "Caro-Kann Defense")
    assert [san for _, _, san in played(events)] == sans


def test_a_lost_ply_that_many_moves_could_bridge_is_not_guessed(monkeypatch):
    # any of Black's quiet moves lets "rook b3, h4, rook b4, h3" follow, and none is opening theory
    lesson = segments("Pawn to a4, pawn to h5.", "Rook a3, zy takes.", "Rook b3, pawn to h4.", "Rook b4, pawn to h3.")
    assert [san for _, _, san in played(track_lines(lesson, "A rook lift"))] == ["a4", "h5", "Ra3", "h4", "h3"]
    # every move counted as theory, so only the tie between the bridges refuses them
    monkeypatch.setattr(_Tracker, "book_plies", lambda self: len(self.events))
    assert [san for _, _, san in played(track_lines(lesson, "A rook lift"))] == ["a4", "h5", "Ra3", "h4", "h3"]


SCOTCH_FAR = ["Both sides push their pawns, e4 and d5.", "That is the most common start of all.",
              "Then the knights come out, knight f3 for white, knight c6 for black.",
              "It is a natural developing move.",
              "Now white strikes right away in the centre with pawn to d4.",
              "Black takes, pawn takes d4, and white takes back with the knight."]


def test_a_misheard_move_that_stays_legal_for_sentences_is_heard_again():
    # "e5" heard as "d5" stays legal (and "pawn takes d4" is read as dxe4) until "knight f6, hitting
    # e4" fits nowhere, further on than the sentences just before it: of the moves played on the way
    # there, only e5 (b5 and g5 read as it) places every move after, in opening theory
    lesson = segments(*SCOTCH_FAR, "Black's most active answer is knight f6, hitting e4.",
                      "White swaps knights on c6, and black takes back with the b pawn.", "Now e5 kicks the knight.")
    scotch = ["e4", "e5", "Nf3", "Nc6", "d4", "exd4", "Nxd4", "Nf6", "Nxc6", "bxc6", "e5"]
    assert [e.san for e in track_lines(lesson, "Scotch Game")] == scotch
    assert [e.san for e in track_lines(lesson)] == scotch


def test_a_move_heard_again_far_back_is_not_guessed_when_two_hearings_do_as_well():
    # c5 (a Sicilian) and e5 (a Scotch) place every move alike and both in theory: the "d5" as heard
    # stays, unless the title says which opening the lesson walks through
    lesson = segments(*SCOTCH_FAR, "Black's most active answer is knight f6.")
    assert [e.san for e in track_lines(lesson)] == ["e4", "d5", "Nf3", "Nc6", "d4", "dxe4"]
    assert [e.san for e in track_lines(lesson, "Scotch Game")][:2] == ["e4", "e5"]


def test_a_square_whose_piece_word_was_lost_is_heard_as_the_piece_that_keeps_the_line():
    # "knight f6" heard as "zy f6": the pawn's f6 is legal, then castling and "knight takes f7" fit
    # nowhere; only a knight goes to f6 as well, and with it every move after is placed
    lesson = segments("Pawn to e4, pawn to e5, knight to f3, and zy f6.", "Bishop to c4, bishop to c5.",
                      "Knight to g5, and black castles.", "Knight takes f7, and rook takes f7.")
    petrov = ["e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5", "Ng5", "O-O", "Nxf7", "Rxf7"]
    assert [e.san for e in track_lines(lesson)] == petrov
    assert [e.san for e in track_lines(lesson, "Petrov Defense")] == petrov


def test_a_square_two_pieces_could_go_to_equally_well_is_left_as_heard():
    # a knight and the bishop on e7 both reach f6 and both let "bishop takes f7 check, king takes f7,
    # knight g5 check, king e8" follow, as much in theory: which was said is not guessed
    lesson = segments("Pawn to e4, pawn to e5, bishop to c4, bishop to e7, knight to f3, and zy f6.",
                      "Bishop takes f7 check, king takes f7.", "Knight to g5 check, and king to e8.")
    assert [e.san for e in track_lines(lesson)] == ["e4", "e5", "Bc4", "Be7", "Nf3", "f6", "Ng5"]


QGD = ["Pawn to d4, pawn to d5, pawn to c4, pawn to e6, knight to c3, and knight to f6.",
       "The bishop goes to g5, and black plays bishop to e7."]


def test_a_move_number_run_into_its_square_numbers_the_move():
    # "three e3" heard "3e3": no notation writes a rank before a square without a piece, so it is
    # White's third move said again with its number, a branch, not a rank and a square
    events = track_lines(segments(*QGD, "A quieter choice for White is 3e3, keeping the bishop at home."))
    branch = [(e.ply, e.san) for e in events if e.line == 2]
    assert branch == [(5, "e3")]
    events = track_lines(segments(*QGD[:1], "4e3, and black plays bishop to e7."))
    assert [e.san for e in events][-2:] == ["e3", "Be7"]


@pytest.mark.parametrize("said", ["is 7e3", "plays the knight 3e3"])
def test_a_number_run_into_a_square_where_no_move_number_stands_is_not_one(said):
    # a number heard for a ply the line has not reached, or after a word a move number does not
    # follow, is not taken as one: no e3 is played anywhere
    events = track_lines(segments(*QGD, f"A quieter choice for White {said}, keeping the bishop at home."))
    assert "e3" not in [e.san for e in events]


def test_a_move_said_with_another_number_than_where_it_was_played_is_not_said_again():
    # "5, e3" where e3 was White's third move: not that move said again (which would make the next
    # move that fits nowhere an alternative to it, a branch at 2...Nc6); the number or the square
    # was misheard, and neither is guessed
    events = track_lines(segments("Pawn to d4, pawn to d5, bishop to f4, knight to f6, pawn to e3, pawn to e6.",
                                  "5, e3, and black plays knight to c6."))
    assert played(events) == [(1, 1, "d4"), (1, 2, "d5"), (1, 3, "Bf4"), (1, 4, "Nf6"), (1, 5, "e3"), (1, 6, "e6")]


def test_a_move_before_instead_of_an_action_across_a_pause_ends_the_sentence_before():
    # "... pawn to c4. Instead of defending the pawn, black takes it" heard with a comma for the
    # full stop: c4 is not offered in place of an action (which names no move to replace); it is
    # played, and the capture after it
    events = track_lines(segments("Pawn to d4, pawn to d5, pawn to c4, instead of defending the pawn, "
                                  "black takes it with d takes c4."))
    assert played(events) == [(1, 1, "d4"), (1, 2, "d5"), (1, 3, "c4"), (1, 4, "dxc4")]


def test_a_move_said_right_before_instead_of_an_action_is_still_offered_in_its_place():
    # without a pause between, "knight f6 instead of developing the bishop" offers Nf6 where the
    # bishop's move was: a branch, not a move played after it
    events = track_lines(segments("Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, bishop to c5.",
                                  "Black plays knight f6 instead of developing the bishop."))
    assert [(e.line, e.ply, e.san) for e in events if e.line == 2] == [(2, 6, "Nf6")]


def test_a_move_before_one_said_to_be_checkmate_is_the_hearing_that_lets_it_mate():
    # a trap's mate shows what was played before it: "pawn to b4" (heard for g4, a rhyming file)
    # lets the queen check but not mate; of the moves the words may name, only g4 lets it mate
    events = track_lines(segments("Pawn to f3, pawn to e6.",
                                  "White must not play pawn to b4 now, because queen to h4 is checkmate."))
    assert [e.san for e in events] == ["f3", "e6", "g4", "Qh4#"]


def test_a_source_file_run_into_its_square_is_heard_again_for_a_checkmate():
    # "knight df6" written for the spoken "knight g, f6": the other knight's move is the trap's
    events = track_lines(segments("Pawn to e4, pawn to c6, pawn to d4, pawn to d5, knight to c3, d takes e4, "
                                  "knight takes e4, knight to d7, and now queen to e2 sets a trap.",
                                  "Black must avoid knight df6 here, as knight to d6 is checkmate."))
    assert [e.san for e in events][-3:] == ["Qe2", "Ngf6", "Nd6#"]


def test_a_move_before_a_checkmate_no_hearing_allows_stays_as_heard():
    # no hearing of "pawn to a4" (a4, or e4 for the long vowel) lets the queen mate: nothing is guessed
    events = track_lines(segments("Pawn to f3, pawn to e6.", "White plays pawn to a4, and queen to h4 is checkmate."))
    assert [e.san for e in events][:3] == ["f3", "e6", "a4"]


@pytest.mark.parametrize("said", ["black takes with the knight on d5", "black takes smack with the knight on d5"])
def test_a_capture_said_with_the_piece_and_the_square_it_takes_on(said):
    # "takes with the knight on d5" names the piece after the capture word and the square after "on"
    # (one word may stand between: "takes back" heard as "take smack")
    events = track_lines(segments("Pawn to e4, pawn to d5, e takes d5, knight to f6, pawn to d4.", f"Then {said}."))
    assert [e.san for e in events][-1] == "Nxd5"


def test_a_capture_word_far_from_with_the_piece_on_a_square_is_no_capture():
    # "takes control of the center with the knight on d5": the knight stands on d5, nothing is taken
    events = track_lines(segments("Pawn to e4, pawn to d5, e takes d5, knight to f6, pawn to d4.",
                                  "Black takes control of the center with the knight on d5."))
    assert [e.san for e in events] == ["e4", "d5", "exd5", "Nf6", "d4"]


ODD_START = "Pawn to h4, pawn to d6, pawn to h5, pawn to e6, pawn to a4."


@pytest.mark.parametrize(("said", "san"), [("the dark-squared bishop", "Be7"), ("the park squared bishop", "Be7"),
                                           ("the light-squared bishop", "Bd7"), ("the right squared bishop", "Bd7")])
def test_a_bishop_named_by_the_colour_of_its_squares_is_that_bishop(said, san):
    # "to b7" (no bishop goes there) is d7 or e7 on a rhyming file: one bishop reaches each; the colour
    # said (or its rhyme, the first sound misheard: "park", "right") tells which
    events = track_lines(segments(ODD_START, f"Black develops {said} to b7."))
    assert [e.san for e in events][-1] == san


def test_a_bishop_said_without_its_colour_to_a_square_either_may_mean_is_not_guessed():
    events = track_lines(segments(ODD_START, "Black develops the bishop to b7."))
    assert [e.san for e in events][-1] == "a4"


ITALIAN_START = "Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, bishop to c5."


@pytest.mark.parametrize("heard", ["the king", "looking", "knocking"])
def test_the_king_tucked_away_is_castling_also_when_heard_as_one_word(heard):
    # "tucks the king away" with the article and "king" run into one word that ends like it
    events = track_lines(segments(ITALIAN_START, f"White then tucks {heard} away."))
    assert [e.san for e in events][-1] == "O-O"


def test_a_piece_tucked_away_is_no_castling():
    events = track_lines(segments(ITALIAN_START, "White then tucks the knight away."))
    assert [e.san for e in events][-1] == "Bc5"


@pytest.mark.parametrize(("start", "said", "sans"), [
    (ODD_START, "Black waits no longer, and theite goes to f6.", ["a4", "Nf6"]),
    (ITALIAN_START, "White should not play pawn to d4, becauseite takes d4 wins a pawn.", ["d4", "Nxd4"]),
])
def test_a_knight_glued_to_the_article_or_because_is_a_knight(start, said, sans):
    # "the knight" and "because knight" heard as one word ("theite", "becauseite"), as "andite" is
    events = track_lines(segments(start, said))
    assert [e.san for e in events][-2:] == sans


def test_a_word_ending_like_knight_after_other_letters_is_no_knight():
    # "despite", "quite": no word that leads up to a move before the "ite"
    events = track_lines(segments(ITALIAN_START, "Despite the pin, white quite calmly plays pawn to d3."))
    assert [e.san for e in events][-1] == "d3"


def test_a_run_in_three_may_have_swallowed_the_e_of_its_square():
    # "three e3" heard "3d3": the bare vowel "e" ran into the vowel "three" ends on; d3 cannot be played
    # (the d-pawn stands on d4), so the e-file's square is the move, not another rhyme (b3, g3)
    events = track_lines(segments("One d4, d5. Two c4, e6.", "3d3, and black replies knight f6."))
    assert [e.san for e in events][-2:] == ["e3", "Nf6"]


def test_a_run_in_three_before_a_square_that_can_be_played_keeps_it():
    events = track_lines(segments("Pawn to h4, pawn to d6, pawn to h5, pawn to h6.", "3d3, and then black plays g6."))
    assert [e.san for e in events][-2:] == ["d3", "g6"]


@pytest.mark.parametrize("heard", ["sight", "site"])
def test_a_word_rhyming_with_knight_before_a_square_is_the_knight(heard):
    # "knight" with its first sound changed: the square after it is the knight's, not a pawn's
    events = track_lines(segments(ODD_START, f"Black brings out the {heard} f6."))
    assert [e.san for e in events][-1] == "Nf6"


def test_a_rhyme_of_knight_with_no_square_after_it_names_no_move():
    # the word in its own sense, after the square it speaks of: no knight moves there
    events = track_lines(segments(ODD_START, "Black keeps the f6 square in sight."))
    assert [e.san for e in events][-1] == "a4"


OPEN_CENTRE = "Pawn to c3, knight to f6, pawn to d4, e takes d4, c takes d4."


@pytest.mark.parametrize("said", ["Here black can check with the bishop to d4.",
                                  "So black gives a check with bishop to d4."])
def test_a_check_said_before_the_move_it_is_given_with_is_that_move(said):
    # "d4" heard for "b4" (rhyming files): Bxd4 can be played, but only Bb4 gives the check said before it
    events = track_lines(segments(ITALIAN_START, OPEN_CENTRE, said, "White has to answer that."))
    assert [e.san for e in events][-1] == "Bb4+"


def test_a_move_said_with_no_check_before_it_stays_as_heard():
    events = track_lines(segments(ITALIAN_START, OPEN_CENTRE, "Here black answers with the bishop to d4."))
    assert [e.san for e in events][-1] == "Bxd4"


GAMBIT_START = "Pawn to e4, pawn to e5, pawn to f4, e takes f4. Knight to f3, pawn to g5."


@pytest.mark.parametrize("heard", ["move to", "move too"])
def test_move_two_heard_as_move_to_at_a_clause_end_numbers_the_move_before_it(heard):
    # "on move two" with its "on" lost: a "move to" that ends a clause goes nowhere, so it is the number
    events = track_lines(segments(GAMBIT_START, f"The quiet answer is bishop c5, {heard}, keeping the bishop active."))
    assert (events[-1].ply, events[-1].san, events[-1].epd_before) == (4, "Bc5", board_after("e4 e5 f4").epd())


def test_a_move_to_before_the_move_said_after_it_is_no_move_number():
    # the verb "move to", its square said after a pause: the number goes to no move said after it
    saids = _roles("The knight would like to move to, say, knight to e5.")
    assert [(s.mention.text, s.mention.move_number) for s in saids] == [("knight to e5", None)]


def test_on_move_two_heard_as_on_v2_numbers_the_move_before_it():
    # the "mo" of "move" lost and its "v" run into the number: written as a square of a rhyming letter
    events = track_lines(segments(GAMBIT_START, "A quieter answer for black is bishop c5 on v2."))
    assert (events[-1].ply, events[-1].san, events[-1].epd_before) == (4, "Bc5", board_after("e4 e5 f4").epd())


def test_a_piece_on_v2_is_a_place_not_a_move_number():
    saids = _roles("Black plays g6 and puts the bishop on v2.")
    assert [s.mention.move_number for s in saids] == [None, None]


TWO_KNIGHTS_TAKEN = ["Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, knight to f6.",
                     "Knight to g5, pawn to d5, e takes d5."]


def test_a_reason_cut_off_from_its_warning_by_a_full_stop_still_ends_the_warned_line():
    # "A common mistake is X. | Because Y leads to ...": the "because" clause is the warned line's; the
    # best move after it is the lesson's, where the warning was given
    events = track_lines(segments(*TWO_KNIGHTS_TAKEN, "A common mistake is knight takes d5.",
                                  "Because knight takes f7 leads to the fried liver attack.",
                                  "The best move is knight to a5, attacking the bishop."))
    last = events[-1]
    assert (last.san, last.epd_before) == ("Na5", board_after("e4 e5 Nf3 Nc6 Bc4 Nf6 Ng5 d5 exd5").epd())


def test_a_square_on_a_said_four_or_five_may_be_heard_on_the_f_file():
    # "knight to a5": the "ay" runs into the "f" of "five", heard as f5; no knight can go to f5, one can to a5
    events = track_lines(segments(*TWO_KNIGHTS_TAKEN, "The best move is knight to f5, attacking the bishop."))
    assert (events[-1].ply, events[-1].san) == (10, "Na5")


def test_a_square_on_the_f_file_a_piece_can_go_to_stays_as_heard():
    start = "Pawn to e4, pawn to e5, knight to f3, knight to c6, bishop to c4, knight from g8 to e7, pawn to d3."
    events = track_lines(segments(start, "Black plays knight to f5."))
    assert events[-1].san == "Nf5"


def test_an_a_file_square_for_an_f_file_one_out_of_opening_theory_is_not_guessed():
    # the knight can go to a5 but that leaves theory: "knight to f5" stays a move that fits nowhere
    events = track_lines(segments(ITALIAN_START, OPEN_CENTRE, "Bishop to b4, check, and bishop to d2.",
                                  "Now black moves the knight to f5."))
    assert events[-1].san == "Bd2"


ENGLISH_START = ["The English starts with c4, and black answers e5.", "Knight to c3, knight to f6, and then g3."]


def test_a_reference_that_names_no_move_played_nor_one_to_play_is_heard_again():
    # "after c takes g5" (d5 heard g5) names nothing played and nothing that can be played: not the
    # narrator going back to a move, so its square is heard again on a rhyming file like a move's
    said = "Now black plays e5, and after c takes g5, the knight takes back on g5."
    events = track_lines(segments(*ENGLISH_START, said, "The bishop goes to g2."))
    assert [e.san for e in events][-4:] == ["d5", "cxd5", "Nxd5", "Bg2"]


RHYME_THEN_LOST = ["Black strikes with d5, and c takes b5, knight takes back on b5.",
                   "The knight on d5 is hit, so it drops back to b6."]


def test_a_misheard_square_and_a_lost_move_in_a_row_are_mended_together():
    # "c takes b5" for cxd5, then "bishop to g2" lost: neither repair alone makes enough moves follow,
    # together they make the rest of the lesson follow
    events = track_lines(segments(*ENGLISH_START, *RHYME_THEN_LOST,
                                  "White develops the knight to f3, black the knight to c6.",
                                  "White castles, and black plays bishop to e7.", "After d3, black castles as well."))
    assert [e.san for e in events][5:] == ["d5", "cxd5", "Nxd5", "Bg2", "Nb6", "Nf3", "Nc6", "O-O", "Be7", "d3", "O-O"]


def test_a_misheard_square_and_a_lost_move_that_explain_little_are_not_guessed():
    events = track_lines(segments(*ENGLISH_START, *RHYME_THEN_LOST,
                                  "White develops the knight to f3, black the knight to c6."))
    assert "Bg2" not in [e.san for e in events]


@pytest.mark.parametrize("heard", ["i5 6", "i56", "i5, 6"])
def test_a_knight_written_as_i_run_into_a_five_before_a_rank_goes_to_the_f_file(heard):
    # "knight f6": the knight written "i" run into a digit, the "ef" of the square written "five"
    events = track_lines(segments(f"White opens with pawn to e4, and black hits it at once with {heard}."))
    assert [e.san for e in events] == ["e4", "Nf6"]


def test_a_knight_written_as_i_run_into_a_digit_before_a_square_goes_there():
    events = track_lines(segments("Pawn to e4, pawn to e5, pawn to d4.", "Black develops the i5, c6."))
    assert [e.san for e in events][-1] == "Nc6"


def test_an_i_apart_from_the_digit_after_it_is_no_knight():
    assert all(tok.kind != "piece" for tok in _tokens("so i 5 6 and i think"))


def test_the_knights_i_and_its_squares_f_run_together_after_a_letter_are_the_knight_to_the_f_file():
    # "knight f3" written "dif3": the knight's "i" and the file's "f" run into the rank, a letter before them
    events = track_lines(segments("One, d4, d5. Two, c4, c6.", "Three, zif3, and black answers dif6."))
    assert [e.san for e in events][-2:] == ["Nf3", "Nf6"]


def test_if_apart_from_a_number_is_the_word():
    assert all(tok.kind != "piece" for tok in _tokens("what if 3 of them fall"))


ENGLISH_MIDDLE = ["White opens with c4, and black replies with e5.", "Knight to c3, knight to f6, and then g3.",
                  "Black plays d5, c takes d5, knight takes d5.",
                  "Bishop to g2, knight to b6, knight to f3, knight to c6."]


def test_a_pause_heard_inside_the_name_of_a_bishop_by_its_colour_keeps_the_colour():
    # "the dark-squared bishop to e7" heard "the dark square, bishop to d7": d7 only the light bishop reaches
    said = "White castles short, black develops the dark square, bishop to d7."
    events = track_lines(segments(*ENGLISH_MIDDLE, said))
    assert [e.san for e in events][-2:] == ["O-O", "Be7"]


def test_a_colour_said_of_a_square_before_a_bishop_named_after_it_is_no_bishops_colour():
    events = track_lines(segments(*ENGLISH_MIDDLE, "White castles short, the dark square is weak, and bishop to d7."))
    assert [e.san for e in events][-1] == "Bd7"


PETROV_CENTRE = ["Pawn to e4, pawn to e5, knight to f3, knight to f6, knight takes e5, pawn to d6.",
                 "The knight retreats to f3, and black takes on e4 with the knight."]


def test_a_bare_square_mirroring_the_move_just_placed_is_the_other_sides_same_piece():
    # "both sides develop their bishops to d3 and d6" with "bishops" garbled: d6 mirrors d3's bishop move
    events = track_lines(segments(*PETROV_CENTRE, "White plays d4, black d5, and both sides develop their mission "
                                                  "to d3 and d6."))
    assert [e.san for e in events][-2:] == ["Bd3", "Bd6"]


def test_a_bare_square_not_mirroring_the_move_just_placed_takes_no_piece_from_it():
    events = track_lines(segments(*PETROV_CENTRE, "White plays d4, black d5, and both sides develop their mission "
                                                  "to d3 and e7."))
    assert [e.san for e in events][-1] == "Bd3"


# a voice that reads move numbers as pauses: the whole lesson one sentence
SLAV_MAIN = ("One, d4, d5, two, c4, c6, three, knight f3, knight f6, four, knight c3, and now d takes c4, five, a4, "
             "stopping b5, black answers bishop f5, getting the bishop out before e6, ")


def test_a_move_and_its_reply_said_together_both_misheard_are_heard_again_together():
    # "six, e3, e6" heard "c6, b3, d6": e3 alone leaves d6 fitting nowhere, e6 alone comes at White's turn
    said = SLAV_MAIN + ("c6, b3, d6, seven, bishop takes c4, black replies bishop b4, pinning the knight, eight, "
                        "castles, and black castles too.")
    events = track_lines(segments(said), "Slav Defense")
    assert [e.san for e in events][-6:] == ["e3", "e6", "Bxc4", "Bb4", "O-O", "O-O"]


SCANDINAVIAN_START = ["After one e4, black immediately hits the center with d5.", "White grabs the pawn, e takes d5.",
                      "Black recaptures with the queen."]


def test_a_lost_move_that_mends_one_move_and_brings_the_line_back_into_theory_is_bridged():
    # "gains time with knight c3" lost whole ("with i3"), and "queen a5" heard "queen f5": only it fits
    # nowhere, yet the bridge puts the rest of the lesson back on the book's main line
    said = "The queen is exposed, so white gains time with i3, hitting her."
    events = track_lines(segments(*SCANDINAVIAN_START, said,
                                  "The main retreat is queen f5.",
                                  "White continues with d4 and black develops the king's knight to f6.",
                                  "Next comes knight f3, and black brings the light squared bishop out to f5."),
                         "Scandinavian Defense")
    assert [e.san for e in events][3:] == ["Qxd5", "Nc3", "Qa5", "d4", "Nf6", "Nf3", "Bf5"]


def test_a_move_number_run_into_its_square_after_is_heard_as_in_numbers_the_move():
    # "a second try for White is three d4" heard "... in 3d4": the side line's d4 is move three
    events = track_lines(segments(*PETROV_CENTRE, "White plays d4, black d5.",
                                  "A second try for White in 3d4, hitting the center right away."), "Petrov Defense")
    last = events[-1]
    assert (last.san, last.epd_before) == ("d4", board_after("e4 e5 Nf3 Nf6").epd())


LONDON_START = ["This lesson covers the London System for white.",
                "One d4, d5. Two, bishop f4, the signature move of the London."]


def test_three_e3_heard_three_three_is_the_e_file_square():
    # the "e" of "e3" is the vowel "three" ends on: speech recognition writes "3, 3"
    events = track_lines(segments(*LONDON_START, "Black answers knight f6, 3, 3, and black plays e6."), "London System")
    assert [e.san for e in events] == ["d4", "d5", "Bf4", "Nf6", "e3", "e6"]


def test_a_move_word_then_a_square_no_pawn_reaches_is_no_piece_move():
    # "black plays d6" where the d-pawn has gone: a narrator would have named the queen
    events = track_lines(segments(*LONDON_START, "Black answers knight f6, three e3, and black plays d6."),
                         "London System")
    assert [e.san for e in events] == ["d4", "d5", "Bf4", "Nf6", "e3"]


def test_rhymed_hearings_alike_near_a_lost_move_are_told_apart_by_the_rest_of_the_lesson():
    # "Three e3, and black plays e6" heard "3, 3, and black plays d6": b6, c6, e6 and g6 all fit there,
    # only e6 lets the bishop reach d6 later and the rest of the lesson follow
    events = track_lines(segments(*LONDON_START, "Black answers knight f6, 3, 3, and black plays d6.",
                                  "On move four white brings the king's knight to f3.",
                                  "And black hits the center with c5.",
                                  "Five c3, supporting the d4 pawn; black develops knight c6.",
                                  "Six, the queen's knight goes to d2.",
                                  "Black lines up bishop d6 to challenge our bishop.",
                                  "We keep the bishop with bishop g3.", "Black castles short."), "London System")
    assert [e.san for e in events] == ["d4", "d5", "Bf4", "Nf6", "e3", "e6", "Nf3", "c5", "c3", "Nc6", "Nbd2", "Bd6",
                                       "Bg3", "O-O"]


def test_knight_heard_as_side_before_its_square_is_the_knight():
    # "black develops knight c6" heard "black develop side c6": no pawn goes to c6 after c5, the knight does
    events = track_lines(segments(*LONDON_START, "Black answers knight f6, three e3, and black plays e6.",
                                  "On move four white brings the king's knight to f3, and black plays c5.",
                                  "Five c3, supporting the d4 pawn, black develop side c6."), "London System")
    assert [e.san for e in events][-2:] == ["c3", "Nc6"]


def test_to_a5_heard_take_f5_is_the_quiet_move_to_a5_in_theory():
    # "knight to a5" heard "I'd take f5": "to a" run together as "take", the five's f left as the file
    events = track_lines(segments("We start with pawn to e4, and black answers pawn to e5.",
                                  "White develops the knight to f3, and black defends with knight to c6.",
                                  "Now the bishop goes to c4, and black plays knight to f6, the Two Knights Defense.",
                                  "White attacks f7 with knight to g5, and black must play pawn to d5.",
                                  "White takes with e takes d5.",
                                  "The best move is I'd take f5, attacking the bishop."),
                         "Italian Game")
    assert [e.san for e in events][-2:] == ["exd5", "Na5"]


def test_knight_f3_heard_i3_ending_its_sentence_is_the_knight_to_f3():
    # "knight f3" heard "i3": the knight's "i" and the rank, the f-file's "ef" lost between them
    events = track_lines(segments("White opens with the king's pawn, e4.",
                                  "Black immediately provokes it with knight f6.",
                                  "White chases the knight away with e5.", "The knight jumps to d5.",
                                  "White grabs more space with the d-pawn, d4.", "Black hits the e5 pawn with d6.",
                                  "In the modern line, white simply develops, i3."), "Alekhine Defense")
    assert [e.san for e in events][-2:] == ["d6", "Nf3"]


#: the London System to move five, said plainly: where a development heard as the move before it comes next
_LONDON_TO_MOVE_FIVE = ("One d4, d5. Two, bishop f4, and black plays c5.",
                        "Three e3, knight c6, four c3, e6, five, knight to d2, bishop to d6.")


def test_a_move_words_ing_heard_as_its_stem_and_in_is_the_move_word():
    # "developing the knight on f6" heard "develop in the knight on f6": the "-ing" written as the word "in",
    # which would leave the piece standing on its square, no move
    events = track_lines(segments("We start with e4, and black answers e5.",
                                  "White plays knight to f3, and black defends by develop in the knight on c6."),
                         "Italian Game")
    assert [e.san for e in events] == ["e4", "e5", "Nf3", "Nc6"]


def test_a_development_said_where_the_move_before_was_heard_as_it_tells_which_was_misheard():
    # "bishop g3 ... develops the other bishop to d3" heard with "bishop d3" both times: the first one was
    # misheard (to develop brings a piece off its starting square, as Bf1-d3 does and Bf4-g3 does not)
    events = track_lines(segments(*_LONDON_TO_MOVE_FIVE,
                                  "White keeps the bishop, bishop d3, and black plays knight f6.",
                                  "Then white develops the other bishop, bishop d3."), "London System")
    assert [e.san for e in events if e.line == events[-1].line][-3:] == ["Bg3", "Nf6", "Bd3"]


def test_a_development_misheard_as_the_move_before_is_heard_again_as_the_piece_brought_out():
    # the other way round: "bishop g3" heard right, "develops the other bishop to d3" heard "g3" as well
    events = track_lines(segments(*_LONDON_TO_MOVE_FIVE,
                                  "White keeps the bishop, bishop g3, and black plays knight f6.",
                                  "Then white develops the other bishop, bishop g3."), "London System")
    assert [e.san for e in events][-3:] == ["Bg3", "Nf6", "Bd3"]


def test_knight_heard_as_light_is_the_knight_that_it_stands_for():
    # "kicking the knight, and it goes to b6" heard "kicking the light, and it goes to e6": "light" rhymes with
    # "knight" (as "height" and "sight" do); "it" is the knight, and only the knight's b6 rhymes with e6
    events = track_lines(segments("White opens with e4, and black answers knight f6.",
                                  "White plays e5, and the knight jumps to d5.",
                                  "Now white plays c4, kicking the light, and it goes to e6."), "Alekhine Defense")
    assert [e.san for e in events] == ["e4", "Nf6", "e5", "Nd5", "c4", "Nb6"]


def test_a_development_and_the_move_before_both_misheard_on_rhyming_files_are_heard_again():
    # "bishop g3 ... develops the other bishop, bishop d3" heard "bishop d3 ... bishop b3": the second square
    # rhymes with the first, said by the same piece; only Bg3 first lets a bishop come out to a rhyme of b3 after
    events = track_lines(segments(*_LONDON_TO_MOVE_FIVE,
                                  "White keeps the bishop, bishop d3, and black plays knight f6.",
                                  "Then white develops the other bishop, bishop b3."), "London System")
    assert [e.san for e in events if e.line == events[-1].line][-3:] == ["Bg3", "Nf6", "Bd3"]


def test_to_heard_do_before_a_square_is_the_move_word():
    # "to" heard voiced as "do" ("castles do" for "castles too"): before a square it is the "to" that makes the
    # square a move (a bare f1 would be a pawn's, and no pawn goes there)
    events = track_lines(segments("e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d4 exd4 cxd4 Bb4+.",
                                  "White can simply do f1, giving up castling."), "Italian Game")
    assert [e.san for e in events][-2:] == ["Bb4+", "Kf1"]


def test_recaptures_heard_as_catch_with_the_piece_named_is_the_recapture():
    # "recaptures" heard "catches" (its stressed syllable, the "p" lost): with the piece named after it, the
    # recapture; without one ("trying to catch up") no move
    events = track_lines(segments("e4 e5 Nf3 Nc6 d4 exd4 Nxd4 Nf6 Nxc6.", "Black catches with the b pawn.",
                                  "White tries to catch up."), "Scotch Game")
    assert [e.san for e in events][-2:] == ["Nxc6", "bxc6"]


def test_an_alternative_heard_as_a_move_already_played_is_heard_again_on_a_rhyming_file():
    # "black may prefer c5 instead of knight f6" heard "d5": what is offered instead is new, and d5 was played
    # already; of its rhymes theory keeps c5
    events = track_lines(segments("One d4, d5. Two, bishop f4, and black plays knight f6.",
                                  "Let's go back to move two.", "Black may prefer d5 instead of knight f6."),
                         "London System")
    assert [(e.line, e.san) for e in events][-1] == (2, "c5")


def test_a_pause_between_a_piece_and_to_inside_a_move_a_verb_leads_is_no_break():
    # "white develops the knight, to f3": speech recognition writes the pause as a comma; the move word before
    # the piece says a move is made, so "to f3" goes on with the knight (alone, "to f3" is likelier the pawn's)
    events = track_lines(segments("One e4, e5. White develops the knight, to f3."))
    assert [e.san for e in events] == ["e4", "e5", "Nf3"]


def test_a_whole_move_lost_is_found_where_only_one_pair_of_book_moves_lets_the_next_moves_follow():
    # "four, e3, e6" lost to noise: the same side is still to move, so "bishop takes c4" fits nowhere (the
    # e-pawn blocks the bishop) and nothing said next is illegal for the wrong side; only the one pair of book
    # moves after which it and the next move stay in theory explains it
    events = track_lines(segments("One d4, d5. Two c4, d takes c4. Three knight f3, knight f6.",
                                  "Four, and we wait a moment here.",
                                  "Five, bishop takes c4, c5, and six, castles, a6."))
    assert [e.san for e in events][6:] == ["e3", "e6", "Bxc4", "c5", "O-O", "a6"]


@pytest.mark.parametrize("said", ["Black replies I, f6, and white plays e3.",
                                  "Black replies I f6, and white plays e3."])
def test_knight_heard_as_i_right_before_a_square_is_the_knight(said):
    # "knight" with its "n" and "t" lost is the vowel "I"; the pronoun never stands right before a square
    events = track_lines(segments("Pawn to d4, pawn to d5, bishop to f4.", said))
    assert [e.san for e in events] == ["d4", "d5", "Bf4", "Nf6", "e3"]


def test_the_pronoun_i_before_a_verb_is_no_knight():
    events = track_lines(segments("Pawn to d4, pawn to d5, bishop to f4.", "Here I play f6 for black, then e3."))
    assert [e.san for e in events][-2:] == ["f6", "e3"]


@pytest.mark.parametrize(("said", "san"), [("White brings the king'site to f3.", "Nf3"),
                                           ("White brings the queen'site to d2.", "Nd2")])
def test_the_kings_knight_run_together_before_a_square_is_the_knight(said, san):
    # "the king's knight" heard as one word: a knight going to the square after it, not a pawn
    events = track_lines(segments("Pawn to d4, pawn to d5, bishop to f4, pawn to e6.", said))
    assert [e.san for e in events][-1] == san


def test_the_kings_knight_run_together_with_no_square_after_it_is_no_knight():
    assert all(tok.kind != "piece" for tok in _tokens("black will attack on the king'site with f5"))


def test_knight_heard_with_its_n_as_a_d_is_the_knight():
    # "dite f3": the nasal "n" of "knight" heard as the "d" said at the same place of the mouth
    events = track_lines(segments("Pawn to d4, pawn to d5, pawn to c4, pawn to c6.", "Three, dite f3, and dite f6."))
    assert [e.san for e in events][-2:] == ["Nf3", "Nf6"]


def test_a_knight_heard_as_i5_before_a_square_may_be_the_knight_to_the_f_file_of_its_rank():
    # "knight f6" heard "i5, c6": the "ef" of the square heard as the five run into the knight's "i". Read as
    # knight c6, the later "i5, c6" (the other knight, to c6) and black's castling fit nowhere; heard again as
    # f6, the whole line follows
    events = track_lines(segments("One, d4, d5. Two, bishop f4, and black answers i5, c6.",
                                  "Three, e3, e6. Four, knight f3, c5.",
                                  "Five, c3, and black develops i5, c6.",
                                  "Six, knight bd2, bishop d6. Seven, bishop g3, and black castles."))
    assert [e.san for e in events] == ["d4", "d5", "Bf4", "Nf6", "e3", "e6", "Nf3", "c5", "c3", "Nc6",
                                       "Nbd2", "Bd6", "Bg3", "O-O"]


def test_a_knight_heard_as_i5_before_a_square_stays_there_when_the_lesson_follows():
    events = track_lines(segments("One, e4, e5. Two, knight f3, and black answers i5, c6.",
                                  "Three, bishop b5, a6."))
    assert [e.san for e in events] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def test_a_square_heard_on_a_rhyming_file_is_heard_back_into_theory_with_the_move_lost_after_it():
    # "Then g3" heard "d3", legal, and "bishop to g2" lost: the line goes on legally off the book until the
    # knight's retreat comes at White's turn. Neither repair alone mends enough; g3 takes the line back
    # into theory, and with the bishop's move bridged after it the moves said follow again
    events = track_lines(segments("White begins with c4, and black answers e5.",
                                  "Then knight c3, and black brings the knight to f6.",
                                  "Then d3, getting ready to fianchetto the bishop.",
                                  "Black strikes with d5, c takes d5, and the knight takes back on d5.",
                                  "Now the knight retreats to b6.",
                                  "White develops the other knight to f3, and black replies knight c6.",
                                  "White castles."), "English Opening")
    assert [e.san for e in events] == ["c4", "e5", "Nc3", "Nf6", "g3", "d5", "cxd5", "Nxd5", "Bg2", "Nb6",
                                       "Nf3", "Nc6", "O-O"]
