"""reStructuredText, Sphinx sources (.rst, .rst.txt) included, through docutils. Sphinx's
roles and directives are unknown to docutils: any unknown role degrades to its text, and
Sphinx's directives are registered with generic handlers (code-like ones become code
blocks, admonition-like ones their content, index/toctree-like ones nothing, an object's
description — ``.. function::``, ``.. class::``, ``.. option::`` — a section named by the object,
its signatures as code), so no markup or parse error reaches a segment."""

from __future__ import annotations

import functools
import os
import re
import types
from collections.abc import Mapping
from pathlib import Path

from docutils import nodes, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, Parser, directives, roles, states

from tutorialbook.acquire.formats.document import (ADMONITIONS, FOOTNOTE_CHARS, POINTER_WORDS, SEE_ONLY, Document,
                                                   spread_rows, table_text)
from tutorialbook.acquire.roots import SourcePolicy
from tutorialbook.errors import TutorialbookError

_SETTINGS = {
    "report_level": 5, "halt_level": 5, "warning_stream": False, "file_insertion_enabled": False,
    "raw_enabled": False, "doctitle_xform": False, "sectsubtitle_xform": False,
    "sectnum_xform": False,  # a generated number is no part of a title (docutils' FAQ: "1.2.23 What's …")
    "syntax_highlight": "none", "input_encoding": "unicode", "_disable_config": True,
}


def read_rst(text: str, name: str, labels: Mapping[str, str] | None = None) -> Document:
    """``labels``: section titles by label (``sphinx_labels``) of the files beside this one, which
    its ``:ref:``s may name."""
    _register_sphinx()
    _register_unknown(text)
    try:
        tree = publish_doctree(text, source_path=name, parser=Parser(inliner=_inliner()),
                               settings_overrides=_SETTINGS)
    except TutorialbookError:
        raise
    except Exception as exc:  # docutils' own transforms fail on some markup ("contents" over an id-less
        raise TutorialbookError(  # section had raised a bare IndexError out of ingest): the file and why
            "source", f"{name} could not be read as reStructuredText ({type(exc).__name__}: {str(exc)[:200]})") from exc
    for message in list(tree.findall(nodes.system_message)):  # parser reports, not the author's words
        message.parent.remove(message)
    for bad in list(tree.findall(nodes.problematic)):  # a reference to nowhere: its words, not its markup
        bad.parent.replace(bad, nodes.Text(bad.astext().strip("`_|")))
    _name_references(tree, labels or {})
    _drop_bibliography(tree)
    _inline_footnotes(tree)
    _unmark_nested_literals(tree)
    doc = Document(name)
    _blocks(tree, doc, 1)
    return doc


#: an inline literal docutils leaves as written inside emphasis (it nests no markup): ``parse_string()``
_NESTED_LITERAL = re.compile(r"``([^`]+)``")


def _unmark_nested_literals(tree: nodes.Element) -> None:
    """Inline literals set inside emphasis ("*So ``parseString()`` is being renamed*"), which
    docutils does not parse, read as their words, not with their backticks (pyparsing's docs)."""
    for marked in list(tree.findall(lambda n: isinstance(n, (nodes.emphasis, nodes.strong)))):
        for text in list(marked.findall(nodes.Text)):
            if "``" in text and text.parent is not None:
                text.parent.replace(text, nodes.Text(_NESTED_LITERAL.sub(r"\1", str(text))))




def _inline_footnotes(tree: nodes.Element) -> None:
    """A footnote's text goes where the text refers to it, in brackets ("exit statuses (or
    “stati”) of processes"), not as a passage of its own at the section's end ("[1]: …"); one
    nothing refers to, or a long one, stays."""
    notes = {note_id: note for note in tree.findall(nodes.footnote) for note_id in note.get("ids", [])}
    used = set()
    for ref in list(tree.findall(nodes.footnote_reference)):
        note = notes.get(ref.get("refid", ""))
        if note is None or ref.parent is None:
            continue
        text = " ".join(" ".join(child.astext().split()) for child in note.children
                        if not isinstance(child, nodes.label))
        if not text or len(text) > FOOTNOTE_CHARS:
            continue
        ref.parent.replace(ref, nodes.Text(f" ({text})"))
        used.add(id(note))
    for note in set(notes.values()):
        if id(note) in used and note.parent is not None:
            note.parent.remove(note)


