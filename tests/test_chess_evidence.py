"""What counts as chess: a domain guess needs real chess evidence, and running narration plays only
moves that are made (not a rule about a later move, not a description of where pawns stand)."""


from tutorialbook.acquire.transcript import Segment
from tutorialbook.skills.chess.lines import track_lines
from tutorialbook.skills.chess.vocabulary import looks_like_chess

# Reference pages of a programming language's library, written for this test in the style of such
# pages: function signatures, options, hex dumps and examples full of square-like tokens.
BINARY_ASCII = """
binascii: convert between binary data and ASCII. The module holds functions that convert between
binary and ASCII-encoded representations such as uuencode, base64 and hexadecimal. Normally you
would not call them directly but use a wrapper module. a2b_uu(string) converts one line of
uuencoded data back to binary and returns the bytes. Lines normally contain 45 bytes, except the
last. b2a_hex(data, sep) returns the hexadecimal representation of data: every byte becomes the
corresponding two-digit hex number, so the result is twice as long. For example, the bytes of the
header dump below read d4 c3 b2 a1 02 00 04 00, and the trailer reads e4 e5 f3 c6 b5 a6 00 ff.
With a separator, b2a_hex(b'\\xb9\\x01\\xef', '-') returns b'b9-01-ef'. crc32(data, value) computes
a CRC-32 checksum of data starting with value; use it to check that a download is complete. The
result is an unsigned integer. hexlify is another name for b2a_hex; unhexlify reverses it and
raises an error when the string holds an odd number of digits, or a character such as g7 or h8
that is not a hex digit. Move on to the base64 module for a richer interface.
"""
OPTIONS = """
getopt: a parser for command line options in the style of the C getopt function. Users who are
unfamiliar with it should consider the argparse module instead. getopt(args, shortopts, longopts)
parses the argument list, usually sys.argv[1:]. shortopts is the string of option letters the
script recognizes; letters that take an argument are followed by a colon. For example, with
shortopts 'a:b' the option -a takes a value and -b does not. Parsing stops at the first
non-option argument. An example using only short options: the arguments -a -b -cfoo -d bar a1 a2
give the options a, b, c with foo and d with bar, and the remaining arguments a1 a2. Long options
work the same way: --condition=foo --testing --output-file abc.def -x a1 a2. In a script, loop
over the pairs: if the option is -h print usage, if it is -o keep the output name, else raise an
error. A king-sized list of options is better served by argparse, which also checks types.
"""
DIGESTS = """
hashlib: secure hashes and message digests. The module implements a common interface to many hash
algorithms: sha1, sha224, sha256, sha384, sha512, the SHA-3 family sha3_224 to sha3_512, shake_128
and shake_256, and blake2b and blake2s. There is one constructor per algorithm; each returns a hash
object with the same simple interface. Feed it bytes with update(), then ask for digest() or
hexdigest(). For example, the sha256 of b'Nobody inspects the spammish repetition' begins with
031e dc7a; a shorter digest of the same text begins a1 b2 c3 d4 e5 f6. new(name, data) is the
generic constructor. blake2b accepts a key, a salt and a personalization string, and a
digest_size from 1 to 64 bytes. To check a password, compare digests with hmac.compare_digest, as
a plain comparison may leak timing and help an attack. Queen-sized files are best hashed in
chunks of 64 KiB with update() called in a loop; file_digest does this for you.
"""


def test_library_reference_pages_are_not_chess():
    for page in (BINARY_ASCII, OPTIONS, DIGESTS):
        assert not looks_like_chess(page)


def test_a_lesson_is_chess_even_when_its_moves_are_written_not_spoken():
    assert looks_like_chess("The Ruy Lopez starts with e4 e5 Nf3 Nc6 Bb5.")
    assert looks_like_chess("The London System: 1. d4 d5 2. Bf4 Nf6 3. e3 e6 4. Nf3.")


def _events(*sentences):
    return track_lines([Segment(4.0 * i, 4.0 * i + 3.5, s) for i, s in enumerate(sentences)])


def test_a_rule_about_a_later_move_is_not_played():
    for rule in ("Get the bishop out to f4 before you play pawn to e3.",
                 "If you play pawn to e3 first, the bishop on c1 is locked in, so play bishop to f4.",
                 "Without playing e3 yet, the bishop comes to f4."):
        events = _events(
            "We start with pawn to d4, and black plays pawn to d5.",
            rule,
            "Black develops the knight to f6.",
        )
        assert [e.san for e in events] == ["d4", "d5", "Bf4", "Nf6"], rule
        assert len({e.line for e in events}) == 1


def test_a_description_of_the_pawns_is_not_played():
    events = _events(
        "White plays pawn to d4 and black answers pawn to d5.",
        "Pawn to c4, and black plays pawn to c6.",
        "Later White wants pawns on c3, d4 and e3, a solid triangle.",
        "Knight to f3.",
    )
    assert [e.san for e in events] == ["d4", "d5", "c4", "c6", "Nf3"]


def test_a_move_speech_recognition_lost_is_restored_from_opening_theory():
    """ "knight to c3, [d takes e4,] knight takes e4": the lost capture is the one book move after
    which what was heard is a book move too, so the line goes on instead of breaking."""
    events = _events(
        "White opens with pawn to e4 and black plays pawn to c6, preparing d5.",
        "Then pawn to d4, pawn to d5, knight to c3, knight takes e4, and bishop to f5.",
        "The knight goes to g3 and the bishop retreats to g6.",
    )
    assert [e.san for e in events] == ["e4", "c6", "d4", "d5", "Nc3", "dxe4", "Nxe4", "Bf5", "Ng3", "Bg6"]


def test_a_pushed_pawn_never_captures():
    """ "white pushes pawn to d5" where only exd5 goes to d5: a push is no capture, and the
    sound-alike e5 (the Advance Variation) is the move."""
    events = _events(
        "We start with pawn to e4, pawn to e6, pawn to d4, and pawn to d5.",
        "In the Advance Variation white pushes pawn to d5.",
        "Black attacks the chain with pawn to c5.",
    )
    assert [e.san for e in events] == ["e4", "e6", "d4", "d5", "e5", "c5"]
