"""The frame sampler shared by the video readers: rate, change detection, damage."""

import shutil
import subprocess

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
    assert stats.decoded == 100 and stats.kept == 2 and not stats.warnings


@needs_ffmpeg
def test_without_change_detection_the_rate_bounds_the_frames(tmp_path):
    video = tmp_path / "v.mp4"
    _video(video)
    frames = list(sample_frames(video, fps=2, on_change=False))
    assert len(frames) == 8
    assert all(b.time - a.time >= 0.45 for a, b in zip(frames, frames[1:]))


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
