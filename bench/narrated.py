"""Learning from narration of a real document: chapters of "An Introduction to R" read aloud.

    python bench/narrated.py [--voices espeak-ng,flite] [--modes hybrid,toc] [--rounds 0] [--fresh] [--json]

The text half of the learning bench (``bench/real_documents.py``) asks the shared dev set's
questions of the R manual as written. Here the same questions are asked of the manual *spoken*:
what a user who ingests a narrated tutorial gets, with the transcript as the ceiling. The
chapters narrated are chosen by a fixed rule, not by looking at answers: every chapter of the
manual that holds at least two of the dev set's 30 questions and has at most 2,600 words (so a
voice's audio stays under an hour). Each chapter, as the project's HTML reader gives it
(headings and prose; code read as it stands), is rendered by each synthesizer to one WAV file
named after the chapter's heading, and the folder is ingested as audio with default settings
(bundled tiny.en; refinement off, and on with ``--rounds N``). The questions are the dev set's
whose section lies in a narrated chapter.

Printed per voice, on the same questions in the same run: hit@1/@5 and characters returned for
plain chunk retrieval (60-word windows, stride 30, the project's MiniLM, cosine) and BM25 over
the book's own transcript (the segments ingest stored; chunks also with the transcript's marks on
unsure words, ``ten(?)``, removed: the book embeds its text with them), chunk retrieval over the written text
of the same chapters (what reading the document instead would give), and ``retrieve_skill`` in
each mode. Speech carries no code punctuation, so an answer counts when its letters and digits
appear, in order, in the returned text's letters and digits (the same rule for every method).
Stores and audio are cached in ``bench/.cache/narrated/`` by a hash of code, text and voice.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import real_documents as rd  # noqa: E402
from bench.asr import missing_voice, render  # noqa: E402
from bench.report import emit  # noqa: E402
from tutorialbook.acquire.transcript import UNSURE  # noqa: E402

CACHE = ROOT / "bench" / ".cache" / "narrated"
BOOK = "narrated"
VOICES = ("espeak-ng", "flite")
MIN_QUESTIONS = 2
MAX_WORDS = 2600


def spoken(text: str) -> str:
    """Letters and digits only, lower case: what a transcript and a written answer share."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def is_hit(text: str, answers: list[str]) -> bool:
    text = f" {spoken(text)} "
    return any(f" {spoken(a)} " in text for a in answers if spoken(a))


class Score(rd.Score):
    def matches(self, text: str, answers: list[str]) -> bool:
        return is_hit(text, answers)


def chapters() -> tuple[list[tuple[str, str]], list[dict]]:
    """[(heading, text)] of the chapters narrated, and the dev set's questions inside them."""
    from tutorialbook.acquire.formats import read_document

    source = rd.documents()["r-intro"].files[0]
    doc = read_document(".html", source.read_bytes(), source.name)
    level = sorted({lv for _, lv, _ in doc.headings})[1]  # the manual's chapters (level 1 is its title)
    tops = [(i, title) for i, lv, title in doc.headings if lv == level]
    heads: dict[int, list[str]] = {}
    for i, _, title in doc.headings:
        heads.setdefault(i, []).append(title)
    questions = rd.questions("r-intro")
    out, asked = [], []
    for (start, title), (end, _) in zip(tops, tops[1:] + [(len(doc.segments), "")]):
        number = title.split()[0] if title.split()[0].isdigit() else None  # "Appendix A …" has none
        inside = [q for q in questions if q["section"].startswith(title)
                  or (number and q["section"].split()[0].split(".")[0] == number)]
        parts = []
        for i in range(start, end):
            parts += [h.rstrip(".") + "." for h in heads.get(i, [])]
            parts.append(doc.segments[i].text)
        text = " ".join(" ".join(parts).split())
        if len(inside) >= MIN_QUESTIONS and len(text.split()) <= MAX_WORDS:
            out.append((title, text))
            asked += inside
    return out, asked


def audio(voice: str, narrated: list[tuple[str, str]], fresh: bool) -> Path:
    """A folder of one WAV a chapter, named after its heading, for ``voice``."""
    key = rd._digest([voice, *(t for pair in narrated for t in pair)])
    folder = CACHE / f"audio-{voice}-{key}"
    if (folder / "done").exists() and not fresh:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for title, text in narrated:
        name = re.sub(r"[^A-Za-z0-9]+", " ", title).strip() + ".wav"
        render(voice, text, folder / name)
    (folder / "done").write_text("")
    return folder


def ingested(voice: str, folder: Path, rounds: int, fresh: bool):
    """(Library, seconds to ingest or None when cached) for the voice's narration."""
    from tutorialbook.library import Library

    wavs = sorted(folder.glob("*.wav"))
    key = rd._digest(rd.code_key() + [voice, rounds] + [w.name.encode() + w.read_bytes()[:65536] for w in wavs])
    path = CACHE / f"store-{voice}-r{rounds}-{key}"
    if (path / "done").exists() and not fresh:
        return Library(store=str(path / "store")), None
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    library = Library(store=str(path / "store"), allowed_roots=(str(folder),))
    clock = time.perf_counter()
    library.ingest(str(folder), book=BOOK, refine_rounds=rounds)
    seconds = time.perf_counter() - clock
    (path / "done").write_text(json.dumps({"ingest_seconds": round(seconds, 1)}))
    return library, seconds


