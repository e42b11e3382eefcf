"""History of a store: who wrote what, when; restoring a book; reverting one lesson or one
skill edit.

* **Events** — every write a Library makes on behalf of an agent (an ingest, a lesson, a
  revert, a restore) appends one row to the ``events`` table: when, which agent, what
  action on which row, a one-line summary, the table versions the write produced, and —
  where a later revert needs it — the *before-image* of the rows it changed. The table is
  append-only: nothing rewrites or restores it. LanceDB's own version list says *when* a
  table changed but not *who* changed it, hence this table.

  The event is committed right after the data it describes (two tables cannot share one
  commit); an ingest writes its event before the tutorial's 'ready' marker, so a visible
  tutorial always has one, and an interrupted refinement or import still writes the event of
  what it wrote. A writer killed between data and event leaves the data without its event;
  for lessons :func:`history` fills such a gap from the lesson row itself, which carries its
  agent and time. Rolling back an abandoned commit is an event too (``rollback``).

* **Restore** (:func:`restore`) puts *one book* back as it was at a moment: for every table,
  the book's rows as the undo log (memory/undo.py) says they were then replace the book's rows
  now, in one commit per table (other books' rows are untouched); the restored tutorials keep
  their exam questions, later ones included (see :func:`_keep_finished`). The log reaches back
  as far as retention keeps it (7 days by default, memory/retention.py), whatever happened to
  the table versions. Restore is itself logged, so it can be undone the same way.

* **Revert** works on one row and keeps every later, unrelated write:
  :func:`revert_lesson` removes a lesson and takes back the helpful/harmful counts its
  recordings gave; :func:`revert_skill` puts a skill's content (name, steps, evidence, ...)
  back to an earlier version of that row — a new version, with later feedback counts kept —
  using the before-images in the events, or, for edits made where no event kept one, those
  of the undo log.
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, Field

from tutorialbook.errors import NotFound, TutorialbookError
from tutorialbook.memory.schemas import SCHEMAS
from tutorialbook.memory.rows import decode, detail_of, dumps, image, iso
from tutorialbook.memory import undo
from tutorialbook.memory.store import Store
from tutorialbook.memory.where import in_list, quote

EVENTS = "events"
#: skill columns a revert puts back; counts (helpful, harmful) and identity stay as they are now
SKILL_CONTENT = ("node_id", "name", "when_to_use", "steps", "evidence", "sources", "author", "origin", "text", "vector")


class HistoryEvent(BaseModel):
    id: str
    book: str
    at: float = Field(description="epoch seconds")
    time: str = Field(description="UTC, ISO 8601")
    agent: str
    action: str = Field(description="ingest, lesson, revert-lesson, revert-skill, restore, ...")
    target: str = Field(description="the row the write was about: tutorial, lesson, skill id or the book")
    summary: str
    versions: dict[str, int] = Field(default_factory=dict, description="table -> version this write produced")
    detail: dict[str, Any] = Field(default_factory=dict)
    logged: bool = Field(True, description="False: rebuilt from the row itself (its writer stopped before logging)")


class RevertReport(BaseModel):
    kind: str
    id: str
    book: str
    agent: str
    from_version: int | None = None
    to_version: int | None = None
    new_version: int | None = None
    feedback_undone: dict[str, dict[str, int]] = Field(default_factory=dict)
    event_id: str


class TableRestore(BaseModel):
    table: str
    writes_undone: int = Field(description="logged writes to the table since the moment that were taken back")
    rows_before: int
    rows_after: int
    new_version: int | None = Field(description="version the restore committed; None when nothing changed")


class RestoreReport(BaseModel):
    book: str
    at: float
    time: str
    agent: str
    tables: list[TableRestore]
    event_id: str


def book_tables() -> list[str]:
    """Every table whose rows belong to a book (all but the events)."""
    return [name for name, schema in SCHEMAS.items() if name != EVENTS and "book" in schema.names]


def event(*, book: str, agent: str, action: str, target: str, summary: str,
          versions: dict[str, int | None] | None = None, detail: dict | None = None,
          at: float | None = None) -> dict:
    at = time.time() if at is None else at
    return {
        "id": f"e_{int(at * 1e6):014x}_{uuid.uuid4().hex[:8]}", "book": book, "at": at, "agent": agent,
        "action": action, "target": target, "summary": summary[:300],
        "versions": dumps({k: v for k, v in (versions or {}).items() if v is not None}),
        "detail": dumps(detail or {}),
    }


def record(store: Store, rows: list[dict]) -> None:
    """Append events (one commit for the lot)."""
    if rows:
        store.insert(EVENTS, rows)


def version_of(result: Any) -> int | None:
    return getattr(result, "version", None)


# -- reading -------------------------------------------------------------------------------

def history(store: Store, book: str, limit: int | None = None, action: str | None = None,
            target: str | None = None) -> list[HistoryEvent]:
    """The book's events, newest first (lessons whose event never got written included)."""
    where = f"book = {quote(book)}"
    if action:
        where += f" AND action = {quote(action)}"
    if target:
        where += f" AND target = {quote(target)}"
    out = [_view(r) for r in store.rows(EVENTS, where)]
    if action in (None, "lesson"):
        logged = {e.target for e in out if e.action == "lesson"}
        lesson_where = f"book = {quote(book)}" + (f" AND id = {quote(target)}" if target else "")
        for row in store.rows("lessons", lesson_where, ["id", "agent", "created_at", "text", "skill_id", "node_id"]):
            if row["id"] not in logged:
                out.append(HistoryEvent(
                    id="row:" + row["id"], book=book, at=row["created_at"], time=iso(row["created_at"]),
                    agent=row["agent"], action="lesson", target=row["id"],
                    summary=f"lesson {_quote_short(row['text'])} (from the lesson row; no event was logged)",
                    logged=False,
                ))
    out.sort(key=lambda e: (e.at, e.id), reverse=True)
    return out[:limit] if limit else out


