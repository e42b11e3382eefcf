"""Test media made on the spot: espeak-ng narration, ffmpeg muxing, and broken files.

A helper module for tests and benchmarks (not a test file). Everything is written where the caller
says, normally a pytest ``tmp_path``; nothing generated here is committed. Needs the Debian packages
``espeak-ng`` and ``ffmpeg`` (installed by ``.ci/run``).

The narration helpers return *when* each sentence is spoken, measured from the rendered samples
(leading and trailing silence of each espeak clip trimmed), so tests can assert on timestamps.
"""

from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

RATE = 22050  # espeak-ng renders 22.05 kHz mono s16
_SILENCE_THRESHOLD = 200  # |sample| below this (of 32768) counts as silence when trimming


def have_tools() -> bool:
    """True when espeak-ng and ffmpeg are both on PATH."""
    return shutil.which("espeak-ng") is not None and shutil.which("ffmpeg") is not None


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")


def _ffmpeg(*args: str) -> None:
    _run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args])


def speak(text: str, wav_path, *, voice: str = "en-us", speed: int = 150, gap_ms: int = 0) -> float:
    """Render ``text`` with espeak-ng to a 22.05 kHz mono WAV; return its duration in seconds.

    ``speed`` is words per minute; ``gap_ms`` is extra pause between words (espeak's ``-g``, 10 ms units).
    """
    wav_path = Path(wav_path)
    wav_path.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(wav_path)]
    if gap_ms:
        cmd += ["-g", str(max(1, round(gap_ms / 10)))]
    _run(cmd + ["--", text])
    return wav_duration(wav_path)


FLITE_VOICES = ("slt", "awb", "rms", "kal", "kal16", "awb_time")


def speak_flite(text: str, wav_path, *, voice: str = "slt") -> float:
    """Render ``text`` with flite (a second synthesizer, another voice) to a 22.05 kHz mono WAV."""
    wav_path = Path(wav_path)
    wav_path.parent.mkdir(parents=True, exist_ok=True)
    raw = wav_path.with_suffix(".flite.wav")
    _run(["flite", "-voice", voice, "-t", text, "-o", str(raw)])
    _ffmpeg("-i", str(raw), "-ar", str(RATE), "-ac", "1", "-c:a", "pcm_s16le", str(wav_path))
    raw.unlink()
    return wav_duration(wav_path)


FESTIVAL_VOICES = ("kal", "ked", "slt_hts", "kal8k")
# "kal" is text2wave's default voice (kal_diphone: festvox-kallpc16k's 16 kHz database when it is installed, else
# festvox-kallpc8k's), "ked" a second diphone voice (festvox-kdlpc16k), "slt_hts" the HTS voice cmu_us_slt_arctic_hts
# (festvox-us-slt-hts) and "kal8k" kal_diphone with festvox-kallpc8k's 8 kHz database named outright
_KAL8K_GROUP = "/usr/share/festival/voices/english/kal_diphone/group/kallpc8k.group"
_FESTIVAL_CHOICE = {
    "ked": "(voice_ked_diphone)",
    "slt_hts": "(voice_cmu_us_slt_arctic_hts)",
    "kal8k": "(begin (voice_kal_diphone) (us_db_select (us_diphone_init (list '(name \"kal_lpc_group_8k\") "
             f"(list 'index_file \"{_KAL8K_GROUP}\") '(grouped \"true\") '(alternates_right ((er ax))) "
             "'(default_diphone \"ax-ax\")))))",
}


def speak_festival(text: str, wav_path, *, voice: str = "") -> float:
    """Render ``text`` with festival's text2wave (a third synthesizer; its default kal diphone voice,
    or ``voice``, one of FESTIVAL_VOICES' short names such as "ked", when it is installed)."""
    wav_path = Path(wav_path)
    wav_path.parent.mkdir(parents=True, exist_ok=True)
    raw = wav_path.with_suffix(".festival.wav")
    if voice == "kal8k" and not Path(_KAL8K_GROUP).exists():
        raise RuntimeError(f"festival voice kal8k needs {_KAL8K_GROUP} (festvox-kallpc8k)")
    text_file = wav_path.with_suffix(".txt")
    text_file.write_text(text, encoding="utf-8")
    choose = ["-eval", _FESTIVAL_CHOICE.get(voice, f"(voice_{voice}_diphone)")] if voice and voice != "kal" else []
    _run(["text2wave", str(text_file), "-o", str(raw), *choose])
    _ffmpeg("-i", str(raw), "-ar", str(RATE), "-ac", "1", "-c:a", "pcm_s16le", str(wav_path))
    raw.unlink()
    text_file.unlink()
    return wav_duration(wav_path)