def transcript_texts(library) -> list[str]:
    """One text per tutorial: the segments ingest stored, in order (what the book was made from)."""
    tutorials = library.store.rows("tutorials", f"book = '{BOOK}'")
    return [" ".join(s["text"] for s in library.reading.segments(t["id"], ["idx", "text"]))
            for t in sorted(tutorials, key=lambda t: t["title"])]


def chunk_rows(texts: list[str], qs: list[dict], fresh: bool) -> dict[str, dict]:
    """Chunk cosine and BM25 over ``texts``, scored by the spoken rule."""
    pieces = rd.chunks(texts)
    vectors = rd.embed_cached(pieces, fresh)
    qvec = rd.embed_cached([q["question"] for q in qs], fresh)
    rows = {"chunks": Score(), "bm25": Score()}
    for q, v in zip(qs, qvec):
        for name, score in (("chunks", vectors @ v), ("bm25", rd.bm25_scores(pieces, q["question"]))):
            order = np.argsort(-score, kind="stable")
            rows[name].add(q["id"], q["answer_any"], pieces[order[0]], " ".join(pieces[i] for i in order[:5]))
    return {name: s.row() for name, s in rows.items()}


def system_rows(library, qs: list[dict], modes: list[str]) -> dict[str, dict]:
    out = {}
    for mode in modes:
        score = Score()
        for q in qs:
            top1 = library.retrieve(q["question"], BOOK, k=1, mode=mode).skills
            top5 = library.retrieve(q["question"], BOOK, k=5, mode=mode).skills
            score.add(q["id"], q["answer_any"], " ".join(map(rd.skill_text, top1)),
                      " ".join(map(rd.skill_text, top5)))
        out[mode] = score.row()
    return out


def run(voices: list[str], modes: list[str], rounds: list[int], fresh: bool, log=print) -> dict:
    narrated, qs = chapters()
    written = chunk_rows([t for _, t in narrated], qs, fresh)
    result: dict = {"chapters": [t for t, _ in narrated], "words": sum(len(t.split()) for _, t in narrated),
                    "questions": len(qs), "written": written, "voices": {}}
    for voice in voices:
        missing = missing_voice(voice)
        if missing:
            result["voices"][voice] = {"skipped": missing}
            log(f"{voice}: SKIPPED — {missing}")
            continue
        folder = audio(voice, narrated, fresh)
        per: dict = {"settings": {}}
        for r in rounds:
            log(f"{voice}: refine_rounds={r}: ingesting {len(narrated)} narrated chapters (or reusing the cache) …")
            library, seconds = ingested(voice, folder, r, fresh)
            try:
                if "transcript" not in per:
                    texts = transcript_texts(library)
                    per["transcript"] = chunk_rows(texts, qs, fresh)
                    per["unmarked"] = chunk_rows([t.replace(UNSURE, "") for t in texts], qs, fresh)["chunks"]
                per["settings"][f"refine {r}"] = {"ingest_seconds": seconds, "skills": library.store.count("skills"),
                                                  "modes": system_rows(library, qs, modes)}
            finally:
                library.close()
        result["voices"][voice] = per
    return result


def print_table(r: dict) -> None:
    print(f"\nr-intro narrated: {len(r['chapters'])} chapters ({', '.join(r['chapters'])}), {r['words']:,} words, "
          f"{r['questions']} dev-set questions inside them; answers matched on letters and digits")
    print(f"  {'voice':10} {'method':32} {'hit@1':>7} {'hit@5':>7} {'chars@1':>8} {'chars@5':>8}")

    def line(voice: str, label: str, row: dict) -> None:
        print(f"  {voice:10} {label:32} {row['hit@1']:>3}/{row['n']:<3} {row['hit@5']:>3}/{row['n']:<3} "
              f"{row['chars@1']:>8} {row['chars@5']:>8}")

    line("(written)", "chunks over the written text", r["written"]["chunks"])
    line("(written)", "BM25 over the written text", r["written"]["bm25"])
    for voice, per in r["voices"].items():
        if "skipped" in per:
            print(f"  {voice:10} skipped: {per['skipped']}")
            continue
        line(voice, "chunks over the transcript", per["transcript"]["chunks"])
        if "unmarked" in per:
            line(voice, "the same, unsure marks removed", per["unmarked"])
        line(voice, "BM25 over the transcript", per["transcript"]["bm25"])
        for setting, s in per["settings"].items():
            for mode, row in s["modes"].items():
                line(voice, f"retrieve {mode} {setting}", row)
    for voice, per in r["voices"].items():
        for setting, s in per.get("settings", {}).items():
            took = "cached" if s["ingest_seconds"] is None else f"{s['ingest_seconds']:.0f} s"
            print(f"  {voice} {setting}: {s['skills']} skills, ingest {took}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", default=",".join(VOICES))
    parser.add_argument("--modes", default="hybrid,toc,vector,keyword")
    parser.add_argument("--rounds", default="0", help="comma-separated refine_rounds to build, e.g. 0,1")
    parser.add_argument("--fresh", action="store_true", help="ignore cached audio, stores and vectors")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not rd.documents()["r-intro"].files:
        print("r-intro is missing: apt-get install r-doc-html", file=sys.stderr)
        return 1
    results = run(args.voices.split(","), args.modes.split(","), [int(x) for x in args.rounds.split(",")],
                  args.fresh, log=lambda m: print(m, file=sys.stderr))
    return emit(results, args.json, print_table)


if __name__ == "__main__":
    sys.exit(main())
