"""Issue 17 items 10, 12 and 13: bounds an operator can set, with safe defaults — media length
(refused before decoding) and memory (a 10-hour file peaks like a 1-hour one), huge one-line
text, query, lesson and feedback sizes, engine depth and concurrency, token-file revocation,
rights on impossible book names, and completion filtering by rights before its limit."""

import json
import os
import threading
import time

import chess
import numpy as np
import pytest

from tests.support import media
from tutorialbook.acquire.formats.document import MAX_BLOCK_CHARS as MAX_SEGMENT_CHARS
from tutorialbook.acquire.sources import parse_plain
from tutorialbook.errors import TutorialbookError
from tutorialbook.library import Library
from tutorialbook.tools.access import completions as completion_candidates
from tutorialbook.server.auth import Access, TokenFile, TokenTable
from tutorialbook.skills import extract

# Only a developer machine without the Debian tools skips these; in CI (CI=true) they must run.
needs_tools = pytest.mark.skipif(not os.environ.get("CI") and not media.have_tools(),
                                 reason="espeak-ng / ffmpeg not installed")
STOCKFISH = "/usr/games/stockfish"
needs_stockfish = pytest.mark.skipif(not os.environ.get("CI") and not os.access(STOCKFISH, os.X_OK),
                                     reason="Debian stockfish not installed")
TOKEN = "limits-token-" + "t" * 24
STEPS = "Fold the dough every thirty minutes for two hours.", "Then shape the loaf and proof it overnight."


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    if not media.have_tools():
        pytest.fail("espeak-ng and ffmpeg are needed (CI installs them)")
    folder = tmp_path_factory.mktemp("speech")
    media.narrated_wav(list(STEPS), folder / "speech.wav")
    return folder


@needs_tools
@pytest.mark.slow
def test_a_ten_hour_file_peaks_like_a_one_hour_file(speech):
    one = media.transcribe_peak(media.long_audio(speech / "speech.wav", speech / "1h.flac", 3600))
    ten = media.transcribe_peak(media.long_audio(speech / "speech.wav", speech / "10h.flac", 36000))
    print(f"\npeak RSS: 1 h {one['peak_mb']:.0f} MB ({one['seconds']:.0f} s), "
          f"10 h {ten['peak_mb']:.0f} MB ({ten['seconds']:.0f} s)")
    assert ten["duration"] == pytest.approx(36000, abs=1) and one["duration"] == pytest.approx(3600, abs=1)
    assert abs(ten["peak_mb"] - one["peak_mb"]) <= 0.2 * one["peak_mb"]
    assert ten["peak_mb"] < 1500  # a whole 10-hour track alone is 2.3 GB of samples
    for heard in (one, ten):  # the narration at both ends, the last at its true time
        assert len(heard["segments"]) == 4
        assert heard["segments"][0][0] < 2 and heard["segments"][-1][1] > heard["duration"] - 3


@needs_tools
def test_media_over_the_duration_limit_is_refused_before_decoding(speech, tmp_path):
    hour = media.long_audio(speech / "speech.wav", tmp_path / "hour.flac", 3600)
    library = Library(store=str(tmp_path / "store"), max_media_seconds=1800)
    with pytest.raises(TutorialbookError) as error:
        library.ingest(str(hour), book="b")
    assert "1.0 h long; the limit is 0.5 h (TUTORIALBOOK_MAX_MEDIA_SECONDS)" in str(error.value)
    assert not library.has_book("b")