#: the fields of a document's bibliography (docutils' docinfo, and what projects add to it)
_BIBLIOGRAPHIC = frozenset({"author", "authors", "organization", "address", "contact", "version", "revision",
                            "status", "date", "copyright", "dedication", "web site", "website", "maintainer",
                            "license", "licence", "last modified", "updated", "created"})


def _drop_bibliography(tree: nodes.Element) -> None:
    """A field list opening the document, under its title ("Date: $Date: 2022-06-17 …$",
    "Revision: $Revision: 9051$", "Copyright: …"), is its bibliography, no text to learn
    (docutils' FAQ made a skill of it)."""
    for child in tree.children:
        if isinstance(child, nodes.section):  # the document's title read as its first section's
            return _drop_bibliography(child)
        if isinstance(child, (nodes.PreBibliographic, nodes.target, nodes.substitution_definition, nodes.pending)):
            continue  # a title, comment, ``.. meta::`` ...
        if isinstance(child, nodes.field_list):
            names = [" ".join(f.next_node(nodes.field_name).astext().lower().split()) for f in child.children
                     if isinstance(f, nodes.field) and f.next_node(nodes.field_name) is not None]
            if names and sum(n in _BIBLIOGRAPHIC for n in names) * 2 >= len(names):
                child.parent.remove(child)
        return


# -- roles ---------------------------------------------------------------------------
_EXPLICIT_TITLE = re.compile(r"^(.+?)\s*<[^<>]+>$", re.S)


#: roles naming a function or method, which Sphinx shows with parentheses (its add_function_parentheses)
_CALLABLES = frozenset({"func", "meth"})
#: Sphinx's roles that link to a page or a section of the documentation, not name a thing in it
_CROSS_REFERENCES = frozenset({"ref", "doc", "any", "numref"})


def _text_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """A role docutils does not know (:func:, :keyword:, :ref:, :doc:...) shows its text:
    the explicit title of ``title <target>``; ``~a.b`` shows ``b``; ``!x`` shows ``x``."""
    text = utils.unescape(text)
    match = _EXPLICIT_TITLE.match(text)
    shown = match.group(1) if match else text
    if not match and shown.startswith("~"):
        shown = shown[1:].rsplit(".", 1)[-1]
    if not match and name.rsplit(":", 1)[-1] in _CALLABLES:  # as Sphinx shows them: ".Sphinx.add_source_parser"
        shown = shown.lstrip("!.")                              # is "Sphinx.add_source_parser()"
        shown += "" if shown.endswith(")") else "()"
    node = nodes.literal(rawtext, shown.lstrip("!"))
    if name in _CROSS_REFERENCES:
        node["classes"].append("xref")
    if name == "ref" and not match:
        node["label"] = nodes.fully_normalize_name(shown)  # shown as its section's title: _name_references
        node["written"] = shown
    if name == "doc" and not match:
        node["label"] = DOC_LABEL + shown  # shown as its page's title: _name_references
    return [node], []


def _name_references(tree: nodes.document, labels: Mapping[str, str]) -> None:
    """A ``:ref:`label``` without a title shows what Sphinx shows, the title of the section the
    label stands before, in this file or (``labels``) one beside it; a ``:doc:`page``` the title
    of that page (``labels``' ``doc:page``). A label none defines reads as words ("optional
    value"), as written after its page's name where Sphinx's autosectionlabel names a section by
    its page and title ("features/help:Help" is "Help"); a page none titles as its name's
    ("/deploying/index" "index")."""
    titles: dict[str, str] = {}
    for section in tree.findall(nodes.section):
        title = section.next_node(nodes.title)
        for label in section["names"]:
            titles.setdefault(label, title.astext() if title is not None else label)
    titles = {**labels, **titles}  # this file's own sections first
    for node in list(tree.findall(nodes.literal)):
        if label := node.get("label"):
            written = node.get("written") or label.removeprefix(DOC_LABEL).rsplit("/", 1)[-1]
            shown = titles.get(label) or re.sub(r"[-_]+", " ", written.rsplit(":", 1)[-1]).strip() or label
            node.parent.replace(node, nodes.inline("", shown, classes=["xref"]))  # still a link: _contents_list


