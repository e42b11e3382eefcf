"""Audio and video sources: check, probe and decode them with PyAV before any model work.

Everything here fails with ``TutorialbookError("source", reason)`` and a reason a person (or an agent)
can act on: the path does not exist, the file is empty, is text, is cut short or corrupt, has no audio
track, uses a codec nothing here can decode, or holds only silence.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable

import av
import numpy as np

from tutorialbook.errors import TutorialbookError

MEDIA_EXTENSIONS: frozenset[str] = frozenset(
    {".mp4", ".mkv", ".webm", ".mov", ".mp3", ".wav", ".m4a", ".flac", ".ogg"}
)
"""File extensions (lower case, with the dot) that are decoded as audio or video."""

SAMPLE_RATE = 16000
"""What Whisper listens to: 16 kHz mono float32."""

_MP4_FAMILY = {".mp4", ".mov", ".m4a"}
_MP4_FIRST_BOXES = {b"ftyp", b"styp", b"moov", b"mdat", b"free", b"skip", b"wide", b"pnot", b"uuid"}
# Containers whose audio duration is only an estimate (no index): decoding less than declared is normal.
_ESTIMATED_DURATION_FORMATS = {"mp3"}
_SILENCE_PEAK = 2.0 / 32768.0  # digital silence: nothing louder than 2 LSB of 16-bit audio
_MAX_BAD_PACKET_SHARE = 0.1


class TranscriptionCancelled(Exception):
    """The caller's ``cancel()`` returned True: the work stopped and nothing was produced."""


@dataclass(frozen=True)
class MediaInfo:
    """What a probe learns about a media file without decoding it all."""

    path: Path
    container: str
    audio_codec: str
    sample_rate: int
    channels: int
    declared_duration: float | None
    """Duration of the audio track in seconds as the container states it (None when unknown)."""
    has_video: bool

    @property
    def exact_duration(self) -> float | None:
        """The declared duration when the container's is exact (not an estimate, as MP3's is)."""
        return None if self.container in _ESTIMATED_DURATION_FORMATS else self.declared_duration


@dataclass
class DecodedAudio:
    """A whole audio track, decoded and resampled for Whisper."""

    samples: np.ndarray  # float32 mono at SAMPLE_RATE
    info: MediaInfo
    warnings: list[str] = field(default_factory=list)

    @property
    def duration(self) -> float:
        return self.samples.shape[0] / SAMPLE_RATE


def _err(reason: str) -> TutorialbookError:
    return TutorialbookError("source", reason)


def _looks_like_text(head: bytes) -> bool:
    if not head or b"\x00" in head:
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a multi-byte character cut at the end of the sample is fine
        if exc.start < len(head) - 4:
            return False
        text = head[: exc.start].decode("utf-8")
    printable = sum(ch.isprintable() or ch in "\r\n\t\f" for ch in text)
    return printable >= 0.95 * max(1, len(text))


def _mp4_index_missing(path: Path) -> bool:
    """True when an ISO-BMFF file (mp4/mov/m4a) starts like one but its ``moov`` index is missing."""
    size = path.stat().st_size
    boxes: list[bytes] = []
    with path.open("rb") as fh:
        pos = 0
        while pos + 8 <= size and len(boxes) < 10_000:
            fh.seek(pos)
            header = fh.read(16)
            box_size = int.from_bytes(header[:4], "big")
            kind = header[4:8]
            if box_size == 1 and len(header) >= 16:
                box_size = int.from_bytes(header[8:16], "big")
            elif box_size == 0:
                box_size = size - pos
            if box_size < 8:
                break
            boxes.append(kind)
            pos += box_size
    return bool(boxes) and boxes[0] == b"ftyp" and b"moov" not in boxes


def _vint(data: bytes, pos: int) -> tuple[int, int, bool]:
    """An EBML variable-length integer at ``pos``: (value, length, all-ones i.e. "unknown size")."""
    first = data[pos]
    length = 8 - first.bit_length() + 1 if first else 9
    if length > 8 or pos + length > len(data):
        raise ValueError("bad EBML size")
    value = first & (0xFF >> length)
    for b in data[pos + 1 : pos + length]:
        value = (value << 8) | b
    return value, length, value == (1 << (7 * length)) - 1


