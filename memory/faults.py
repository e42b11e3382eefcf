"""Storage faults said plainly: a full disk and a damaged table become errors that name the
table and the fix, instead of a LanceDB traceback."""

from __future__ import annotations

import errno
import re

from tutorialbook.errors import TutorialbookError

#: what Lance's IO errors carry for a full disk ("No space left on device (os error 28)")
_FULL = ("no space left on device", f"os error {errno.ENOSPC}", "disk quota exceeded")
#: what they carry for a data file that is missing or cut short (a missing one: "Not found:
#: <table>.lance/data/<file>.lance"; a truncated one: "LanceError(IO): … failed to fill whole buffer")
_DAMAGE = ("lanceerror(io)", "unexpected eof", "failed to fill whole buffer", "corrupt")
_TABLE = re.compile(r"([A-Za-z_]+)\.lance[/\\]")


class StoreFull(TutorialbookError):
    """A write found no space on the store's device; nothing of it was committed."""


class StoreDamaged(TutorialbookError):
    """A table's data files are missing or cut short; reads of it fail until it is restored."""


def is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return any(marker in text for marker in _FULL)


def disk_full(uri: str, table: str) -> StoreFull:
    return StoreFull("store", f"no space left on the device holding {uri}: the write to table {table!r} "
                              "was not committed; free some space and try again (the store still opens and reads)")


def looks_damaged(exc: BaseException) -> bool:
    """An error LanceDB raises for a data file that is missing or cut short."""
    if isinstance(exc, TutorialbookError) or is_disk_full(exc):
        return False
    lower = str(exc).lower()
    missing = ("not found" in lower or "no such file" in lower) and ".lance" in lower
    return missing or any(marker in lower for marker in _DAMAGE)


def damaged(exc: BaseException, table: str | None = None, store=None) -> StoreDamaged | None:
    """The error to show for a read that failed on a table's files, or None when ``exc`` is
    something else. The table is the one named in LanceDB's message, else ``table``, else the
    ones a scan of ``store`` finds damaged."""
    if not looks_damaged(exc):
        return None
    text = str(exc)
    found = _TABLE.search(text)
    names = [found.group(1)] if found else [table] if table else []
    if not names and store is not None:
        names = [name for name, problem in verify(store).items() if problem]
    if not names:
        return None
    which = ", ".join(repr(n) for n in names)
    return StoreDamaged("store", f"table {which} is damaged: a data file is missing or truncated "
                                 f"({_short(text)}). Run `tutorialbook doctor`: it names the damaged table and "
                                 "the last version of it that reads, and how to restore that version")


def verify(store) -> dict[str, str]:
    """Every table of the store read through (a full scan): table -> '' when it reads, else
    what failed."""
    from tutorialbook.memory.schemas import SCHEMAS

    out = {}
    for name in SCHEMAS:
        try:
            scan_all(store.table(name))
            out[name] = ""
        except Exception as exc:  # noqa: BLE001 - each table's failure is reported, whatever it is
            out[name] = _short(str(exc), 300) or type(exc).__name__
    return out


def scan_all(table) -> int:
    """Read every row of a table handle, batch by batch (nothing kept); returns the row count."""
    from tutorialbook.memory import lance  # lazy: the server reports faults before LanceDB loads

    return lance.scan_all(table)


def last_readable(store, name: str) -> int | None:
    """The newest version of a table whose rows all read, or None."""
    for version, _ in reversed(store.version_history(name)):
        try:
            scan_all(store.open_at(name, version))
            return version
        except Exception:  # noqa: BLE001 - this version uses the damaged files too
            continue
    return None


def _short(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