#: a label standing over a section's title (an overline allowed, and directives between them, as
#: SQLAlchemy's ``.. rst-class:: core-header``): ``.. _tut-lists:`` / ``Lists`` / ``---``
_LABELLED_TITLE = re.compile(r"^\.\. _([^:`\n]{1,100}):[ \t]*\n(?:[ \t]*\n)*"
                             r"(?:\.\.[ \t]+[\w:-]+::[^\n]*\n(?:[ \t]*\n|[ \t]+\S[^\n]*\n)*)*"  # a directive between
                             r"(?:([=\-~^\"'`#*+<>.:_])\2{2,}[ \t]*\n)?"
                             r"[ \t]*(\S[^\n]{0,200}?)[ \t]*\n([=\-~^\"'`#*+<>.:_])\4{2,}[ \t]*$", re.M)
SIBLING_FILES = 300
SIBLING_BYTES = 1 << 20
DOC_LABEL = "doc:"  # ``labels``' key of a page's title, before the page's name as a ``:doc:`` writes it
#: a ``:doc:`` without an explicit title (what it shows is the page's title)
_DOC_TARGET = re.compile(r":doc:`([^`<>\n]{1,200})`")
DOC_TARGETS = 100  # pages named by one file whose titles are looked up, at most
#: a page's first title: a line over- and underlined or underlined as long as it
_FIRST_TITLE = re.compile(r"^(?:([=\-~^\"'`#*+<>.:_])\1{2,}[ \t]*\n)?[ \t]*(\S[^\n]{0,200}?)[ \t]*\n"
                          r"(([=\-~^\"'`#*+<>.:_])\4{2,})[ \t]*$", re.M)


#: what only reStructuredText writes, each a kind of sign: a directive, an explicit target, an
#: interpreted text role, a reference, a paragraph ending in "::" over an indented block, an
#: inline literal, a substitution
_RST_SIGNS = {
    "directive": re.compile(r"^\.\.[ \t]+[A-Za-z][\w:-]*::(?:[ \t]|$)", re.M),
    "target": re.compile(r"^(?:\.\.[ \t]+_[^:\n]+:|__[ \t]+\S)", re.M),
    "role": re.compile(r"(?<![\w`]):[a-z][\w:+-]*:`[^`\n]+`"),
    "reference": re.compile(r"(?<!`)`[^`\n]+`__?(?![\w`])"),
    "literal": re.compile(r"::[ \t]*\n[ \t]*\n[ \t]+\S"),
    "inline": re.compile(r"``[^`\n]+``"),
    "substitution": re.compile(r"^\.\.[ \t]+\|[^|\n]+\|[ \t]+\S", re.M),
    # a title over- and underlined ("====\nTitle\n===="), docinfo fields (":Author: Jan")
    "overline": re.compile(r"^([=\-`~^#*+])\1{3,}[ \t]*\n[^\n]+\n\1{4,}[ \t]*$", re.M),
    "field": re.compile(r"^:(?:author|authors|date|revision|version|copyright|abstract|contact|status):", re.M | re.I),
}
SNIFF_CHARS = 200_000


def looks_like_rst(text: str) -> bool:
    """Whether a plain text (``.txt``: docutils ships its own documentation so) is a
    reStructuredText source: three kinds of what only reStructuredText writes (``.. note::``,
    ``.. _label:``, ``:ref:`x```, `` `x`_ ``, a paragraph ending "::" over an indented block,
    ````code````, a title over- and underlined, a docinfo field such as ``:Author:``), one of
    them a directive, target, role or reference."""
    head = text[:SNIFF_CHARS]
    kinds = {kind for kind, sign in _RST_SIGNS.items() if sign.search(head)}
    return len(kinds) >= 3 and bool(kinds & {"directive", "target", "role", "reference"})


def sphinx_labels(path: Path, policy: SourcePolicy, text: str = "") -> dict[str, str]:
    """The section labels of the reStructuredText files beside ``path`` (a Sphinx project's
    pages, ``.rst`` or ``_sources``' ``.rst.txt``): label -> section title; and the titles of the
    pages ``text`` (the file's own) names by ``:doc:`` (``_page_titles``). Only what ``policy``
    lets an ingest read (the folder inside its roots, each file allowed); at most
    ``SIBLING_FILES`` files and ``SIBLING_BYTES`` of each."""
    labels: dict[str, str] = _page_titles(path, text, policy)
    try:
        folder = policy.resolve(str(path.parent))
        own = policy.resolve(str(path))
        siblings = sorted(p for p in folder.iterdir() if p.name.endswith((".rst", ".rst.txt")))
    except (TutorialbookError, OSError):
        return labels
    for sibling in siblings[:SIBLING_FILES]:
        real = Path(os.path.realpath(sibling))
        if real == own or not policy.allows(real):
            continue
        try:
            st = os.stat(real)
        except OSError:
            continue
        for label, title in _file_labels(str(real), st.st_mtime_ns, st.st_size):
            labels.setdefault(label, title)
    return labels