def wav_duration(wav_path) -> float:
    with wave.open(str(wav_path), "rb") as w:
        return w.getnframes() / float(w.getframerate())


def read_wav(wav_path) -> np.ndarray:
    """Mono int16 samples of a 22.05 kHz WAV (what ``speak`` writes)."""
    with wave.open(str(wav_path), "rb") as w:
        if w.getframerate() != RATE or w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError(f"{wav_path}: expected {RATE} Hz mono s16")
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)


def write_wav(wav_path, samples: np.ndarray, rate: int = RATE) -> None:
    with wave.open(str(wav_path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, dtype=np.int16).tobytes())


def _trim(samples: np.ndarray) -> np.ndarray:
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) >= _SILENCE_THRESHOLD)
    if loud.size == 0:
        return samples[:0]
    return samples[loud[0] : loud[-1] + 1]


def narrated_wav(
    script_sentences: list[str],
    out_wav,
    *,
    pause_s: float = 1.0,
    lead_s: float = 1.0,
    tail_s: float = 1.0,
    voice: str = "en-us",
    speed: int = 150,
    synthesizer: str = "espeak-ng",
) -> list[tuple[float, float, str]]:
    """Speak each sentence, join them with ``pause_s`` of silence after ``lead_s`` of silence.
    ``synthesizer``: "espeak-ng" (``voice``, ``speed``), "flite" (``voice`` one of flite's, slt when
    it names an espeak-ng voice) or "festival" (``voice`` one of FESTIVAL_VOICES, else its default).

    Returns ``(start, end, text)`` per sentence: seconds from the start of the WAV during which that
    sentence's speech (silence-trimmed) is heard.
    """
    out_wav = Path(out_wav)
    parts: list[np.ndarray] = [np.zeros(int(round(lead_s * RATE)), dtype=np.int16)]
    cursor = parts[0].size
    spans: list[tuple[float, float, str]] = []
    gap = np.zeros(int(round(pause_s * RATE)), dtype=np.int16)
    with tempfile.TemporaryDirectory(dir=out_wav.parent) as tmp:
        for i, sentence in enumerate(script_sentences):
            clip = Path(tmp) / f"s{i:03d}.wav"
            if synthesizer == "flite":
                speak_flite(sentence, clip, voice=voice if voice in FLITE_VOICES else "slt")
            elif synthesizer == "festival":
                speak_festival(sentence, clip, voice=voice if voice in FESTIVAL_VOICES else "")
            else:
                speak(sentence, clip, voice=voice, speed=speed)
            speech = _trim(read_wav(clip))
            if speech.size == 0:
                raise RuntimeError(f"{synthesizer} rendered silence for {sentence!r}")
            if i:
                parts.append(gap)
                cursor += gap.size
            spans.append((cursor / RATE, (cursor + speech.size) / RATE, sentence))
            parts.append(speech)
            cursor += speech.size
    parts.append(np.zeros(int(round(tail_s * RATE)), dtype=np.int16))
    write_wav(out_wav, np.concatenate(parts))
    return spans


_AUDIO_CODECS = {
    ".mp4": ["-c:a", "aac", "-b:a", "64k"],
    ".mov": ["-c:a", "aac", "-b:a", "64k"],
    ".m4a": ["-c:a", "aac", "-b:a", "64k"],
    ".mkv": ["-c:a", "libvorbis", "-q:a", "3"],
    ".webm": ["-c:a", "libopus", "-b:a", "48k"],
    ".ogg": ["-c:a", "libvorbis", "-q:a", "3"],
    ".mp3": ["-c:a", "libmp3lame", "-b:a", "64k"],
    ".flac": ["-c:a", "flac"],
    ".wav": ["-c:a", "pcm_s16le"],
}
_VIDEO_CODECS = {
    ".mp4": ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "stillimage", "-pix_fmt", "yuv420p"],
    ".mov": ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "stillimage", "-pix_fmt", "yuv420p"],
    ".mkv": ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "stillimage", "-pix_fmt", "yuv420p"],
    ".webm": ["-c:v", "libvpx", "-deadline", "realtime", "-b:v", "50k"],
}
_STILL = "color=c=black:s=320x240:r=1"


