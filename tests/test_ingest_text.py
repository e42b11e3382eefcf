"""Text and subtitle ingest: structure, evidence, idempotence and merging."""

from pathlib import Path

from tests.support.examples import EXAMPLES
from tutorialbook.library import Library
from tutorialbook.memory.rows import steps_of
from tutorialbook.acquire.sources import parse_markdown, parse_subtitles


def children(library, book, node_id=""):
    return {c.title: c for c in library.browse(book, node_id).children}


def test_markdown_headings_become_the_toc(library):
    report = library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking")
    t = report.tutorials[0]
    # CommonMark: the numbered list interrupts "To mix the dough:", a paragraph of its own
    assert t.status == "added" and t.segments == 6 and t.nodes_added == 4
    chapters = children(library, "baking")
    assert list(chapters) == ["Sourdough bread basics"]
    sections = children(library, "baking", chapters["Sourdough bread basics"].id)
    assert list(sections) == ["Feeding the starter", "Mixing and bulk fermentation", "Shaping and baking"]
    feeding = library.browse("baking", sections["Feeding the starter"].id)
    names = [s.name for s in feeding.skills]
    assert "Feed the starter with equal weights of flour and water every day at the same time" in names
    assert feeding.node.summary.startswith("A starter is a culture of wild yeast")


def test_numbered_steps_become_one_procedure(library):
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking")
    found = library.retrieve("how to mix the dough", "baking", k=3)
    procedure = next(s for s in found.skills if any(step.startswith("Dissolve") for step in s.steps))
    assert procedure.steps[0] == "To mix the dough:", "the list keeps the sentence that introduces it"
    assert procedure.steps[1].startswith("Dissolve one hundred grams of active starter")
    assert procedure.steps[3] == "Rest the dough for thirty minutes, then add ten grams of salt."
    assert not any(step[:1].isdigit() for step in procedure.steps), "list markers are not kept"


def test_evidence_points_at_the_source_span(library):
    text = (EXAMPLES / "sourdough-basics.md").read_text()
    library.ingest(str(EXAMPLES / "sourdough-basics.md"), book="baking")
    skill = library.retrieve("score the loaf with a razor", "baking", k=1).skills[0]
    evidence = skill.evidence[0]
    assert not evidence.timed and evidence.tutorial_title == "Sourdough bread basics"  # the document's title
    assert evidence.quote in text[int(evidence.start): int(evidence.end)]
    assert evidence.link.startswith("file://") and evidence.link.endswith("sourdough-basics.md")


def test_subtitle_times_become_evidence_times(library):
    library.ingest(str(EXAMPLES / "sourdough-troubleshooting.srt"), book="baking")
    skill = library.retrieve("pale crust oven not hot", "baking", k=1).skills[0]
    e = skill.evidence[0]
    assert e.timed and e.start <= 27.8 and e.end == 33.0, "the evidence is the passage holding the cue"
    assert any(step.startswith("A pale crust means the oven was not hot enough") for step in skill.steps)
    assert e.link.endswith(f"sourdough-troubleshooting.srt#t={int(e.start)}")


def test_subtitle_cues_are_joined_into_sentences():
    transcript = parse_subtitles((EXAMPLES / "sourdough-troubleshooting.srt").read_text())
    tunnels = next(s for s in transcript.segments if s.text.startswith("If the crumb"))
    assert tunnels.text.endswith("proof it a little longer.") and (tunnels.start, tunnels.end) == (15.0, 21.3)
    vtt = "WEBVTT\n\n00:01.000 --> 00:03.500\n<v Ann>Always rinse the rice.</v>\n"
    assert parse_subtitles(vtt).segments[0].text == "Always rinse the rice."


def test_reingest_is_a_no_op(library):
    first = library.ingest(str(EXAMPLES), book="baking")
    versions = {t: library.store.version(t) for t in ("nodes", "skills", "segments", "tutorials")}
    again = library.ingest(str(EXAMPLES), book="baking")
    assert [t.status for t in again.tutorials] == ["unchanged", "unchanged"]
    assert [t.tutorial_id for t in again.tutorials] == [t.tutorial_id for t in first.tutorials]
    assert {t: library.store.version(t) for t in versions} == versions