def _page_titles(path: Path, text: str, policy: SourcePolicy) -> dict[str, str]:
    """``doc:<page>`` -> that page's first title, for each ``:doc:`` of ``text`` that names a
    ``.rst``/``.rst.txt`` file ``policy`` lets an ingest read: relative to ``path``'s folder, or
    with a leading "/" to the project's source folder (the highest folder above it holding an
    ``index.rst``, each folder between holding one too)."""
    titles: dict[str, str] = {}
    targets = list(dict.fromkeys(_DOC_TARGET.findall(text)))[:DOC_TARGETS]
    if not targets:
        return titles
    folder = path.parent
    top = folder
    while top.parent != top and _has_index(top.parent, policy):
        top = top.parent
    for target in targets:
        page = target.strip()
        base = top if page.startswith("/") else folder
        for suffix in (".rst", ".rst.txt"):
            try:
                real = Path(os.path.realpath(base / (page.lstrip("/") + suffix)))
                if not policy.allows(real):
                    continue
                st = os.stat(real)
            except (OSError, ValueError):  # a name no file can have (a NUL byte)
                continue
            if title := _first_title(str(real), st.st_mtime_ns, st.st_size):
                titles[DOC_LABEL + page] = title
            break
    return titles


def _has_index(folder: Path, policy: SourcePolicy) -> bool:
    return any(policy.allows(Path(os.path.realpath(folder / name))) for name in ("index.rst", "index.rst.txt"))


