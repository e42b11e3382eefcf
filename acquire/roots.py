"""Which files an ingest may read: only regular files under the allowed roots, after symlinks
are resolved, never the store or the tokens file, and text no larger than the limit.

A caller who may ingest (a write token over HTTP) must not learn anything about the disk
outside the roots: a path outside them gets the same error whether it exists or not, and
nothing outside is opened, stat'ed or listed before the resolved path is known to be inside."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from tutorialbook.errors import TutorialbookError

HOW_TO_ALLOW = "the operator allows folders with `serve --allow-root DIR` or TUTORIALBOOK_ALLOWED_ROOTS"


def default_roots() -> tuple[str, ...]:
    """What a desktop user expects a local server to read: their home and the current folder."""
    return tuple(dict.fromkeys([str(Path.home()), os.getcwd()]))


@dataclass(frozen=True)
class SourcePolicy:
    """The allowed roots, the private paths inside them (the store, the tokens file) and the
    largest text file (checked by ``stat``, before a byte is read)."""

    roots: tuple[str, ...]
    private: tuple[str, ...] = ()
    max_text_bytes: int = 20 * 1024 * 1024
    #: media is bounded by its duration (acquire/media.py), everything else by ``max_text_bytes``
    media_extensions: frozenset[str] = field(default_factory=frozenset)
    _real_roots: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_real_roots", tuple(os.path.realpath(os.path.expanduser(r)) for r in self.roots))

    def _outside(self, given: str) -> TutorialbookError:
        if not self.roots:
            return TutorialbookError("source", f"{given!r}: this server reads no files (no allowed roots are set); "
                                               f"{HOW_TO_ALLOW}")
        return TutorialbookError("source", f"{given!r} is not under the allowed roots ({', '.join(self.roots)}); "
                                           f"{HOW_TO_ALLOW}")

    def _inside(self, real: str) -> bool:
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self._real_roots)

    def _private(self, real: str) -> bool:
        for path in self.private:
            private = os.path.realpath(os.path.expanduser(path))
            if real == private or real.startswith(private.rstrip(os.sep) + os.sep):
                return True
        return False

    def resolve(self, given: str) -> Path:
        """The real path of ``given`` if it is inside the roots (existing or not), else the
        one error every outside path gets."""
        real = os.path.realpath(os.path.abspath(os.path.expanduser(given)))
        if not self._inside(real) or self._private(real):
            raise self._outside(given)
        return Path(real)

    def check_file(self, given: str, real: Path, st: os.stat_result | None = None) -> Path:
        """A resolved path inside the roots that must be a regular file of readable size."""
        if st is None:
            try:
                st = os.stat(real)
            except FileNotFoundError:
                raise TutorialbookError("source", f"{given} does not exist") from None
            except OSError as exc:
                raise TutorialbookError("source", f"cannot read {given}: {exc.strerror}") from None
        if not stat.S_ISREG(st.st_mode):
            raise TutorialbookError("source", f"{given} is not a regular file (a device, FIFO or socket cannot be "
                                              "a tutorial)")
        if real.suffix.lower() not in self.media_extensions and st.st_size > self.max_text_bytes:
            raise TutorialbookError("source", f"{Path(given).name} is over {self.max_text_bytes / 2**20:g} MiB, "
                                              f"the limit for text (TUTORIALBOOK_MAX_TEXT_BYTES): it holds "
                                              f"{st.st_size / 2**20:.1f} MiB")
        return real

    def allows(self, real: Path) -> bool:
        """Whether a folder's entry (already resolved) may be read: inside, not private, regular."""
        if not self._inside(str(real)) or self._private(str(real)):
            return False
        try:
            return stat.S_ISREG(os.stat(real).st_mode)
        except OSError:
            return False