def test_the_same_tutorials_get_the_same_ids_in_any_store(baking, tmp_path):
    """Ids come from what a row is, so two stores rank equal scores (ordered by id) alike."""
    other = Library(store=str(tmp_path / "other"))
    other.ingest(str(EXAMPLES), book="baking")
    ids = lambda library, table: sorted(r["id"] for r in library.store.rows(table, columns=["id"]))  # noqa: E731
    for table in ("nodes", "skills"):
        assert ids(other, table) == ids(baking, table)
    query = "how do I know the starter is ready"
    assert ([s.id for s in other.retrieve(query, "baking", k=5).skills]
            == [s.id for s in baking.retrieve(query, "baking", k=5).skills])


def test_second_tutorial_on_the_topic_merges_and_counts_sources(baking, tmp_path):
    chapters = children(baking, "baking")
    assert list(chapters) == ["Sourdough bread basics"], "the troubleshooting video merged into the chapter"
    feeding = (EXAMPLES / "sourdough-basics.md").read_text().split("## Feeding the starter")[1].split("##")[0]
    notes = tmp_path / "starter-notes.md"
    notes.write_text("# Starter notes\n\nCopied from the basics, to keep by the fridge:\n\n" + feeding.strip() + "\n")
    # the video has no sections: it joins the chapter as a section under its own title (it had
    # been filed straight under the chapter's, and m4's manual pages lost their titles so)
    sections = children(baking, "baking", chapters["Sourdough bread basics"].id)
    assert sections["Sourdough troubleshooting"].kind == "section"
    assert sections["Sourdough troubleshooting"].skills >= 1
    baking.ingest(str(notes), book="baking")
    ready = baking.retrieve("when is a starter ready", "baking", k=5).skills
    taught_twice = [s for s in ready if s.name.startswith("Feed the starter with equal weights")]
    assert len(taught_twice) == 1 and taught_twice[0].sources == 2, "a passage taught again gains a source"
    assert {e.tutorial_title for e in taught_twice[0].evidence} == {"Sourdough bread basics", "Starter notes"}
    all_names = [r["name"] for r in baking.store.rows("skills")]
    assert len(all_names) == len(set(all_names)), "no duplicate skills"


def test_unrelated_tutorial_gets_its_own_chapter(baking, tmp_path):
    git = tmp_path / "git-branching.md"
    git.write_text("# Git branching\n\nCreate a branch for every feature with git switch -c. "
                   "Never force-push a shared branch.\n")
    baking.ingest(str(git), book="baking")
    assert list(children(baking, "baking")) == ["Sourdough bread basics", "Git branching"]


def test_topic_shifts_split_text_without_headings(library, tmp_path):
    pasta = [
        "Pile the flour on the board and make a well in the middle.",
        "Crack three eggs into the well and beat them with a fork.",
        "Knead the pasta dough for ten minutes until it is smooth.",
        "Wrap the dough in plastic and let it rest for half an hour.",
        "Roll the pasta sheets thin enough to see your hand through them.",
    ]
    bikes = [
        "Shift the bicycle chain onto the smallest rear cog before removing the wheel.",
        "Open the brake quick release so the tyre passes the brake pads.",
        "Lever the tyre off the rim with two plastic tyre levers.",
        "Pump the new inner tube a little so it holds its shape.",
        "Check the tyre pressure printed on the sidewall before you ride.",
    ]
    path = tmp_path / "weekend-skills.txt"
    path.write_text("\n\n".join(pasta + bikes))
    library.ingest(str(path), book="misc")
    chapter = children(library, "misc")["Weekend skills"]
    sections = library.browse("misc", chapter.id).children
    assert len(sections) == 2
    first_section_skills = {s.name for s in library.browse("misc", sections[0].id).skills}
    assert any("eggs" in n for n in first_section_skills) and not any("tyre" in n for n in first_section_skills)


def test_markdown_offsets_are_exact():
    text = "# T\n\nFirst paragraph here.\n\n## S\n\nSecond one.\nStill second.\n"
    transcript = parse_markdown(text)
    assert [text[int(s.start): int(s.end)].strip() for s in transcript.segments] == [
        "First paragraph here.", "Second one.\nStill second."
    ]
    assert transcript.headings == [(0, 1, "T"), (1, 2, "S")]