def _head(real: str) -> str:
    """The first ``SIBLING_BYTES`` of a page beside the one read, as text ("" when unreadable)."""
    try:
        with open(real, "rb") as handle:
            return handle.read(SIBLING_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""


@functools.lru_cache(maxsize=1024)
def _first_title(real: str, mtime_ns: int, size: int) -> str | None:
    """A page's first title (what Sphinx shows for a ``:doc:`` to it), read once per version."""
    for match in _FIRST_TITLE.finditer(_head(real)):
        if len(match.group(3)) >= len(match.group(2)):
            return _plain(match.group(2))
    return None


#: inline markup a title may hold: ````literal````, ``*emphasis*``, ``**strong**``, ``:role:`text```, `` `link`_ ``
_INLINE_MARKUP = re.compile(r"``([^`]+)``|\*\*([^*]+)\*\*|\*([^*]+)\*|(?::[\w:+-]+:)?`([^`<]+?)(?:\s*<[^`>]*>)?`_{0,2}")


def _plain(title: str) -> str:
    """A title read from a page's source as Sphinx shows it: its inline markup's text."""
    return _INLINE_MARKUP.sub(lambda m: next(g for g in m.groups() if g is not None), title)


@functools.lru_cache(maxsize=1024)
def _file_labels(real: str, mtime_ns: int, size: int) -> tuple[tuple[str, str], ...]:
    """One file's (label, title) pairs, read once per version of the file: a folder's every page
    reads its siblings, which would read each page once per page."""
    text = _head(real)
    return tuple((nodes.fully_normalize_name(m.group(1)), _plain(m.group(3))) for m in _LABELLED_TITLE.finditer(text))


def _interpreted(self, rawsource, text, role, lineno):
    """Inliner.interpreted, with unknown roles read by ``_text_role`` instead of an error, and
    known ones too where docutils cannot read them (Sphinx's ``:pep:`title <517#anchor>```)."""
    role_fn, messages = roles.role(role, self.language, lineno, self.reporter)
    if role_fn is None:  # the lookup's messages only say it was not found
        return _text_role(role, rawsource, text, lineno, self)
    nodes_, more = role_fn(role, rawsource, text, lineno, self)
    if any(isinstance(node, nodes.problematic) for node in nodes_):
        return _text_role(role, rawsource, text, lineno, self)
    return nodes_, messages + more


def _inliner() -> states.Inliner:
    # set on the instance: docutils' Inliner reads its patterns from vars(type(self)),
    # which a subclass would not hold
    inliner = states.Inliner()
    inliner.interpreted = types.MethodType(_interpreted, inliner)
    return inliner


# -- directives ----------------------------------------------------------------------
class _AnyOption(dict):
    """Sphinx directives take options docutils cannot know; accept any, as text. Never empty to
    docutils, which reads options only for a directive whose spec is not (an empty one had every
    option line taken for the directive's argument: "current; :property:", a caption lost)."""

    def __missing__(self, key):
        return directives.unchanged

    def __bool__(self) -> bool:
        return True


class _Generic(Directive):
    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOption()


class _Code(_Generic):
    def run(self):
        text = "\n".join(self.content)
        return [nodes.literal_block(text, text)] if text.strip() else []


class _Drop(_Generic):
    def run(self):
        return []


class _Contents(_Generic):
    """A toctree: no text, but a mark that a caption over it ("**Starting with Pygments**") is a
    contents list's, not the page's (``_captions_a_toctree``)."""

    def run(self):
        return [nodes.comment("", "", classes=["toctree"])]


class _Body(_Generic):
    """Admonition-like: the content as body text, after a lead line from the argument
    ("New in version 3.2." for versionadded)."""

    LEADS = {"versionadded": "New in version", "versionchanged": "Changed in version",
             "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
    BARE = frozenset({"only", "ifconfig", "rst-class", "cssclass", "hlist", "grid", "tab-set", "glossary"})
    """Their argument is a condition or a style, not words to read."""

    def run(self):
        node = nodes.container()
        argument = self.arguments[0] if self.arguments else ""
        lead = self.LEADS.get(self.name)
        if lead and len(argument.split()) < 2 and not "".join(self.content).strip():
            return []  # a bare "New in version 4.0.": a stamp, nothing to learn on its own
        if lead and argument:
            version, *rest = argument.split(None, 1)
            argument = f"{lead} {version}: {rest[0]}" if rest else f"{lead} {version}."
        if argument and self.name not in self.BARE:
            words, _ = self.state.inline_text(argument, self.lineno)
            node += nodes.paragraph(argument, "", *words)
        self.state.nested_parse(self.content, self.content_offset, node)
        if self.name == "seealso" and all(isinstance(c, nodes.paragraph) and _lone_link(c) or _contents_list(c)
                                          for c in node.children):
            return []  # pointers only ("See also: about fixtures"), as the HTML reader drops Sphinx's box of them
        return [node]


class _Describe(_Generic):
    """An object's description (``.. function:: dumps(obj, *, indent=None)``, a class, a method, an
    option): a section titled by the object's name (a member by its owner's, "JSONEncoder.encode"),
    its signatures heading its content's first block, its content below (a class's methods
    inside it, one level down), as Sphinx's HTML shows it."""

    def run(self):
        if self.name == "class" and not "".join(self.content).strip():
            return []  # docutils' own "class" (a style for the next element), or a class said nothing of
        if self.name == "class" and _STYLE_CLASSES.fullmatch(self.arguments[0] if self.arguments else ""):
            box = nodes.container()  # docutils' own "class" over content (".. class:: colwidths-auto"): the
            self.state.nested_parse(self.content, self.content_offset, box)  # content, styled, as it is
            return box.children
        signatures = [line.strip() for line in (self.arguments[0] if self.arguments else "").splitlines()
                      if line.strip()]
        name = _object_name(signatures[0]) if signatures else self.name
        owner = next((n.get("object_name", "") for n in _ancestors(self.state.parent) if n.get("object_name")), "")
        if owner and "." not in name and self.name.split(":")[-1] in _MEMBERS:
            name = f"{owner.rsplit('.', 1)[-1]}.{name}"
        section = nodes.section(object_name=name)
        self.state.document.set_id(section)  # docutils' transforms (a ``contents`` directive) need one
        section += nodes.title(name, name)
        if signatures:
            text = "; ".join(signatures)
            section += nodes.term(text, text)
        self.state.nested_parse(self.content, self.content_offset, section)
        return [section]


#: the argument of docutils' own ``class`` directive when it cannot be a Python class: style names
#: with a hyphen ("colwidths-auto") or several of them ("handout tiny"); a single word ("object",
#: "Frob") or a signature ("frob.Frob(x)") is Sphinx's class description
_STYLE_CLASSES = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?:\s+[a-z][a-z0-9-]*)*"
                            r"|[a-z][a-z0-9-]*(?:\s+[a-z][a-z0-9-]*)+")
