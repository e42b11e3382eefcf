"""The frame sampler shared by the video readers: rate, change detection, damage."""

import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest

from tutorialbook.acquire.frames import FrameStats, has_video, sample_frames

ffmpeg = shutil.which("ffmpeg")
needs_ffmpeg = pytest.mark.skipif(not ffmpeg and not __import__("os").environ.get("CI"), reason="ffmpeg missing")


def _video(path, text_from=2.0, seconds=4):
    draw = f"drawtext=text='git rebase -i HEAD~3':fontcolor=black:fontsize=32:x=20:y=100:enable='gt(t,{text_from})'"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"color=c=white:s=640x360:d={seconds},{draw}", "-r", "25", str(path)], check=True)


@needs_ffmpeg
def test_static_screen_is_one_frame_and_a_change_is_caught(tmp_path):
    video = tmp_path / "v.mp4"
    _video(video)
    stats = FrameStats()
    frames = list(sample_frames(video, fps=4, stats=stats))
    assert [round(f.time) for f in frames] == [0, 2]
    assert 2.0 < frames[1].time <= 2.3
    assert frames[0].image.shape == (360, 640, 3)
    # libx264's default encode has B-frames: no frame refers to them, so they are not decoded
    assert stats.decoded < 100 and stats.kept == 2 and not stats.warnings


@needs_ffmpeg
def test_without_change_detection_the_rate_bounds_the_frames(tmp_path):
    video = tmp_path / "v.mp4"
    _video(video)
    frames = list(sample_frames(video, fps=2, on_change=False))
    assert len(frames) == 8
    assert all(b.time - a.time >= 0.45 for a, b in zip(frames, frames[1:]))


@needs_ffmpeg
def test_a_change_of_colour_alone_is_caught(tmp_path):
    """Change detection reads the decoded luma and chroma planes: a box turning from red to a
    green of about the same brightness is a change."""
    video = tmp_path / "hue.mp4"
    boxes = ("drawbox=x=100:y=100:w=120:h=60:color=0xC80000:t=fill:enable='lt(t,2)',"
             "drawbox=x=100:y=100:w=120:h=60:color=0x006600:t=fill:enable='gte(t,2)'")
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"color=c=white:s=640x360:d=4,{boxes}", "-pix_fmt", "yuv420p", "-r", "25", str(video)],
                   check=True)
    frames = list(sample_frames(video, fps=4))
    assert [round(f.time) for f in frames] == [0, 2]
    red, green = (f.image[130, 160].astype(int) for f in frames)
    assert red[0] > 150 > red[1] and green[1] > 80 > green[0]


@needs_ffmpeg
@pytest.mark.parametrize("pix_fmt", ["yuv420p", "yuvj420p", "yuv444p"])
def test_grey_levels_of_a_part_agree_with_its_pixels(tmp_path, pix_fmt):
    """`Frame.grey` (read from the luma plane where there is one, in limited or full range)
    gives the grey levels of the frame's RGB pixels, at the scale of the sampled image."""
    video = tmp_path / f"{pix_fmt}.mp4"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:d=1",
                    "-pix_fmt", pix_fmt, "-r", "25", str(video)], check=True)
    frame = next(iter(sample_frames(video, max_side=960)))
    assert frame.image.shape == (540, 960, 3)
    box = (200, 100, 520, 420)
    grey = frame.grey(box)
    assert grey is not None and min(grey.shape) >= 64
    x, y, x2, y2 = box
    pixels = frame.image[y:y2, x:x2].astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    expected = cv2.resize(pixels, grey.shape[::-1], interpolation=cv2.INTER_AREA)
    assert float(np.abs(grey - expected).mean()) < 4.0
    assert frame.grey((2000, 2000, 2100, 2100)) is None


@needs_ffmpeg
def test_audio_only_and_garbage_have_no_frames(tmp_path):
    audio = tmp_path / "a.wav"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=d=1", str(audio)], check=True)
    assert not has_video(audio) and list(sample_frames(audio)) == []
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 100)
    stats = FrameStats()
    assert list(sample_frames(junk, stats=stats)) == [] and stats.warnings


def test_a_text_file_has_no_video(tmp_path):
    """FFmpeg's tty demuxer would play a .txt file as a picture of its characters."""
    text = tmp_path / "notes.txt"
    text.write_text("git rebase -i HEAD~3\n" * 50)
    assert not has_video(text)


_FORK_AFTER_FRAMES = """
import subprocess, sys
from concurrent.futures import ThreadPoolExecutor
from tutorialbook.acquire.frames import sample_frames

pool = ThreadPoolExecutor(1)  # alive, as a reader's worker thread is, when a process is started
pool.submit(lambda: [f.image for f in sample_frames(sys.argv[1], max_side=320)]).result()
# Ray starts its processes with a preexec_fn: the child runs Python, and drops the other
# threads' state first
child = subprocess.Popen([sys.executable, "-c", "pass"], preexec_fn=lambda: None)
print("child", child.wait())
"""


@needs_ffmpeg
def test_a_process_started_after_frames_were_converted_in_a_thread_does_not_hang(tmp_path):
    video = tmp_path / "v.mp4"
    _video(video, seconds=1)
    done = subprocess.run([sys.executable, "-c", _FORK_AFTER_FRAMES, str(video)], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() == "child 0", done.stderr