DATA_STRUCTURES = """# Data structures

## More on lists

The list data type has some more methods. Use append to add an item to the end of the list,
and extend to append all the items from another iterable.

Insert puts an item at a given position; the first argument is the index of the element
before which to insert. Remove deletes the first item whose value is equal to the argument.

## Dictionaries

A dictionary maps keys to values. Keys can be any immutable type, such as strings and numbers.
Placing a comma-separated list of key:value pairs within the braces adds initial pairs.

Use the in keyword to check whether a single key is in the dictionary, and del to delete a pair.
"""

CLASSES = """# Classes

## A first look at classes

Classes provide a means of bundling data and functionality together. Creating a new class
creates a new type of object, allowing new instances of that type to be made.

The class definition must be executed before it has any effect. Define methods inside the
class body with def; the first argument of a method is called self by convention.

## Inheritance

A derived class names its base class in parentheses after the class name. Methods of the base
class are found when they are not defined in the derived class.

Call super() to reach the base class's method from an overriding method of the derived class.
"""


def test_two_topics_of_one_domain_stay_separate_chapters(library, tmp_path):
    """Two pages of one programming tutorial are about different topics: neither is filed
    under the other's chapter, and their sections stay with their own page."""
    (tmp_path / "datastructures.md").write_text(DATA_STRUCTURES)
    (tmp_path / "classes.md").write_text(CLASSES)
    library.ingest(str(tmp_path), book="python", refine_rounds=0)
    chapters = children(library, "python")
    assert sorted(chapters) == ["Classes", "Data structures"]
    assert list(children(library, "python", chapters["Classes"].id)) == ["A first look at classes", "Inheritance"]
    assert list(children(library, "python", chapters["Data structures"].id)) == ["More on lists", "Dictionaries"]


def test_a_title_from_a_file_name_keeps_the_authors_capitals(library, tmp_path):
    """A source with no title of its own is named after its file: separators read as spaces and
    acronyms stay as written ("SQL", not "Sql")."""
    notes = tmp_path / "SQL_joins-in-PostgreSQL.txt"
    notes.write_text("Join the orders table to the customers table on the customer id.\n\n"
                     "Use a left join when every customer must appear, with or without orders.\n")
    report = library.ingest(str(notes), book="db")
    assert report.tutorials[0].title == "SQL joins in PostgreSQL"
    assert [t.title for t in library.tutorials("db")] == ["SQL joins in PostgreSQL"]


def test_ingest_locks_are_a_bounded_set_of_files(library, tmp_path, monkeypatch):
    """A tutorial's ingest holds one of ``INGEST_LOCKS`` locks (a lock file each), not one of its
    own: a store's lock folder does not gain a file per tutorial ever ingested."""
    from tutorialbook import ingest

    monkeypatch.setattr(ingest, "INGEST_LOCKS", 2)
    folder = tmp_path / "notes"
    folder.mkdir()
    for n, topic in enumerate(["rice", "tea", "eggs", "soup", "bread"]):
        text = f"# Cooking {topic}\n\nRinse the {topic} twice, then cook it for {n + 5} minutes.\n"
        (folder / f"{topic}.md").write_text(text)
    report = library.ingest(str(folder), book="kitchen")
    assert [t.status for t in report.tutorials] == ["added"] * 5
    locks = [p.name for p in (Path(library.settings.store) / ".locks").iterdir() if p.name.startswith("ingest-")]
    assert 1 <= len(locks) <= 2
    again = library.ingest(str(folder), book="kitchen")  # each lock still tells its tutorials' writers apart
    assert [t.status for t in again.tutorials] == ["unchanged"] * 5


VECTORS = """# Working with vectors

## Creating a vector

A vector in R holds values of one type. Create a vector with the function c, as in x <- c(1, 2, 3).

## Creating a longer vector

A vector in R holds values of one type. Create a longer vector with the function c, as in y <- c(x, 4, 5, 6).

## Creating a vector of words

A vector in R holds values of one type. Create a vector of words with the function c, as in z <- c("a", "b").
"""