#: what a class holds, titled by its class's name too
_MEMBERS = frozenset({"method", "attribute", "staticmethod", "classmethod", "property", "decoratormethod",
                      "member", "enumerator"})


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def _object_name(signature: str) -> str:
    """The name a signature describes: "dumps" of "dumps(obj, *, indent=None)", "PyObject_Print" of
    "int PyObject_Print(PyObject *o)"; an option's or variable's signature whole."""
    head = signature.split("(", 1)[0].strip()
    return head.split()[-1].lstrip("*&") if "(" in signature and head else signature


_CODE = ("code-block", "sourcecode", "testcode", "testoutput", "testsetup", "testcleanup", "doctest",
         "productionlist", "literalinclude", "ipython", "jupyter-execute", "prompt")
_DROP = ("index", "toctree", "highlight", "module", "currentmodule", "default-domain", "default-role",
         "tabularcolumns", "sectionauthor", "moduleauthor", "codeauthor", "autosummary", "automodule",
         "autoclass", "autofunction", "automethod", "autoattribute", "autoexception", "autodata",
         "autoproperty", "graphviz", "digraph", "graph", "inheritance-diagram", "plot", "todolist",
         "program", "py:module", "py:currentmodule", "c:namespace", "cpp:namespace", "js:module")
_BODY = ("seealso", "versionadded", "versionchanged", "deprecated", "only", "ifconfig", "hlist",
         "centered", "glossary", "todo", "tab", "tabs", "tab-set", "tab-item", "card", "grid",
         "grid-item", "grid-item-card", "dropdown", "rst-class", "cssclass", "versionremoved")
_DESCRIBE = ("function", "class", "method", "attribute", "data", "exception", "staticmethod",
             "classmethod", "decorator", "decoratormethod", "property", "describe", "object", "envvar",
             "option", "cmdoption", "confval", "type", "member", "macro", "var", "struct", "enum",
             "enumerator", "union", "directive", "role")
_DOMAINS = ("py", "c", "cpp", "js", "rst", "std")
_registered = False


def _register_sphinx() -> None:
    global _registered
    if _registered:
        return
    table = {name: _Code for name in _CODE} | {name: _Drop for name in _DROP} | {name: _Body for name in _BODY}
    table["toctree"] = _Contents
    for name in _DESCRIBE:
        table.setdefault(name, _Describe)
        for domain in _DOMAINS:
            table.setdefault(f"{domain}:{name}", _Describe)
    for name, cls in table.items():
        if directives._directives.get(name) is None and name not in directives._directive_registry:
            directives.register_directive(name, cls)
    directives.register_directive("class", _Describe)  # Sphinx's: a Python class (docutils' is rst-class there)
    _registered = True


class _Unknown(_Generic):
    """A directive of an extension docutils does not know (``click:example``, a project's own):
    its content is kept, as a code block when its lines read as code, else as body text."""

    def run(self):
        lines = [line for line in self.content if line.strip()]
        if not lines:
            return []
        if sum(bool(_CODE_LINE.search(line)) for line in lines) * 2 >= len(lines):
            text = "\n".join(self.content).strip("\n")
            return [nodes.literal_block(text, text)]
        node = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


#: a line of code, not prose: a call, braces, an assignment, a prompt or decorator, a keyword opening it
_CODE_LINE = re.compile(r"\w\(|[{};]|[^=!<>]=[^=]|^\s*(?:[@#$%]|>>>|\.\.\.\s)"
                        r"|^\s*(?:def|class|import|from|return|if|for|while|print)\b")
_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w:+.-]{0,60})::", re.M)
_UNKNOWN_LIMIT = 1000
"""Unknown directive names registered in a process at most (docutils' registry is global)."""
_unknown: set[str] = set()


def _register_unknown(text: str) -> None:
    for name in set(_DIRECTIVE.findall(text)):
        known = directives._directives.get(name) is not None or name in directives._directive_registry
        if not known and len(_unknown) < _UNKNOWN_LIMIT:
            _unknown.add(name)
            directives.register_directive(name, _Unknown)


