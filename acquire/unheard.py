"""Speech that Whisper's first pass dropped: where the voice detector heard speech and no word was
returned (issue 13, item 5).

faster-whisper's batched pipeline sometimes ends a 30-s decoding chunk early and returns nothing for
the rest of its speech, with no warning: a lost sentence is a lost fact. ``transcribe`` finds those
stretches here, decodes each once more on its own and merges the words it gets at their true times.
The speech is found with the detector and the options the pipeline itself used (faster-whisper's
``vad.get_speech_timestamps``; the batched pipeline sets ``max_speech_duration_s`` to its chunk
length and ``min_silence_duration_ms`` to 160, the sequential one keeps ``VadOptions()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    import numpy as np

MIN_GAP_S = 1.2
"""A stretch of detected speech at least this long with no word in it is decoded again. The
detector pads speech by 0.4 s each side, so pauses leave some "speech" without words: at most
0.98 s on the narrations of bench/asr.py that lost nothing (three voices, which it prints as
"longest unheard"); a dropped sentence with its padding is longer (the shortest seen: 2.0 s)."""

MAX_WORD_S = 1.0
"""A word covers at most this much speech from its start: when Whisper's output stops mid-chunk,
its word alignment can stretch the last word over the rest of the chunk (seen: "it's" timed
2.6-10.3 s over two unheard sentences). Real words rarely last longer; the first word of a
detected span, which starts at the span's 0.4 s padding, took up to 0.92 s."""

CONTEXT_S = 1.0
"""A stretch is decoded with this much of the audio before and after it (words heard already,
kept out of what it gives): a clip that began in the middle of a sentence was heard worse ("Hold
I'm laying at an angle" for "Hold the blade at an angle"), and one that ended at the next word's
first sound ended in a made-up "Thank you."."""


def within(start: float, end: float, gap_start: float, gap_end: float) -> bool:
    """Whether a word decoded again belongs to the stretch: centred in it, and not begun before it
    (the context's last word, its end stretched into the stretch, was heard already)."""
    return gap_start - 0.2 <= start and gap_start <= (start + end) / 2 <= gap_end


def speech_spans(samples: "np.ndarray", mode: str, sampling_rate: int = 16000,
                 chunk_length: float = 30.0) -> list[tuple[float, float]]:
    """The speech the pipeline of ``mode`` decoded, in seconds, touching spans joined up to
    ``chunk_length`` (so a stretch decoded again fits one pass of the model)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = (VadOptions(max_speech_duration_s=chunk_length, min_silence_duration_ms=160) if mode == "batched"
               else VadOptions())
    spans: list[tuple[float, float]] = []
    for span in get_speech_timestamps(samples, options, sampling_rate=sampling_rate):
        start, end = span["start"] / sampling_rate, span["end"] / sampling_rate
        if spans and start <= spans[-1][1] and end - spans[-1][0] <= chunk_length:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


def unheard(spans: Sequence[tuple[float, float]], words: Iterable[tuple[float, float]],
            min_gap: float = MIN_GAP_S) -> list[tuple[float, float]]:
    """The stretches of ``spans`` (speech) at least ``min_gap`` long that no word's ``(start, end)``
    overlaps (a word counting for ``MAX_WORD_S`` at most), in time order."""
    heard = sorted((float(s), min(float(e), float(s) + MAX_WORD_S)) for s, e in words)
    gaps: list[tuple[float, float]] = []
    i = 0
    for start, end in spans:
        cursor = start
        while i < len(heard) and heard[i][1] <= start:  # words before this span
            i += 1
        j = i
        while j < len(heard) and heard[j][0] < end:  # words inside it
            if heard[j][0] - cursor >= min_gap:
                gaps.append((cursor, heard[j][0]))
            cursor = max(cursor, heard[j][1])
            j += 1
        if end - cursor >= min_gap:
            gaps.append((cursor, end))
    return gaps


def as_words(segment_words) -> list[tuple[float, float, str, float]]:
    """A segment's faster-whisper ``Word``s as ``(start, end, text, probability)``, the first
    word's text given a leading space (so two segments' words are never glued together)."""
    return [(float(w.start), float(w.end), w.word if i or w.word[:1].isspace() else " " + w.word,
             float(w.probability)) for i, w in enumerate(segment_words)]


def clamped(words: list[tuple[float, float, str, float]], gaps: Iterable[tuple[float, float]]):
    """``words`` with any word that reaches into a stretch decoded again ended where it begins."""
    starts = sorted(start for start, _ in gaps)
    out = []
    for s, e, text, p in words:
        inside = [g for g in starts if s < g < e]
        out.append((s, max(s, inside[0]) if inside else e, text, p))
    return out