def test_a_documents_own_sections_on_close_topics_stay_apart(library, tmp_path):
    """Sections of one document are the author's structure: however alike their contents (three
    sections that create vectors), none is merged into a sibling, so the TOC mirrors the headings."""
    (tmp_path / "vectors.md").write_text(VECTORS)
    library.ingest(str(tmp_path / "vectors.md"), book="r", refine_rounds=0)
    chapters = children(library, "r")
    assert list(chapters) == ["Working with vectors"]
    sections = children(library, "r", chapters["Working with vectors"].id)
    assert list(sections) == ["Creating a vector", "Creating a longer vector", "Creating a vector of words"]
    assert all(s.skills >= 1 for s in sections.values())


PARSING = """# Date functions

## Parsing a date

Upon success, the function returns 0 and a negative value if the date could not be parsed from the string.

## Making tea

The kettle whistles while the green tea steeps in the warm pot for three minutes.
"""

CONVERTING = """# Timestamp functions

## Tea

Upon success, the function returns 0 and the kettle whistles while the green tea steeps in the warm pot.

## Converting a timestamp

Upon success, the function returns 0 and a negative value if the timestamp could not be converted to text.

## Formatting an interval

Upon success, the function returns 0 and a negative value if the interval could not be formatted as a string.
"""


def test_two_passages_merging_into_one_stored_skill_keep_both(library, tmp_path):
    """Passages of a new tutorial named like a stored skill merge into it (same name, close
    content), after another of its passages with that name became a skill of its own: the stored
    skill is rewritten once (two rewrites of one row in a commit failed it: 'Ambiguous merge
    inserts'), and each merged passage stays readable in it."""
    (tmp_path / "parsing.md").write_text(PARSING)
    (tmp_path / "converting.md").write_text(CONVERTING)
    library.ingest(str(tmp_path / "parsing.md"), book="c", refine_rounds=0)
    report = library.ingest(str(tmp_path / "converting.md"), book="c", refine_rounds=0)
    assert report.tutorials[0].status == "added"
    bodies = [" ".join(s.steps) for s in library.skills("c")]
    for passage in ["the timestamp could not be converted", "the interval could not be formatted",
                    "the date could not be parsed", "the kettle whistles while"]:
        assert any(passage in body for body in bodies), passage


def test_a_long_manual_is_embedded_in_few_batches(library, tmp_path, monkeypatch):
    """Consolidation embeds a tutorial's drafts in one batch (a call per section left a core
    idle: a 3 MB manual of 1,800 sections took three times as long), and a passage of one
    paragraph reuses that paragraph's vector instead of embedding the same words again."""
    topics = ("cache timeout logging compression encryption backup quota proxy mirror schedule retry audit "
              "locale theme plugin socket buffer certificate firewall journal index replica shard token "
              "session cookie banner sitemap thumbnail webhook mailer printer scanner keyboard monitor "
              "battery sensor camera speaker antenna").split()
    sections = "\n\n".join(
        f"## The {topic} option\n\nThe {topic} option changes how the server treats its {topic} "
        f"settings. Raise it when the log says the {topic} limit was reached." for topic in topics)
    (tmp_path / "manual.md").write_text(f"# Server manual\n\n{sections}\n")
    calls: list[list[str]] = []
    embedder = library._get_embedder()  # what every service of the library embeds through
    embed = embedder.embed
    monkeypatch.setattr(embedder, "embed", lambda texts: calls.append(list(texts)) or embed(texts))
    report = library.ingest(str(tmp_path / "manual.md"), book="manual", refine_rounds=0)
    t = report.tutorials[0]
    assert t.nodes_added == 41 and t.skills_added >= 40
    assert len(calls) <= 4, "the segments, the new book's title, the drafts, the nodes' texts"
    embedded = [text for batch in calls for text in batch]
    assert not any(text.startswith("The firewall option changes") for text in embedded[t.segments:]), \
        "a one-paragraph passage has its paragraph's vector"
    found = library.retrieve("when should I raise the firewall option", "manual", k=1).skills[0]
    assert "firewall limit was reached" in " ".join(found.steps)