def _declared_size_problem(p: Path) -> str | None:
    """For containers whose header states how long they are, say so when the file is shorter.

    MP4/MOV/M4A: a top-level box runs past the end. Matroska/WebM: the Segment is longer than the
    file. WAV: the data chunk is longer than the file. Streams written live ("unknown size") pass.
    """
    size = p.stat().st_size
    ext = p.suffix.lower()
    check = (_mp4_problem if ext in _MP4_FAMILY else _matroska_problem if ext in (".mkv", ".webm")
             else _wav_problem if ext == ".wav" else None)
    if check is None:
        return None
    try:
        with p.open("rb") as fh:
            return check(fh, size)
    except (OSError, ValueError):
        return None


def _mp4_problem(fh: BinaryIO, size: int) -> str | None:
    """A top-level box that runs past the end of the file."""
    pos = 0
    while pos + 8 <= size:
        fh.seek(pos)
        header = fh.read(16)
        box_size, kind = int.from_bytes(header[:4], "big"), header[4:8]
        if box_size == 1 and len(header) >= 16:
            box_size = int.from_bytes(header[8:16], "big")
        elif box_size == 0:  # "to the end of the file"
            return None
        if box_size < 8 or not all(0x20 < b < 0x7F for b in kind):
            return None  # not a box structure we understand: leave it to the demuxer
        if pos == 0 and kind not in _MP4_FIRST_BOXES:
            return None
        if pos + box_size > size:
            name = kind.decode("ascii", "replace")
            return f"its '{name}' box needs {pos + box_size} bytes but the file has {size}"
        pos += box_size
    return None


def _matroska_problem(fh: BinaryIO, size: int) -> str | None:
    """A Segment longer than the file (an unknown size passes)."""
    head = fh.read(64)
    if head[:4] != b"\x1a\x45\xdf\xa3":
        return None
    ebml_size, n, _ = _vint(head, 4)
    pos = 4 + n + ebml_size
    fh.seek(pos)
    seg = fh.read(12)
    if seg[:4] != b"\x18\x53\x80\x67":
        return None
    seg_size, n, unknown = _vint(seg, 4)
    end = pos + 4 + n + seg_size
    if not unknown and end > size:
        return f"its Matroska segment needs {end} bytes but the file has {size}"
    return None


def _wav_problem(fh: BinaryIO, size: int) -> str | None:
    """A data chunk longer than the file (a size unknown while recording passes)."""
    head = fh.read(12)
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    pos = 12
    while pos + 8 <= size:
        fh.seek(pos)
        chunk = fh.read(8)
        chunk_size = int.from_bytes(chunk[4:8], "little")
        if chunk[:4] == b"data":
            if chunk_size in (0, 0xFFFFFFFF):  # written while recording: size unknown
                return None
            if pos + 8 + chunk_size > size:
                return f"its data chunk needs {pos + 8 + chunk_size} bytes but the file has {size}"
            return None
        pos += 8 + chunk_size + (chunk_size & 1)
    return None


def check_path(path: str | os.PathLike[str]) -> Path:
    """Cheap checks on a source path: exists, is a file, supported extension, not empty, not text."""
    if path is None or str(path).strip() == "":
        raise _err("no path given")
    p = Path(path).expanduser()
    if not p.exists():
        raise _err(f"{p} does not exist")
    if p.is_dir():
        raise _err(f"{p} is a folder, not an audio or video file")
    ext = p.suffix.lower()
    if ext not in MEDIA_EXTENSIONS:
        supported = " ".join(sorted(MEDIA_EXTENSIONS))
        raise _err(f"unsupported file type {ext or '(no extension)'!r} for {p.name}: supported are {supported}")
    if not os.access(p, os.R_OK):
        raise _err(f"{p} is not readable (permission denied)")
    if p.stat().st_size == 0:
        raise _err(f"{p.name} is empty (0 bytes)")
    with p.open("rb") as fh:
        head = fh.read(4096)
    if _looks_like_text(head):
        raise _err(f"{p.name} is a text file, not {ext[1:]} audio or video (renamed or saved wrongly?)")
    problem = _declared_size_problem(p)
    if problem:
        raise _err(f"{p.name} is truncated or corrupt: {problem} (a download or copy cut short?)")
    return p


