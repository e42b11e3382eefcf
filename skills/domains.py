"""Domain packs: what a field of knowledge adds to the domain-free core.

A pack may supply a vocabulary prompt for transcription, recognise its own tutorials, shape
the outline (chess: chapters by opening family, sections by variation) and index extra rows
(chess: positions). The general pack is the core's own behaviour.
"""

from __future__ import annotations

import threading
from importlib import import_module

from tutorialbook.skills import builder
from tutorialbook.skills.builder import OutlineNode, Plan, TutorialContext


class DomainPack:
    """The general pack; subclasses override what their domain knows better."""

    name = "general"
    initial_prompt: str | None = None
    decoding: dict | None = None
    """More faster-whisper options for this domain's speech (see `transcribe`)."""

    def recognises(self, text: str) -> bool:
        return False

    def outline(self, tutorial: TutorialContext) -> OutlineNode:
        return builder.outline(tutorial)

    def extra_rows(self, tutorial: TutorialContext, plan: Plan) -> dict[str, list[dict]]:
        """Rows for the pack's own tables, keyed by table name, committed with the tutorial."""
        return {}

    def watch(self, path, cancel=None) -> "Worker | None":
        """Start reading what a video shows on a worker beside transcription; None when the pack
        has nothing to look for in this source."""
        return None

    def seen(self, result) -> bool:
        """Take what the worker read (before `outline`); True when it showed this pack's domain."""
        return False

    def note(self, tutorial_id: str, report) -> None:
        """Add what the pack saw and did to the tutorial's report."""


class Worker(threading.Thread):
    """A function run on a daemon thread; `result()` waits for it (and re-raises its error).
    `fn` is given the worker's `claims_screen` event, which it sets once what it reads (a
    chessboard) is what the screen shows: the screen-text reader then stops (see `claimed`)."""

    _error: BaseException | None  # what `fn` raised, re-raised by result()

    def __init__(self, fn) -> None:
        super().__init__(daemon=True)
        self._fn, self._value, self._error = fn, None, None
        self.claims_screen = threading.Event()
        self.claim = ""
        """Why the screen is this worker's to read, for the ingest report."""
        self.start()

    def run(self) -> None:
        try:
            self._value = self._fn(self)
        except BaseException as exc:  # handed to the caller of result()
            self._error = exc

    def result(self):
        self.join()
        if self._error is not None:
            raise self._error
        return self._value


def watch(path, domain: str, cancel=None) -> list[tuple[DomainPack, Worker]]:
    """Start the frame readers of the packs a source may belong to (every pack under ``auto``)."""
    names = [n for n in PACKS if PACKS[n]] if domain == "auto" else [domain] if PACKS.get(domain) else []
    started = []
    for name in names:
        pack = get_pack(name)
        worker = pack.watch(path, cancel)
        if worker is not None:
            started.append((pack, worker))
    return started


def claimed(watching: list[tuple[DomainPack, Worker]]) -> str:
    """Why the screen needs no text reading ("" while no pack's worker claims it)."""
    return next((w.claim for _, w in watching if w.claims_screen.is_set()), "")


def see(pack: DomainPack | None, watching: list[tuple[DomainPack, Worker]]) -> DomainPack | None:
    """After transcription: each watching pack takes what its worker read. The pack chosen keeps
    its sight; with no pack chosen yet (``auto``), a pack whose domain was on screen is chosen."""
    chosen = pack
    for watcher, worker in watching:
        showed = watcher.seen(worker.result())
        if chosen is None and showed or (chosen is not None and chosen.name == watcher.name):
            chosen = watcher
    return chosen


#: domain name -> "module:Class" of its pack, imported on first use
PACKS = {"general": None, "chess": "tutorialbook.skills.chess.pack:ChessPack"}
DOMAINS = ("auto", *PACKS)


#: file suffix -> "module:function" of the domain reader for files only a pack understands
TEXT_READERS = {".pgn": "tutorialbook.skills.chess.pgn:read_pgn"}


def text_readers() -> dict:
    """The packs' readers (suffix -> reader of a file's text and name), imported on first use."""
    def reader(target: str):
        def read(text: str, name: str):
            module, _, fn = target.partition(":")
            return getattr(import_module(module), fn)(text, name)
        return read

    return {suffix: reader(target) for suffix, target in TEXT_READERS.items()}


def get_pack(name: str) -> DomainPack:
    target = PACKS[name]
    if target is None:
        return DomainPack()
    module, _, cls = target.partition(":")
    return getattr(import_module(module), cls)()


def recognise(text: str) -> DomainPack | None:
    """The first specialised pack that recognises the text (a title, a file name, a transcript)."""
    for name in PACKS:
        if name != "general":
            pack = get_pack(name)
            if pack.recognises(text):
                return pack
    return None
