"""Read the screen: the text a video shows (terminal commands, code, slides), each distinct
text with the time span it was visible and a cheap guess at what it is.

Keyframes come from the shared sampler (``frames.sample_frames``, on change, at most ``fps`` a
second). Each keyframe is cut into text lines (``ocr.regions``); a line whose pixels did not
change since the previous keyframe keeps its earlier reading, so a terminal that grows by one
command costs one line of OCR, and text that stays on screen is one text however many frames
show it. A video that shows no text costs a few keyframes: after ``max_empty`` keyframes in a
row without text (before any was found) the reader stops and says so.
"""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from tutorialbook.acquire import ocr
from tutorialbook.acquire.frames import FrameStats, has_video, sample_frames
from tutorialbook.acquire.media import MEDIA_EXTENSIONS
from tutorialbook.acquire.transcript import ScreenText, Transcript

FPS = 2.0  # keyframes a second at most: a text's times are known to half a second
MAX_EMPTY = 5  # keyframes in a row without text, before any, that stop the reader
SAME_PIXELS = 4.0  # mean grey difference under which a line's pixels count as unchanged
TITLE_RATIO = 1.25  # a slide title's line is this much taller than the slide's other lines

#: a shell prompt: "$ ", "% ", "❯ ", "user@host:~/dir$ ", "(venv) $ ", "PS C:\dir> "
PROMPT = re.compile(
    r"^(?:\([\w.-]+\)\s*)?(?:(?:[\w.-]+@[\w.-]+(?::\S*?)?\s?[$#%>])|[$%❯➜]|PS [A-Z]:\\[^>]*>)\s+(?=\S)"
)
_CODE_START = re.compile(
    r"^(?:def|class|return|import|from|function|const|let|var|if|elif|else|for|while|try|except|"
    r"fn|pub|func|package|#include|public|private|static|async|await|SELECT|INSERT|UPDATE|CREATE)\b"
)
_CODE_END = re.compile(r"[:;{}(\[,]$|^[)}\]]")
_CODE_INNER = re.compile(r"\w\(.*\)|\s=\s|==|=>|->|\w\.\w+\(|\[\w*\]")
_BULLET = re.compile(r"^\s*(?:[•●▪◦·*\-–»>¢©«]|\d+[.)])\s+")  # Tesseract reads • as ¢ or «


@dataclass
class ScreenReading:
    """What reading a video's screen found and what it cost, for the ingest report."""

    texts: list[ScreenText] = field(default_factory=list)
    keyframes: int = 0
    lines_read: int = 0  # lines sent to Tesseract (lines that did not change are not)
    stopped_at: float | None = None  # when the reader gave up on a textless video
    last_time: float = 0.0  # the last keyframe's time
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.stopped_at is not None:
            return (f"no text on screen in the first {self.keyframes} keyframes: screen reading stopped at "
                    f"{clock(self.stopped_at)} ({self.seconds:.1f} s)")
        return (f"{len(self.texts)} screen texts from {self.keyframes} keyframes "
                f"({self.lines_read} lines read, {self.seconds:.1f} s)")


@dataclass
class _Seen:
    line: ocr.Line
    kind: str
    text: str
    start: float
    last: float
    order: int


def read_screen(path: str | Path, duration: float | None = None, fps: float = FPS, max_empty: int = MAX_EMPTY,
                cancel=None) -> ScreenReading:
    """The distinct texts a video shows, with their spans. Raises ``ocr.OcrUnavailable`` when
    Tesseract is missing (the caller warns and goes on without the screen)."""
    reading = ScreenReading()
    clock_start = time.perf_counter()
    if not has_video(path):
        return reading
    ocr._api()  # fail before decoding anything when Tesseract is missing
    stats = FrameStats()
    active: dict[str, _Seen] = {}
    done: list[_Seen] = []
    previous: tuple[np.ndarray, dict[tuple, ocr.Line | None]] | None = None
    empty = 0
    found = False
    last_time = 0.0
    order = 0
    for frame in sample_frames(path, fps=fps, stats=stats, cancel=cancel):
        reading.keyframes += 1
        last_time = frame.time
        gray = ocr.grey(frame.image)
        lines, boxes, read = _lines(gray, previous)
        reading.lines_read += read
        previous = (gray, boxes)
        if not lines:
            empty += 1
            if not found and empty >= max_empty:
                reading.stopped_at = frame.time
                break
        else:
            empty, found = 0, True
        keys = set()
        for line, kind, text in _classify(lines):
            key = f"{kind}\x1f{' '.join(text.split())}"
            keys.add(key)
            if key in active:
                active[key].last = frame.time
            else:
                active[key] = _Seen(line, kind, text, frame.time, frame.time, order)
                order += 1
        for key in [k for k in active if k not in keys]:
            seen = active.pop(key)
            seen.last = frame.time  # visible until this keyframe replaced it
            done.append(seen)
    reading.last_time = last_time
    end = max(last_time, duration or 0.0)
    for seen in active.values():
        seen.last = end
        done.append(seen)
    reading.texts = _blocks(done)
    reading.warnings = stats.warnings
    reading.seconds = round(time.perf_counter() - clock_start, 3)
    return reading


