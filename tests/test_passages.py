"""Passages: every block of a tutorial belongs to a skill that carries it whole; material that
teaches nothing does not become a skill."""

import pytest

from tutorialbook.acquire.sources import parse_markdown
from tutorialbook.acquire.transcript import Segment
from tutorialbook.skills import passages

GUIDE = """# Caring for a cast iron pan

Copyright © 2024 Jane Doe. Permission is granted to copy this page under the terms of the GNU Free Documentation License.

## Seasoning

Seasoning is a thin layer of polymerised oil that protects the pan. Because the layer is
built up slowly, every time you cook with fat you add to it. Wipe a thin film of oil over
the whole pan, then heat it upside down in the oven for an hour. Thick layers turn sticky,
so wipe off as much oil as you can before it goes in.

To check the seasoning:

```
hold the pan under running water
water beads up on a seasoned pan
```

## Cleaning

Never soak the pan overnight. Rinse it with hot water while it is still warm.
"""


def test_a_skill_holds_its_whole_passage_and_its_span(tmp_path, library):
    path = tmp_path / "cast-iron.md"
    path.write_text(GUIDE)
    library.ingest(str(path), book="kitchen", refine_rounds=0)
    skills = library.skills("kitchen")
    seasoning = next(s for s in skills if any("polymerised oil" in step for step in s.steps))
    body = " ".join(seasoning.steps)
    # the answer to "why does seasoning build up" sits in the sentence after the definition
    assert "every time you cook with fat you add to it" in body
    assert "Thick layers turn sticky" in body, "the paragraph is kept whole, not cut to its instructions"
    evidence = seasoning.evidence[0]
    assert evidence.quote in GUIDE[int(evidence.start):int(evidence.end)]
    assert "wipe off as much oil" in GUIDE[int(evidence.start):int(evidence.end)], "the span is the whole passage"
    # the steps hold the passage: the quote only shows where it starts, not a second copy of step one
    assert len(evidence.quote.split()) == passages.QUOTE_WORDS and body.startswith(evidence.quote)
    # a short section is one skill: its paragraphs, and the code block with the prose that introduces it
    assert "To check the seasoning:" in seasoning.steps and any("water beads up" in step for step in seasoning.steps)
    assert {s.name for s in skills} >= {"Never soak the pan overnight"}


def test_licence_and_greetings_do_not_become_skills(tmp_path, library):
    path = tmp_path / "cast-iron.md"
    path.write_text(GUIDE)
    library.ingest(str(path), book="kitchen", refine_rounds=0)
    bodies = [" ".join(s.steps) for s in library.skills("kitchen")]
    assert not any("Copyright" in b or "Permission is granted" in b for b in bodies)
    segments = [Segment(0, 3, "Hi everyone, welcome to my channel."),
                Segment(3, 9, "Sharpen the knife at a twenty degree angle on the coarse stone."),
                Segment(9, 12, "Thanks for watching and see you next time!")]
    kept = [s for s in segments if not passages.is_boilerplate(s.text)]
    assert [s.start for s in kept] == [3]
    # texinfo writes a page for each old node name that only points at the new one
    assert passages.is_boilerplate("The node you are looking for is at Blank Lines.")


PACKAGING = """# Packaging notes

## The copyright file

The debian/copyright file provides the copyright summary data of the package. Here is its
template, as the tool writes it:

```
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: debhello
Copyright: 2015 Osamu Aoki
License: MIT
```

## The site configuration

Add a nav setting to the configuration to set the order of the pages in the site:

```yaml
site_name: Lorum
nav:
    - Home: index.md
    - About: about.md
```
"""


def test_code_blocks_are_examples_whatever_they_hold(tmp_path, library):
    """A config of short lines ("- Home: index.md") is not an index or a navigation bar, a licence
    file's template is not a licence, and prose about the copyright file is not a copyright
    notice: each stays whole in a skill, line breaks kept, named by its prose."""
    path = tmp_path / "packaging.md"
    path.write_text(PACKAGING)
    library.ingest(str(path), book="pkg", refine_rounds=0)
    skills = library.skills("pkg")
    steps = [step for s in skills for step in s.steps]
    assert "site_name: Lorum\nnav:\n    - Home: index.md\n    - About: about.md" in steps
    assert any(step.startswith("Format: https://") and step.endswith("Copyright: 2015 Osamu Aoki\nLicense: MIT")
               for step in steps)
    assert any("provides the copyright summary data" in step for step in steps)
    config = next(s for s in skills if any("site_name" in step for step in s.steps))
    assert config.name.startswith("Add a nav setting"), config.name


def test_prose_a_code_block_cut_mid_sentence_goes_on_in_the_same_passage():
    """Go's memory model: "it is valid to rewrite" <code> "into:" <code>: the lead-in "into:" is the
    rest of the sentence before the first code block, not a passage of its own; prose that opens
    in lower case after a sentence that had ended starts its own as before."""
    long = "Not introducing data races also means not assuming that loops terminate. " * 3
    segs = [Segment(0, 1, long + "On the other hand, it is valid to rewrite", "paragraph"),
            Segment(1, 2, "n := 0\nfor i := 0; i < m; i++ {\n\tn += *shared\n}", "code"),
            Segment(2, 3, "into:", "paragraph"),
            Segment(3, 4, "n := 0\nlocal := *shared\nfor i := 0; i < m; i++ {\n\tn += local\n}", "code"),
            Segment(4, 5, long, "paragraph"),
            Segment(5, 6, "print(1)", "code"),
            Segment(6, 7, "then the loop stops. " * 12, "paragraph")]
    out = passages.group(segs, list(range(len(segs))))
    assert [p.indexes for p in out] == [[0, 1, 2, 3], [4, 5], [6]]


def test_another_way_to_do_what_the_code_before_does_goes_on_in_its_passage():
    """mako's filters: "you can define escaping functions locally:" <code> "Or from any Python
    module:" <code>. The second lead-in offers another way to the same thing and had named a
    passage of its own, "Or from any Python module"; a sentence that merely contains "or" after
    code starts its own passage as before."""
    long = "A filter is just a Python function that accepts a single string argument and returns it. " * 4
    segs = [Segment(0, 1, long + "You can define escaping functions locally:", "paragraph"),
            Segment(1, 2, "<%!\n    def myescape(text):\n        return text\n%>", "code"),
            Segment(2, 3, "Or from any Python module:", "paragraph"),
            Segment(3, 4, "<%!\n    import myfilters\n%>", "code"),
            Segment(4, 5, "Either filters or buffers can be set per page when it is rendered. " * 6, "paragraph")]
    out = passages.group(segs, list(range(len(segs))))
    assert [p.indexes for p in out] == [[0, 1, 2, 3], [4]]


def test_a_sections_short_last_passage_finishes_the_one_before():
    """aiohttp's "Passing Parameters In URLs" ends on "Warning: Passing params overrides
    encoded=True, never use both options.", which had been a skill of nine words of its own, found
    by no question about the option it warns of. A last step with its code, or a block after a
    rule, still stands apart, and so does a short block inside the section."""
    first = "Canonicalization encodes the host part by the IDNA codec and requotes the path and query parts. " * 3
    second = "Sometimes canonicalization is not desirable if the server accepts the exact representation. " * 5
    warning = Segment(3, 4, "Warning: Passing params overrides encoded=True, never use both options.", "paragraph")
    segs = [Segment(0, 1, first, "paragraph"), Segment(1, 2, second, "paragraph"), warning]
    out = passages.group(segs, [0, 1, 2])
    assert [p.indexes for p in out] == [[0], [1, 2]]
    assert out[-1].text.endswith("never use both options.")
    middle = [segs[0], warning, segs[1]]
    assert [p.indexes for p in passages.group(middle, [0, 1, 2])] == [[0], [1], [2]], "inside, it stands apart as before"
    step = [segs[0], segs[1], Segment(2, 3, "To disable it, write:", "paragraph"),
            Segment(3, 4, "URL('http://example.com/%30', encoded=True)", "code")]
    assert [p.indexes for p in passages.group(step, [0, 1, 2, 3])] == [[0], [1], [2, 3]]
    ruled = [segs[0], segs[1], Segment(2, 3, warning.text, "paragraph", ruled=True)]
    assert [p.indexes for p in passages.group(ruled, [0, 1, 2])] == [[0], [1], [2]]