def test_a_tutorial_joining_a_chapter_keeps_its_sections_under_its_own_title(baking, tmp_path):
    """Sphinx's tutorial read as a folder: "Describing code in Sphinx" joined the chapter of
    another page and its sections were filed under that page's sections, its own title gone."""
    basics = (EXAMPLES / "sourdough-basics.md").read_text()
    feeding = basics.split("## Feeding the starter")[1].split("##")[0].strip()
    shaping = basics.split("## Shaping and baking")[1].split("##")[0].strip()
    home = tmp_path / "home.md"
    home.write_text(f"# Sourdough at home\n\n## Keeping the starter\n\n{feeding}\n\n## Baking the loaf\n\n{shaping}\n")
    baking.ingest(str(home), book="baking")
    chapters = children(baking, "baking")
    assert list(chapters) == ["Sourdough bread basics"]
    sections = children(baking, "baking", chapters["Sourdough bread basics"].id)
    assert list(children(baking, "baking", sections["Sourdough at home"].id)) == ["Keeping the starter",
                                                                                 "Baking the loaf"]


def test_alike_passages_of_two_sections_stay_in_their_own_sections(library, tmp_path):
    """Bash's reference says of '&>word' and of '&>>word' nearly the same words: the second
    section's passage merged into the first's skill and "3.6.5 Appending Standard Output" was
    left with none. One tutorial's sections keep their skills, the same name twice included."""
    manual = tmp_path / "redirection.md"
    manual.write_text("# Shell redirection\n\n## Redirecting output\n\nThis construct allows both the standard "
                      "output and the standard error output to be redirected to the file named by word.\n\n"
                      "## Appending output\n\nThis construct allows both the standard output and the standard "
                      "error output to be appended to the file named by word.\n\n## Opening\n\n1. Open the file\n"
                      "2. Close it\n\n## Reopening\n\n1. Open the file\n2. Close it\n")
    library.ingest(str(manual), book="shell", refine_rounds=0)
    chapter = children(library, "shell")["Shell redirection"]
    sections = children(library, "shell", chapter.id)
    assert {title: node.skills for title, node in sections.items()} == {
        "Redirecting output": 1, "Appending output": 1, "Opening": 1, "Reopening": 1}
    appended = library.browse("shell", sections["Appending output"].id).skills[0]
    assert "appended" in library.store.get("skills", appended.id)["steps"]
    ids = [r["id"] for r in library.store.rows("skills")]
    assert len(ids) == len(set(ids)) == 4


def test_alike_passages_about_different_things_stay_two_skills(library, tmp_path):
    """Two modules' manuals say the same warning of each: "Do NOT use mod_rewrite to protect
    specific urls" had been folded into the mod_redirect skill, its own section left
    empty and the warning attributed to the other module. Passages naming different modules,
    options or numbers stay apart; the same passage taught twice still merges (above)."""
    warning = ("Do NOT use {mod} to protect specific urls, as the original url passed from the client\n"
               "is matched against your rules, for example strings like \"/abc/../xyz%2f/path\".")
    for mod in ("mod_redirect", "mod_rewrite"):
        (tmp_path / f"{mod}.md").write_text(f"# {mod}\n\n## Warning\n\n{warning.format(mod=mod)}\n")
    library.ingest(str(tmp_path / "mod_redirect.md"), book="web", refine_rounds=0)
    library.ingest(str(tmp_path / "mod_rewrite.md"), book="web", refine_rounds=0)
    skills = library.store.rows("skills", "book = 'web'")
    assert len(skills) == 2 and {s["sources"] for s in skills} == {1}
    texts = sorted(" ".join(steps_of(s)) for s in skills)
    assert "mod_redirect" in texts[0] and "mod_rewrite" not in texts[0]
    assert "mod_rewrite" in texts[1] and "mod_redirect" not in texts[1]


