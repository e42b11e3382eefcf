"""Reading the screen: OCR of keyframes, texts with their spans, the screen's spelling in skills
and search, textless videos, awkward layouts, and ingest without Tesseract."""

import json
import os
import re
import shutil

import pytest

from tests.support import media
from tests.support.screencast import Scene, render, still, talking_head
from tutorialbook.acquire import ocr, screen
from tutorialbook.acquire.screen_attach import correct, for_consolidation
from tutorialbook.acquire.transcript import ScreenText, Segment, Transcript
from tutorialbook.memory import terms


def _have_ocr() -> bool:
    try:
        ocr.engine_version()
    except ocr.OcrUnavailable:
        return False
    return True


# Only a developer machine without the tools skips these; in CI (CI=true) missing tools fail.
needs_tools = pytest.mark.skipif(
    not os.environ.get("CI") and not (media.have_tools() and _have_ocr()),
    reason="espeak-ng, ffmpeg and tesseract-ocr(-eng) are needed",
)

SCENES = [
    Scene("First, check which files changed.", lines=["$ git status --short"]),
    Scene("Now run git rebase dash i head tilde three to squash the last three commits.",
          lines=["$ git status --short", " M app.py", "$ git rebase -i HEAD~3"]),
    Scene("Then push your branch safely with force with lease.",
          lines=["$ git status --short", " M app.py", "$ git rebase -i HEAD~3",
                 "Successfully rebased and updated refs/heads/main.", "$ git push --force-with-lease origin main"]),
    Scene("Finally, the rules.", style="slide", title="Rewriting history safely",
          lines=["• Rebase only local commits", "• Push with a lease"]),
]
COMMANDS = {"git status --short", "git rebase -i HEAD~3", "git push --force-with-lease origin main"}


@pytest.fixture(scope="module")
def cast(tmp_path_factory):
    path = tmp_path_factory.mktemp("cast") / "git_history.mp4"
    return path, render(SCENES, path)


def _shown_at(step: str, command: str) -> tuple[int, int]:
    """The m:ss a step gives for a command: "cmd (on screen at m:ss)"."""
    match = re.search(re.escape(command) + r" \(on screen at (\d+):(\d\d)\)", step)
    assert match, step
    return int(match.group(1)), int(match.group(2))


# -- without media ---------------------------------------------------------------------

def test_the_screen_spelling_replaces_what_was_heard():
    shown = [ScreenText(4.5, 14, "git rebase -i HEAD~3", "command"),
             ScreenText(10.2, 14, "git push --force-with-lease origin main", "command")]
    text, named = correct("Now run git rebase dash i head tilde three to squash.", shown)
    assert text == "Now run git rebase -i HEAD~3 (on screen at 0:04) to squash." and named == ["whole", ""]
    # speech recognition's version keeps most letters, few words
    text, _ = correct("Now run good remade smash I had till the free test wash.", shown)
    assert text.startswith("Now run git rebase -i HEAD~3 (on screen at 0:04) ")
    text, named = correct("Push safely with force with lease.", shown)
    assert text == "Push safely with --force-with-lease." and named == ["", "term"]
    assert correct("Nothing on screen is said here.", shown) == ("Nothing on screen is said here.", ["", ""])


def test_consolidation_reads_the_shown_commands_and_slide_titles():
    transcript = Transcript([Segment(0.5, 3.0, "Check the state first."), Segment(4.0, 6.0, "Here are the rules.")],
                            duration=8.0, screen=[ScreenText(0.0, 4.0, "git status --short", "command"),
                                                  ScreenText(1.0, 4.0, "M app.py", "output"),
                                                  ScreenText(4.0, 8.0, "Safe rewriting", "title")])
    told = for_consolidation(transcript)
    assert told.segments[0].text == "Check the state first: run git status --short (on screen at 0:00)."
    assert told.headings == [(1, 2, "Safe rewriting")]
    assert transcript.segments[0].text == "Check the state first."  # what was heard is kept
    assert for_consolidation(Transcript([Segment(0, 1, "x")], 1.0)).segments[0].text == "x"


def test_code_terms_get_glued_aliases_for_keyword_search():
    assert terms.aliases("git push --force-with-lease and HEAD~3, useState, don't at 0:42") == \
        ["forcewithlease", "head3"]
    once = terms.searchable("run git rebase -i HEAD~3")
    assert once.endswith(" head3") and terms.searchable(once) == once


# -- OCR on rendered frames ------------------------------------------------------------

@pytest.mark.slow
@needs_tools
def test_a_screencast_is_read_into_distinct_texts_with_their_spans(cast):
    path, shown = cast
    reading = screen.read_screen(path, duration=shown[-1].end)
    by_text = {t.text: t for t in reading.texts}
    assert COMMANDS <= {t.text for t in reading.texts if t.kind == "command"}
    rebase = by_text["git rebase -i HEAD~3"]  # one text while it stays on screen, from when it appeared
    assert shown[1].start <= rebase.start <= shown[1].start + 0.6 and rebase.end == pytest.approx(
        shown[3].start, abs=0.6
    )
    assert by_text["Rewriting history safely"].kind == "title"
    assert any(t.kind == "output" and "Successfully rebased" in t.text for t in reading.texts)
    assert reading.lines_read < sum(len(s.lines) + bool(s.title) for s in SCENES)  # unchanged lines are not re-read
    assert reading.stopped_at is None and "screen texts" in reading.summary()


