"""Document readers on real documents from Debian documentation packages.

    python bench/formats.py [--competitors]

For each document present on this machine (install the packages named below; python3-doc
and git-doc are never used: they are held out for independent checks), prints what the
reader kept — headings and <pre> code blocks of the page's content found again, exactly,
in the transcript; navigation phrases left — and its time as a ratio to the bare parse of
the same file in the same run (lxml for HTML, docutils for reStructuredText, pdfminer.six's
extract_text for PDF; best of 3 after a warm-up). With --competitors, trafilatura and readability-lxml (when
installed; not project dependencies) are measured on the HTML pages the same way: the
comparison that chose lxml with our own rules.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tutorialbook.acquire.sources import read_source  # noqa: E402

DOCUMENTS = [  # (path, Debian package)
    ("/usr/share/R/doc/manual/R-intro.html", "r-doc-html"),
    ("/usr/share/doc/python-bs4-doc/html/index.html", "python-bs4-doc"),
    ("/usr/share/doc/python-blinker-doc/html/index.html", "python-blinker-doc"),
    ("/usr/share/doc/python-chardet-doc/html/usage.html", "python-chardet-doc"),
    ("/usr/share/doc/python-bs4-doc/html/_sources/index.rst.txt", "python-bs4-doc"),
    ("/usr/share/doc/python-blinker-doc/html/_sources/index.rst.txt", "python-blinker-doc"),
    ("/usr/share/doc/python-chardet-doc/html/_sources/usage.rst.txt", "python-chardet-doc"),
    ("/usr/share/doc/libtasn1-doc/libtasn1.pdf", "libtasn1-doc"),
    ("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf", "shared-mime-info"),
]
NAVIGATION = ["Quick search", "Show Source", "Previous topic", "Next topic", "Navigation", "Previous: ",
              "Up: ", "This Page", "Related Topics", "Skip to"]
_CHROME_CLASSES = ("sphinxsidebar", "related", "footer", "header", "contents")


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def page_parts(data: bytes) -> tuple[list[str], list[str]]:
    """The headings and <pre> blocks of an HTML page's content (its chrome cut by class)."""
    from lxml import html

    root = html.document_fromstring(data)
    has = " or ".join(f"contains(concat(' ', normalize-space(@class), ' '), ' {c} ')" for c in _CHROME_CLASSES)
    for chrome in root.xpath(f"//*[{has}]"):
        chrome.drop_tree()
    heads = [squash(h.text_content()).rstrip("¶").strip() for h in root.xpath("//h1|//h2|//h3|//h4|//h5|//h6")]
    pres = [p.text_content().strip("\n") for p in root.iter("pre")]
    return [h for h in heads if re.search(r"[A-Za-z]", h)], [p for p in pres if p.strip()]


def ours(path: Path, data: bytes):
    transcript = read_source(path)
    return ([t for _, _, t in transcript.headings], [s.text for s in transcript.segments if s.kind == "code"],
            transcript.text, transcript)


def trafilatura_reader(path: Path, data: bytes):
    import trafilatura

    md = trafilatura.extract(data.decode("utf-8", "replace"), output_format="markdown", include_formatting=True,
                             include_tables=True, include_links=False, favor_recall=True) or ""
    heads = [squash(m.group(1).replace("¶", "").replace("`", "")) for m in re.finditer(r"^#{1,6}\s+(.+)$", md, re.M)]
    return heads, re.findall(r"```[^\n]*\n(.*?)```", md, re.S), md, None


def readability_reader(path: Path, data: bytes):
    from lxml import html
    from readability import Document

    root = html.fromstring(Document(data.decode("utf-8", "replace")).summary(html_partial=True))
    heads = [squash(h.text_content()) for h in root.xpath("//h1|//h2|//h3|//h4|//h5|//h6")]
    return heads, [p.text_content() for p in root.iter("pre")], root.text_content(), None


def bare_parse(path: Path, data: bytes) -> None:
    name = path.name.lower()
    if name.endswith((".html", ".htm")):
        from lxml import html

        html.document_fromstring(data).text_content()
    elif name.endswith((".rst", ".rst.txt")):
        from docutils.core import publish_doctree

        publish_doctree(data.decode("utf-8"), settings_overrides={"report_level": 5, "halt_level": 5})
    elif name.endswith(".pdf"):
        from io import BytesIO

        from pdfminer.high_level import extract_text

        extract_text(BytesIO(data))


REPEATS = 3


def timed(fn, *args):
    """The result and the best of REPEATS runs after a warm-up (imports, caches)."""
    out = fn(*args)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return out, best


def report(label: str, result, seconds: float, base: float, heads: list[str] | None, pres: list[str] | None) -> None:
    found_heads, codes, text, transcript = result
    line = f"  {label:24s} {seconds:6.2f}s ({seconds / base:4.1f}x bare parse)"
    if heads is not None:
        kept = {squash(h) for h in found_heads}
        exact = sum(any(p.strip() == c.strip("\n").strip() for c in codes) for p in pres)
        line += f"  headings {sum(h in kept for h in heads)}/{len(heads)}  code exact {exact}/{len(pres)}"
    if transcript is not None:
        kinds: dict[str, int] = {}
        for s in transcript.segments:
            kinds[s.kind] = kinds.get(s.kind, 0) + 1
        line += f"  title {transcript.title!r}  {len(transcript.headings)} headings  {kinds}"
    chrome = [c for c in NAVIGATION if c in text]
    print(line + (f"  navigation left: {chrome}" if chrome else "  no navigation left"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--competitors", action="store_true", help="also trafilatura and readability-lxml on HTML")
    args = parser.parse_args()
    for name, package in DOCUMENTS:
        path = Path(name)
        if not path.exists():
            print(f"{name}: missing (apt-get install {package})")
            continue
        data = path.read_bytes()
        _, base = timed(bare_parse, path, data)
        is_html = path.suffix.lower() in (".html", ".htm")
        heads, pres = page_parts(data) if is_html else (None, None)
        print(f"\n{name} ({package}, {len(data) // 1024} KB)" +
              (f": {len(heads)} headings, {len(pres)} <pre> blocks in the content" if is_html else ""))
        readers = [("acquire/formats", ours)]
        if args.competitors and is_html:
            readers += [("trafilatura", trafilatura_reader), ("readability-lxml", readability_reader)]
        for label, reader in readers:
            try:
                result, seconds = timed(reader, path, data)
            except ImportError as exc:
                print(f"  {label:24s} not installed ({exc.name})")
                continue
            report(label, result, seconds, base, heads, pres)


if __name__ == "__main__":
    main()