def encode_audio(wav_path, out_path) -> Path:
    """Re-encode a WAV to the audio format named by ``out_path``'s extension (.mp3, .flac, .ogg, ...)."""
    out_path = Path(out_path)
    codec = _AUDIO_CODECS[out_path.suffix.lower()]
    _ffmpeg("-i", str(wav_path), "-vn", *codec, str(out_path))
    return out_path


def mux_still(wav_path, out_path) -> Path:
    """Put a WAV under a black still frame: a video file in the container named by the extension."""
    out_path = Path(out_path)
    ext = out_path.suffix.lower()
    _ffmpeg(
        "-f", "lavfi", "-i", _STILL, "-i", str(wav_path),
        "-map", "0:v", "-map", "1:a", "-t", f"{wav_duration(wav_path):.3f}",
        *_VIDEO_CODECS[ext], *_AUDIO_CODECS[ext], str(out_path),
    )  # fmt: skip
    return out_path


def narrated_video(
    script_sentences: list[str],
    out_path,
    *,
    pause_s: float = 1.0,
    lead_s: float = 1.0,
    voice: str = "en-us",
    speed: int = 150,
) -> list[tuple[float, float, str]]:
    """A video (.mp4/.mkv/.webm/.mov) of a still frame narrated by espeak-ng.

    Returns ``(start, end, text)`` for each sentence: when it is spoken, in seconds.
    """
    out_path = Path(out_path)
    wav = out_path.with_name(out_path.stem + ".narration.wav")
    spans = narrated_wav(script_sentences, wav, pause_s=pause_s, lead_s=lead_s, voice=voice, speed=speed)
    mux_still(wav, out_path)
    wav.unlink()
    return spans


def narrated_audio(script_sentences: list[str], out_path, **kw) -> list[tuple[float, float, str]]:
    """Like ``narrated_video`` but an audio file (.wav .mp3 .flac .ogg .m4a by extension)."""
    out_path = Path(out_path)
    if out_path.suffix.lower() == ".wav":
        return narrated_wav(script_sentences, out_path, **kw)
    wav = out_path.with_name(out_path.stem + ".narration.wav")
    spans = narrated_wav(script_sentences, wav, **kw)
    encode_audio(wav, out_path)
    wav.unlink()
    return spans


def silent_video(out_path, seconds: float = 5.0) -> Path:
    """A video with an audio track that holds only digital silence."""
    out_path = Path(out_path)
    ext = out_path.suffix.lower()
    _ffmpeg(
        "-f", "lavfi", "-i", _STILL, "-f", "lavfi", "-i", "anullsrc=r=22050:cl=mono",
        "-t", str(seconds), *_VIDEO_CODECS[ext], *_AUDIO_CODECS[ext], str(out_path),
    )  # fmt: skip
    return out_path


def noise_video(out_path, seconds: float = 5.0, *, amplitude: float = 0.02) -> Path:
    """A video whose audio is faint white noise (not digital silence, but no speech either)."""
    out_path = Path(out_path)
    ext = out_path.suffix.lower()
    _ffmpeg(
        "-f", "lavfi", "-i", _STILL,
        "-f", "lavfi", "-i", f"anoisesrc=r=22050:a={amplitude}:c=white:seed=7",
        "-t", str(seconds), *_VIDEO_CODECS[ext], *_AUDIO_CODECS[ext], str(out_path),
    )  # fmt: skip
    return out_path


def video_without_audio(out_path, seconds: float = 3.0) -> Path:
    """A video file with a video stream and no audio stream at all."""
    out_path = Path(out_path)
    _ffmpeg("-f", "lavfi", "-i", _STILL, "-t", str(seconds), *_VIDEO_CODECS[out_path.suffix.lower()], str(out_path))
    return out_path