def test_a_short_section_is_one_passage_and_a_longer_one_is_cut():
    """doit's "check_file_uptodate" (about 100 words: its options, a note, an example) had been
    three skills of ~33 words, the answer in the piece after the one a question matched."""
    blocks = [("paragraph", "Whether a task is up to date is decided by its file dependencies: each one is checked "
                            "by its md5 sum or by its timestamp, the way the option check_file_uptodate says."),
              ("list", "- md5: use the md5sum.\n- timestamp: use the timestamp."),
              ("paragraph", "Note: the md5 check reads the whole of every file, which is slower for big files, but it "
                            "is robust when a file is touched and its content stays the same."),
              ("paragraph", "To choose the timestamp check for every task, set it in the configuration:"),
              ("code", "DOIT_CONFIG = {'check_file_uptodate': 'timestamp'}")]
    segs = [Segment(n, n + 1, text, kind) for n, (kind, text) in enumerate(blocks)]
    assert sum(passages.words(s.text) for s in segs) <= passages.SECTION_WORDS
    assert [p.indexes for p in passages.group(segs, [0, 1, 2, 3, 4], leaf=True)] == [[0, 1, 2, 3, 4]]
    assert len(passages.group(segs, [0, 1, 2, 3, 4])) > 1, "a chapter's introduction above its sections is cut"
    terms = [Segment(0, 1, "bg:", "term"), Segment(1, 2, "bg [jobspec ...]", "code"),
             Segment(2, 3, "Resume each suspended job in the background, as if it had been started with &.",
                     "paragraph"),
             Segment(3, 4, "set -e:", "term"), Segment(4, 5, "set -e", "code"),
             Segment(5, 6, "Exit at once when a pipeline returns a status other than zero.", "paragraph")]
    assert len(passages.group(terms, list(range(6)), leaf=True)) == 2, "a reference's entries stay apart"
    longer = [Segment(n, n + 1, "Each task names its files and the actions that build them from the files. " * 3,
                      "paragraph") for n in range(3)]
    assert sum(passages.words(s.text) for s in longer) > passages.SECTION_WORDS
    assert len(passages.group(longer, [0, 1, 2], leaf=True)) == 3


LONG_PARAGRAPH = "The INPUT tag names the folders to read and the FILE_PATTERNS tag the files in them. " * 8
LONG_LIST = "\n".join(f"- Its scanner feature number {n} tracks the locations of every token it reads." for n in range(12))


@pytest.mark.parametrize("lead, kind, block, joined", [
    # Doxygen's manual: a paragraph of 117 words, cut at its sentences, ended "To omit all test
    # directories …, one could use:" and the code it introduces opened the next skill
    (LONG_PARAGRAPH + "To omit all test directories from a source tree, one could use:", "paragraph",
     "EXCLUDE_PATTERNS = */test/*", "one could use:\nEXCLUDE_PATTERNS = */test/*"),
    # bison's examples README (Markdown): a list of 150 words whose last item introduces its example
    # (a fence at the margin ends the list); the example had opened the next skill
    (LONG_LIST + "\n- Error messages quote the source with squiggles that underline the error:", "list",
     "> 123 456\n1.5-7: syntax error", "underline the error:\n> 123 456"),
])
def test_a_long_blocks_last_run_ending_in_a_colon_opens_what_it_introduces(lead, kind, block, joined):
    """A long paragraph or list is cut into runs; its last run, ending in ':', stays with the block
    it introduces rather than ending one skill while that block opens the next."""
    segs = [Segment(0, 1, lead, kind), Segment(1, 2, block, "code"), Segment(2, 3, "Doxygen then reads the rest.", "paragraph")]
    out = passages.group(segs, [0, 1, 2])
    assert len(out) > 2 and out[0].indexes == [0]  # the block was cut
    introduced = next(p for p in out if 1 in p.indexes)
    assert introduced.indexes[:2] == [0, 1] and joined in introduced.text and introduced.start > 0
    assert all(not p.text.endswith(":") for p in out)


def test_speech_recognition_caught_in_a_loop_does_not_become_a_skill(tmp_path, library):
    """Whisper sometimes repeats one token to the end of its window; that is not something the
    narrator taught. A passage that repeats a few numbers as printed output stays."""
    loop = ", ".join(["f"] * 40)
    cues = ["Create the factor with the function factor.", loop,
            "Printing rep of one two three, five times, shows 1 2 3 1 2 3 1 2 3 1 2 3 1 2 3 on the screen.",
            "Levels are listed by a tool M" + "m" * 300]
    srt = "".join(f"{i}\n00:00:{2 * i:02d},000 --> 00:00:{2 * i + 2:02d},000\n{c}\n\n" for i, c in enumerate(cues, 1))
    path = tmp_path / "factors.srt"
    path.write_text(srt)
    library.ingest(str(path), book="r", refine_rounds=0)
    bodies = [" ".join(s.steps) for s in library.skills("r")]
    assert not any("f, f, f" in b or "mmmm" in b for b in bodies) and any("listed by a tool" in b for b in bodies)
    assert any("function factor" in b for b in bodies) and any("1 2 3 1 2 3" in b for b in bodies)
    assert passages.is_repetition_loop(loop) and not passages.is_repetition_loop(cues[2])


def test_a_table_of_contents_is_not_a_skill():
    titles = ["Seasoning", "Cleaning", "Storing the pan", "Cooking acidic food"]
    keys = passages.heading_keys(titles)
    toc = "\n".join(f"- {i}.{n} {t}" for i, (n, t) in enumerate(zip(range(1, 5), titles), 1))
    assert passages.is_boilerplate(toc, keys)
    assert not passages.is_boilerplate("Season the pan before first use, then cook something fatty in it.", keys)
    # an index's runs of short entries are no skill; short entries a sentence introduces are taught
    # (the SystemTap guide's timer events had been lost with the paragraph over them)
    assert passages.is_boilerplate("rust, 9\nseasoning, 3, 12\nsoap, 4\nsteel, 7\nstorage, 2")
    assert not passages.is_boilerplate("Example 3.3 prints hello world every 4 seconds. It is also possible to use "
                                       "the following timer events:\n- timer.ms(milliseconds)\n"
                                       "- timer.us(microseconds)\n- timer.ns(nanoseconds)\n- timer.hz(hertz)")


def test_a_line_of_navigation_words_is_not_a_skill():
    """groff's "[ prev | next | top ]", written as bare text between the page's blocks."""
    for nav in ("[ prev | next | top ]", "[ top ]", "« Previous | Next »", "Prev | Up | Next"):
        assert passages.is_boilerplate(nav), nav
    for prose in ("Next, run the tests.", "Back up your data first.", "The top of the page holds the title."):
        assert not passages.is_boilerplate(prose), prose


def test_long_paragraphs_are_cut_at_sentence_ends_with_their_own_spans():
    sentence = "The dough rises while the yeast eats the sugars and makes gas that the gluten traps. "
    text = sentence * 12
    transcript = parse_markdown(text)
    out = passages.group(transcript.segments, list(range(len(transcript.segments))))
    assert len(out) >= 2 and all(passages.words(p.text) <= passages.MAX_WORDS for p in out)
    assert " ".join(p.text for p in out).split() == text.split(), "nothing is dropped or repeated"
    assert all(a.end <= b.start + 1e-6 for a, b in zip(out, out[1:]))


def test_title_phrases_are_words_of_the_passage_not_keyword_lists():
    phrase = passages.title_phrase("A factor is a vector object used to specify a discrete classification "
                                   "of the components of other vectors of the same length.")
    assert phrase == "A factor is a vector object used"
    assert "," not in phrase and " and " not in phrase


