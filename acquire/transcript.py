"""Timestamped text: what every source (video, subtitles, text, PGN) becomes before consolidation."""

from dataclasses import dataclass, field

#: a heard word whose probability (faster-whisper's) is below this is shown as unsure
LOW_CONFIDENCE = 0.5
#: what follows an unsure word in a transcript's text, so that evidence does not present a
#: guess as what was said ("knead it for ten(?) minutes")
UNSURE = "(?)"


@dataclass(frozen=True)
class Word:
    """One heard word: its span in seconds, its text as the model wrote it (with its leading
    space) and the model's probability for it."""

    start: float
    end: float
    text: str
    probability: float

    @property
    def unsure(self) -> bool:
        return self.probability < LOW_CONFIDENCE


def marked(words) -> str:
    """The words as text, each unsure one followed by ``UNSURE`` (before its punctuation)."""
    parts = []
    for w in words:
        text = w.text
        if w.unsure and text.strip():
            core = text.rstrip(".,;:!?\"')")
            text = core + UNSURE + text[len(core):] if core.strip() else text
        parts.append(text)
    return " ".join("".join(parts).split())


@dataclass(frozen=True)
class Segment:
    """One span of a tutorial: seconds from the start of the media, or character offsets for text."""

    start: float
    end: float
    text: str
    kind: str = "text"
    """For documents, the block this is: "paragraph", "list", "code", "table", "quote" ("text" otherwise)."""
    words: tuple[Word, ...] = ()
    """For speech, the words heard, with their probabilities (the text marks the unsure ones)."""
    ruled: bool = False
    """For documents, a thematic break stands before it (HTML's ``<hr>``, Markdown's ``---``):
    it opens another matter, as the next entry of a reference set apart by rules."""
    header: bool = True
    """For a table, whether its first line is a header row (HTML's ``<th>`` or ``<thead>``,
    reStructuredText's header rows, any Markdown table's): a long table's runs of rows each go
    under it. A table without one (AsciiDoc's ``[cols]`` tables, DocBook's informal tables) has
    a row of data first, which no other run repeats."""


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
    redecoded_seconds: float = 0.0
    """For speech, the seconds the first decoding left without words and that were decoded again."""


@dataclass(frozen=True)
class ScreenText:
    """One distinct text shown on screen, from the keyframe it appeared in until it went away.
    ``kind``: command (a shell prompt's line, prompt removed), code, output (a terminal's other
    lines), title (a slide's larger top line), bullets, or text."""

    start: float
    end: float
    text: str
    kind: str