def _view(row: dict) -> HistoryEvent:
    detail = detail_of(row)
    return HistoryEvent(
        id=row["id"], book=row["book"], at=row["at"], time=iso(row["at"]), agent=row["agent"],
        action=row["action"], target=row["target"], summary=row["summary"],
        versions=decode(row["versions"], "{}"), detail=_strip_vectors(detail),
    )


def _strip_vectors(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_vectors(v) for k, v in value.items() if k != "vector"}
    if isinstance(value, list):
        return [_strip_vectors(v) for v in value]
    return value


def _quote_short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= n else text[: n - 1] + "…")


def find_event(store: Store, event_id: str) -> dict:
    row = store.get(EVENTS, event_id)
    if row is None:
        raise NotFound("event", f"no event {event_id!r}; `tutorialbook history --book BOOK` lists them")
    return row


# -- lessons -------------------------------------------------------------------------------

def lesson_event(book: str, agent: str, row: dict, merged: bool, feedback: list[tuple[str, str]],
                 version: int | None, at: float) -> dict:
    where = f"skill {row['skill_id']}" if row["skill_id"] else f"node {row['node_id']}"
    verb = f"merged (x{row['merged_count']})" if merged else "recorded"
    summary = f"{verb} {row['outcome']} lesson on {where}: {_quote_short(row['text'])}"
    if feedback:
        summary += "; feedback " + ", ".join(f"{v} {s}" for s, v in feedback)
    return event(book=book, agent=agent, action="lesson", target=row["id"], summary=summary,
                 versions={"lessons": version}, at=at,
                 detail={"merged": merged, "outcome": row["outcome"], "feedback": [list(f) for f in feedback]})


def revert_lesson(store: Store, lesson_id: str, agent: str) -> RevertReport:
    """Remove a lesson and take back the helpful/harmful counts its recordings gave."""
    row = store.get("lessons", lesson_id)
    if row is None:
        raise NotFound("lesson_id", f"no lesson {lesson_id!r}")
    book = row["book"]
    with store.lock("lessons"):  # an identical lesson recorded now either merges first or inserts after
        row = store.get("lessons", lesson_id)
        if row is None:
            raise NotFound("lesson_id", f"no lesson {lesson_id!r}")
        deleted = store.delete("lessons", f"id = {quote(lesson_id)}")
    # feedback given by the recordings since the lesson was last reverted
    mine = sorted(store.rows(EVENTS, f"target = {quote(lesson_id)}"), key=lambda r: r["at"])
    since = [e for e in mine if e["action"] == "lesson"]
    reverted = [e["at"] for e in mine if e["action"] == "revert-lesson"]
    if reverted:
        since = [e for e in since if e["at"] > max(reverted)]
    undo: dict[str, dict[str, int]] = {}
    for e in since:
        for skill_id, verdict in detail_of(e).get("feedback", []):
            column = "helpful" if verdict == "helpful" else "harmful"
            undo.setdefault(skill_id, {}).setdefault(column, 0)
            undo[skill_id][column] += 1
    for skill_id, columns in undo.items():
        store.update_sql("skills", f"id = {quote(skill_id)}", {
            c: f"greatest({c} - {n}, 0)" for c, n in columns.items()})
    ev = event(book=book, agent=agent, action="revert-lesson", target=lesson_id,
               summary=f"removed lesson {_quote_short(row['text'])}"
                       + (f"; took back feedback on {len(undo)} skill(s)" if undo else ""),
               versions={"lessons": version_of(deleted)},
               detail={"before": image(row), "feedback_undone": undo})
    record(store, [ev])
    return RevertReport(kind="lesson", id=lesson_id, book=book, agent=agent, feedback_undone=undo, event_id=ev["id"])