# -- the doctree as blocks -----------------------------------------------------------
_SKIP = (nodes.comment, nodes.system_message, nodes.target, nodes.substitution_definition, nodes.raw,
         nodes.pending, nodes.problematic, nodes.title, getattr(nodes, "meta", nodes.comment))
_LIST_NODES = (nodes.bullet_list, nodes.enumerated_list, nodes.definition_list, nodes.field_list,
               nodes.option_list)
_BLOCKY = (nodes.literal_block, nodes.doctest_block, nodes.table, nodes.section)


def _captions_a_toctree(node: nodes.Element, at: int) -> bool:
    """Whether the child at ``at`` is a paragraph of bold or italic words alone standing over a
    toctree (a contents page's "**Builtin components**"): navigation, no text."""
    child = node.children[at]
    if not isinstance(child, nodes.paragraph) or len(child.children) != 1 \
            or not isinstance(child.children[0], (nodes.strong, nodes.emphasis)):
        return False
    after = next((c for c in node.children[at + 1:] if not isinstance(c, nodes.system_message)), None)
    return isinstance(after, nodes.comment) and "toctree" in after.get("classes", [])


def _blocks(node: nodes.Element, doc: Document, level: int) -> None:
    nested = False  # a section read inside this one (an object's description): its own text after it
    for at, child in enumerate(node.children):
        if _captions_a_toctree(node, at):
            continue
        if nested and isinstance(node, nodes.section) and not isinstance(child, (nodes.section, *_SKIP)):
            title = node.next_node(nodes.title)
            doc.heading(level - 1, title.astext() if title is not None else "")  # goes on under its title
            nested = False
        if isinstance(child, nodes.section):
            title = child.next_node(nodes.title)
            doc.heading(level, title.astext() if title is not None else "")
            _blocks(child, doc, level + 1)
            nested = True
        else:
            _block(node, child, doc, level)


def _block(node: nodes.Element, child: nodes.Node, doc: Document, level: int) -> None:
    """One child of ``node`` that is no section."""
    if isinstance(child, nodes.transition):
        doc.rule()
    elif isinstance(child, _SKIP):
        if isinstance(child, nodes.title) and not isinstance(node, nodes.section):
            _own_title(node, child, doc)
    elif isinstance(child, (nodes.term, nodes.classifier, nodes.field_name)):
        doc.label(child.astext(), join=True)  # a term heads its definition's first block, whole
    elif isinstance(child, nodes.label):  # a footnote's or citation's mark heads its text: "[1]: Actually, …"
        doc.label(f"[{child.astext()}]")
    elif isinstance(child, nodes.paragraph) and _points_only(child):
        return
    elif (simple := _simple_block(child)) is not None:
        # a table without header rows (a list-table without :header-rows:) opens on a row of data
        doc.block(*simple, header=not isinstance(child, nodes.table) or any(True for _ in child.findall(nodes.thead)))
    elif isinstance(child, _LIST_NODES):
        if _contents_list(child):
            return
        if _holds(child, _BLOCKY):
            _blocks(child, doc, level)
        else:
            doc.block("list", "\n".join(_list_lines(child, 0)))
    elif isinstance(child, nodes.block_quote) and not _holds(child, _BLOCKY + _LIST_NODES):
        doc.block("quote", child.astext())
    elif isinstance(child, nodes.topic) and "contents" in child.get("classes", []):
        return  # a generated table of contents
    elif isinstance(child, nodes.Element):
        _element(child, doc, level)
    elif isinstance(child, nodes.Text) and child.astext().strip():
        doc.block("paragraph", child.astext())


def _simple_block(child: nodes.Node) -> tuple[str, str] | None:
    """A block read as one piece of one kind (a paragraph, code, a line block, a table), or None."""
    if isinstance(child, (nodes.paragraph, nodes.rubric, nodes.caption, nodes.attribution)):
        return "paragraph", child.astext()
    if isinstance(child, (nodes.literal_block, nodes.doctest_block)):
        return "code", child.astext()
    if isinstance(child, nodes.line_block):
        return "paragraph", " ".join(line.astext() for line in child.findall(nodes.line))
    if isinstance(child, nodes.table):
        return "table", table_text(_table_rows(child))
    return None


def _table_rows(table: nodes.table) -> list[list[str]]:
    """A table's rows (``spread_rows``: a cell spanning rows below repeated in each)."""
    return spread_rows([(" ".join(entry.astext().split()), int(entry.get("morerows", 0)) + 1,
                         int(entry.get("morecols", 0)) + 1)
                        for entry in row.children if isinstance(entry, nodes.entry)]
                       for row in table.findall(nodes.row))