class ScreenJob:
    """A video's screen read on a worker thread while its speech is transcribed (the two
    overlap well on two cores: Whisper leaves a core idle for much of its run). One worker for
    the process, so its Tesseract engine is loaded once. Dropping the job (an ingest that
    failed) stops the reading at the next keyframe. ``yield_to()`` returning a reason stops it
    too, and nothing it read is kept: another reader (the chess pack's board reader) reads what
    the screen shows, and its text would be the board's coordinates and captions of the speech."""

    _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="screen")

    def __init__(self, path: str | Path, cancel=None, yield_to=None):
        stop = self._stop = threading.Event()
        self._cancel = cancel  # polled on the caller's thread only (an MCP call's check must be)
        self._yield_to = yield_to or (lambda: "")
        self._future = None
        if Path(path).suffix.lower() in MEDIA_EXTENSIONS and has_video(path):
            def stopped() -> bool:
                return stop.is_set() or bool(self._yield_to())
            self._future = self._pool.submit(read_screen, path, None, FPS, MAX_EMPTY, stopped)

    def __del__(self):
        self._stop.set()

    def into(self, transcript: Transcript) -> str:
        """Put what was read into ``transcript.screen`` (texts still shown at the last keyframe
        last until the media ends); returns the line the ingest report shows. Without
        Tesseract the transcript stays as heard, with a warning saying how to install it.
        Cancelled meanwhile: the reading stops and nothing is put."""
        if self._future is None or not transcript.timed:
            self._stop.set()
            return ""
        while True:
            try:
                reading = self._future.result(timeout=0.25)
                break
            except FutureTimeout:
                if self._cancel is not None and self._cancel():
                    self._stop.set()
                    return ""
            except ocr.OcrUnavailable as exc:
                transcript.warnings.append(f"screen not read: {exc}")
                return "not read: Tesseract is not installed"
        if self._yield_to():
            return f"not read: {self._yield_to()}"
        end = max(transcript.duration, reading.last_time)
        transcript.screen = [replace(t, end=round(end, 2)) if t.end >= reading.last_time - 1e-6 else t
                             for t in reading.texts]
        transcript.warnings.extend(reading.warnings)
        return reading.summary()


def _lines(gray: np.ndarray, previous: tuple[np.ndarray, dict[tuple, ocr.Line | None]] | None
           ) -> tuple[list[ocr.Line], dict[tuple, ocr.Line | None], int]:
    """The frame's text lines, top to bottom; what each region held (a line, or None when it
    was not text); and how many regions had to be read — the others are where the previous
    keyframe had the same pixels, and keep its reading."""
    lines: list[ocr.Line] = []
    boxes: dict[tuple, ocr.Line | None] = {}
    read = 0
    for box in ocr.regions(gray):
        x, y, w, h = box
        if previous is not None and box in previous[1] and previous[0].shape == gray.shape:
            before = previous[0][y:y + h, x:x + w].astype(np.int16)
            if float(np.abs(before - gray[y:y + h, x:x + w]).mean()) < SAME_PIXELS:
                boxes[box] = kept = previous[1][box]
                if kept is not None:
                    lines.append(kept)
                continue
        read += 1
        boxes[box] = line = ocr.read_box(gray, box)
        if line is not None:
            lines.append(line)
    return lines, boxes, read


def _classify(lines: list[ocr.Line]) -> list[tuple[ocr.Line, str, str]]:
    """Each line of one keyframe with its kind and its text (a command without its prompt)."""
    prompts = [bool(PROMPT.match(line.text)) for line in lines]
    terminal = any(prompts)
    heights = [line.box[3] for line in lines]
    out = []
    for n, line in enumerate(lines):
        text = line.text
        if prompts[n]:
            out.append((line, "command", PROMPT.sub("", text, count=1).strip()))
        elif looks_like_code(text):
            out.append((line, "code", text))
        elif terminal:
            out.append((line, "output", text))
        elif len(lines) > 1 and n == 0 and heights[0] >= TITLE_RATIO * float(np.median(heights[1:])):
            out.append((line, "title", text))
        elif _BULLET.match(text) or (out and out[0][1] == "title"):
            out.append((line, "bullets", _BULLET.sub("", text)))
        else:
            out.append((line, "text", text))
    return out


def looks_like_code(text: str) -> bool:
    """A statement opener, or a call/assignment/operator in a line that does not end like prose."""
    return bool(_CODE_START.match(text) or _CODE_INNER.search(text) and not re.search(r"[.!?]$", text))


def _blocks(seen: list[_Seen]) -> list[ScreenText]:
    """Lines into screen texts: a command is one; lines of code, output or bullets that came
    and went together (same keyframes, next to each other) are one block."""
    seen = sorted(seen, key=lambda s: (s.start, s.line.box[1], s.order))
    out: list[ScreenText] = []
    group: list[_Seen] = []

    def flush() -> None:
        if group:
            out.append(ScreenText(round(group[0].start, 2), round(max(g.last for g in group), 2),
                                  "\n".join(g.text for g in group), group[0].kind))
            group.clear()

    for item in seen:
        joins = (group and item.kind == group[-1].kind and item.kind != "command" and item.kind != "title"
                 and abs(item.start - group[-1].start) < 1e-6 and abs(item.last - group[-1].last) < 1e-6)
        if not joins:
            flush()
        group.append(item)
    flush()
    return sorted(out, key=lambda s: (s.start, s.end))


def clock(seconds: float) -> str:
    """m:ss (h:mm:ss past an hour), as evidence shows times."""
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
