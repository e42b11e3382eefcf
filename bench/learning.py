"""Does refinement make a book answer questions it was never shown? And does what a book
learned early survive what it learns later?

    python bench/learning.py [--rounds 1] [--modes hybrid,toc] [--json]
    python bench/learning.py --real [--docs ...] [--modes ...] [--fresh] [--json]

``--real`` runs the bench on real documents nobody here wrote instead (r-intro and the Flask
tutorial, against chunk retrieval and BM25 in the same run): see ``bench/real_documents.py``.
Without it, the bench below runs on our own tutorials.

The question set (``bench/data/learning/questions.json``) is written by hand, over the
tutorials in that folder (Markdown, plain text and subtitles on bikes, espresso, git,
houseplants, knives and running, and a chess opening lesson, the London System) — not
produced by Tutorialbook's question generators, which refinement uses. A question is *hit at
k* when the expected answer phrase, normalized (lowercase, letters and digits), appears in
the name and steps of one of the first k skills ``retrieve_skill`` returns for the question;
a chess question is hit when the skill holds its moves followed by the answer move.

For refinement off (``refine_rounds=0``) and on (``refine_rounds=--rounds``), the tutorials are
ingested one by one into a fresh store (the domain the question file names, else general),
in the order of the question file; after each one, every question
of the tutorials ingested so far is asked, in each mode. It prints answer-hit@1 and @5 per
setting and mode, a per-step table (each tutorial's hit@5 as later tutorials arrive), and
whether any tutorial's score dropped after it was first learned.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "learning"


@dataclass
class Question:
    tutorial: str
    question: str
    answer: str
    kind: str = ""  # a chess kind is graded by legal-move match


@dataclass
class Step:
    ingested: str
    seconds: float
    generated: tuple[int, float | None, float | None]  # harvested questions, pass rate before, after
    # mode -> tutorial -> (hits@1, hits@5, questions)
    scores: dict[str, dict[str, tuple[int, int, int]]] = field(default_factory=dict)
    # mode -> tutorial -> questions whose answer skill ties the first skill's score but ranks below it
    ties: dict[str, dict[str, int]] = field(default_factory=dict)


def load() -> tuple[list[str], list[Question], dict[str, str]]:
    data = json.loads((DATA / "questions.json").read_text())
    questions = [Question(**q) for q in data["questions"]]
    order = list(dict.fromkeys(q.tutorial for q in questions))
    return order, questions, data.get("domains", {})


def hit_ranks(library, book: str, q: Question, mode: str, k: int = 5) -> int | None:
    """1-based rank of the first skill holding the answer, or None."""
    return hit(library, book, q, mode, k)[0]


def hit(library, book: str, q: Question, mode: str, k: int = 5) -> tuple[int | None, bool]:
    """(rank of the first skill holding the answer or None, whether that skill's score ties
    the first skill's exactly — a rank-1 miss that is only a tie-break)."""
    from tutorialbook.skills import questions as qs
    from tutorialbook.skills.chess import questions as chess_questions

    skills = library.retrieve(q.question, book, k=k, mode=mode).skills
    asked = qs.Question("", "", q.kind, q.question, q.answer, {})
    for rank, skill in enumerate(skills, 1):
        if chess_questions.answers(asked, skill) if q.kind else qs.contains(qs.skill_body(skill), q.answer):
            return rank, rank > 1 and skill.score is not None and skill.score == skills[0].score
    return None, False


def run(setting_rounds: int, tutorials: list[str], questions: list[Question], modes: list[str],
        store_root: Path, domains: dict[str, str]) -> tuple[list[Step], dict]:
    from tutorialbook.library import Library

    library = Library(store=str(store_root / f"rounds-{setting_rounds}"), allowed_roots=(str(DATA),))
    book = "learning"
    steps: list[Step] = []
    misses: dict[str, list[str]] = {m: [] for m in modes}
    for n, name in enumerate(tutorials):
        clock = time.perf_counter()
        report = library.ingest(str(DATA / name), book=book, domain=domains.get(name, "general"),
                                refine_rounds=setting_rounds)
        t = report.tutorials[0]
        step = Step(name, time.perf_counter() - clock, (t.questions_harvested, t.pass_rate_before, t.pass_rate_after))
        for mode in modes:
            per: dict[str, tuple[int, int, int]] = {}
            step.ties[mode] = {}
            for tutorial in tutorials[: n + 1]:
                asked = [q for q in questions if q.tutorial == tutorial]
                found = [hit(library, book, q, mode) for q in asked]
                ranks = [r for r, _ in found]
                per[tutorial] = (sum(r == 1 for r in ranks), sum(r is not None for r in ranks), len(asked))
                step.ties[mode][tutorial] = sum(tie for _, tie in found)
                if n == len(tutorials) - 1:
                    misses[mode] += [
                        f"{q.tutorial}: {q.question} ({q.answer})" for q, r in zip(asked, ranks) if r is None
                    ]
            step.scores[mode] = per
        steps.append(step)
        print(f"  [{'on' if setting_rounds else 'off'}] ingested {name} in {step.seconds:.1f} s", file=sys.stderr)
    skills = library.store.count("skills")
    names = [r["name"] for r in library.store.rows("skills")]
    return steps, {"skills": skills, "duplicate_names": len(names) - len(set(names)), "misses": misses}


def total(scores: dict[str, tuple[int, int, int]]) -> tuple[float, float, int]:
    h1 = sum(s[0] for s in scores.values())
    h5 = sum(s[1] for s in scores.values())
    n = sum(s[2] for s in scores.values())
    return h1 / n, h5 / n, n


def drops(steps: list[Step], mode: str) -> list[str]:
    """Tutorials whose hit@1 or hit@5 fell below what they scored when first ingested."""
    out = []
    for i, step in enumerate(steps):
        first = step.scores[mode][step.ingested]
        for later in steps[i + 1:]:
            now = later.scores[mode][step.ingested]
            if now[0] < first[0] or now[1] < first[1]:
                ties = later.ties[mode][step.ingested]
                out.append(f"{step.ingested} after {later.ingested}: hit@1 {first[0]}→{now[0]}, "
                           f"hit@5 {first[1]}→{now[1]} (of {first[2]})"
                           + (f" [{ties} answer(s) tie the first skill's score exactly and lose the tie-break]"
                              if ties else ""))
    return out


def main() -> int:
    if "--real" in sys.argv[1:]:
        import real_documents

        return real_documents.main(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="refine_rounds when refinement is on")
    parser.add_argument("--modes", default="hybrid,toc", help="retrieve_skill modes to score")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    modes = args.modes.split(",")
    tutorials, questions, domains = load()
    print(f"{len(questions)} hand-written questions over {len(tutorials)} tutorials; modes {', '.join(modes)}; "
          f"refinement rounds when on: {args.rounds}")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, rounds in (("off", 0), ("on", args.rounds)):
            results[label] = run(rounds, tutorials, questions, modes, Path(tmp), domains)

    if args.json:
        print(json.dumps({label: {"steps": [s.__dict__ for s in steps], **extra}
                          for label, (steps, extra) in results.items()}, indent=1, default=str))
        return 0

    print("\nAnswer-hit after all tutorials (hand-written questions):")
    print(f"  {'refinement':10} {'mode':7} {'hit@1':>7} {'hit@5':>7}   skills  dup.names  ingest s")
    for label, (steps, extra) in results.items():
        for mode in modes:
            h1, h5, n = total(steps[-1].scores[mode])
            seconds = sum(s.seconds for s in steps)
            print(f"  {label:10} {mode:7} {h1:7.1%} {h5:7.1%}   {extra['skills']:6} {extra['duplicate_names']:9}  "
                  f"{seconds:8.1f}")

    steps_on = results["on"][0]
    print("\nGenerated questions (refinement's own exam), per tutorial at its ingest:")
    print(f"  {'tutorial':24} {'questions':>9} {'before':>7} {'after':>7}")
    for s in steps_on:
        n, before, after = s.generated
        print(f"  {s.ingested:24} {n:9} {before or 0:7.1%} {after or 0:7.1%}")

    for label, (steps, _) in results.items():
        for mode in modes:
            short = [t.split(".")[0][:10] for t in tutorials]
            print(f"\nPer step, refinement {label}, mode {mode}: hit@1/hit@5 of each tutorial's questions")
            print(f"  {'after ingesting':24} " + " ".join(f"{s:>11}" for s in short) + f" {'all @1':>7} {'all @5':>7}")
            for step in steps:
                cells = []
                for t in tutorials:
                    if t in step.scores[mode]:
                        h1, h5, n = step.scores[mode][t]
                        cells.append(f"{h1:>3}/{h5:<3}of{n:<2}")
                    else:
                        cells.append(f"{'':>11}")
                h1, h5, _ = total(step.scores[mode])
                print(f"  {step.ingested:24} " + " ".join(f"{c:>11}" for c in cells) + f" {h1:7.1%} {h5:7.1%}")
            dropped = drops(steps, mode)
            print(
                "  earlier tutorials' scores: " + ("never dropped" if not dropped else "DROPPED: " + "; ".join(dropped))
            )

    for label, (_, extra) in results.items():
        for mode in modes:
            if extra["misses"][mode]:
                print(f"\nMissed at 5, refinement {label}, mode {mode}:")
                print("\n".join(f"  {m}" for m in extra["misses"][mode]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
