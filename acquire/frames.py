"""See: sample a video's frames for the readers that turn what is shown into facts with times
(the chess pack's board reader, the screen-text reader).

Frames are decoded with PyAV (already a dependency of faster-whisper), taken at most ``fps``
times a second, and — with ``on_change`` — only when the picture differs from the last frame
kept, so a static screen costs one frame. A frame's RGB pixels (scaled so the longer side is at
most ``max_side``) are converted only when a reader asks for them: scaling and colour conversion
cost ~4 ms a 720p frame, while change detection and `Frame.grey` read the decoded YUV planes as
they are. A stream that cannot be decoded past some point ends the iteration and leaves a
warning in ``FrameStats.warnings``: what was read before is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import av
import cv2
import numpy as np

_PLANAR_420 = {"yuv420p": False, "yuvj420p": True}  # 8-bit 4:2:0 YUV read as decoded -> full range?


class Frame:
    """One sampled picture: seconds from the start of the media; `image`, its RGB pixels
    (H x W x 3, uint8), converted on first use; `grey`, the grey levels of a part of it."""

    def __init__(self, time: float, image: np.ndarray | None = None, *, video: av.VideoFrame | None = None,
                 size: tuple[int, int] | None = None) -> None:
        self.time = time
        self._image = image
        self._video = video  # the decoded frame, when `image` is still to be converted from it
        h, w = image.shape[:2] if image is not None else (0, 0)
        self.size = size or (w, h)
        """(width, height) of `image`."""

    @property
    def image(self) -> np.ndarray:
        if self._image is None:
            video = cast(av.VideoFrame, self._video)  # one of the two is given
            w, h = self.size
            # threads=1: swscale's own threads are left behind in a forked child (subprocess with
            # a preexec_fn, as Ray starts its processes), which freeing this thread's cached
            # converter then waits on forever
            if (w, h) != (video.width, video.height):
                video = video.reformat(width=w, height=h, format="rgb24", threads=1)
            self._image = video.to_ndarray(format="rgb24", threads=1)
        return self._image

    def grey(self, box: tuple[int, int, int, int], side: int = 64) -> np.ndarray | None:
        """Grey levels (0-255, float32) of `box` (x, y, x2, y2 in `image` pixels), averaged over
        square blocks of whole pixels leaving at least `side` per side; read from the decoded
        luma plane when there is one, so a reader can tell an unchanged part without `image`.
        None when the box lies outside the frame."""
        w, h = self.size
        x, y, x2, y2 = max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])
        if x2 <= x or y2 <= y:
            return None
        luma = _luma(self._video) if self._video is not None else None
        if luma is None:
            crop = cv2.cvtColor(np.ascontiguousarray(self.image[y:y2, x:x2]), cv2.COLOR_RGB2GRAY)
            return _pool(crop, max(1, min(crop.shape) // side))
        plane, full_range = luma
        f = plane.shape[1] / w
        crop = plane[int(y * f):int(y2 * f), int(x * f):int(x2 * f)]
        k = max(1, min(crop.shape) // side)
        return _pool(crop, k, 1.0 if full_range else 255 / 219, 0 if full_range else 16)


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


def _pool(a: np.ndarray, k: int, scale: float = 1.0, offset: float = 0) -> np.ndarray:
    """Means over k x k blocks (whole pixels: an area resize by a whole factor is ~5x cheaper
    than by a fraction), as (a - offset) * scale."""
    h, w = a.shape[0] - a.shape[0] % k, a.shape[1] - a.shape[1] % k
    pooled = cv2.resize(np.ascontiguousarray(a[:h, :w]), (w // k, h // k), interpolation=cv2.INTER_AREA)
    return (pooled.astype(np.float32) - offset) * scale


def _plane(plane) -> np.ndarray:
    """A decoded plane's bytes as an array (no copy), its line padding cut off."""
    return np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)[:, : plane.width]


def _luma(video: av.VideoFrame) -> tuple[np.ndarray, bool] | None:
    """The luma plane of an 8-bit 4:2:0 YUV frame and whether it is full range (else 16-235)."""
    full = _PLANAR_420.get(video.format.name)
    if full is None:
        return None
    return _plane(video.planes[0]), full or video.color_range == 2  # 2: AVCOL_RANGE_JPEG


def _thumb(video: av.VideoFrame, size: tuple[int, int], block: int = 8) -> np.ndarray | None:
    """Change-detection blocks straight from an 8-bit 4:2:0 frame's planes: mean luma and both
    chromas over blocks of about `block` pixels of the sampled size (so a change of hue shows
    as well as one of brightness), in 0-255 steps. None for other pixel formats."""
    luma = _luma(video)
    if luma is None:
        return None
    y, full = luma
    k = max(2, round(block * video.width / size[0]) // 2 * 2)  # luma pixels a block; chroma has half
    rows, cols = y.shape[0] // k, y.shape[1] // k
    luma_blocks = _pool(y[: rows * k, : cols * k], k, 1.0 if full else 255 / 219)
    chroma = [_pool(_plane(p)[: rows * k // 2, : cols * k // 2], k // 2, 1.0 if full else 255 / 224)
              for p in video.planes[1:3]]
    return np.stack([luma_blocks, *chroma])


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
    is yielded only when some block's (8x8 pixels of the sampled size) mean luma or chroma — or
    grey, for pixel formats other than 8-bit 4:2:0 YUV — differs from the last yielded frame's by
    more than ``change_threshold`` (the first frame always). ``cancel()`` returning true stops
    the iteration."""
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
        # One decoding thread: frame threads cost ~35% more CPU for the same frames, and the
        # transcription beside this already keeps every core busy. Frames no other frame refers
        # to (B-frames) are not decoded: a sample is the next decoded frame, a few hundredths of
        # a second later, and the decoding saved is one to two thirds of a typical encode's.
        stream.codec_context.thread_count = 1
        stream.codec_context.skip_frame = "NONREF"
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
                size = (frame.width, frame.height)
                if max_side and max(size) > max_side:
                    scale = max_side / max(size)
                    size = (int(frame.width * scale) // 2 * 2, int(frame.height * scale) // 2 * 2)
                sampled = Frame(t, video=frame, size=size)
                if on_change:
                    thumb = _thumb(frame, size)
                    thumb = _blocks(sampled.image) if thumb is None else thumb
                    if last is not None and last.shape == thumb.shape \
                            and float(np.abs(thumb - last).max()) <= change_threshold:
                        continue
                    last = thumb
                stats.kept += 1
                yield sampled
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