# -- skills --------------------------------------------------------------------------------

def skill_images(store: Store, skill_id: str, want: int | None = None) -> dict[int, dict]:
    """Known versions of one skill row: version -> row image. From the events' before-images
    first; if ``want`` is not among them, from the undo log's."""
    found: dict[int, dict] = {}
    for e in store.rows(EVENTS, f"detail LIKE {quote('%' + skill_id + '%')}", ["detail"]):
        detail = detail_of(e)
        for img in detail.get("skills_before", []) + ([detail["before"]] if "before" in detail else []):
            if img.get("id") == skill_id and "version" in img:
                found.setdefault(int(img["version"]), img)
    if want is not None and want not in found:  # an edit no event imaged: the undo log has it
        for img in undo.images_of(store, "skills", skill_id):
            if "version" in img:
                found.setdefault(int(img["version"]), image(img))
    return found


def revert_skill(store: Store, skill_id: str, to_version: int | None, agent: str) -> RevertReport:
    """Put a skill's content back to an earlier version of that row, as a new version."""
    current = store.get("skills", skill_id)
    if current is None:
        raise NotFound("skill_id", f"no skill {skill_id!r}")
    now_version = int(current["version"])
    if to_version is None:
        to_version = now_version - 1
    if to_version < 1:
        raise TutorialbookError(
            "version", f"skill {skill_id!r} has only version {now_version}; nothing earlier to revert to"
        )
    if to_version >= now_version:
        raise TutorialbookError("version", f"skill {skill_id!r} is at version {now_version}; name an earlier one")
    images = skill_images(store, skill_id, to_version)
    if to_version not in images:
        known = ", ".join(str(v) for v in sorted(images)) or "none"
        raise NotFound("version", f"no record of version {to_version} of skill {skill_id!r} "
                                  f"(recorded versions: {known}; the undo log keeps edits for the restore window only)")
    target = images[to_version]
    values = {k: target[k] for k in SKILL_CONTENT if k in target}
    if values.get("node_id") and not store.get("nodes", values["node_id"]):
        values.pop("node_id")  # its node is gone since: keep the skill where it is now
    values.update(version=now_version + 1, updated_at=time.time())
    result = store.update("skills", f"id = {quote(skill_id)} AND version = {now_version}", values)
    if not getattr(result, "rows_updated", 1):
        raise TutorialbookError("skill_id", f"skill {skill_id!r} changed while reverting (now past version "
                                            f"{now_version}); look at its history and try again")
    ev = event(book=current["book"], agent=agent, action="revert-skill", target=skill_id,
               summary=f"skill {current['name']!r}: version {now_version} -> content of version {to_version} "
                       f"(now version {now_version + 1}; helpful/harmful kept)",
               versions={"skills": version_of(result)},
               detail={"before": image(current), "to_version": to_version})
    record(store, [ev])
    return RevertReport(kind="skill", id=skill_id, book=current["book"], agent=agent, from_version=now_version,
                        to_version=to_version, new_version=now_version + 1, event_id=ev["id"])


def ingest_event(book: str, agent: str, report, skills_before: list[dict], versions: dict[str, int | None],
                 added_skills: list[str]) -> dict:
    summary = (f"ingested {report.title!r} ({report.segments} segments): nodes +{report.nodes_added} "
               f"~{report.nodes_updated}, skills +{report.skills_added} ~{report.skills_updated}")
    return event(book=book, agent=agent, action="ingest", target=report.tutorial_id, summary=summary,
                 versions=versions, detail={"skills_before": [image(r) for r in skills_before],
                                            "skills_added": added_skills, "source": report.source})