def test_a_name_cut_at_its_limit_ends_where_a_phrase_ends():
    """A name cut at title_phrase's eight words had ended inside a phrase (pint's tutorial: "This
    method returns a new object leaving", "We can calculate the hypotenuse of the right"; Autoconf's
    "Strings containing values can be parsed using"). It now runs on up to three words to where a
    phrase ends (before a preposition or conjunction, or at the clause's end); when none ends that
    soon it is cut at the limit and drops a last word that wants the rest: an auxiliary, a
    preposition, a determiner, a conjunction, or a subject whose clause was cut. A pronoun as
    object stays."""
    title = passages.title_phrase
    assert title("We can calculate the hypotenuse of the right triangle with the functions of NumPy.") == (
        "We can calculate the hypotenuse of the right triangle")
    assert title("This method returns a new object leaving the original intact as can be seen by printing it.") == (
        "This method returns a new object leaving the original intact")
    assert title("As the underlying registry knows the relationships between units, you can convert.") == (
        "As the underlying registry knows the relationships between units")
    assert title("Old formats are read by the parser but it warns about each of them.") == (
        "Old formats are read by the parser")
    # no phrase ends within three words of the limit: cut there, without the words that want the rest
    assert title("The number of threads making use of the pool will never exceed the configured maximum.") == (
        "The number of threads making use")
    assert title("This method is like assign except that it always silently iterates own properties.") == (
        "This method is like assign")
    assert title("If ctext is not NULL , it must hold every single byte of the buffer.") == (
        "If ctext is not NULL"), "nor on the subject of a verb it left out"
    assert title("Check that the file exists before opening it for writing with the new mode.") == (
        "Check that the file exists before opening it"), "a pronoun ending the cut as its object stays"
    assert title("Strings can be parsed using a pattern.") == (
        "Strings can be parsed using a pattern"), "a name within the limit is not cut"
    # it runs on over words, quoted or not, not into code
    assert title("The hard stop method is used for the 'stop' action of every old process.") == (
        "The hard stop method is used for the 'stop' action")
    assert title("int gnutls_pkcs12_export (gnutls_pkcs12_t pkcs12, gnutls_x509_crt_fmt_t format, void *output_data, "
                 "size_t *size)").lower() == "int gnutls_pkcs12_export"


def test_a_title_does_not_start_with_words_that_only_link_it_to_the_sentence_before():
    assert passages.title_phrase("For example, the vector c(2, 4) has two elements.") == (
        "The vector c(2, 4) has two elements")  # a call's bracket is no clause's end
    assert passages.title_phrase("(This is only needed when the module is built by hand, which is rare.)") == (
        "This is only needed when the module is built")  # a sentence set in brackets, without them
    assert passages.title_phrase("Namely, the smallest and largest values of x.") == "The smallest and largest values of x"
    assert passages.title_phrase("Note that max and min select the largest and smallest values "
                                 "in their arguments.") == "Max and min select the largest and smallest values"
    assert passages.title_phrase("Here is what the register view function is doing:") == (
        "Here is what the register view function is doing"), "a linking word that is the sentence's subject stays"
    # seen naming skills of documents nobody here wrote (the reader sweep): "On the other hand",
    # "The point is", "To nargs, there is also the case"
    assert passages.title_phrase("On the other hand, a default makes the option optional.") == (
        "A default makes the option optional")
    assert passages.title_phrase("The point is that slots save memory.") == "Slots save memory"
    # a pointer to where something else is explained is no name either (mako's "As described in the
    # chapter Syntax, the "|" operator can be applied …"); a bare "As described," stays
    assert passages.title_phrase("As described in the chapter on caching, the store keeps one copy.") == (
        "The store keeps one copy")
    assert passages.title_phrase("As shown in the previous examples, the grid places any number of columns.") == (
        "The grid places any number of columns")
    assert passages.title_phrase("As described, it works.") == "As described, it works"
    assert passages.title_phrase("Similarly to nargs, there is also the case of repeated options.") == (
        "There is also the case of repeated options")
    assert passages.title_phrase("Instead, use the factory.") == "Use the factory"
    assert passages.title_phrase("Instead of a global app, create one in a function.") == (
        "Instead of a global app"), "no comma: the words are the sentence's own"
    # a short clause framing the main one names nothing: "If you want", "In some cases" (second sweep)
    assert passages.title_phrase("If you want, you can pass a default value.") == "You can pass a default value"
    assert passages.title_phrase("In some cases, tig shows the diff view first.") == "Tig shows the diff view first"
    assert passages.title_phrase("If the file is missing, Flask raises an error.") == "If the file is missing"
    assert passages.title_phrase("To create the table, run:") == "To create the table"
    # sweeps L and N: "In addition to X" is no link ("To a full XPath implementation" flipped its
    # meaning), "In addition," is; a code word opening the sentence ("And - construct…") is its subject
    assert passages.title_phrase("In addition to a full XPath implementation, lxml supports ElementPath.") == (
        "In addition to a full XPath implementation")
    assert passages.title_phrase("In addition, the parser keeps comments.") == "The parser keeps comments"
    assert passages.title_phrase("And - construct with a list of ParserElements, all of which must match.") == (
        "And - construct with a list of ParserElements")
    assert passages.title_phrase("And then the loop stops when the list is empty.") == (
        "The loop stops when the list is empty")
    # a name joined by a hyphen to a framing word is a name, not a frame ("with-editor", "in-browser")
    assert passages.title_phrase("Macro: with-editor &rest body: This macro arranges for the emacsclient.") == (
        "Macro: With-editor &rest body")
    assert passages.title_phrase("In-browser editing for code, with automatic syntax highlighting.") == (
        "In-browser editing for code")
    # a participle pointing back at an example names nothing of the passage (pytest's "Extending the
    # previous example, we can flag the fixture …" was named "Extending the previous example")
    assert passages.title_phrase("Extending the previous example, we can flag the fixture to run twice.") == (
        "We can flag the fixture to run twice")
    assert passages.title_phrase("Continuing this example, the server now closes idle connections.") == (
        "The server now closes idle connections")
    assert passages.title_phrase("Using the cached value, the lookup returns at once.") == (
        "Using the cached value"), "a participle that points at no example frames the clause with its own words"


def test_a_lead_of_a_word_or_two_does_not_name_the_skill(tmp_path, library):
    path = tmp_path / "counting.md"
    path.write_text("# Counting\n\nExample:\n\n```\n@click.option('-v', count=True)\n```\n\n"
                    "And on the command line:\n\n```\n$ log -vvv\nverbosity=3\n```\n")
    library.ingest(str(path), book="flags", refine_rounds=0)
    names = [s.name for s in library.skills("flags")]
    assert names == ["On the command line"], names


def test_a_clause_too_short_to_name_anything_runs_on_into_the_next():
    assert passages.title_phrase("Yes, it works when the cache is warm.") == "Yes, it works when the cache is warm"
    assert passages.title_phrase("In R, vectors are recycled as often as need be.") == "In R, vectors are recycled as often"


def test_code_at_the_start_of_a_title_keeps_its_case():
    """A title starts with a capital unless its first word is code or a name in its own case:
    "Dev.off(k)" or "Y ~ x" would no longer say what to type."""
    from tutorialbook.skills.extract import name_from

    assert passages.title_phrase("dev.off(k) terminates the graphics device at point k of the device list.") == (
        "dev.off(k) terminates the graphics device at point k")
    assert passages.title_phrase("y ~ x fits a simple linear regression of y on x.").startswith("y ~ x")
    assert passages.title_phrase("is.na(xx) is TRUE both for NA and NaN values.").startswith("is.na(xx)")
    assert passages.title_phrase("iOS builds need a signing identity first.").startswith("iOS")
    assert passages.title_phrase("the levels of a factor are its distinct values.").startswith("The levels")
    assert name_from("type= controls the type of plot produced.").startswith("type=")
    assert name_from("remember to remove objects with rm.") == "Remove objects with rm"


def test_an_unsure_words_mark_does_not_end_a_title():
    """The transcript marks a doubted word with (?): the mark stays with its word, and the title
    goes on past it instead of stopping at its parenthesis."""
    assert passages.title_phrase("Thus the square root of minus one(?) gives a warning, not an error.") == (
        "The square root of minus one(?) gives a warning")


