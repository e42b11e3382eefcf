"""Timestamped text: what every source (video, subtitles, text, PGN) becomes before consolidation."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Segment:
    """One span of a tutorial: seconds from the start of the media, or character offsets for text."""

    start: float
    end: float
    text: str
    kind: str = "text"
    """For documents, the block this is: "paragraph", "list", "code", "table", "quote" ("text" otherwise)."""


@dataclass
class Transcript:
    """A source turned into ordered segments, with what produced it."""

    segments: list[Segment]
    duration: float
    language: str = "en"
    timed: bool = True  # False for text sources: start/end are character offsets
    models: dict[str, str] = field(default_factory=dict)
    headings: list[tuple[int, int, str]] = field(default_factory=list)
    """(segment index, level, title) for sources with explicit structure (Markdown)."""
    warnings: list[str] = field(default_factory=list)
    moves: list | None = None
    """Chess move events a source states exactly (PGN), used instead of parsing the words."""
    title: str | None = None
    """The document's own title (HTML <title> or first h1, first top heading, PDF metadata), if it has one."""
    text: str | None = None
    """For documents: the plain-text rendering that segment offsets point into."""
    screen: list["ScreenText"] = field(default_factory=list)
    """Text read off the video's frames (commands, code, slides), each with when it was visible."""


@dataclass(frozen=True)
class ScreenText:
    """One distinct text shown on screen, from the keyframe it appeared in until it went away.
    ``kind``: command (a shell prompt's line, prompt removed), code, output (a terminal's other
    lines), title (a slide's larger top line), bullets, or text."""

    start: float
    end: float
    text: str
    kind: str