def test_a_huge_one_line_text_is_cut_into_bounded_segments():
    sentence = "Fold the dough gently and let it rest near the oven for a while. "
    text = sentence * (17_500_000 // len(sentence))  # 17.5 MB, one line
    started = time.process_time()
    transcript = parse_plain(text)
    assert time.process_time() - started < 60
    assert max(len(s.text) for s in transcript.segments) <= MAX_SEGMENT_CHARS
    assert len(transcript.segments) >= len(text) // MAX_SEGMENT_CHARS
    rendered = transcript.text  # offsets index the plain-text rendering (acquire/formats/document.py)
    assert all(rendered[int(s.start):int(s.start) + len(s.text)] == s.text for s in transcript.segments[:50])


def test_a_paragraph_of_thousands_of_wrapped_lines_reads_in_linear_time():
    """Hard-wrapped prose is joined line by line; adding each line to the whole text so far made a
    1,000-line paragraph take 11 s (and 20,000 lines would take hours). Hyphenated line ends too."""
    lines = [f"line {i} of a paragraph that an old text file wraps at seventy columns, hyphen-" if i % 3 == 0
             else f"ated words and all, written as one block without a blank line between {i}" for i in range(20_000)]
    started = time.process_time()
    transcript = parse_plain("Title line\n\n" + "\n".join(lines) + "\n")
    assert time.process_time() - started < 30
    text = " ".join(s.text for s in transcript.segments)
    assert "hyphenated words" in text and "line 19998 of a paragraph" in text


def test_the_embedder_never_tokenizes_more_than_it_can_use(library):
    huge = "fold the dough and let it rest " * 600_000  # 18 MB
    vector = library.embed([huge])[0]
    assert np.allclose(vector, library.embed([huge[:30_000]])[0], atol=1e-6)


def test_a_tutorial_adds_at_most_the_skill_limit(tmp_path):
    sentences = [f"Fold batch {n} of the dough {n % 7 + 2} times, then rest it {n % 5 + 3} minutes near "
                 f"oven number {n}." for n in range(400)]
    source = tmp_path / "long.txt"
    source.write_text(" ".join(sentences))
    library = Library(store=str(tmp_path / "store"), max_tutorial_skills=40)
    report = library.ingest(str(source), book="b", refine_rounds=0).tutorials[0]
    assert report.skills_added <= 40
    assert any("TUTORIALBOOK_MAX_TUTORIAL_SKILLS" in w for w in report.warnings)


def test_query_length_is_limited_and_not_echoed(baking):
    query = "starter " * 131_072  # 1 MiB
    with pytest.raises(TutorialbookError) as error:
        baking.retrieve(query, "baking")
    assert error.value.field == "query" and "TUTORIALBOOK_MAX_QUERY_CHARS" in str(error.value)
    assert len(str(error.value)) < 200
    assert baking.retrieve("starter " * 200, "baking").query  # up to the limit it works


def test_lesson_size_is_a_setting(baking):
    limited = Library(baking.settings, max_lesson_chars=100)  # the same store, a smaller limit
    with pytest.raises(TutorialbookError) as error:
        limited.record_lesson("x" * 101, "baking")
    assert "the limit is 100 (TUTORIALBOOK_MAX_LESSON_CHARS)" in str(error.value)


def test_feedback_is_deduplicated_and_capped(baking):
    skills = [s.id for s in baking.skills("baking")]
    one = skills[0]
    before = baking.skill(one).helpful
    result = baking.record_lesson("Folding worked.", "baking",
                                  feedback=[{"skill_id": one, "verdict": "helpful"}] * 1000)
    assert [(f.skill_id, f.helpful) for f in result.feedback] == [(one, before + 1)]  # counted once
    lessons = baking.store.count("lessons")
    for feedback, why in [([{"skill_id": one, "verdict": "helpful"}] * 1001, "the limit is 1000"),
                          ([{"skill_id": one, "verdict": "helpful"}, {"skill_id": one, "verdict": "harmful"}],
                           "both helpful and harmful"),
                          ([{"skill_id": f"s_{n}", "verdict": "helpful"} for n in range(51)], "the limit is 50"),
                          ([{"skill_id": "s_nosuch", "verdict": "helpful"}], "no skill 's_nosuch'")]:
        with pytest.raises(TutorialbookError) as error:
            baking.record_lesson("Another lesson.", "baking", feedback=feedback)
        assert error.value.field == "feedback" and why in str(error.value)
    assert baking.store.count("lessons") == lessons and baking.skill(one).helpful == before + 1


def test_depth_is_within_the_documented_range(library):
    for depth in (0, 31, 60):
        with pytest.raises(TutorialbookError) as error:
            library.evaluate_position(moves="e4 e5", depth=depth)
        assert "between 1 and 30" in str(error.value)


@needs_stockfish
def test_the_engine_pool_runs_callers_in_parallel_and_bounds_the_queue(tmp_path):
    from tutorialbook.skills.chess.engine import EnginePool

    pool = EnginePool(STOCKFISH, size=2, max_waiting=1)
    busy, results, errors = [], [], []

    def call():
        try:
            results.append(pool.analyse(chess.Board(), depth=30, time_limit=1.0))
        except TutorialbookError as exc:
            errors.append(str(exc))
        busy.append(pool.busy)

    threads = [threading.Thread(target=call) for _ in range(5)]
    watch = threading.Event()

    def sample():
        while not watch.is_set():
            busy.append(pool.busy)
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    watch.set()
    sampler.join()
    pool.close()
    assert max(busy) == 2  # two engines searched at once, never more
    assert len(results) == 3 and len(errors) == 2  # two searching, one waiting, the rest told "busy"
    assert all("busy" in e for e in errors)
    assert all(r.source == "engine" for r in results)


def test_emptying_or_deleting_the_tokens_file_revokes_every_token(tmp_path):
    path = tmp_path / "tokens.json"
    for emptied in ("", "{}", None):
        path.write_text(json.dumps({TOKEN: {"agent": "a", "rights": {"b": "read"}}}))
        os.utime(path, ns=(1, 1))
        tokens = TokenFile(path)
        assert tokens.verify(TOKEN).agent == "a"
        if emptied is None:
            path.unlink()
        else:
            path.write_text(emptied)
            os.utime(path, ns=(2, 2))
        assert tokens.verify(TOKEN) is None, emptied


def test_rights_on_a_name_that_can_never_be_a_book_are_rejected(tmp_path, caplog):
    for bad in ("Chess", "../etc", "a b", ""):
        with pytest.raises(TutorialbookError) as error:
            TokenTable.parse({TOKEN: {"agent": "a", "rights": {bad: "read"}}})
        assert "can never be a book" in str(error.value) and TOKEN not in str(error.value)
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({TOKEN: {"agent": "a", "rights": {"b": "read"}}}))
    tokens = TokenFile(path)
    path.write_text(json.dumps({TOKEN: {"agent": "a", "rights": {"B": "write"}}}))
    os.utime(path, ns=(3, 3))
    assert tokens.verify(TOKEN).access().right("b") == "read"  # the bad edit is refused, the old file kept
    assert "can never be a book" in caplog.text