def _at_cosine(base, cosine):
    """A unit vector at a given cosine from ``base``."""
    import numpy as np

    other = np.zeros_like(base)
    other[1] = 1.0
    other -= other @ base * base
    other /= np.linalg.norm(other)
    return (cosine * base + (1 - cosine ** 2) ** 0.5 * other).astype(np.float32)


def test_the_chapter_rule_both_ways():
    """A tutorial joins a chapter on close content (CHAPTER_MATCH), or on somewhat close content
    when both titles share a topic word (CHAPTER_TITLED_MATCH); otherwise it gets its own."""
    import numpy as np

    from tutorialbook.memory.tree import Tree
    from tutorialbook.skills.builder import CHAPTER_MATCH, CHAPTER_TITLED_MATCH, Builder, OutlineNode

    base = np.zeros(8, dtype=np.float32)
    base[0] = 1.0
    tree = Tree(book="b", root_id="root", nodes={}, children={"root": ["n1"]})

    def joins(title, cosine):
        builder = Builder(None, None, "b", tree)
        builder._plan_node({"id": "n1", "title": "Sourdough bread basics", "_content": base})
        return builder._match_node(OutlineNode(title, "chapter"), "root", _at_cosine(base, cosine), CHAPTER_MATCH)

    between = (CHAPTER_TITLED_MATCH + CHAPTER_MATCH) / 2
    assert joins("Sourdough troubleshooting", between) is not None, "same topic word, close content"
    assert joins("Knife sharpening", between) is None, "close content alone is not enough below CHAPTER_MATCH"
    assert joins("Knife sharpening", CHAPTER_MATCH + 0.01) is not None
    assert joins("Sourdough troubleshooting", CHAPTER_TITLED_MATCH - 0.02) is None, "a shared word alone is not"
    assert joins("Getting started basics", between) is None, "words any title may carry do not count"


def test_a_footer_every_page_repeats_is_not_what_a_page_is_about():
    """trace-cmd's man pages end alike (SEE ALSO, AUTHOR, COPYING): the centroid a page is matched
    to chapters by leaves out what teaches nothing, so a shared footer does not make pages alike."""
    import numpy as np

    from tutorialbook.acquire.transcript import Segment, Transcript
    from tutorialbook.memory.tree import Tree
    from tutorialbook.skills.builder import Builder, OutlineNode, TutorialContext

    said = [Segment(0, 1, "Run trace-cmd record -e sched to record the scheduler's events."),
            Segment(1, 2, "Written by Steven Rostedt, <rostedt@goodmis.org>"),
            Segment(2, 3, "Copyright (C) 2010 Red Hat, Inc. Free use of this software is granted under the terms "
                          "of the GNU Public License (GPL).")]
    vectors = np.eye(3, 8, dtype=np.float32)
    context = TutorialContext("t", "TRACE-CMD-RECORD(1)", "file:///x", Transcript(said, 3.0), vectors)
    builder = Builder(None, None, "b", Tree(book="b", root_id="root", nodes={}, children={}))
    page = OutlineNode("TRACE-CMD-RECORD(1)", "chapter", children=[
        OutlineNode("OPTIONS", "section", segments=[0]), OutlineNode("AUTHOR", "section", segments=[1]),
        OutlineNode("COPYING", "section", segments=[2])])
    assert np.allclose(builder._content_vector(context, page), vectors[0])
    footer_only = OutlineNode("COPYING", "section", segments=[1, 2])
    assert np.allclose(builder._content_vector(context, footer_only), (vectors[1] + vectors[2]) / 2 ** 0.5), \
        "a node of nothing but such lines is about them"


REGISTER = """# Registering a user

## What the view does

Here is what the register view does:

1. The route decorator associates the URL /register with the register view function.
2. When the user submitted the form, the request method is POST and validation begins.
3. The form is a special dict that maps the submitted keys to the values the user typed.
4. The view checks that the username and the password are not empty before it goes on.
5. The username and the hashed password are inserted into the user table of the database.
6. A username that is already taken raises an integrity error, shown as a validation error.
   - the error message names the username that is taken
7. After storing the user, the view redirects to the login page built from its view name.
8. Building the address from the view name lets you change the URL later without editing links.
9. If validation fails, the error is flashed and the form is shown again to the user.
"""


def test_a_long_list_becomes_runs_of_whole_items(tmp_path, library):
    """A list far over ``MAX_WORDS`` is cut between items into passages of about ``WORDS`` words:
    each step is in a skill with its neighbours, not one skill holding the page, a nested item
    stays with its parent, and each passage's span lies inside the list's and holds its items."""
    path = tmp_path / "register.md"
    path.write_text(REGISTER)
    library.ingest(str(path), book="web", refine_rounds=0)
    skills = [s for s in library.skills("web") if any("view" in step for step in s.steps)]
    bodies = [" ".join(s.steps) for s in skills]
    assert len(skills) >= 3, "the nine steps are split"
    assert all(len(b.split()) <= passages.MAX_WORDS for b in bodies)
    for n, step in enumerate(["The route decorator associates", "Building the address from the view name",
                              "If validation fails"]):
        assert sum(step in b for b in bodies) == 1, f"step {n} is in exactly one skill"
    first = next(s for s in skills if any("route decorator" in step for step in s.steps))
    assert first.steps[0] == "Here is what the register view does:", "the sentence introducing the list leads it"
    taken = next(b for b in bodies if "already taken" in b)
    assert "names the username that is taken" in taken, "a nested item stays with its parent"
    for skill in skills:
        e = skill.evidence[0]
        span = REGISTER[int(e.start):int(e.end) + 1]
        assert skill.steps[-1][:30] in span or skill.steps[-1][:30] in " ".join(span.split())


MANUAL = """# Releasing a package

## License notices

Every source file needs a license notice at its top. Put the full text of the license in a file
named COPYING, and say in the notice which version of the license applies.

## Appendix: GNU Free Documentation License

Version 1.3, 3 November 2008

Copyright (C) 2000, 2001, 2002, 2007, 2008 Free Software Foundation, Inc.

Everyone is permitted to copy and distribute verbatim copies of this license document, but
changing it is not allowed.

### 0. PREAMBLE

The purpose of this License is to make a manual, textbook, or other functional and useful
document free in the sense of freedom.

### 1. APPLICABILITY AND DEFINITIONS

This License applies to any manual or other work, in any medium, that contains a notice placed
by the copyright holder saying it can be distributed under the terms of this License.

### 2. VERBATIM COPYING

You may copy and distribute the Document in any medium, either commercially or noncommercially,
provided that this License, the copyright notices, and the license notice are reproduced.
"""


def test_a_licence_appendix_is_no_skill_and_a_section_teaching_licence_notices_is(tmp_path, library):
    """The GNU maintainers' guide ends on the GNU FDL: 87 of its 454 skills were the licence's
    clauses. A section that teaches how to write a licence notice stays."""
    path = tmp_path / "releasing.md"
    path.write_text(MANUAL)
    library.ingest(str(path), book="release", refine_rounds=0)
    bodies = [" ".join(s.steps) for s in library.skills("release")]
    assert any("named COPYING" in b for b in bodies)
    assert not any("VERBATIM" in b or "You may copy and distribute" in b or "textbook" in b
                   or "This License applies" in b for b in bodies), bodies
    assert not passages.is_licence_text("License notices", "Every source file needs a license notice at its top.")
    # gnuplot's "Copyright" section is its licence (the permission notice ISC and X11 use too)
    assert passages.is_licence_text("Copyright", "Copyright 1986 - 1993, 1998, 2004 Thomas Williams, Colin "
                                    "Kelley. Permission to use, copy, and distribute this software and its "
                                    "documentation for any purpose with or without fee is hereby granted.")
    assert not passages.is_licence_text("Copyright notices", "Put a copyright notice in every file you write.")
    # a manual's appendix page that is the licence (texinfo's split HTML: aspell's, sweep M, 52 skills):
    # the whole page is the licence's text, not only a section below its top
    page = tmp_path / "fdl.html"
    licence = MANUAL[MANUAL.index("## Appendix: GNU Free Documentation License"):].split("\n", 1)[1]
    page.write_text("<html><head><title>Frob: GNU Free Documentation License</title></head><body>"
                    "<h3>E.1 GNU Free Documentation License</h3>" + "".join(
                        f"<p>{part}</p>" for part in licence.split("\n\n") if part.strip()) + "</body></html>")
    report = library.ingest(str(page), book="fdl", refine_rounds=0).tutorials[0]
    assert report.skills_added == 0 and library.skills("fdl") == []


