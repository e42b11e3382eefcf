"""See: sample a video's frames for the readers that turn what is shown into facts with times
(the chess pack's board reader, the screen-text reader).

Frames are decoded with PyAV (already a dependency of faster-whisper), scaled down so their
longer side is at most ``max_side`` pixels, taken at most ``fps`` times a second, and — with
``on_change`` — only when the picture differs from the last frame kept, so a static screen
costs one frame. A stream that cannot be decoded past some point ends the iteration and
leaves a warning in ``FrameStats.warnings``: what was read before is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import av
import numpy as np


@dataclass(frozen=True)
class Frame:
    """One sampled picture: seconds from the start of the media, RGB pixels (H x W x 3, uint8)."""

    time: float
    image: np.ndarray


@dataclass
class FrameStats:
    """What sampling did, for the ingest report."""

    decoded: int = 0
    kept: int = 0
    warnings: list[str] = field(default_factory=list)


def has_video(path: str | Path) -> bool:
    """True when the file holds a video stream (an audio-only file has nothing to see; a text
    file, which FFmpeg's tty demuxer would play as a picture of its characters, neither)."""
    try:
        with av.open(str(path), mode="r", metadata_errors="ignore") as container:
            return container.format.name != "tty" and any(s.type == "video" for s in container.streams)
    except av.error.FFmpegError:
        return False


def _blocks(image: np.ndarray, block: int = 8) -> np.ndarray:
    """Grey block means (block x block pixels each): a change of a few characters of text moves
    some block by tens of grey levels, while compression noise averages out. (Integer sums along
    rows, then columns: a tenth of the time of float means over the colour axis, which cost
    ~40 ms a 720p frame.)"""
    h, w = image.shape[:2]
    h, w = h - h % block, w - w % block
    sums = image[:h, :w].reshape(h // block, block, w // block, block, 3).sum(axis=(1, 3, 4), dtype=np.uint32)
    return sums.astype(np.float32) / (3 * block * block)  # one integer pass: the frame costs it at every sample


def sample_frames(
    path: str | Path,
    fps: float = 2.0,
    max_side: int | None = 1280,
    on_change: bool = True,
    change_threshold: float = 12.0,
    stats: FrameStats | None = None,
    cancel=None,
) -> Iterator[Frame]:
    """Yield frames at most ``fps`` a second (by presentation time). With ``on_change`` a frame
    is yielded only when some 8x8 block's mean grey level differs from the last yielded frame's
    by more than ``change_threshold`` (the first frame always). ``cancel()`` returning
    true stops the iteration."""
    stats = stats if stats is not None else FrameStats()
    step = 1.0 / fps if fps > 0 else 0.0
    next_time = 0.0
    last: np.ndarray | None = None
    try:
        container = av.open(str(path), mode="r", metadata_errors="ignore")
    except av.error.FFmpegError as exc:
        stats.warnings.append(f"frames: cannot open {Path(path).name}: {exc}")
        return
    with container:
        streams = [s for s in container.streams if s.type == "video"]
        if not streams:
            return
        stream = cast("av.VideoStream", streams[0])  # type == "video": av.open gives a VideoStream
        stream.thread_type = "AUTO"
        decoded_to = 0.0
        try:
            for frame in container.decode(stream):
                if cancel is not None and cancel():
                    return
                stats.decoded += 1
                t = float(frame.time) if frame.time is not None else stats.decoded / float(stream.average_rate or 25)
                decoded_to = t
                if t + 1e-6 < next_time:
                    continue
                next_time = t + step
                if max_side and max(frame.width, frame.height) > max_side:
                    scale = max_side / max(frame.width, frame.height)
                    frame = frame.reformat(width=int(frame.width * scale) // 2 * 2,
                                           height=int(frame.height * scale) // 2 * 2, format="rgb24")
                image = frame.to_ndarray(format="rgb24")  # scaled and converted in one pass above
                if on_change:
                    thumb = _blocks(image)
                    if last is not None and last.shape == thumb.shape \
                            and float(np.abs(thumb - last).max()) <= change_threshold:
                        continue
                    last = thumb
                stats.kept += 1
                yield Frame(t, image)
        except av.error.FFmpegError as exc:
            stats.warnings.append(
                f"frames: {Path(path).name} could not be decoded past {next_time:.1f} s ({exc}); "
                "what was read before is kept"
            )
            return
        length = _length(container, stream)
        if length is not None and stats.decoded and decoded_to < length - 1.0:  # a file cut short ends quietly
            stats.warnings.append(
                f"frames: {Path(path).name} could not be decoded past {decoded_to:.1f} s of {length:.1f} s; "
                "what was read before is kept"
            )


def _length(container, stream) -> float | None:
    """The video's length as its header states it (None when it does not)."""
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    return container.duration / 1_000_000 if container.duration else None