@pytest.mark.slow
@needs_tools
def test_two_columns_and_slanted_text_do_not_break_the_reader(tmp_path):
    columns = still([(60, 100, "Left column first line"), (60, 150, "Left column second line"),
                     (700, 100, "Right column first line"), (700, 150, "Right column second line")],
                    tmp_path / "columns.mp4")
    texts = [t.text for t in screen.read_screen(columns).texts]
    joined = "\n".join(texts)
    assert "Left column first line" in joined and "Right column first line" in joined
    assert not any("Left" in line and "Right" in line for line in joined.splitlines())  # columns kept apart
    slanted = still([(200, 300, "git commit --amend --no-edit"), (200, 360, "This line is at an angle")],
                    tmp_path / "slanted.mp4", angle=0.35)
    reading = screen.read_screen(slanted)
    assert reading.keyframes >= 1 and all(isinstance(t.text, str) for t in reading.texts)


@pytest.mark.slow
@needs_tools
def test_a_video_without_text_stops_reading_after_a_few_keyframes(tmp_path):
    path = talking_head(["Hello, and welcome to the channel.", "Today we talk about good habits."],
                        tmp_path / "talk.mp4")
    reading = screen.read_screen(path)
    assert reading.texts == [] and reading.stopped_at is not None and reading.keyframes == screen.MAX_EMPTY
    assert "stopped" in reading.summary()


# -- into the book ---------------------------------------------------------------------

@pytest.mark.slow
@needs_tools
def test_skills_hold_the_exact_commands_shown_with_their_times(cast, library):
    path, shown = cast
    report = library.ingest(str(path), book="git", refine_rounds=0).tutorials[0]
    assert report.screen_texts >= 5 and "screen texts" in report.screen and "screen_wait" in report.stage_seconds
    skills = library.store.rows("skills", "book = 'git'")
    steps = [step for s in skills for step in json.loads(s["steps"])]
    for n, command in ((1, "git rebase -i HEAD~3"), (2, "git push --force-with-lease origin main")):
        step = next((s for s in steps if command in s), None)
        assert step, (command, steps)
        minutes, seconds = _shown_at(step, command)
        assert int(shown[n].start) <= minutes * 60 + seconds <= shown[n].start + 1, step
        evidence = next(json.loads(s["evidence"]) for s in skills if command in s["steps"])
        # the evidence is the passage the command was said in (its quote shows where it starts)
        assert evidence[0]["start"] <= shown[n].spoken[1] and evidence[0]["end"] >= shown[n].spoken[0]
    heard = library.store.rows("segments", f"tutorial_id = '{report.tutorial_id}'")
    assert heard and not any("on screen" in s["text"] for s in heard)  # the transcript keeps what was heard
    markdown = library.transcript_markdown(report.tutorial_id)
    assert (
        "on screen (command): git rebase -i HEAD~3" in markdown and "on screen (title): Rewriting history" in markdown
    )
    # keyword search finds the option with its dashes, over a text about forcing and leases
    other = path.parent / "leases.md"
    other.write_text("# Leases\n\nForce the lease open with a lever, then push the lease back in place.\n")
    library.ingest(str(other), book="git", refine_rounds=0)
    for query in ("--force-with-lease", "HEAD~3"):
        hits = library.retrieve(query, book="git", k=3, mode="keyword").skills
        assert hits and query in " ".join(hits[0].steps), (query, [h.name for h in hits])


@pytest.mark.slow
@needs_tools
def test_a_talking_head_adds_no_screen_text(tmp_path, library):
    path = talking_head(["Always measure twice before you cut the board."], tmp_path / "talk.mp4")
    report = library.ingest(str(path), book="wood", refine_rounds=0).tutorials[0]
    assert report.screen_texts == 0 and "stopped" in report.screen and report.skills_added >= 1
    assert library.store.count("screen", f"tutorial_id = '{report.tutorial_id}'") == 0


@pytest.mark.slow
@needs_tools
def test_without_tesseract_ingest_still_works_and_warns(cast, library, monkeypatch, tmp_path):
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))  # a folder without eng.traineddata
    monkeypatch.setattr(ocr, "_local", __import__("threading").local())
    path, _ = cast
    copy = tmp_path / "copy.mp4"
    shutil.copy(path, copy)
    report = library.ingest(str(copy), book="git2", refine_rounds=0).tutorials[0]
    assert report.segments >= 3 and report.screen_texts == 0 and report.screen.startswith("not read")
    assert any("tesseract-ocr" in w for w in report.warnings)
