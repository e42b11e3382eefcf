"""The position index read back: what the tutorials teach at a position, found by its EPD
(so transpositions meet), walking back through the moves when the exact position was never
discussed."""

from __future__ import annotations

import json

import chess

from tutorialbook.memory.store import in_list, quote
from tutorialbook.models import Evidence, SkillBrief, Taught, TaughtMove

KIND_ORDER = {"recommend": 0, "avoid": 1, "move": 2}


def rows_at(library, epd: str, book: str = "") -> list[dict]:
    where = f"epd = {quote(epd)}" + (f" AND book = {quote(book)}" if book else "")
    return library.store.rows("positions", where)


def taught_at(library, board: chess.Board, book: str = "") -> Taught:
    board = board.copy()
    for back in range(len(board.move_stack) + 1):
        rows = rows_at(library, board.epd(), book)
        if rows:
            return Taught(at="this position" if back == 0 else "earlier position", plies_back=back,
                          fen=board.fen(), moves=_taught_moves(library, rows))
        if not board.move_stack:
            break
        board.pop()
    return Taught(at="nothing found")


def _taught_moves(library, rows: list[dict]) -> list[TaughtMove]:
    tutorials = {t["id"]: t for t in library.store.rows("tutorials", in_list("id", {r["tutorial_id"] for r in rows}))}
    seen, out = set(), []
    for row in sorted(rows, key=lambda r: (KIND_ORDER.get(r["kind"], 3), r["start"])):
        key = (row["move_san"], row["kind"], row["tutorial_id"])
        tutorial = tutorials.get(row["tutorial_id"])
        if key in seen or tutorial is None or tutorial["status"] != "ready":
            continue
        seen.add(key)
        link = _link(tutorial, row["start"])
        out.append(TaughtMove(
            move_san=row["move_san"], kind=row["kind"], reason=row["reason"], quote=row["quote"],
            node_id=row["node_id"], skill_id=row["skill_id"],
            evidence=Evidence(tutorial_id=row["tutorial_id"], tutorial_title=tutorial["title"], start=row["start"],
                              end=row["end"], quote=row["quote"], timed=tutorial["timed"], link=link),
        ))
    return out


def _link(tutorial: dict, start: float) -> str:
    from pathlib import Path

    uri = Path(tutorial["source"]).as_uri() if tutorial["source"].startswith("/") else tutorial["source"]
    return f"{uri}#t={int(start)}" if tutorial["timed"] else uri


def skill_ids(taught: Taught) -> list[str]:
    return list(dict.fromkeys(m.skill_id for m in taught.moves if m.skill_id))


def related_skills(library, taught: Taught, opening, book: str) -> list[SkillBrief]:
    """Skills tied to the taught moves, then (with a book) skills about the opening."""
    ids = skill_ids(taught)
    rows = library.store.rows("skills", in_list("id", ids)) if ids else []
    rows.sort(key=lambda r: ids.index(r["id"]))
    if book and opening is not None:
        found = library.retrieve(opening.name, book, k=3, mode="hybrid").skills
        rows += [library.store.get("skills", s.id) for s in found if s.id not in ids]
    return [SkillBrief(**{k: r[k] for k in SkillBrief.model_fields}) for r in rows if r]