def test_a_title_repeated_as_text_and_its_credit_are_no_skill(tmp_path, library):
    """tig's manual (a PDF) opens on a title page: "The Tig Manual", "Jonas Fonseca", which
    became the book's first skill and ranked first for a question about using tig as a pager."""
    path = tmp_path / "frob.md"
    path.write_text("# The Frob Manual\n\nThe Frob Manual\n\nAnn Author\n\n"
                    "This is the manual for frob, which rewrites files in place and keeps a backup.\n")
    library.ingest(str(path), book="frob", refine_rounds=0)
    steps = [step for s in library.skills("frob") for step in s.steps]
    assert steps == ["This is the manual for frob, which rewrites files in place and keeps a backup."]


def test_a_name_is_not_cut_inside_a_link_a_time_brackets_or_quotes_nor_an_idiom():
    """Sweeps of Debian's manuals found names cut at a ':' or ',' that ends no clause ("On
    Windows, go to https", "… 2023-02-04 11", "print_temp simply calls io"), inside brackets
    ("… kept short (50") and quotes (a name opening 'Pong" is'), and idioms halved by the
    words that link a sentence to the one before ("Far, the action …", "That we have …")."""
    from tutorialbook.skills.extract import name_from

    title = passages.title_phrase
    assert title("The HTML format is available online at https://www.debian.org/doc/ for all.") == (
        "The HTML format is available online at https://www.debian.org/doc/")
    assert title("This page was last modified on 2022-10-26 20:23:55 UTC by the team.") == (
        "This page was last modified on 2022-10-26 20:23:55 UTC")
    assert title("print_temp simply calls io:format/2 to print the temperature.") == (
        "print_temp simply calls io:format/2 to print the temperature")
    assert title("The short description should be kept short (50 characters or so) always.") == (
        "The short description should be kept short")
    assert title('The process "Pong" is waiting for messages from the ping process.') == (
        'The process "Pong" is waiting for messages from the ping process')
    assert title("So far, the action element in the rule tuple was one token.") == (
        "The action element in the rule tuple was one token")
    assert title("Thus far, our queries have only accessed one table at a time.") == (
        "Our queries have only accessed one table at a time")
    assert title("Thus far our queries have only accessed one table at a time.") == (
        "Thus far our queries have only accessed one table")
    assert title("First of all, there is no need to upload the package.") == "There is no need to upload the package"
    assert title("Now that we have the basic application class, we can go on.") == (
        "Now that we have the basic application class")
    assert name_from("Now is better than never.") == "Now is better than never"
    assert name_from("Next up is routing, matching the URL.") == "Next up is routing, matching the URL"
    assert name_from("Now run the server.") == "Run the server"
    assert name_from("Note the following:") == "Note the following"  # a verb here, not a label
    assert name_from("Note: run it twice.") == "Run it twice"


def test_first_and_foremost_is_an_idiom_whole_or_nothing():
    """Jupyter's "Running Code" notebook (python-notebook-doc) opens "First and foremost, the
    Jupyter Notebook is …": "First" and "and" went as linking words and the skill was named
    "Foremost, the Jupyter Notebook is an interactive environment". The idiom goes whole, as
    "So far," does; so does "last but not least,"."""
    from tutorialbook.skills.extract import name_from

    opening = "First and foremost, the Jupyter Notebook is an interactive environment for writing code."
    assert passages.title_phrase(opening) == "The Jupyter Notebook is an interactive environment for writing code"
    assert name_from(opening) == "The Jupyter Notebook is an interactive environment for writing code"
    assert passages.title_phrase("And last but not least, please read the FAQ before you ask.") == (
        "Please read the FAQ before you ask")
    assert passages.title_phrase("First, run the tests.") == "Run the tests"


def test_a_passage_set_in_square_brackets_is_named_by_its_words():
    """btxdoc's PDF (texlive-base) opens "[This document will be expanded when BibTeX version 1.00
    comes out. Please report typos … ]": no clause of the first sentence closes the bracket, and
    the skill was named "[This". A bracket a sentence opens, closed later or at its end, is no
    part of the name; one marking a word ("[1] Knuth …") stays."""
    title = passages.title_phrase
    assert title("[This document will be expanded when BibTeX version 1.00 comes out. Please report typos.]") == (
        "This document will be expanded when BibTeX version 1.00 comes out")
    assert title("[This is only needed when you build from git.]") == "This is only needed when you build from git"
    assert title("[1] Knuth wrote the first version of TeX in 1978.") == "[1] Knuth wrote the first version of TeX"


def test_a_long_table_is_cut_into_runs_of_rows_under_its_header_and_caption():
    """Debian Reference's "Table 1.17. List of basic Unix commands" (700 words) was one skill
    whose steps ran every row into one line ("… usage 0022 | -rw-r--r-- | …") and its caption
    a skill of its own. Now: runs of whole rows, each under the header, the first under the
    caption, a row a step, a run without caption named by its first row."""
    rows = [f"cmd{n} --flag | do thing number {n} to the files in the current working directory" for n in range(30)]
    table = "command | description\n" + "\n".join(rows)
    segs = [Segment(0, 40, "Let's learn the basic commands of the shell before anything else.", "paragraph"),
            Segment(41, 80, "Table 1.17. List of basic Unix commands", "paragraph"),
            Segment(81, 81 + len(table), table, "table")]
    found = passages.group(segs, [0, 1, 2])
    assert found[0].text == segs[0].text
    assert found[1].text.startswith("Table 1.17. List of basic Unix commands\ncommand | description\ncmd0 --flag |")
    assert len(found) > 3 and all(p.text.split("\n")[0] == "command | description" for p in found[2:])
    assert [line for p in found[1:] for line in p.text.splitlines() if line.startswith("cmd")] == rows
    assert all(a.end <= b.start + 1 for a, b in zip(found[1:], found[2:]))  # spans follow the rows
    first, later = passages.draft(found[1], ""), passages.draft(found[2], "")
    assert first.name == "List of basic Unix commands"
    assert later.steps[0] == "command | description" and later.steps[1].startswith("cmd")
    assert later.name.startswith("cmd") and "|" not in later.name


def test_a_nested_list_keeps_its_items_on_lines_of_their_own_in_a_step():
    """A nested list's items were joined into their parent's step ("One Sublist This Sublist");
    each now stands on a line of its own under it, indented as written; a wrapped line still joins."""
    transcript = parse_markdown("# Lists\n\nYou can build nested lists:\n\n* One\n    - Sublist\n        - This\n"
                                "* Two\n  wrapped on a line\n")
    found = passages.group(transcript.segments, list(range(len(transcript.segments))))
    assert passages.draft(found[0], "").steps == [
        "You can build nested lists:", "One\n  - Sublist\n    - This", "Two wrapped on a line"]


def test_a_listing_alone_is_named_by_its_comment_or_its_words_as_typed():
    """The Rust book's listings alone under a heading were named "Fn main() { let x = 5": code
    keeps its case; an opening comment says what the listing is."""
    from tutorialbook.skills.passages import Passage

    def name(code: str) -> str:
        return passages.draft(Passage([0], code, 0, len(code), [("code", code)]), "").name

    assert name("fn main() {\n    let x = 5;\n    println!(\"{x}\");\n}") == "fn main() { let x = 5; println!(\"{x}\");"
    assert name("# A completion function for the cd builtin\n_comp_cd()\n{\n  local IFS\n}") == (
        "A completion function for the cd builtin")
    assert name("// x = 1;\nfoo(x)") == "// x = 1; foo(x)"


