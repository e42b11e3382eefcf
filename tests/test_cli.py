"""The command line, run as a person would (the README's main job included)."""

import json
import os
import re
import subprocess
import sys

from tests.support.examples import EXAMPLES, ROOT


def cli(store, *args, check=True):
    return subprocess.run(
        [sys.executable, "-m", "tutorialbook.server", "--store", str(store), *args],
        capture_output=True, text=True, check=check, cwd=ROOT, env=dict(os.environ),
    )


def test_readme_main_job(tmp_path):
    readme = (ROOT / "README.md").read_text()
    main_job = re.search(r"```bash\n(sudo apt-get[^\n]+)\n```", readme).group(1)
    steps = [s.strip() for s in main_job.split("&&")][3:]  # after the apt install, the venv and pip
    assert main_job.split("&&")[1].strip() == "python3 -m venv .venv"
    assert steps[0].startswith(".venv/bin/tutorialbook --store ./store ingest examples/")
    outputs = []
    for step in steps:
        args = re.findall(r'"[^"]*"|\S+', step)[1:]
        args = [a.strip('"') for a in args]
        args[args.index("./store")] = str(tmp_path / "store")
        outputs.append(cli(tmp_path / "store", *args[2:]).stdout)
    assert "added     Sourdough bread basics" in outputs[0]  # the document's own title
    assert "└── Sourdough bread basics" in outputs[1] and "Feeding the starter" in outputs[1]
    assert "route: Sourdough bread basics" in outputs[2]


def test_json_output_and_lesson(tmp_path):
    store = tmp_path / "store"
    report = json.loads(cli(store, "--json", "ingest", str(EXAMPLES), "--book", "baking").stdout)
    assert [t["status"] for t in report["tutorials"]] == ["added", "added"]
    books = json.loads(cli(store, "--json", "books").stdout)
    assert books[0]["name"] == "baking" and books[0]["tutorials"] == 2
    found = json.loads(cli(store, "--json", "search", "preheat the oven", "--book", "baking", "-k", "2").stdout)
    skill_id = found["skills"][0]["id"]
    out = cli(store, "lesson", "Preheating a full hour gave a darker crust.", "--book", "baking",
              "--outcome", "success", "--skill", skill_id).stdout
    assert out.startswith("recorded l_") and f"skill:{skill_id}" in out
    again = json.loads(cli(store, "--json", "search", "preheat the oven", "--book", "baking", "-k", "2").stdout)
    assert again["skills"][0]["lessons"][0]["text"] == "Preheating a full hour gave a darker crust."
    assert again["skills"][0]["helpful"] == 1


def test_errors_exit_2_with_the_field(tmp_path):
    result = cli(tmp_path / "store", "toc", "--book", "nosuch", check=False)
    assert result.returncode == 2 and result.stderr.startswith("error: book: no book named 'nosuch'")


def test_every_option_has_help_and_defaults_are_shown():
    from tutorialbook.server.cli import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name, command in [("tutorialbook", parser), *commands.items()]:
        for action in command._actions:
            if action.dest == "help" or action.help == "==SUPPRESS==":
                continue
            assert action.help, f"{name}: {action.option_strings or action.dest} has no help text"
        text = command.format_help()
        if name != "tutorialbook" and "--book" in text and name != "evaluate":
            assert "--book BOOK" in text and "(default: default)" in text, name
    assert "book named 'default'" in parser.format_help()
    assert "(default: hybrid)" in commands["search"].format_help()


def test_the_source_help_names_every_kind_of_file_an_ingest_reads():
    """The CLI's and the MCP tool's help list what ``read_source`` accepts (it had said ".md/.txt" after
    HTML, reStructuredText, notebooks and PDF were read)."""
    from tutorialbook.acquire.sources import PGN_EXTENSIONS, SUBTITLE_EXTENSIONS, TEXT_EXTENSIONS
    from tutorialbook.acquire.formats import DOCUMENT_EXTENSIONS
    from tutorialbook.server.cli import build_parser
    from tutorialbook.tools.ingest import ingest_tutorial

    ingest = build_parser()._subparsers._group_actions[0].choices["ingest"]
    cli_help = " ".join(ingest.format_help().split())
    tool_help = str(ingest_tutorial.__annotations__["source"].__metadata__[0].description)
    for ext in TEXT_EXTENSIONS | DOCUMENT_EXTENSIONS | SUBTITLE_EXTENSIONS | PGN_EXTENSIONS | {".rst.txt"}:
        assert re.search(rf"(?<![\w.]){re.escape(ext)}(?![\w])", cli_help), ext
        assert re.search(rf"(?<![\w.]){re.escape(ext)}(?![\w])", tool_help), ext
    assert "first heading" in cli_help and "video or audio" in tool_help


def test_toc_lists_a_nodes_skills_in_the_order_the_page_teaches_them(tmp_path):
    """Not alphabetically: "Zest the lemon" comes before "Add the sugar" on the page."""
    page = tmp_path / "curd.md"
    page.write_text("# Lemon curd\n\nZest the lemon over a bowl, avoiding the white pith underneath it.\n\n"
                    + "Some words about lemons and how they grow on trees in warm places. " * 8 + "\n\n"
                    + "Add the sugar and the butter, then whisk in the eggs over a low heat.\n")
    store = tmp_path / "store"
    cli(store, "ingest", str(page), "--book", "curd", "--refine-rounds", "0")
    lines = [line.split("• ", 1)[1] for line in cli(store, "toc", "--book", "curd", "--skills").stdout.splitlines()
             if "• " in line]
    assert len(lines) >= 2 and lines[0].startswith("Zest the lemon") and lines[-1].startswith("Add the sugar"), lines


