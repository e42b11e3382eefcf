"""Reading the screen: OCR accuracy, commands recovered, on-screen-only QA, and what it costs.

    python bench/screen_text.py [--repeats N]

A screencast of about two minutes is rendered here (tests/support/screencast.py: ffmpeg drawtext on
terminal-like and editor-like frames and slides, narration by espeak-ng that names commands
loosely or not at all). It prints:

* OCR character accuracy: 1 - edit distance / characters, each line shown against the closest
  line read while it was on screen;
* the share of commands shown that were recovered exactly (as a screen text of kind command);
* QA hit@5 (hybrid retrieval) on questions whose answer is only on screen — an answer counts
  when a top-5 skill's steps hold it exactly — for the book ingested with the screen channel
  and without it (TUTORIALBOOK_SCREEN=off), same run;
* whole ingest time with the screen vs bare faster-whisper transcription of the same file
  (target <= 1.3x), and the ingest without the screen, runs interleaved after a warm-up.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest import bare  # noqa: E402
from tests.support.screencast import Scene, render  # noqa: E402
from tutorialbook.acquire import screen  # noqa: E402
from tutorialbook.acquire import transcribe as tx  # noqa: E402
from tutorialbook.library import Library  # noqa: E402

# (narration, new terminal lines or a whole editor/slide, question answered only by the screen)
TERMINAL = [
    ("Let's start by looking at what changed in the working tree.", ["$ git status --short", " M src/login.py"], None),
    (
        "First make a branch for the fix.",
        ["$ git switch -c fix/login-timeout", "Switched to a new branch 'fix/login-timeout'"],
        ("How do I create a branch for the login timeout fix?", "git switch -c fix/login-timeout"),
    ),
    ("Stage only the login module.", ["$ git add src/login.py"], None),
    (
        "Commit it with a short message.",
        ['$ git commit -m "Raise login timeout to 30s"'],
        ("What commit message was used for the timeout change?", 'git commit -m "Raise login timeout to 30s"'),
    ),
    ("Now run git rebase dash i head tilde three to squash the last three commits.", ["$ git rebase -i HEAD~3"], None),
    (
        "Check the graph of recent commits.",
        ["$ git log --oneline --graph -5"],
        ("How do I see a graph of the last five commits?", "git log --oneline --graph -5"),
    ),
    (
        "Then push the branch safely with force with lease.",
        ["$ git push --force-with-lease origin fix/login-timeout"],
        (
            "How do I push the rewritten branch without clobbering others' work?",
            "git push --force-with-lease origin fix/login-timeout",
        ),
    ),
    (
        "If you need to undo the last commit but keep the changes, do this.",
        ["$ git reset --soft HEAD~1"],
        ("How do I undo the last commit but keep its changes staged?", "git reset --soft HEAD~1"),
    ),
    (
        "To save work in progress without committing, stash it with a name.",
        ["$ git stash push -m wip-login"],
        ("How do I stash work in progress with a name?", "git stash push -m wip-login"),
    ),
    (
        "Finally clean up branches that were merged.",
        ["$ git branch --merged main"],
        ("How do I list branches already merged into main?", "git branch --merged main"),
    ),
]
EDITOR = [
    ("Open the settings file and set the timeout.", ["# settings.py", "LOGIN_TIMEOUT_SECONDS = 30",
                                                      "MAX_LOGIN_ATTEMPTS = 5"],
     ("What is the login timeout setting in settings.py?", "LOGIN_TIMEOUT_SECONDS = 30")),
    ("Add this retry helper to the client.", ["def retry(call, times=3):", "    for attempt in range(times):",
                                               "        if call(): return True", "    return False"],
     ("How should the retry helper be defined?", "def retry(call, times=3):")),
]
SLIDES = [
    (
        "Here is the plan for today.",
        "Safer history rewriting",
        ["• Branch before you rebase", "• Squash local commits only", "• Push with a lease"],
    ),
    (
        "To wrap up, remember these rules.",
        "Recovering from mistakes",
        ["• reflog keeps 90 days of moves", "• reset --soft keeps your changes"],
    ),
]


def scenes() -> tuple[list[Scene], list[tuple[str, str]]]:
    """The screencast's scenes (a slide, the terminal growing, the editor, a closing slide) and
    its on-screen-only questions."""
    out, questions, term = [], [], []
    say, title, bullets = SLIDES[0]
    out.append(Scene(say, style="slide", title=title, lines=bullets))
    for say, lines, qa in TERMINAL:
        term = (term + lines)[-12:]  # a terminal scrolls
        out.append(Scene(say, lines=list(term)))
        if qa:
            questions.append(qa)
    for say, lines, qa in EDITOR:
        out.append(Scene(say, style="editor", lines=lines))
        questions.append(qa)
    say, title, bullets = SLIDES[1]
    out.append(Scene(say, style="slide", title=title, lines=bullets))
    return out, questions


def truth_lines(scene: Scene) -> list[str]:
    """What a scene shows, as the reader should store it (prompt and bullet marks are not text)."""
    lines = ([scene.title] if scene.title else []) + scene.lines
    return [" ".join(screen.PROMPT.sub("", re.sub(r"^• ", "", line)).split()) for line in lines]


def distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def accuracy(shown, texts) -> tuple[float, int, int, list[tuple[str, str]]]:
    """Character accuracy over every line shown, against the closest line read meanwhile; and
    the lines read wrong (shown, read)."""
    errors = total = 0
    wrong = []
    for item in shown:
        read = [" ".join(line.split()) for t in texts if t.start < item.end and t.end > item.start
                for line in t.text.splitlines()]
        for truth in truth_lines(item.scene):
            best, closest = min(((distance(truth, r), r) for r in read), default=(len(truth), ""))
            errors += min(best, len(truth))
            total += len(truth)
            if best and (truth, closest) not in wrong:
                wrong.append((truth, closest))
    return 1 - errors / total, errors, total, wrong


def whole(path: Path, workdir: Path, name: str, with_screen: bool) -> tuple[float, Library, object]:
    library = Library(store=str(workdir / f"store-{name}"), screen=with_screen)
    library.embed(["warm up"])
    start = time.perf_counter()
    report = library.ingest(str(path), book="git", refine_rounds=0)
    return time.perf_counter() - start, library, report.tutorials[0]


def hit_at_5(library: Library, questions: list[tuple[str, str]]) -> tuple[float, list[str]]:
    """Share of questions with the answer in a top-5 skill's steps, and the questions missed."""
    missed = []
    for question, answer in questions:
        found = library.retrieve(question, book="git", k=5, mode="hybrid").skills
        if not any(answer in " ".join(s.steps) for s in found):
            missed.append(question)
    return 1 - len(missed) / len(questions), missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    cast, questions = scenes()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        video = workdir / "git-history.mp4"
        shown = render(cast, video)
        print(f"screencast: {shown[-1].end:.1f} s, {len(cast)} scenes, 1280x720 at 25 fps, "
              f"{len(questions)} questions answered only on screen")
        reading = screen.read_screen(video, duration=shown[-1].end)
        print(f"screen reading: {reading.summary()}")
        acc, errors, total, wrong = accuracy(shown, reading.texts)
        print(f"OCR character accuracy: {acc:.1%} ({errors} errors in {total} characters)")
        for truth, read in wrong:
            print(f"  shown {truth!r}, read {read!r}")
        commands = {screen.PROMPT.sub("", line) for s in cast for line in s.lines if screen.PROMPT.match(line)}
        read = {t.text for t in reading.texts if t.kind == "command"}
        print(
            f"commands recovered exactly: {len(commands & read)}/{len(commands)} = "
            f"{len(commands & read) / len(commands):.1%}"
            + (f"  missed: {sorted(commands - read)}" if commands - read else "")
        )
        model, resolved = tx.get_model()
        bare(model, video)
        whole(video, workdir, "warm", True)  # warm-up: models, embedder, LanceDB, Tesseract
        bares, withs, withouts = [], [], []
        for n in range(args.repeats):
            bares.append(bare(model, video))
            seconds, on, report_on = whole(video, workdir, f"on{n}", True)
            withs.append(seconds)
            seconds, off, report_off = whole(video, workdir, f"off{n}", False)
            withouts.append(seconds)
        (with_screen, missed), (without, _) = hit_at_5(on, questions), hit_at_5(off, questions)
        print(f"QA hit@5 (on-screen answers): with the screen {with_screen:.0%}, without {without:.0%}"
              + (f"  missed with the screen: {missed}" if missed else ""))
        b, w, o = statistics.median(bares), statistics.median(withs), statistics.median(withouts)
        print(f"bare transcription       : median {b:6.2f} s  runs {['%.2f' % x for x in bares]}")
        print(f"ingest with the screen   : median {w:6.2f} s  runs {['%.2f' % x for x in withs]}")
        print(f"ingest without the screen: median {o:6.2f} s  runs {['%.2f' % x for x in withouts]}")
        print(f"ratio with screen / bare transcription: {w / b:.3f}  (target <= 1.3)")
        print(f"ratio with screen / without: {w / o:.3f}")
        print(f"stages with the screen: {report_on.stage_seconds}")
        print(f"report: {report_on.screen_texts} screen texts; {report_on.screen}; "
              f"{report_on.skills_added} skills (without the screen: {report_off.skills_added})")


if __name__ == "__main__":
    main()