def test_a_definition_list_is_a_step_per_term_with_its_meaning():
    """pam_unix's options (sha256, sha512, …) ran together in one step, their terms lost among the
    meanings; a term heads its meaning now, and a marked item's wrapped line still joins it."""
    lines = ["sha256", "  When this option is set, sha256 is used.", "sha512", "  When set, sha512 is used.",
             "  It is slower.", "debug", "  Turns on debugging."]
    assert passages._items(lines) == ["sha256: When this option is set, sha256 is used.",
                                      "sha512: When set, sha512 is used. It is slower.", "debug: Turns on debugging."]
    assert passages._items(["- one", "  wrapped", "- two"]) == ["one wrapped", "two"]


def test_a_definition_list_block_opening_with_its_first_term_keeps_it_as_an_item():
    """A list block of a definition list (HTML's dl: BIND's "owner name / The domain name where the
    RR is found. / RR type / …") had its first term taken for a line leading in to the list, and
    every later term and meaning ran together in one step. A lead-in line over marked items
    still stands alone."""
    from tutorialbook.skills.passages import Passage

    def steps(block: str) -> list[str]:
        return passages.draft(Passage([0], block, 0, 1, [("list", block)]), "").steps

    terms = ("owner name\n  The domain name where the RR is found.\nRR type\n  An encoded 16-bit value.\n"
             "TTL\n  The time-to-live of the RR.")
    assert steps(terms) == ["owner name: The domain name where the RR is found.",
                            "RR type: An encoded 16-bit value.", "TTL: The time-to-live of the RR."]
    assert steps("Options are:\n- one\n- two") == ["Options are:", "one", "two"]
    assert steps("Optimise, using -O:\n  The most basic way.") == ["Optimise, using -O: The most basic way."]


def test_a_lead_in_opens_what_it_introduces_when_the_passage_before_is_full():
    """docutils' primer: "…deemed to be at the same level:" closed one skill and its example opened
    the next; the sentence that introduces a block now goes with it."""
    long = "Sections are identified through their titles, which are marked up with underlines. " * 4
    example = "\n".join(["Chapter 1 Title", "===============", "", "Section 1.1 Title", "-----------------"] * 12)
    segs = [Segment(0, 1, long + "Titles with the same style are deemed to be at the same level:", "paragraph"),
            Segment(1, 2, example, "code"), Segment(2, 3, "A title is one line of text.", "paragraph")]
    found = passages.group(segs, [0, 1, 2])
    assert [p.indexes for p in found] == [[0, 1], [2]]


def test_a_sentence_running_on_into_a_list_opens_it_and_a_lead_in_ending_its_section_is_not_alone():
    """Celery's guide: "As stated, signatures support the calling API: meaning that" over a long
    list of calls was a skill of its own, the items in the next; and "The following bundles are
    available:", whose bundles are subsections, was a skill saying nothing. The sentence opens the
    list it runs into; a lead-in that ends its section's text ends the passage before it."""
    items = "\n".join(f"- sig.call{n}(args): Calls the signature with optional partial arguments and partial "
                      "keyword arguments, and supports partial execution options as well." for n in range(6))
    segs = [Segment(0, 1, "As stated, signatures support the calling API: meaning that", "paragraph"),
            Segment(1, 2, items, "list")]
    found = passages.group(segs, [0, 1])
    assert found[0].indexes == [0, 1] and found[0].text.startswith("As stated") and "sig.call0" in found[0].text
    assert "sig.call5" not in found[0].text  # the list is still cut into runs
    stopped = [Segment(0, 1, "This is a full sentence.", "paragraph"), Segment(1, 2, items, "list")]
    assert passages.group(stopped, [0, 1])[0].indexes == [0]  # a finished sentence does not run on
    intro = ("Celery also defines a group of bundles that can be used to install Celery and the dependencies "
             "for a given feature. You can specify these in your requirements or on the pip command line by "
             "using brackets, and several bundles by separating them by commas, as in the examples below. ")
    segs = [Segment(0, 1, intro, "paragraph"), Segment(1, 2, "$ pip install \"celery[redis,auth,msgpack]\"", "code"),
            Segment(2, 3, "The following bundles are available:", "paragraph")]
    found = passages.group(segs, [0, 1, 2])
    assert [p.indexes for p in found] == [[0, 1, 2]]
    assert found[-1].text.endswith("The following bundles are available:")


def test_editor_modelines_and_a_line_of_badges_are_no_skill():
    """vim's user manual ends on "vim:tw=78:ts=8:noet:ft=help:norl:"; a README converted to plain
    text keeps its badges as "[Release version] [PyPi] [Donate] …" (sweep D)."""
    for text in ("vim:tw=78:ts=8:noet:ft=help:norl:", "vim: set ts=8 sw=4:", "-*- mode: rst; coding: utf-8 -*-",
                 "[Release version] [PyPi] [Donate] [Matrix] [Discord]", "Chapter 4", "Part IV", "6.1", "4.2.3."):
        assert passages.is_boilerplate(text), text  # a chapter's label alone too (4ti2's PDF, gnuplot's)
    for text in ("ex: an example of a command", "Use vim: it is a good editor.", "Chapter 4 explains the options.",
                 "Press [Ctrl] [Alt] [Del] to restart the machine now, as the manual says.",
                 "Version 6.1 adds the -q option."):
        assert not passages.is_boilerplate(text), text


def test_a_name_keeps_a_leading_dot_and_a_call_its_case():
    """Apache's ".htaccess files (or …) provide" was named "Htaccess files …", Octave's "ischar (x):
    Return true …" "Ischar (x) …": a name opening with a dotted word keeps its dot, and a word
    called with its arguments keeps its case. A leading ellipsis is no part of a name."""
    from tutorialbook.skills.passages import Passage

    def name(text: str) -> str:
        return passages.draft(Passage([0], text, 0, 1, [("text", text)]), "").name

    assert name('.htaccess files (or "distributed configuration files") provide a way to make changes.') == (
        '.htaccess files (or "distributed configuration files") provide a way')
    assert name("ischar (x): Return true if x is a character array.") == (
        "ischar (x): Return true if x is a character array")
    assert name("... and then the dough rests here for an hour.") == "And then the dough rests here for an hour"
    # a C declaration heading its description (texinfo's entries: mpfr's "Void mpfr_init (mpfr_t x)")
    assert name("void mpfr_init (mpfr_t x): Initialize x.").startswith("void mpfr_init (mpfr_t x)")


def test_a_licence_clause_is_boilerplate_however_long_and_teaching_as_is_is_not():
    """A guide's front matter held MIT's licence as two skills ("Permission is hereby granted",
    "THE SOFTWARE IS PROVIDED AS IS"): a passage that opens with a licence's words, or says
    "provided as is" and "without warranty of any kind", is no skill at any length."""
    mit = ("Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
           "associated documentation files (the \"Software\"), to deal in the Software without restriction, "
           "including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, "
           "and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, "
           "subject to the following conditions.")
    warranty = ("THE SOFTWARE IS PROVIDED \u201dAS IS\u201d, WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, "
                "INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE "
                "AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, "
                "DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE.")
    teaching = ("The identity function returns the value as is, without conversion. Call it with the object you "
                "want unchanged and it is handed back exactly as it was given, which helps in pipelines where a "
                "step must not alter anything, for example when testing a chain of filters one by one.")
    assert passages.is_boilerplate(mit) and passages.is_boilerplate(warranty)
    assert not passages.is_boilerplate(teaching)


def test_a_texts_own_grant_to_the_public_domain_is_no_skill_and_a_fact_about_software_is():
    """Nettle's manual (nettle-dev's PDF) opens "This manual is placed in the public domain. You
    may freely copy it, …": its own licence, which had been a skill. That a program is in the
    public domain is something a tutorial teaches."""
    grant = ("This manual is placed in the public domain. You may freely copy it, in whole or in part, with or "
             "without modification. Attribution is appreciated, but not required.")
    fact = "SQLite is in the public domain and does not require a license, so it can be used for any purpose."
    assert passages.is_boilerplate(grant)
    assert not passages.is_boilerplate(fact)


