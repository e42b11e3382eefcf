"""A skill as an Agent Skills SKILL.md: YAML front matter (name, description), then steps
and evidence, so Agent Skills hosts can load it directly."""

from __future__ import annotations

import json
import re

from tutorialbook.models import SkillView


def skill_slug(name: str, skill_id: str = "") -> str:
    """A valid Agent Skills name: lowercase letters, digits and hyphens, at most 64."""
    slug = "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:64].strip("-") or "skill"
    if skill_id:
        suffix = "-" + "".join(re.findall(r"[a-z0-9]+", skill_id.lower()))[-6:]
        slug = slug[: 64 - len(suffix)].strip("-") + suffix
    return slug


def render_skill_md(skill: SkillView) -> str:
    description = f"{skill.name}. Use {skill.when_to_use[:1].lower()}{skill.when_to_use[1:]}" if skill.when_to_use else skill.name
    lines = [
        "---",
        f"name: {skill_slug(skill.name, skill.id)}",
        f"description: {json.dumps(description[:1024], ensure_ascii=False)}",
        "---",
        "",
        f"# {skill.name}",
        "",
        f"Part of: {' › '.join(skill.path)}",
        "",
        "## Steps",
        *[f"{i}. {step}" for i, step in enumerate(skill.steps, 1)],
        "",
        "## Evidence (quoted tutorial material)",
    ]
    for e in skill.evidence:
        where = f"{e.start:.1f}s–{e.end:.1f}s" if e.timed else f"characters {int(e.start)}–{int(e.end)}"
        lines.append(f"- {e.tutorial_title}, {where}: \"{e.quote}\" {e.link}".rstrip())
    if skill.lessons:
        lines += ["", "## Lessons recorded by agents"] + [f"- ({l.outcome}) {l.text}" for l in skill.lessons]
    lines += ["", f"Sources: {skill.sources} · helpful {skill.helpful} · harmful {skill.harmful}", ""]
    return "\n".join(lines)