def test_skills_a_tutorial_would_give_one_name_are_named_by_their_sections(library, tmp_path):
    """A reference opens each variable's section the same way ("Type: boolean", "Default: no"): 418
    of mutt's skills were named "Type: boolean Default: no" and the like, the variable's name only
    in the section's title. Such skills take their section's title before the shared name."""
    text = "Variables\n\n3. Reference\n\nEach variable is set in the configuration file.\n\n" + "".join(
        f"3.{n}. {name}\n\nType: boolean\nDefault: no\n\nWhen set, mutt will {does}. Mutt will only\n"
        "check for new mail over existing connections. This is useful if opening a\nconnection is slow.\n\n"
        for n, (name, does) in enumerate([("imap_passive", "not open new IMAP connections"),
                                          ("beep_new", "beep when new mail arrives"),
                                          ("mark_old", "mark new unread messages as old")], 1))
    (tmp_path / "vars.txt").write_text(text)
    library.ingest(str(tmp_path / "vars.txt"), book="mutt", refine_rounds=0)
    names = sorted(r["name"] for r in library.store.rows("skills", "book = 'mutt'"))
    assert [n for n in names if "Type: boolean" in n] == [
        "3.1. imap_passive: Type: boolean Default: no", "3.2. beep_new: Type: boolean Default: no",
        "3.3. mark_old: Type: boolean Default: no"], names


def test_a_chapter_stays_about_what_its_founder_taught(baking):
    """A chapter's content, which a new tutorial must come close to to join it, is the centroid
    of what the tutorial that made it teaches: not of every tutorial that joined since (each
    drew it nearer the next: 24 of trace-cmd's 28 man pages joined the first page's chapter,
    only 5 of them near that page), nor of a footer every page repeats (a man page's COPYING)."""
    import numpy as np

    from tutorialbook.memory import lance, where
    from tutorialbook.memory.rows import evidence_of
    from tutorialbook.skills import passages
    from tutorialbook.skills.builder import Builder

    chapter = children(baking, "baking")["Sourdough bread basics"]
    row = baking.store.get("nodes", chapter.id)
    spans = evidence_of(row)
    assert len({e["tutorial_id"] for e in spans}) == 2, "the troubleshooting video joined the chapter"

    def centroid(tutorial_ids):
        found = baking.store.columns("segments", where.in_list("tutorial_id", tutorial_ids),
                                     ["tutorial_id", "start", "end", "vector", "text"])
        vectors = lance.matrix(found["vector"])
        keep = [i for i, (t, s, e, text) in enumerate(zip(*(found[c].to_pylist() for c in (
                    "tutorial_id", "start", "end", "text"))))
                if any(span["tutorial_id"] == t and span["start"] - 1 <= s and e <= span["end"] + 1 for span in spans)
                and not passages.is_boilerplate(text)]
        mean = vectors[keep].mean(axis=0)
        return mean / np.linalg.norm(mean)

    builder = Builder(baking.store, baking.embed, "baking", baking.reading.tree("baking"))
    builder._read_stored([chapter.id])
    content = builder._read[chapter.id]["_content"]
    assert np.allclose(content, centroid([row["origin"]]), atol=1e-5)
    assert not np.allclose(content, centroid([e["tutorial_id"] for e in spans]), atol=1e-3)


SESSIONS = '''# Requests in practice

## Sessions

A session keeps cookies and default headers across the requests you make with it.

```python
s = requests.Session()
s.get("https://example.org/cookies/set/a/1")
```

```python
s.headers.update({"x-test": "true"})
s.get("https://example.org/headers")
```

```python
with requests.Session() as s:
    s.get("https://example.org/cookies")
```

Closing the session releases its pooled connections.
'''


def test_a_section_is_summed_up_by_its_prose_not_its_examples(tmp_path, library):
    source = tmp_path / "sessions.md"
    source.write_text(SESSIONS)
    library.ingest(str(source), book="web")
    chapter = children(library, "web")["Requests in practice"]
    sessions = children(library, "web", chapter.id)["Sessions"]
    summary = library.browse("web", sessions.id).node.summary
    assert summary.startswith("A session keeps cookies and default headers"), summary
    assert "s.get(" not in summary and "requests.Session()" not in summary, "an example's line is no summary"


