"""A narrated video made by the test (espeak-ng + ffmpeg) ingested end to end."""

import re

import pytest

from tests.support import media
from tutorialbook.errors import Cancelled, TutorialbookError

SCRIPT = [
    "Welcome to this lesson on fixing a flat bicycle tyre.",
    "First, shift the chain onto the smallest cog.",
    "Open the brake so the wheel comes out easily.",
    "Use two tyre levers to lift the tyre off the rim.",
    "Always check the inside of the tyre for thorns before you fit a new tube.",
    "Pump the tyre to the pressure printed on the sidewall.",
]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("media") / "flat-tyre.mp4"
    spans = media.narrated_video(SCRIPT, path)
    return path, spans


def words(text):
    return set(re.findall(r"[a-z]+", text.lower()))


def test_video_becomes_skills_with_timestamps(library, video):
    path, spans = video
    progress = []
    report = library.ingest(str(path), book="bikes", progress=lambda d, t, m: progress.append((d, t, m)))
    t = report.tutorials[0]
    assert t.status == "added" and abs(t.duration - spans[-1][1]) < 2.5
    assert t.speech_redecoded == 0  # the first pass lost nothing, so the guard decoded nothing again
    assert any("transcribing" in m for _, _, m in progress) and progress[-1][0] == progress[-1][1]
    found = library.retrieve("check the tyre for thorns", "bikes", k=1).skills[0]
    e = found.evidence[0]
    spoken = spans[4]
    # the evidence is the passage the sentence was said in: its span holds the sentence's
    assert e.timed and e.start <= spoken[0] + 1.5 and e.end >= spoken[1] - 1.5 and e.end - e.start < 40
    assert any(len(words(step) & words(spoken[2])) >= 6 for step in found.steps)
    assert not any("welcome" in step.lower() for s in library.skills("bikes") for step in s.steps), \
        "the greeting said before the first step is not part of a skill"
    assert e.link == f"{path.resolve().as_uri()}#t={int(e.start)}"
    levers = library.retrieve("how do I get the tyre off the rim", "bikes", k=3).skills
    assert any("lever" in " ".join(s.steps).lower() for s in levers)
    transcript = library.transcript_markdown(t.tutorial_id)
    stamps = re.findall(r"^\[(\d\d):(\d\d):(\d\d)–", transcript, re.M)
    seconds = [int(h) * 3600 + int(m) * 60 + int(s) for h, m, s in stamps]
    assert len(seconds) >= 5 and seconds == sorted(seconds)


def test_cancelled_ingest_writes_nothing(library, video):
    path, _ = video
    calls = {"n": 0}

    def cancel():
        calls["n"] += 1
        return calls["n"] > 2

    with pytest.raises(Cancelled):
        library.ingest(str(path), book="bikes", cancel=cancel)
    assert library.store.count("tutorials") == 0 and library.store.count("segments") == 0


def test_corrupt_video_writes_nothing(library, video, tmp_path):
    path, _ = video
    broken = media.truncated_copy(path, tmp_path / "broken.mp4", fraction=0.3)
    with pytest.raises(TutorialbookError) as info:
        library.ingest(str(broken), book="bikes")
    assert info.value.field == "source"
    assert library.store.count("tutorials") == 0 and library.store.count("skills") == 0


def test_the_title_prompt_keeps_the_narration_punctuated(library, video):
    """The tutorial's title is the speech model's prompt; the narration still comes back as
    sentences (Whisper copies a prompt's style: an unpunctuated one lost every full stop)."""
    path, spans = video
    t = library.ingest(str(path), book="bikes", title="Flat tyre", refine_rounds=0).tutorials[0]
    assert t.segments >= len(SCRIPT) - 1
