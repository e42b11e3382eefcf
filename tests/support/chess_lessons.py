"""A narrated chess lesson of our own (the Italian Game), as its sentences and its main line; and the
position a line of moves reaches; positions of random games."""

import chess

LESSON = [
    "Welcome to this lesson on the Italian Game.",
    "We start with pawn to e4, and black answers pawn to e5.",
    "White develops the knight to f3, and black defends with knight to c6.",
    "Now the bishop goes to c4, aiming at the weak f7 square.",
    "The classical reply is bishop to c5.",
    "White plays pawn to c3, preparing d4.",
    "Black develops the other knight to f6.",
    "Then pawn to d4, e takes d4, and c takes d4.",
    "The bishop cannot stay on c5, so black gives a check with bishop to b4.",
    "Don't play king to f1, because you lose the right to castle.",
    "The right move is bishop to d2, blocking the check.",
    "Let's go back to the position after bishop to c4.",
    "Instead of bishop to c5, black can play knight to f6, the Two Knights Defense.",
    "The best move for white is pawn to d3, keeping the center solid.",
]
ITALIAN = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4+"


def epd_after(sans: str) -> str:
    """The position (EPD) after ``sans``, moves in SAN from the initial position."""
    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return board.epd()


def random_positions(seed: int, games: int, plies: int) -> list[chess.Board]:
    """Every position of ``games`` random legal games of up to ``plies`` plies (copies, each with
    its move stack): positions no lesson would reach, for checks that must hold everywhere."""
    import random

    rng = random.Random(seed)
    boards = []
    for _ in range(games):
        board = chess.Board()
        for _ in range(rng.randint(0, plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            boards.append(board.copy())
    return boards