def test_a_term_after_the_items_nested_under_the_last_one_is_an_item_of_its_own():
    """Sphinx's field list "Parameters" over a list of parameters, then "Returns", "Return type":
    the later fields ran into the last parameter ("… never expires. Returns Same as set() …")."""
    lines = ["Parameters", "  - key (str) – the key", "  - timeout (int) – 0 never expires", "Returns",
             "  Same as set()", "Return type", "  boolean"]
    assert passages._items(lines) == ["Parameters\n  - key (str) – the key\n  - timeout (int) – 0 never expires",
                                      "Returns: Same as set()", "Return type: boolean"]


def test_a_man_pages_byline_grant_and_references_are_no_skill():
    """trace-cmd's 28 HTML man pages each end on SEE ALSO, AUTHOR and COPYING: "trace-cmd(1),
    trace-cmd-record(1), …", "Written by Steven Rostedt, <…>", "Free use of this software is granted
    under the terms of the GNU Public License (GPL)." were skills, and the same in every page; PLY's
    manual opened on its author's name and address, its first skill. An address in an instruction
    stays."""
    for text in ("trace-cmd(1), trace-cmd-record(1), trace-cmd-report(1),\ntrace-cmd-split(1), trace-cmd-list(1)",
                 "ls(1), stat(2) and dircolors(1).", "Written by Steven Rostedt, <rostedt@goodmis.org>",
                 "David M. Beazley dave@dabeaz.com PLY Version: 3.11", "Eric Pement (pemente@northpark.edu)",
                 "Copyright (C) 2010 Red Hat, Inc. Free use of this software is granted under\nthe terms of the "
                 "GNU Public License (GPL).", "Free use of this software is granted under the terms of the GPL."):
        assert passages.is_boilerplate(text), text
    for text in ("Run ls(1) on the folder, then stat(2) each file it lists to see its size.",
                 "written by the function into the buffer, the bytes are flushed at exit.",
                 "The output is written by the writer thread once the ring buffer fills.",
                 "Send bug reports to bug-sed@gnu.org.", "Mail questions to help@example.org, not to the authors.",
                 "Choose a licence for your project: under the terms of the license you pick, others may reuse "
                 "it, so read each one before you publish the code and say which one in a LICENSE file."):
        assert not passages.is_boilerplate(text), text


def test_term_and_meaning_lines_of_a_list_are_a_step_each():
    """A reader writes a definition list one "term: meaning" line an item (Jinja's operators):
    they had been read as terms of one meaning and joined, "and: Return true …., or: Return true
    …., not: …" one step. Two bare terms over one meaning stay one item."""
    assert passages._items(["and: Return true if the left and the right operand are true.",
                            "or: Return true if the left or the right operand are true.",
                            "not: negate a statement (see below)."]) == [
        "and: Return true if the left and the right operand are true.",
        "or: Return true if the left or the right operand are true.", "not: negate a statement (see below)."]
    assert passages._items(["c-format", "no-c-format", "  The string is a C format string."]) == [
        "c-format, no-c-format: The string is a C format string."]


def test_subscribing_to_a_mailing_list_is_taught_and_a_video_sign_off_is_not():
    """calcurse's manual lost "To subscribe to this list, send a message to …": any "subscribe" was
    taken for a video's call to action."""
    assert not passages.is_boilerplate("To subscribe to this list, send a message to announce+subscribe at "
                                       "calcurse.org with subscribe in the subject field.")
    assert passages.is_boilerplate("If you liked this video, please subscribe and leave a comment.")
    assert passages.is_boilerplate("Don't forget to hit the subscribe button!")


def test_a_call_to_fund_the_project_is_no_skill_and_a_text_about_donations_is():
    """magit's README and manual ask "If Magit makes you more productive too, then please consider
    making a donation." (a skill of the README, a step of the manual's Post-Installation Tasks);
    READMEs of eslint and Bootstrap "Become a sponsor …". A call to action, as a video's "please
    subscribe" is; a text that teaches about donations stays."""
    assert passages.is_boilerplate("If Magit makes you more productive too, then please consider making a donation.")
    assert passages.is_boilerplate("Become a sponsor to get your logo on our README and website.")
    assert passages.is_boilerplate("Like the tool? Buy me a coffee!")
    assert not passages.is_boilerplate("The donation form records each gift in the ledger table.")


def test_two_terms_over_one_meaning_head_it_together():
    """texinfo's ``@item``/``@itemx`` ("c-format" and "no-c-format" over one meaning): the first had
    stood as a skill of its own, "C-format", its meaning under the second."""
    lines = ["fuzzy", "  This flag is made by msgmerge.", "c-format", "no-c-format",
             "  These flags should not be added by a human."]
    assert passages._items(lines) == ["fuzzy: This flag is made by msgmerge.",
                                      "c-format, no-c-format: These flags should not be added by a human."]


def test_a_version_badge_does_not_name_the_change_it_heads():
    """Sphinx's "Changed in version 3.6: All optional parameters are now keyword-only." was named
    "Changed in version 3.6" (sweep G: "New in version 35.0.0" four times over): the badge links
    the text to the entry like "Note that" does; what changed names it. A badge alone stays."""
    from tutorialbook.skills.passages import Passage

    def name(text: str) -> str:
        return passages.draft(Passage([0], text, 0, 1, [("text", text)]), "").name

    assert name("Changed in version 3.6: All optional parameters are now keyword-only.") == (
        "All optional parameters are now keyword-only")
    assert name("New in version 2.5.") == "New in version 2.5"


def test_a_section_of_a_text_without_headings_is_titled_by_a_sentence_not_a_command():
    """A text without headings is cut at its topic shifts, each part titled by a phrase of its most
    central segment: a command line or a lone symbol had titled them (procmail's QuickStart: "Cat
    mbox | formail -s procmail"; tmux's man page: "’", "4", "-C"). Of the segments in words."""
    import numpy as np

    from tutorialbook.acquire.transcript import Transcript
    from tutorialbook.skills.builder import TutorialContext, section_title

    segments = [Segment(0, 30, "cat mbox | formail -s procmail", "paragraph"),
                Segment(31, 100, "If you have to refilter an old mail folder, run formail over it.", "paragraph"),
                Segment(101, 122, "mailstat procmail.log", "code"), Segment(123, 125, "4", "paragraph")]
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1], [1.0, 0.05]])
    context = TutorialContext("t", "QuickStart", "file:///q", Transcript(segments, duration=125.0, timed=False),
                              vectors)
    assert section_title(context, 0, 4).startswith("If you have to refilter")
    assert section_title(context, 2, 4)  # no segment in words: the central one still titles it


def test_a_name_is_no_aside_in_brackets_no_clause_ending_on_a_word_that_wants_more_and_keeps_a_terms_case():
    """Measured manuals (greenlet, the FAI guide): "(Note that this could be a subclass.)" named the
    definition of the current greenlet; "The parent is where execution continues…" was named "The
    parent is"; a term over its meaning lost its case ("Sshd: Start the ssh daemon")."""
    from tutorialbook.skills.passages import Passage

    def name(text: str) -> str:
        return passages.draft(Passage([0], text, 0, 1, [("text", text)]), "").name

    assert not name("The current greenlet is the one running now. (Note that this could be a subclass.) "
                    "Call getcurrent() to get it.").startswith("(")
    assert name("The parent is where execution continues when a greenlet dies.") == (
        "The parent is where execution continues when a greenlet dies")
    assert name("sshd: Start the ssh daemon. It is needed for remote access.") == "sshd: Start the ssh daemon"
    assert name("Note: Always back up first.") == "Always back up first"
    # the term heading a meaning is no word of its title (trace-cmd's "-i: By default")
    assert name("-i: By default, if an event is listed that trace-cmd does not find, it will exit.") == (
        "-i: By default, if an event is listed")


