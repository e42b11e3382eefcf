"""Screencasts made on the spot for the screen reader's tests and bench: scenes of a terminal,
an editor or a slide drawn by ffmpeg's drawtext, narrated by espeak-ng (tests/support/media.py).

A helper module (not a test file); nothing it writes is committed. Each scene is shown from
the start of its sentence until the next scene's sentence starts, so what a test asserts on
("shown at 0:04") is known exactly.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import media

MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
STYLES = {  # background, ink, font, size, line height, left margin
    "terminal": ("0x1e1e1e", "0xd8d8d8", MONO, 26, 40, 30),
    "editor": ("0xfbfbf8", "0x202020", MONO, 24, 36, 40),
    "slide": ("0xffffff", "0x1a1a1a", SANS, 32, 52, 80),
}


@dataclass
class Scene:
    """One sentence of narration and what the screen shows while it is said. A terminal's
    ``lines`` are typed as given (include the "$ " prompt); a slide's ``title`` is drawn large."""

    say: str
    style: str = "terminal"
    lines: list[str] = field(default_factory=list)
    title: str = ""


@dataclass
class Shown:
    """What a scene put on screen and when (seconds)."""

    start: float
    end: float
    scene: Scene
    spoken: tuple[float, float]


def render(scenes: list[Scene], out_path, *, size: str = "1280x720", rate: int = 25, pause_s: float = 1.0,
           angle: float = 0.0) -> list[Shown]:
    """Render the screencast to ``out_path`` (.mp4) and return when each scene was shown.
    ``angle`` (radians) rotates the whole picture, for a test of slanted text."""
    out_path = Path(out_path)
    work = out_path.with_name(out_path.stem + ".parts")
    work.mkdir(exist_ok=True)
    wav = work / "narration.wav"
    spans = media.narrated_wav([s.say for s in scenes], wav, pause_s=pause_s)
    duration = media.wav_duration(wav)
    shown = []
    for n, (scene, (start, end, _)) in enumerate(zip(scenes, spans)):
        until = spans[n + 1][0] if n + 1 < len(spans) else duration
        shown.append(Shown(0.0 if n == 0 else start, until, scene, (start, end)))
    filters = []
    for n, item in enumerate(shown):
        background, ink, font, fontsize, step, left = STYLES[item.scene.style]
        when = f"between(t\\,{item.start:.3f}\\,{item.end - 0.001:.3f})"
        filters.append(f"drawbox=x=0:y=0:w=iw:h=ih:color={background}:t=fill:enable='{when}'")
        y = 40
        texts = ([(item.scene.title, BOLD, 54)] if item.scene.title else []) + \
            [(line, font, fontsize) for line in item.scene.lines]
        for k, (text, face, points) in enumerate(texts):
            path = work / f"s{n}_{k}.txt"
            path.write_text(text)
            filters.append(f"drawtext=fontfile={face}:textfile={path}:fontcolor={ink}:fontsize={points}:"
                           f"x={left}:y={y}:enable='{when}'")
            y += step + (40 if item.scene.title and k == 0 else 0)
    if angle:
        filters.append(f"rotate={angle}:fillcolor=white")
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"color=c=black:s={size}:r={rate}:d={duration:.3f}", "-i", str(wav),
                    "-vf", ",".join(filters), "-map", "0:v", "-map", "1:a",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-b:a", "64k", "-shortest", str(out_path)], check=True)
    for part in work.iterdir():
        part.unlink()
    work.rmdir()
    return shown


def talking_head(sentences: list[str], out_path, *, size: str = "640x360", rate: int = 25) -> Path:
    """A narrated video with no text in it: a slowly changing fractal stands in for a face."""
    out_path = Path(out_path)
    wav = out_path.with_name(out_path.stem + ".narration.wav")
    media.narrated_wav(sentences, wav)
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"mandelbrot=s={size}:r={rate}:start_scale=2:end_scale=0.5", "-i", str(wav),
                    "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-b:a", "64k", "-shortest", str(out_path)], check=True)
    wav.unlink()
    return out_path


def still(lines: list[tuple[int, int, str]], out_path, *, size: str = "1280x720", seconds: float = 2.0,
          angle: float = 0.0, fontsize: int = 28) -> Path:
    """A silent video of dark text placed at (x, y) on white, optionally rotated by ``angle`` radians."""
    out_path = Path(out_path)
    work = out_path.with_name(out_path.stem + ".parts")
    work.mkdir(exist_ok=True)
    filters = []
    for n, (x, y, text) in enumerate(lines):
        path = work / f"l{n}.txt"
        path.write_text(text)
        filters.append(f"drawtext=fontfile={SANS}:textfile={path}:fontcolor=black:fontsize={fontsize}:x={x}:y={y}")
    if angle:
        filters.append(f"rotate={angle}:fillcolor=white")
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"color=c=white:s={size}:r=5:d={seconds}", "-vf", ",".join(filters),
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(out_path)], check=True)
    for part in work.iterdir():
        part.unlink()
    work.rmdir()
    return out_path
