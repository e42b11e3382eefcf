"""The board and the narration, one record: the board says which moves were played and when, the
narration says why, what to play or avoid, and covers the lines only talked about.

Board moves become the lesson's events, timed by when their position was on screen, quoted by
what was being said then. A spoken move on a position the board showed is matched to the board:
the same move lends its stance and reason; a different move said as played, or recommended while
the board plays another from there, is a disagreement — the board wins and the speech's reason
stays attached to the board's move. An alternative the narration branches off to ("instead of
Bc5, black can play Nf6"), a warning against a move the board does not play, and moves spoken
from positions the board never reached by a disagreement, are lines only talked about and are
kept from the speech.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tutorialbook.acquire.transcript import Segment
from .board_moves import BoardMove
from .events import MoveEvent

_NEAR = 8.0  # seconds around a position's time on screen in which speech about it counts


@dataclass
class Fusion:
    events: list[MoveEvent]
    from_board: int = 0
    from_speech: int = 0
    agreed: int = 0
    disagreements: int = 0


def _said_at(segments: list[Segment], t: float) -> Segment | None:
    before = [s for s in segments if s.start <= t + 0.05]
    return before[-1] if before else (segments[0] if segments else None)


def fuse(board: list[BoardMove], speech: list[MoveEvent], segments: list[Segment]) -> Fusion:
    """Board moves with the narration's stances and reasons, plus the speech-only lines."""
    by_place: dict[str, list[BoardMove]] = {}
    for move in board:
        by_place.setdefault(move.epd_before, []).append(move)
    played = {(m.epd_before, m.uci) for m in board}
    attached: dict[tuple[str, str], MoveEvent] = {}
    kept: list[MoveEvent] = []
    tainted: set[str] = set()  # positions reached only through a move the board contradicts
    fusion = Fusion([])
    lines_seen: set[int] = set()
    for ev in speech:
        key = (ev.epd_before, ev.uci)
        if key in played:
            lines_seen.add(ev.line)
            earlier = attached.get(key)
            if earlier is None or (earlier.kind == "move" and ev.kind != "move"):
                attached[key] = ev  # a stance said about the move wins over a plain mention
            fusion.agreed += 1
            continue
        if ev.epd_before in tainted:
            tainted.add(ev.epd_after)
            continue
        forks = ev.branch_of is not None and ev.line not in lines_seen  # "instead of ..., black can play"
        lines_seen.add(ev.line)
        shown = [m for m in by_place.get(ev.epd_before, []) if m.shown - _NEAR <= ev.start <= m.played + _NEAR]
        if shown and ev.kind in ("move", "recommend") and not forks:
            fusion.disagreements += 1
            tainted.add(ev.epd_after)
            if ev.kind == "recommend":  # the board's move keeps the narrator's reason
                target = (shown[0].epd_before, shown[0].uci)
                attached.setdefault(target, replace(ev, san=shown[0].san, uci=shown[0].uci))
            continue
        kept.append(ev)
    offset = max((m.line for m in board), default=0)
    events = []
    for move in board:
        said = attached.get((move.epd_before, move.uci))
        seg = _said_at(segments, move.played)
        quote = said.quote if said else (seg.text if seg else "")
        events.append(MoveEvent(
            line=move.line, ply=move.ply, san=move.san, uci=move.uci, epd_before=move.epd_before,
            epd_after=move.epd_after, start=move.shown, end=move.played, quote=quote,
            kind=said.kind if said else "move", reason=said.reason if said else "", branch_of=move.branch_of,
        ))
    for ev in kept:
        events.append(replace(ev, line=ev.line + offset,
                              branch_of=None if ev.branch_of is None else ev.branch_of + offset))
    fusion.events = events
    fusion.from_board = len(board)
    fusion.from_speech = len(kept)
    return fusion