def test_a_command_opening_a_sentence_in_its_own_case_names_it_so():
    """texinfo manuals open sentences with a command in lower case ("cmp is useful…"); 29 of
    diffutils' skill names had raised it ("Cmp is useful", "Sdiff has alternate names"). A
    pronoun or a word after linking words is still raised, as a title starts."""
    assert passages.title_phrase("cmp is useful when you need to know whether two files are identical.") \
        == "cmp is useful when you need to know"
    assert passages.title_phrase("sdiff has alternate names for some of its commands.").startswith("sdiff has")
    assert passages.title_phrase("it is useful to compare the files first.").startswith("It is useful")
    assert passages.title_phrase("Then the file is read again from its start.").startswith("The file is read")
    assert passages.title_phrase("use the md5sum of each file to check it.").startswith("Use the md5sum")


def test_a_notes_label_marks_an_aside_that_does_not_name_the_passage():
    """Sinatra's filters: the passage was named "Note: Unless you use the body method rather than",
    the aside after its own words ("you must" made it an instruction). A note alone still names itself."""
    text = ("Filters optionally take a pattern, causing them to be evaluated only if the request path matches "
            "that pattern. Note: Unless you use the body method, you must set the headers yourself.")
    assert passages.step_name(text) == "Filters optionally take a pattern"
    assert passages.step_name("Warning: Always stop the server before you upgrade it.").startswith("Warning: Always")


def test_a_lone_star_or_underscore_is_the_texts_own_not_emphasis():
    """Markdown's emphasis comes off in pairs; a mark without its pair is code's: tenacity's
    "retry_all(*retries: retry_base)" had been named "retry_all(retries: …)", PostgreSQL's
    "Here * is a shorthand for all columns" summed up as "Here is a shorthand …"; marks set against
    quotes are no emphasis (bc's "'/*' and end with the characters '*/'" had lost its stars)."""
    from tutorialbook.skills.extract import name_from, one_line

    assert name_from("tenacity.retry.retry_all(*retries: retry_base): Retries if all conditions hold.") == (
        "tenacity.retry.retry_all(*retries: retry_base): Retries if all conditions hold")
    assert one_line("Here * is a shorthand for all columns. More follows.") == "Here * is a shorthand for all columns."
    assert one_line("Call f(*args, **kwargs) from the __init__ method.") == (
        "Call f(*args, **kwargs) from the __init__ method.")
    assert one_line("**Note**: do *not* run it _twice_.") == "Note: do not run it twice."
    assert one_line("**Note:** the stars of a comment stay: it opens with '/*' and ends with '*/'.") == (
        "Note: the stars of a comment stay: it opens with '/*' and ends with '*/'.")  # bc's info manual


def test_a_printed_bullet_is_no_word_of_a_skills_name():
    """Plain-text FAQs bullet with "o" (zsh's: "O Command line editing"), PDFs with "•" (the Debian
    FAQ's "• free to use and redistribute"): the bullet had led the skill's name."""
    from tutorialbook.skills.passages import step_name

    assert step_name("o Command line editing: programmable completion and more.") == "Command line editing"
    assert step_name("• free to use and redistribute: There is no consortium membership or payment "
                     "required.") == "Free to use and redistribute"
    assert step_name("On most systems you say make to build it.").startswith("On most systems")


def test_a_question_standing_alone_opens_the_passage_of_its_answer():
    """Graphviz's FAQ sets each question as a short paragraph over its answer: "Q7. How can I
    symmetrize (balance) tree layouts?" had closed the passage of Q6's answer, its own answer
    opening the next, so the question matched the wrong answer. A question opens its passage and
    leads into the block after it; a question inside a paragraph of prose changes nothing."""
    answer = "Set the background colour of the cluster to grey so it stands out from the rest of the graph. "
    segs = [Segment(0, 1, "Q6. Clusters are hard to see.", "paragraph"),
            Segment(1, 2, answer * 2, "paragraph"),
            Segment(2, 3, "Q7. How can I symmetrize (balance) tree layouts?", "paragraph"),
            Segment(3, 4, "When a tree node has an even number of children, it is not centered above them. " * 2,
                    "paragraph"),
            Segment(4, 5, "digraph { a -> b }", "code"),
            Segment(5, 6, "Why would it not? " + answer, "paragraph")]
    out = passages.group(segs, list(range(len(segs))))
    assert [p.indexes for p in out] == [[0, 1], [2, 3, 4], [5]]  # Q7 with its answer, not after Q6


def test_a_long_table_without_a_header_repeats_no_row_over_its_runs():
    """Tig's manual's "Browsing state variables" has no header row: its first row of data,
    "%(head) | The currently viewed head ID", stood over every run of rows the table was cut
    into (six skills held it). A table the reader says opens on data is cut into runs of its
    own rows only, each named by its first."""
    rows = [f"%(var{n}) | The currently selected thing number {n} of the view, if there is one" for n in range(30)]
    table = "\n".join(rows)
    segs = [Segment(0, 40, "These user-defined commands can use the following variables:", "paragraph"),
            Segment(41, 41 + len(table), table, "table", header=False)]
    found = passages.group(segs, [0, 1])
    assert len(found) > 3
    assert found[0].text.startswith("These user-defined commands can use the following variables:\n%(var0) |")
    assert [line for p in found for line in p.text.splitlines() if line.startswith("%(")] == rows  # each row once
    later = passages.draft(found[2], "")
    assert later.steps[0] == found[2].text.splitlines()[0] and later.name.startswith(later.steps[0].split(" |")[0])


def test_a_name_ends_on_a_word_where_a_colon_is_set_apart():
    """HAProxy's manuals set a space before every colon ("Note to documentation contributors :");
    the name kept it ("Documentation contributors "), as the skill's name and in its searched text."""
    from tutorialbook.skills.extract import name_from

    assert name_from("Examples of load balancing :") == "Examples of load balancing"
    assert passages.step_name("Remember to restart the server :") == "Restart the server"


def test_code_lines_heading_a_references_entries_open_their_passages():
    """A manual's options, each a one-line code block over the paragraph that says what it does
    (Org's ``: -fontsize N`` lines): read as any code block is, each option's line had closed the
    passage of the option before it and its own explanation opened the next. Three or more such
    lines in a section head their entries; two, code after a lead-in or an instruction, and code
    illustrating what the paragraph before it names stay with the prose before them."""
    said = "It takes effect the next time the terminal starts, and a value on the command line wins over it. "
    options = [("-fontsize N", "Sets the size of the glyphs in points."), ("-border N", "Sets the margin in pixels."),
               ("-shell PATH", "Names the program run in the window."), ("-title TEXT", "Sets the window's title.")]
    blocks = [("paragraph", "The terminal reads its options from the command line and from its resources file. " * 2)]
    for line, meaning in options:
        blocks += [("code", line), ("paragraph", meaning + " " + said * 2)]

    def segments(blocks):
        return [Segment(n, n + 1, text, kind) for n, (kind, text) in enumerate(blocks)]

    segs = segments(blocks)
    out = passages.group(segs, list(range(len(segs))))
    assert [p.indexes for p in out] == [[0], [1, 2], [3, 4], [5, 6], [7, 8]]
    assert out[2].text.startswith("-border N\nSets the margin")
    assert passages.draft(out[2], "Options").name == "-border N: Sets the margin in pixels", "the line names its entry"
    assert not passages.draft(out[0], "Options").name.startswith("-")
    # two code lines are no reference's entries: each stays with the prose before it
    assert [p.indexes for p in passages.group(segs[:5], list(range(5)))] == [[0, 1], [2, 3], [4]]
    for ending in (" To set it, type:", " Now set it on the command line."):
        led = segments([(kind, text + ending if kind == "paragraph" else text) for kind, text in blocks])
        assert passages._entry_heads(led, list(range(len(led)))) == set(), ending
    named = segments([(kind, text + " The -border option is one of them." if n == 2 else text)
                      for n, (kind, text) in enumerate(blocks)])
    assert passages._entry_heads(named, list(range(len(named)))) == {1, 5, 7}