def test_cli_matches_the_tools(tmp_path):
    """evaluate, search --fen, lesson from standard input or a file, toc --skills, each hit once."""
    store = tmp_path / "store"
    cli(store, "ingest", str(EXAMPLES / "sourdough-basics.md"), "--book", "baking", "--refine-rounds", "0")
    toc = cli(store, "toc", "--book", "baking", "--skills").stdout
    skill_lines = [line for line in toc.splitlines() if "• " in line]
    assert skill_lines and all(re.search(r"\[s_[0-9a-f]+\]$", line) for line in skill_lines)
    assert "Feeding the starter" in toc

    found = cli(store, "search", "how often should I feed my starter", "--book", "baking", "-k", "3").stdout
    hits = re.findall(r"^\d+\. (.+?)  \[", found, re.M)
    assert len(hits) == 3
    for hit in hits:  # each hit is listed once (its name is also the step of its passage it names)
        assert len(re.findall(rf"^\d+\. {re.escape(hit)}  \[", found, re.M)) == 1, (hit, found)
    lines = [line.strip() for line in found.splitlines() if len(line.strip()) > 30]
    assert len(lines) == len(set(lines)), "no line of the output is printed twice"
    assert "from Sourdough bread basics @ characters" in found

    lesson = "Feeding twice a day fixed my sluggish starter."
    piped = subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store), "lesson", "-",
                            "--book", "baking", "--outcome", "success"], input=lesson + "\n", capture_output=True,
                           text=True, cwd=ROOT, check=True)
    assert piped.stdout.startswith("recorded l_")
    note = tmp_path / "note.txt"
    note.write_text("A warm oven light helps the dough rise.\n")
    from_file = cli(store, "--json", "lesson", f"@{note}", "--book", "baking")
    assert json.loads(from_file.stdout)["lesson_id"].startswith("l_")
    history = json.loads(cli(store, "--json", "history", "--book", "baking", "--action", "lesson").stdout)
    summaries = " | ".join(e["summary"] for e in history)
    assert lesson in summaries and "A warm oven light helps the dough rise." in summaries, summaries
    empty = subprocess.run([sys.executable, "-m", "tutorialbook.server", "--store", str(store), "lesson", "-",
                            "--book", "baking"], input="  \n", capture_output=True, text=True, cwd=ROOT)
    assert empty.returncode == 2 and empty.stderr.startswith(
        "error: lesson: the lesson read from standard input is empty"
    )

    evaluated = cli(store, "evaluate", "--moves", "e4 e5 Nf3 Nc6 Bc4", "--depth", "6").stdout
    assert "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3" in evaluated
    assert "black to move" in evaluated.lower() and "opening: C50" in evaluated
    as_json = json.loads(cli(store, "--json", "evaluate", "--fen",
                             "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "--depth", "4").stdout)
    assert as_json["status"]["turn"] == "white"
    with_fen = cli(store, "--json", "search", "what next", "--book", "baking", "--fen", as_json["status"]["fen"])
    assert "skills" in json.loads(with_fen.stdout)
    bad = cli(store, "evaluate", "--fen", "not a fen", check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error: fen:")


def test_output_into_a_closed_pipe_ends_quietly(tmp_path):
    store = tmp_path / "store"
    cli(store, "ingest", str(EXAMPLES / "sourdough-basics.md"), "--book", "baking", "--refine-rounds", "0")
    command = (f"{sys.executable} -m tutorialbook.server --store {store} export-skills {tmp_path / 'skills'} "
               f"--book baking | head -n 1")
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.startswith("exported ") and done.stderr == "", done.stderr
    assert done.returncode == 0


def test_toc_depth_help_states_the_limit_the_library_enforces(tmp_path):
    """The help said 1-10 while a depth over 5 was refused."""
    shown = re.search(r"levels below the start to show \(1-(\d+)\)", cli(tmp_path, "toc", "--help").stdout)
    limit = int(shown.group(1))
    too_deep = cli(tmp_path, "toc", "--book", "none", "--depth", str(limit + 1), check=False)
    assert too_deep.returncode != 0 and f"between 1 and {limit}, got {limit + 1}" in too_deep.stderr


def test_search_prints_a_code_step_with_its_lines_and_indentation(tmp_path):
    """Python joined onto one line would be another program: a code step keeps its lines."""
    page = tmp_path / "retry.md"
    page.write_text(
        "# Retrying a flaky call\n\n"
        "Wrap the call in a loop that sleeps between attempts and gives up after a few tries:\n\n"
        "```python\n"
        "for attempt in range(5):\n"
        "    try:\n"
        "        fetch_page()\n"
        "        break\n"
        "    except TimeoutError:\n"
        "        time.sleep(2 ** attempt)\n"
        "```\n\n"
        "The sleep doubles each time, so a slow server gets room to recover.\n"
    )
    store = tmp_path / "store"
    cli(store, "ingest", str(page), "--book", "code", "--refine-rounds", "0")
    found = cli(store, "search", "retry a call that times out", "--book", "code", "-k", "1").stdout
    lines = found.splitlines()
    start = lines.index("     - for attempt in range(5):")
    assert lines[start + 1:start + 6] == ["           try:", "               fetch_page()", "               break",
                                          "           except TimeoutError:", "               time.sleep(2 ** attempt)"]