def _open(p: Path) -> av.container.InputContainer:
    try:
        return av.open(str(p), mode="r", metadata_errors="ignore")
    except av.error.FFmpegError as exc:
        if p.suffix.lower() in _MP4_FAMILY and _mp4_index_missing(p):
            raise _err(
                f"{p.name} is truncated or corrupt: its index (moov atom) is missing, as when a "
                "download or recording was cut short"
            ) from None
        detail = getattr(exc, "strerror", None) or str(exc)
        raise _err(f"{p.name} is corrupt or truncated, or not {p.suffix[1:]} media: {detail}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _err(f"{p.name} could not be opened: {exc}") from None


def _audio_stream(container, p: Path):
    streams = list(container.streams.audio)
    if not streams:
        kinds = sorted({s.type for s in container.streams})
        what = f"only {', '.join(kinds)} streams" if kinds else "no streams at all"
        raise _err(f"{p.name} has no audio track ({what}): there is nothing to transcribe")
    decodable = [s for s in streams if s.codec_context is not None]
    if not decodable:
        raise _err(
            f"{p.name} has an audio track in an unsupported codec (no decoder for it): convert it, "
            "e.g. `ffmpeg -i in -vn -c:a flac out.flac`"
        )
    return decodable[0]


def _declared_duration(stream, container) -> float | None:
    if stream.duration is not None and stream.time_base is not None and stream.duration > 0:
        return float(stream.duration * stream.time_base)
    if len(container.streams) == 1 and container.duration:
        return container.duration / 1_000_000
    return None


def _info(p: Path, container, stream) -> MediaInfo:
    ctx = stream.codec_context
    return MediaInfo(
        path=p,
        container=container.format.name,
        audio_codec=ctx.name,
        sample_rate=int(ctx.sample_rate or 0),
        channels=int(getattr(ctx, "channels", 0) or 0),
        declared_duration=_declared_duration(stream, container),
        has_video=bool(container.streams.video),
    )


def probe(path: str | os.PathLike[str]) -> MediaInfo:
    """Check a file and read its container header (no decoding).

    Raises ``TutorialbookError('source', ...)`` for everything ``check_path`` rejects, for a file
    that does not open as media, for no audio track, and for an audio codec with no decoder.
    """
    p = check_path(path)
    with _open(p) as container:
        return _info(p, container, _audio_stream(container, p))


@dataclass
class _DecodeStats:
    """What a streaming decode learns as it goes, checked when it ends."""

    packets: int = 0
    bad_packets: int = 0
    demux_error: str | None = None
    samples: int = 0
    peak: float = 0.0


def _check_duration(p: Path, info: MediaInfo, max_seconds: float | None) -> None:
    if max_seconds and info.declared_duration and info.declared_duration > max_seconds:
        raise _err(f"{p.name} is {info.declared_duration / 3600:.1f} h long; the limit is {max_seconds / 3600:g} h "
                   "(TUTORIALBOOK_MAX_MEDIA_SECONDS)")


def _decode_stream(p: Path, container, stream, stats: _DecodeStats, sampling_rate: int,
                   cancel: Callable[[], bool] | None, max_seconds: float | None):
    """Resampled mono float32 arrays of the audio track, as they are decoded."""
    ctx = stream.codec_context

    def new_resampler():
        return av.audio.resampler.AudioResampler(format="flt", layout="mono", rate=sampling_rate)

    def out(frames):
        for frame in frames:
            array = frame.to_ndarray().reshape(-1).copy()
            stats.samples += array.shape[0]
            if array.size:
                stats.peak = max(stats.peak, float(np.max(np.abs(array))))
            yield array
        if max_seconds and stats.samples > max_seconds * sampling_rate:
            raise _err(f"{p.name} is longer than the limit of {max_seconds / 3600:g} h "
                       "(TUTORIALBOOK_MAX_MEDIA_SECONDS)")

    resampler = new_resampler()
    demuxed = container.demux(stream)
    try:
        while True:
            try:
                packet = next(demuxed)
            except StopIteration:
                break
            except av.error.FFmpegError as exc:  # the container itself is damaged past here
                stats.demux_error = getattr(exc, "strerror", None) or str(exc)
                break
            stats.packets += 1
            try:
                frames = packet.decode()
            except av.error.DecoderNotFoundError:
                raise _err(f"{p.name}: no decoder for its {ctx.name} audio track") from None
            except av.error.FFmpegError:
                stats.bad_packets += 1
                continue
            for frame in frames:
                frame.pts = None
                try:
                    resampled = resampler.resample(frame)
                except ValueError:  # the stream changed rate or layout midway: start a new resampler
                    yield from out(resampler.resample(None))
                    resampler = new_resampler()
                    resampled = resampler.resample(frame)
                yield from out(resampled)
            if cancel is not None and stats.packets % 200 == 0 and cancel():
                raise TranscriptionCancelled(f"cancelled while decoding {p.name}")
        yield from out(resampler.resample(None))
    finally:
        del resampler
        gc.collect()  # PyAV resampler graphs are only freed by the collector (faster-whisper #390)


def _final_checks(p: Path, ctx_name: str, info: MediaInfo, stats: _DecodeStats, sampling_rate: int) -> list[str]:
    """After the whole track: undecodable, mostly damaged, cut short or silent is an error;
    a few damaged packets or an estimated duration are warnings."""
    warnings: list[str] = []
    decoded = stats.samples / sampling_rate
    real_packets = max(1, stats.packets - 1)  # demux ends with one empty flush packet
    if decoded == 0:
        reason = f"{p.name}: its {ctx_name} audio track could not be decoded"
        if stats.demux_error or stats.bad_packets:
            reason += f" (corrupt or truncated: {stats.demux_error or f'{stats.bad_packets} damaged packets'})"
        else:
            reason += " (it holds no audio frames)"
        raise _err(reason)
    if stats.bad_packets > _MAX_BAD_PACKET_SHARE * real_packets and stats.bad_packets > 2:
        raise _err(
            f"{p.name} is corrupt: {stats.bad_packets} of {real_packets} audio packets could not be decoded"
        )
    declared = info.declared_duration
    if declared and decoded < 0.9 * declared - 0.5:
        message = (
            f"its audio track declares {declared:.1f} s but only {decoded:.1f} s could be decoded"
        )
        if info.container in _ESTIMATED_DURATION_FORMATS:
            warnings.append(f"{p.name}: {message} (duration was an estimate)")
        else:
            raise _err(f"{p.name} is truncated or corrupt: {message}")
    elif stats.demux_error:
        warnings.append(f"{p.name}: the container is damaged near the end ({stats.demux_error})")
    if stats.bad_packets:
        warnings.append(f"{p.name}: skipped {stats.bad_packets} damaged audio packet(s)")
    if stats.peak <= _SILENCE_PEAK:
        raise _err(f"no speech found: the audio track of {p.name} is silent ({decoded:.1f} s of silence)")
    return warnings


WINDOW_SECONDS = 600.0
"""Streaming decodes hand audio on in windows this long (38 MB of samples each)."""
_CUT_SEARCH_SECONDS = 5.0


@dataclass
class AudioWindow:
    """A stretch of the track: its samples and where it starts; ``silent`` when nothing in
    it is louder than digital silence (no model needs to hear it)."""

    offset: float
    samples: np.ndarray

    @property
    def silent(self) -> bool:
        return not self.samples.size or float(np.max(np.abs(self.samples))) <= _SILENCE_PEAK


@dataclass
class AudioStream:
    """A track decoded window by window: iterate ``windows()`` once, then ``finish()`` runs
    the checks a whole decode makes and returns its warnings. Memory stays at about one
    window, whatever the file's length."""

    info: MediaInfo
    _windows: object
    _finish: Callable[[], list[str]]
    _stats: _DecodeStats
    sampling_rate: int = SAMPLE_RATE

    @property
    def decoded_seconds(self) -> float:
        """How much audio has been decoded so far (all of it, once ``windows()`` ran out)."""
        return self._stats.samples / self.sampling_rate

    def windows(self):
        return self._windows

    def finish(self) -> list[str]:
        return self._finish()


def stream_audio(
    path: str | os.PathLike[str],
    *,
    sampling_rate: int = SAMPLE_RATE,
    cancel: Callable[[], bool] | None = None,
    window_seconds: float = WINDOW_SECONDS,
    max_seconds: float | None = None,
) -> AudioStream:
    """Decode the first decodable audio track to mono float32 at ``sampling_rate``, in windows
    of about ``window_seconds`` (each cut at the quietest 100 ms of its last few seconds, so
    a word is rarely split). A declared duration over ``max_seconds`` is refused before any
    decoding, an undeclared one as soon as the decode passes it."""
    p = check_path(path)
    container = _open(p)
    try:
        stream = _audio_stream(container, p)
        info = _info(p, container, stream)
        _check_duration(p, info, max_seconds)
    except BaseException:
        container.close()
        raise
    stats = _DecodeStats()
    size = None if window_seconds == float("inf") else int(window_seconds * sampling_rate)
    search = int(_CUT_SEARCH_SECONDS * sampling_rate)
    hop = sampling_rate // 10

    def windows():
        pending: list[np.ndarray] = []
        held = 0
        offset = 0
        try:
            for array in _decode_stream(p, container, stream, stats, sampling_rate, cancel, max_seconds):
                pending.append(array)
                held += array.shape[0]
                if size is not None and held >= size + search:
                    joined = np.concatenate(pending)
                    tail = joined[size - search: size + search]
                    frames = tail[: tail.shape[0] // hop * hop].reshape(-1, hop)
                    cut = size - search + int(np.argmin(np.abs(frames).max(axis=1))) * hop
                    yield AudioWindow(offset / sampling_rate, joined[:cut].astype(np.float32, copy=False))
                    offset += cut
                    pending, held = [joined[cut:]], joined.shape[0] - cut
            if held:
                yield AudioWindow(offset / sampling_rate, np.concatenate(pending).astype(np.float32, copy=False))
        finally:
            container.close()

    return AudioStream(info, windows(), lambda: _final_checks(p, stream.codec_context.name, info, stats,
                                                              sampling_rate), stats, sampling_rate)


def decode_audio(
    path: str | os.PathLike[str],
    *,
    sampling_rate: int = SAMPLE_RATE,
    cancel: Callable[[], bool] | None = None,
) -> DecodedAudio:
    """Decode the first decodable audio track to mono float32 at ``sampling_rate``, whole
    (``stream_audio`` decodes in windows; transcription uses that).

    Damaged packets are skipped (with a warning) as long as they are few; a file that is mostly
    undecodable, or whose audio stops well before the duration its container declares, is an error.
    Digital silence is an error too ("no speech found"): no model is needed to know that.
    ``cancel`` is polled every few seconds of audio; when it returns True, ``TranscriptionCancelled``
    is raised.
    """
    audio = stream_audio(path, sampling_rate=sampling_rate, cancel=cancel, window_seconds=float("inf"))
    chunks = [w.samples for w in audio.windows()]
    warnings = audio.finish()
    samples = np.concatenate(chunks).astype(np.float32, copy=False) if chunks else np.zeros(0, np.float32)
    return DecodedAudio(samples=samples, info=audio.info, warnings=warnings)


def container_title(path: str | os.PathLike[str]) -> str | None:
    """The title a media file's container states (its metadata ``title`` tag), if any."""
    try:
        with av.open(str(path), mode="r", metadata_errors="ignore") as container:
            title = (container.metadata or {}).get("title", "")
    except (av.error.FFmpegError, OSError, UnicodeDecodeError):
        return None
    return " ".join(title.split()) or None
