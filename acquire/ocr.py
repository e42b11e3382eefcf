"""Read the text lines of one frame with Tesseract (through tesserocr, which keeps one engine
loaded in the process: 0.1-0.2 s a 1280x720 frame here, where pytesseract's process per call
cost 1.1-1.4 s for the same text).

A frame is cut into *text lines* before Tesseract sees it: rows whose binarised pixels flip
often (glyphs do; photos, gradients and flat shapes do not) form bands, and a band is split
into pieces at wide empty gaps (two columns). Each piece is binarised (Otsu), made dark on
light (terminals are light on dark), scaled so the text is about 32 px high, and read as one
line. Lines are what the screen reader tracks over time, and a line whose pixels did not
change since the last keyframe is not read again (see ``LineCache``).
"""

from __future__ import annotations

import glob
import os
import threading
from dataclasses import dataclass

import numpy as np

from tutorialbook.config import Settings

#: where Debian's tesseract-ocr-eng (and other distributions) put the language data
TESSDATA_GLOBS = ("/usr/share/tesseract-ocr/*/tessdata", "/usr/share/tessdata", "/usr/local/share/tessdata",
                  "/usr/share/tesseract/tessdata", "/opt/homebrew/share/tessdata")
INSTALL_HINT = "sudo apt-get install tesseract-ocr tesseract-ocr-eng (and pip install tesserocr)"

MIN_CONFIDENCE = 55.0  # a line Tesseract is less sure of than this (0-100) is not text
TARGET_HEIGHT = 32  # px a small line band is scaled up to (a big one down to twice that)
MIN_BAND = 7  # px: thinner bands are rules, underlines or noise
MIN_FLIPS = 8  # times a row of ink starts or ends: text rows flip often (8: four strokes)


class OcrUnavailable(RuntimeError):
    """Tesseract or its English data is not installed: the message says how to install it."""


@dataclass(frozen=True)
class Line:
    """One line of text read off a frame: its box (x, y, width, height in frame pixels)."""

    text: str
    box: tuple[int, int, int, int]
    confidence: float


def tessdata() -> str | None:
    """The folder holding eng.traineddata: $TESSDATA_PREFIX when set (as for Tesseract itself:
    then only there), else the usual system places."""
    configured = Settings().tessdata_prefix
    if configured:
        candidates = [configured, os.path.join(configured, "tessdata")]
    else:
        candidates = [c for pattern in TESSDATA_GLOBS for c in sorted(glob.glob(pattern), reverse=True)]
    return next((c for c in candidates if os.path.isfile(os.path.join(c, "eng.traineddata"))), None)


def engine_version() -> str:
    """'tesseract 5.x with English data at <path>', or raise OcrUnavailable saying what is missing."""
    _api()
    import tesserocr

    return f"{tesserocr.tesseract_version().splitlines()[0]} with English data in {tessdata()}"


_local = threading.local()


def _api():
    """This thread's Tesseract engine, loaded once (~0.25 s)."""
    api = getattr(_local, "api", None)
    if api is not None:
        return api
    try:
        import tesserocr
    except ImportError as exc:
        raise OcrUnavailable(f"the tesserocr binding is not installed ({exc}); {INSTALL_HINT}") from None
    path = tessdata()
    if path is None:
        raise OcrUnavailable(f"Tesseract's English data (eng.traineddata) was not found; {INSTALL_HINT}")
    # (not OMP_THREAD_LIMIT=1, as Tesseract's docs suggest for small images: CTranslate2 reads
    # it too, and faster-whisper then decodes garbage)
    try:
        api = tesserocr.PyTessBaseAPI(path=path, lang="eng", psm=tesserocr.PSM.SINGLE_LINE,
                                      oem=tesserocr.OEM.LSTM_ONLY)
    except RuntimeError as exc:
        raise OcrUnavailable(f"Tesseract could not load English data from {path}: {exc}; {INSTALL_HINT}") from None
    api.SetVariable("preserve_interword_spaces", "1")
    _local.api = api
    return api


def grey(image: np.ndarray) -> np.ndarray:
    """RGB to 8-bit luminance."""
    return (image[..., 0] * 0.299 + image[..., 1] * 0.587 + image[..., 2] * 0.114).astype(np.uint8)


