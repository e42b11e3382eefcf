"""Domain packs: what a field of knowledge adds to the domain-free core.

A pack may supply a vocabulary prompt for transcription, recognise its own tutorials, shape
the outline (chess: chapters by opening family, sections by variation) and index extra rows
(chess: positions). The general pack is the core's own behaviour.
"""

from __future__ import annotations

from importlib import import_module

from tutorialbook.skills import builder
from tutorialbook.skills.builder import OutlineNode, Plan, TutorialContext


class DomainPack:
    """The general pack; subclasses override what their domain knows better."""

    name = "general"
    initial_prompt: str | None = None

    def recognises(self, text: str) -> bool:
        return False

    def outline(self, tutorial: TutorialContext) -> OutlineNode:
        return builder.outline(tutorial)

    def extra_rows(self, tutorial: TutorialContext, plan: Plan) -> dict[str, list[dict]]:
        """Rows for the pack's own tables, keyed by table name, committed with the tutorial."""
        return {}


#: domain name -> "module:Class" of its pack, imported on first use
PACKS = {"general": None, "chess": "tutorialbook.skills.chess.pack:ChessPack"}
DOMAINS = ("auto", *PACKS)


def get_pack(name: str) -> DomainPack:
    target = PACKS[name]
    if target is None:
        return DomainPack()
    module, _, cls = target.partition(":")
    return getattr(import_module(module), cls)()


def recognise(text: str) -> DomainPack | None:
    """The first specialised pack that recognises the text (a title, a file name, a transcript)."""
    for name in PACKS:
        if name != "general":
            pack = get_pack(name)
            if pack.recognises(text):
                return pack
    return None