def _own_title(node: nodes.Element, title: nodes.title, doc: Document) -> None:
    """An element's title: a box's (admonition, topic, sidebar: "select() from a Table vs. ORM
    class") heads its text as "Note" does; a table's is a paragraph over it (its caption)."""
    if isinstance(node, (nodes.Admonition, nodes.topic, nodes.sidebar)):
        doc.label(title.astext())
    else:
        doc.block("paragraph", title.astext())


def _element(node: nodes.Element, doc: Document, level: int) -> None:
    """Any other element, walked; an admonition's label heads its text ("Note: …"), as in HTML."""
    if isinstance(node, nodes.Admonition) and node.tagname in ADMONITIONS:
        doc.label(node.tagname.capitalize())
    _blocks(node, doc, level)


def _list_lines(node: nodes.Element, depth: int) -> list[str]:
    lines: list[str] = []
    start = int(node.get("start", 1) or 1)
    for i, item in enumerate(node.children):
        if isinstance(node, nodes.enumerated_list):
            marker = f"{start + i}. "
        elif isinstance(node, nodes.bullet_list):
            marker = "- "
        else:
            marker = ""
        words, nested = [], []
        for part in item.children:
            subs = (
                part.children if isinstance(part, (nodes.definition, nodes.field_body, nodes.description)) else [part]
            )
            for sub in subs:
                if isinstance(sub, _LIST_NODES):
                    nested.extend(_list_lines(sub, depth + 1))
                else:
                    words.append(" ".join(sub.astext().split()))
        if not marker and len(words) > 1:  # a term or field name (less a colon its author gave it), then what it means
            words = [f"{words[0].rstrip(': ')}: {' '.join(words[1:])}"]
        lines.append("  " * depth + marker + " ".join(words))
        lines.extend(nested)
    return lines


def _contents_list(node: nodes.Element) -> bool:
    """A list whose every item is one cross-reference (``:doc:``, ``:ref:``, a link) and nothing
    else, its nested lists too: a table of contents (Sphinx quickstart's "Indices and tables"),
    navigation as the HTML reader judges the same list. A list of API names (``:func:``) names
    things, and an item that says more than its link is text."""
    if not isinstance(node, (nodes.bullet_list, nodes.enumerated_list)) or not node.children:
        return False
    for item in node.children:
        parts = [p for p in item.children if not isinstance(p, nodes.comment)]
        if not parts or not isinstance(parts[0], nodes.paragraph) \
                or not all(isinstance(p, _LIST_NODES) and _contents_list(p) for p in parts[1:]):
            return False
        if not _lone_link(parts[0]):
            return False
    return True


def _points_only(paragraph: nodes.paragraph) -> bool:
    """A short paragraph that says nothing but "see" beside its cross-references ("(See how to
    change command line options defaults)", pytest's how-tos), as the HTML reader drops its
    rendering; a sentence that says more ("See the tutorial first, then …") stays."""
    links = [n for n in paragraph.findall(lambda n: isinstance(n, nodes.reference) or isinstance(
        n, (nodes.literal, nodes.inline)) and "xref" in n.get("classes", []))]
    if not links or len(paragraph.astext().split()) > POINTER_WORDS:
        return False
    outside = paragraph.astext()
    for link in links:
        outside = outside.replace(link.astext(), " ", 1)
    return bool(SEE_ONLY.fullmatch(" ".join(re.findall(r"[a-z]+", outside.lower()))))


def _lone_link(paragraph: nodes.paragraph) -> bool:
    """The paragraph says one cross-reference (``:doc:``, ``:ref:``, a link) and nothing else; a
    URL shown is a reference, as in HTML."""
    said = [c for c in paragraph.children if not (isinstance(c, nodes.Text) and not c.astext().strip())
            and not isinstance(c, nodes.target)]
    link = said[0] if len(said) == 1 and isinstance(said[0], nodes.Element) else None
    return link is not None and (isinstance(link, nodes.reference) and not re.search(r"://|^www\.", link.astext())
                                 or "xref" in link.get("classes", []))


def _holds(node: nodes.Element, kinds) -> bool:
    return any(True for _ in node.findall(lambda n: isinstance(n, kinds), include_self=False))