def test_a_summary_is_no_licence_clause_which_no_skill_holds():
    """cpio's README (Debian's cpio 2.13) closes its one section with the licence's clauses, and
    the section was summed up "This file contains brief information about configuring and
    compiling GNU cpio. Permission is granted to anyone to make or distribute verbatim copies of
    this document …": a sentence no skill holds. Summaries and a chapter's opening take what the
    text teaches."""
    import numpy as np

    from tutorialbook.acquire.transcript import Segment
    from tutorialbook.skills import extract

    licence = ("Permission is granted to anyone to make or distribute verbatim copies of this document as "
               "received, in any medium, provided that the copyright notice and this permission notice are preserved.")
    segments = [Segment(0, 1, "GNU cpio copies files between archives and directories.", "paragraph"),
                Segment(1, 2, "This file contains brief information about configuring and compiling GNU cpio.",
                        "paragraph"),
                Segment(2, 3, "A usual three-stage procedure applies to build it.", "paragraph"),
                Segment(3, 4, licence, "paragraph")]
    vectors = np.array([[1.0, 0.0], [0.95, 0.31], [0.9, 0.43], [0.5, 0.87]], dtype=np.float32)
    assert "Permission" not in extract.summary(segments, [0, 1, 2, 3], vectors)
    assert extract.opening([segments[3], segments[0]]) == "GNU cpio copies files between archives and directories."


def test_a_summary_says_something_not_a_short_lead_in_or_a_stray_word():
    """doit's "pip" was summed up as "package:", its "Tasks" as "… True", Sinatra's "Error" as "… You
    get this:": the most central segment, whatever it said. A segment saying something is taken
    first; a node of such lead-ins alone keeps its most central one."""
    import numpy as np

    from tutorialbook.acquire.transcript import Segment
    from tutorialbook.skills import extract

    segments = [Segment(0, 1, "You get this:", "paragraph"),
                Segment(1, 2, "True", "paragraph"),
                Segment(2, 3, "Settings made in a configure block apply to every route.", "paragraph"),
                Segment(3, 4, "configure do\n  set :option, 'value'\nend", "code")]
    vectors = np.array([[1.0, 0.0], [0.9, 0.1], [0.6, 0.8], [1.0, 0.0]], dtype=np.float32)
    said = "Settings made in a configure block apply to every route."
    assert extract.summary(segments, [0, 1, 2, 3], vectors) == said
    assert extract.summary(segments, [0, 1], vectors[:2]) == "You get this:"
    assert extract.opening(segments) == said
    assert extract.states("Sinatra applications can be run directly:"), "a longer lead-in says what follows is about"


def test_a_lead_in_that_stops_on_a_word_wanting_more_sums_up_nothing():
    """aiohttp's "Timeouts" was summed up as "Thus the default timeout is: …", Scrapy's "Extracting
    quotes and authors" as "… We get a list of selectors for the quote HTML elements with:": what
    they lead into is code the summary does not hold. Such a lead-in is passed over as a short one is."""
    import numpy as np

    from tutorialbook.acquire.transcript import Segment
    from tutorialbook.skills import extract

    segments = [Segment(0, 1, "Thus the default timeout is:", "paragraph"),
                Segment(1, 2, "aiohttp.ClientTimeout(total=5*60, connect=None)", "code"),
                Segment(2, 3, "All fields are floats, and None or 0 disables a particular timeout check.", "paragraph")]
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    assert not extract.states("Thus the default timeout is:")
    assert not extract.states("We get a list of selectors for the quote HTML elements with:")
    assert extract.summary(segments, [0, 1, 2], vectors) == segments[2].text
    assert extract.states("Other HTTP methods are available as well:"), "it says what follows is about"


def test_a_procedure_no_line_introduces_is_named_after_its_section():
    """A numbered list with no introducing line (as refinement's repairs draft one) takes its
    section's heading: "How to …" only where the heading states a step."""
    from tutorialbook.skills import extract

    steps = "1. Open the file.\n2. Read its header.\n3. Close it again.\n"
    named = {title: extract.skill_drafts(steps, 0, title)[0].name
             for title in ("The Application Factory", "6.8 Syntax Error Handling", "Install Flask", "")}
    assert named == {"The Application Factory": "The Application Factory",
                     "6.8 Syntax Error Handling": "Syntax Error Handling",
                     "Install Flask": "How to install Flask", "": extract.name_from("Open the file.")}
    assert extract.skill_drafts(steps, 0, "The Application Factory")[0].steps == [
        "Open the file.", "Read its header.", "Close it again."]