def tone(out_path, seconds: float = 3.0, *, freq: float = 440.0) -> Path:
    """A sine tone, as audio (.wav/.mp3/...) or under a still frame (.mp4/...)."""
    out_path = Path(out_path)
    ext = out_path.suffix.lower()
    src = ["-f", "lavfi", "-i", f"sine=frequency={freq}:sample_rate=22050:duration={seconds}"]
    if ext in _VIDEO_CODECS:
        _ffmpeg("-f", "lavfi", "-i", _STILL, *src, "-map", "0:v", "-map", "1:a", "-t", str(seconds),
                *_VIDEO_CODECS[ext], *_AUDIO_CODECS[ext], str(out_path))  # fmt: skip
    else:
        _ffmpeg(*src, *_AUDIO_CODECS[ext], str(out_path))
    return out_path


def truncated_copy(src, dst, fraction: float = 0.3) -> Path:
    """The first ``fraction`` of ``src``'s bytes: a download cut short."""
    data = Path(src).read_bytes()
    Path(dst).write_bytes(data[: max(1, int(len(data) * fraction))])
    return Path(dst)


def faststart_copy(src, dst) -> Path:
    """Remux an MP4 with its index (moov) first, as streaming sites do, so a cut copy still opens."""
    _ffmpeg("-i", str(src), "-c", "copy", "-movflags", "+faststart", str(dst))
    return Path(dst)


def header_then_garbage(src, dst, *, header_bytes: int = 64, total_bytes: int = 200_000, seed: int = 3) -> Path:
    """A real file's first bytes (e.g. an MP4 ``ftyp`` box) followed by random bytes."""
    head = Path(src).read_bytes()[:header_bytes]
    rng = random.Random(seed)
    Path(dst).write_bytes(head + bytes(rng.getrandbits(8) for _ in range(total_bytes - len(head))))
    return Path(dst)


def wav_with_unknown_codec(dst, seconds: float = 2.0, *, format_tag: int = 0x7A7A) -> Path:
    """A well-formed RIFF/WAVE file whose audio format tag names no codec any decoder knows."""
    rate, channels, bits = 16000, 1, 16
    data = os.urandom(int(seconds * rate) * channels * bits // 8)
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", format_tag, channels, rate, rate * block, block, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    Path(dst).write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return Path(dst)


def long_audio(speech_wav, out_path, seconds: float) -> Path:
    """``seconds`` of 16 kHz FLAC: the narration at the start and again at the very end, digital
    silence between (cheap to make and small on disk: a 10-hour file is a few MB)."""
    out_path = Path(out_path)
    speech = wav_duration(speech_wav)
    gap = max(1.0, seconds - 2 * speech)
    _ffmpeg("-i", str(speech_wav), "-f", "lavfi", "-t", f"{gap:.3f}", "-i", "anullsrc=r=16000:cl=mono",
            "-i", str(speech_wav), "-filter_complex",
            "[0:a]aresample=16000,aformat=channel_layouts=mono[a];[2:a]aresample=16000,aformat=channel_layouts=mono[c];"
            "[a][1:a][c]concat=n=3:v=0:a=1", "-c:a", "flac", str(out_path))
    return out_path


#: run in a fresh interpreter: transcribe one file, print its peak memory (RSS) and what it heard
PEAK_SCRIPT = """
import json, sys, time
from tutorialbook.acquire.transcribe import transcribe
started = time.perf_counter()
t = transcribe(sys.argv[1])
# VmHWM, not ru_maxrss: Linux carries the parent's peak into a vfork+exec'd child's ru_maxrss, so under
# a 1.5 GB pytest the child "peaked" at 1.5 GB whatever it did; VmHWM belongs to the child's own memory
hwm_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"peak_mb": hwm_kb / 1024,
                  "seconds": time.perf_counter() - started, "duration": t.duration,
                  "segments": [[s.start, s.end, s.text] for s in t.segments]}))
"""


def transcribe_peak(path) -> dict:
    """Transcribe ``path`` in a subprocess; its peak RSS (MB), wall time, duration, segments."""
    import json
    import sys

    out = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])