def otsu(values: np.ndarray) -> int:
    """The grey level that best splits ``values`` into two classes (Otsu's method)."""
    hist = np.bincount(values.ravel(), minlength=256).astype(np.float64)
    total = hist.sum()
    if total == 0:
        return 128
    levels = np.arange(256)
    weight = np.cumsum(hist)
    mean = np.cumsum(hist * levels)
    between = (mean[-1] * weight / total - mean) ** 2 / (weight * (total - weight) + 1e-9)
    return int(np.argmax(between))


def ink(gray: np.ndarray) -> np.ndarray:
    """True where a pixel is ink: the minority side of the Otsu split (so light-on-dark
    terminals and dark-on-light slides both give their glyphs)."""
    dark = gray <= otsu(gray)
    return ~dark if dark.mean() > 0.5 else dark


def bands(mask: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges (top, bottom) that look like lines of text, widened by up to half their height
    (never past half the gap to a neighbour): Tesseract misreads glyphs cut close, and the rows
    of an underscore or a descender flip too rarely to count on their own."""
    flips = np.count_nonzero(mask[:, 1:] != mask[:, :-1], axis=1)
    rows = flips >= MIN_FLIPS
    raw, start = [], None
    for y, on in enumerate(np.append(rows, False)):
        if on and start is None:
            start = y
        elif not on and start is not None:
            if y - start >= MIN_BAND:
                raw.append((start, y))
            start = None
    out = []
    for n, (top, bottom) in enumerate(raw):
        pad = max(4, (bottom - top) // 2)
        above = (top - raw[n - 1][1]) // 2 if n else pad
        below = (raw[n + 1][0] - bottom) // 2 if n + 1 < len(raw) else pad
        out.append((max(0, top - min(pad, above)), min(mask.shape[0], bottom + min(pad, below))))
    return out


def pieces(mask: np.ndarray, top: int, bottom: int) -> list[tuple[int, int]]:
    """Column ranges of one band, split where the gap is wider than twice the band's height
    (a gutter between columns, not a space between words)."""
    cols = np.flatnonzero(mask[top:bottom].any(axis=0))
    if cols.size == 0:
        return []
    gap = 2 * (bottom - top)
    splits = np.flatnonzero(np.diff(cols) > gap)
    starts = np.concatenate([[cols[0]], cols[splits + 1]])
    ends = np.concatenate([cols[splits], [cols[-1]]])
    return [(max(0, int(a) - 4), min(mask.shape[1], int(b) + 5)) for a, b in zip(starts, ends) if b - a >= 4]


def regions(gray: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x, y, w, h) of a frame (its grey levels) that may hold a line of text."""
    mask = ink(gray)
    boxes = []
    for top, bottom in bands(mask):
        for left, right in pieces(mask, top, bottom):
            boxes.append((left, top, right - left, bottom - top))
    return boxes


def prepare(gray: np.ndarray) -> np.ndarray:
    """One line's pixels as Tesseract likes them: scaled when very small or very large, then
    binarised to black ink on white, padded."""
    from PIL import Image

    height, width = gray.shape
    if height < 24 or height > 96:
        scale = (TARGET_HEIGHT if height < 24 else 2 * TARGET_HEIGHT) / height
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        gray = np.asarray(Image.fromarray(gray).resize(size, Image.Resampling.BILINEAR))
    page = np.where(ink(gray), 0, 255).astype(np.uint8)
    return np.pad(page, 10, constant_values=255)


def read_box(gray: np.ndarray, box: tuple[int, int, int, int]) -> Line | None:
    """Read one region of a frame's grey levels as a single line; None when Tesseract finds
    no confident text."""
    from PIL import Image

    x, y, w, h = box
    page = prepare(gray[y:y + h, x:x + w])
    api = _api()
    api.SetImage(Image.fromarray(page))
    text = " ".join(api.GetUTF8Text().split())
    words = api.AllWordConfidences()
    if not text or not words:
        return None
    confidence = float(np.mean(words))
    if confidence < MIN_CONFIDENCE or sum(ch.isalnum() for ch in text) < 2:
        return None
    return Line(text, box, confidence)
