"""SKILL.md front matter written and read with PyYAML's safe dumper and loader.

Every Agent Skills reader must accept what we write, including the reference validator
(``skills-ref``), which cuts the front matter at the first ``---`` anywhere in the file and
parses the rest with strictyaml. So: values that are not plain words are double-quoted on one
line (no folding, no flow style), and a run of three hyphens inside a value is written with an
escaped hyphen (``-\\x2d-``), which every YAML parser reads back as ``---``. Tutorial text can
then hold anything — quotes, colons, ``---``, line separators — and the front matter still
parses to exactly the values given.
"""

from __future__ import annotations

import functools
import re

_PLAIN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")  # names and keys: safe unquoted


class FrontMatterError(ValueError):
    """The front matter is missing, not closed, or not a YAML mapping."""


@functools.cache
def _dumper():
    """PyYAML's safe dumper quoting every string that is not a plain word (built on first use:
    a server's start imports this module, not yet PyYAML)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def represent(dumper: yaml.SafeDumper, value: str):
        style = None if _PLAIN.match(value) and value not in ("yes", "no", "on", "off", "null", "true", "false") else '"'
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, represent)
    return Dumper


def dump(data: dict) -> str:
    """The front matter block, ``---`` lines included, ending with a newline."""
    import yaml

    text = yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=float("inf"),
                     default_flow_style=False)
    text = text.replace("---", "-\\x2d-")  # only inside double-quoted values: keys and plain words have none
    return f"---\n{text}---\n"


def load(text: str) -> tuple[dict, str]:
    """The front matter of a SKILL.md as a dict, and the Markdown body after it."""
    lines = text.lstrip("\ufeff").split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise FrontMatterError("SKILL.md must start with a '---' line opening its YAML front matter")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FrontMatterError("the YAML front matter is not closed by a '---' line")
    import yaml

    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (front matter line {where.line + 1})" if where is not None else ""
        raise FrontMatterError(f"the front matter is not valid YAML{line}: "
                               f"{getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(data, dict):
        raise FrontMatterError("the front matter must be a YAML mapping of fields (name, description, ...)")
    return data, "\n".join(lines[end + 1:])