def skills_before(store: Store, ids: list[str]) -> list[dict]:
    """Stored rows of skills about to be rewritten (the before-images a revert needs)."""
    return [image(r) for r in store.rows("skills", in_list("id", ids))] if ids else []


# -- restore -------------------------------------------------------------------------------

def resolve_time(store: Store, book: str, to: str | None, at: float | str | None) -> float:
    """The moment to restore to: an event id (just after it) or a time (epoch seconds or ISO 8601)."""
    if (to is None) == (at is None):
        raise TutorialbookError("to", "name either an event id (to) or a time (at)")
    if to is not None:
        row = find_event(store, to)
        if row["book"] != book:
            raise NotFound("event", f"event {to!r} is not in book {book!r}")
        return float(row["at"])
    assert at is not None  # exactly one of to and at, checked above
    if isinstance(at, (int, float)):
        return float(at)
    try:
        return float(at)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(str(at).replace("Z", "+00:00"))
    except ValueError as exc:
        raise TutorialbookError("at", f"{at!r} is neither epoch seconds nor an ISO 8601 time") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def restore(store: Store, book: str, moment: float, agent: str) -> RestoreReport:
    """Put the book's rows in every table back as they were at ``moment`` (from the undo log)."""
    undo.check_reach(store, moment)
    where = f"book = {quote(book)}"
    now = {name: store.rows(name, where) for name in book_tables()}
    then, undone = {}, {}
    for name in book_tables():  # everything read first: a bad point in time fails before any write
        then[name], undone[name] = undo.rows_at(store, name, book, moment, now[name])
    if not then.get("books"):
        raise TutorialbookError("at", f"book {book!r} did not exist at {iso(moment)}; "
                                      "`tutorialbook history` shows its first event")
    _keep_finished(store, where, then)
    tables = []
    for name in book_tables():
        rows, before = then[name], len(now[name])
        if _same(rows, now[name]):
            tables.append(TableRestore(table=name, writes_undone=undone[name], rows_before=before, rows_after=before,
                                       new_version=None))
            continue
        result = store.replace(name, where, rows)
        tables.append(TableRestore(table=name, writes_undone=undone[name], rows_before=before, rows_after=len(rows),
                                   new_version=version_of(result)))
    changed = [t for t in tables if t.new_version is not None]
    ev = event(book=book, agent=agent, action="restore", target=book,
               summary=f"restored the book to {iso(moment)}: " + (
                   ", ".join(f"{t.table} {t.rows_before}->{t.rows_after} rows" for t in changed) or "nothing differed"),
               versions={t.table: t.new_version for t in changed},
               detail={"at": moment, "writes_undone": {t.table: t.writes_undone for t in tables}})
    record(store, [ev])
    return RestoreReport(book=book, at=moment, time=iso(moment), agent=agent, tables=tables, event_id=ev["id"])


def _keep_finished(store: Store, where: str, then: dict[str, list[dict]]) -> None:
    """What a restore keeps beyond the rows of its moment:

    * a tutorial whose ingest event is at or before the moment but whose 'ready' marker was
      committed just after it (the event is written first) comes back ready, as it is now;
    * every tutorial the restored book holds keeps its exam questions, the ones harvested
      after the moment (refinement runs after the commit, later tutorials' refinements
      re-ask stored questions) included: the exam is how a restore is checked."""
    now_tutorials = {r["id"]: r for r in store.rows("tutorials", where)}
    fixed = []
    for row in then.get("tutorials", []):
        current = now_tutorials.get(row["id"])
        if row["status"] != "ready" and current is not None and current["status"] == "ready":
            row = image(current)
        fixed.append(row)
    if "tutorials" in then:
        then["tutorials"] = fixed
    if "questions" in then:
        kept = {r["id"] for r in fixed}
        have = {r["id"] for r in then["questions"]}
        then["questions"] += [image(r) for r in store.rows("questions", where)
                              if r["tutorial_id"] in kept and r["id"] not in have]


def _same(then: list[dict], now: list[dict]) -> bool:
    if len(then) != len(now):
        return False
    by_id = {r["id"]: image(r) for r in now}
    return all(by_id.get(r["id"]) == r for r in then)
