"""Queries that spell out chess moves: "After 1. e4 e5 2. Nf3 Nc6 3. Bc4, what should Black
play?" names a position exactly, which text and embedding similarity cannot see — every skill
of an opening shares those tokens. Skills whose moves continue the query's moves come first.
"""

from __future__ import annotations

import chess

from tutorialbook.skills.chess.questions import in_sequence, san_tokens
from tutorialbook.skills.questions import skill_body

#: a query names a position when it spells at least this many legal moves from the start
MIN_PLIES = 2
#: how many ranked skills are looked at for one that continues the moves
POOL = 50


def moves_in(query: str) -> list[str]:
    """The SAN moves the query plays from the initial position, in order: the legal prefix
    of the moves it writes, when that is at least ``MIN_PLIES`` long; else []."""
    tokens = san_tokens(query)
    if len(tokens) < MIN_PLIES:
        return []
    board, played = chess.Board(), []
    for san in tokens:
        try:
            board.push_san(san)
        except ValueError:
            break
        played.append(san)
    return played if len(played) >= MIN_PLIES else []


def continues(skill_text: str, moves: list[str]) -> bool:
    """Whether a skill's own moves hold ``moves`` in sequence."""
    return in_sequence(san_tokens(skill_text), moves)


def moves_first(hits: list, moves: list[str]) -> list:
    """Search hits with those whose skill (name and steps) continues ``moves`` first, each
    group in its order."""
    going_on = {id(h) for h in hits if continues(skill_body(h.row), moves)}
    return [h for h in hits if id(h) in going_on] + [h for h in hits if id(h) not in going_on]