def test_completion_filters_by_rights_before_its_limit(tmp_path):
    library = Library(store=str(tmp_path / "store"))
    big = tmp_path / "big.md"
    verbs = sorted(extract.IMPERATIVE_VERBS)
    nouns = sorted(w for w in extract.STOPWORDS.symmetric_difference(extract.IMPERATIVE_VERBS) if len(w) > 3)
    big.write_text("\n\n".join(f"# Part {n}\n\n{verbs[n % len(verbs)].capitalize()} the {nouns[n % len(nouns)]} "
                                f"and {verbs[(7 * n + 3) % len(verbs)]} every {nouns[(5 * n + 1) % len(nouns)]}."
                                for n in range(160)))
    library.ingest(str(big), book="aaa", refine_rounds=0)
    mine = tmp_path / "mine.md"
    mine.write_text("# Mine\n\nKeep the starter warm near 26 C between feeds.\n")
    library.ingest(str(mine), book="zzz", refine_rounds=0)
    assert library.store.count("skills", "book = 'aaa'") > 101
    own = {r["id"] for r in library.store.rows("skills", "book = 'zzz'", ["id"])}
    access = Access(agent="z", rights={"zzz": "read"})
    assert set(completion_candidates(library, access, "skill_id", "s_", {})) == own


def test_an_ingest_past_its_time_limit_stops_and_writes_nothing(tmp_path):
    source = tmp_path / "proof.md"
    source.write_text("# Proofing\n\nKeep the dough near 26 C and let it double before shaping.\n")
    library = Library(store=str(tmp_path / "store"), max_ingest_seconds=1e-6)
    with pytest.raises(TutorialbookError) as error:
        library.ingest(str(source), book="b")
    assert "stopped at its time limit" in str(error.value) and "TUTORIALBOOK_MAX_INGEST_SECONDS" in str(error.value)
    assert library.store.count("tutorials") == 0 and not library.has_book("b")
    library = Library(library.settings, max_ingest_seconds=0)  # the same store; 0: no limit
    assert library.ingest(str(source), book="b", refine_rounds=0).tutorials[0].status == "added"
