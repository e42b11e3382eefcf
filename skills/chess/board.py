"""Read a 2D digital chessboard from a video frame: where it is, and what stands on each square.

No model: classical image processing (OpenCV, numpy).

* **Locate.** The seven lines between ranks and the seven between files are long straight edges
  (light square against dark) at one spacing. Long edges are kept (morphological opening), summed
  along columns and rows, and a comb of seven teeth is slid over each profile: the board is where
  all seven teeth hit edges, whatever the board's size, colours, margins or the overlays beside it.
  The 8x8 cells found must alternate in colour (a checkerboard), or there is no board.
* **Read.** Each cell's own background colour is the median of its rim (so last-move highlights
  and square markers are background too); pixels that differ from it are the piece. A cell is
  compared with templates (grey levels where the piece is, neutral elsewhere): empty, a piece and
  its colour, or unknown when nothing matches well (an arrow across an empty square).
* **Templates.** Calibrated from the starting position, which opening lessons show: any piece set
  then reads, and which side stands at the bottom says whether the board is flipped. A lesson that
  never shows the start mostly shows a position of opening theory: where its pieces stand and which
  are the lighter name it, and the templates are learnt from it (each piece as it would look on
  either shade). Before either is seen, templates are python-chess's own SVG pieces rendered at
  run time.
* **Colours.** Most sets are drawn in greys, so a coloured pixel is taken for an arrow or a marker.
  A set drawn in colours (cream, gold, red) shows its colours on the starting position: they become
  its palette, and a pixel of the palette is piece. A faint set (thin outlines on a small board)
  shows there, too, how little of a square its pieces fill.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import chess
import chess.svg
import cv2
import numpy as np

from tutorialbook.acquire.frames import Frame
from tutorialbook.skills.chess import openings

CELL = 32  # pixels a cell is resampled to
_INSET = 2  # rim pixels skipped when reading a cell (the grid line itself)
_RIM = 3  # rim width whose median is the cell's background
_EDGE = 24  # least colour step (0-255, any channel) that counts as an edge
_FG = 34  # least colour difference from the background that is piece
_EMPTY_SHARE = 0.12  # less piece than this (share of the cell) is an empty square (an arrow, a marker)
_MIN_SQUARE = 12  # smallest square, in pixels of the frame, that is read
_NEUTRAL = 128.0
_SOFT = 8  # half the width of the colour differences (around _FG) that count as piece in part
_SATURATED = 48  # a pixel whose channels spread wider than this is colour, not piece
_OFF_PLANE = 14  # colour distance from the square's piece plane (see describe) that is an arrow
_MATCH = 22.0  # mean grey difference (0-255) above which a cell matches no template
_UNCHANGED = 6  # grey levels (0-255) a board thumbnail's pixel may drift and still be the same picture
_MARGIN = 1.5  # the best template must beat the best of another class by this much
_BIN = 16  # levels a colour channel is cut into for a piece set's palette
_PALETTE_SHARE = 0.002  # least share of the starting position's piece pixels a palette colour holds
_COLOURED_SET = 0.05  # share of them off the grey plane from which a set is drawn in colours (greys: 0)
_OPENING_PIECES = 20  # fewest pieces on a board whose position is looked up in opening theory
_WHOLE = 0.95  # share of a cell seen (not under an arrow or a marker) from which it may teach a piece
_LIGHTER = 20.0  # how much lighter (mean grey of piece pixels) White's pieces are than Black's, at least

Placement = dict[int, tuple[int, bool] | None]
"""square -> (piece type, is white), None for unknown; empty squares are absent."""


@dataclass(frozen=True)
class Grid:
    """The board in frame pixels: the top-left corner and one square's side."""

    x: float
    y: float
    size: float

    def box(self) -> tuple[int, int, int, int]:
        return (round(self.x), round(self.y), round(self.x + 8 * self.size), round(self.y + 8 * self.size))


@dataclass
class Reading:
    """What one frame shows: the board (None if none), its 64 cells, and the placement read."""

    grid: Grid | None
    placement: Placement = field(default_factory=dict)
    flipped: bool = False
    unknown: int = 0

    @property
    def found(self) -> bool:
        return self.grid is not None


# -- locating ------------------------------------------------------------------------------------

def _long_edges(image: np.ndarray, min_len: int) -> tuple[np.ndarray, np.ndarray]:
    """Maps of vertical and horizontal edges at least `min_len` pixels long."""
    def step(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        r, g, bl = cv2.split(cv2.absdiff(a, b))
        return (cv2.max(cv2.max(r, g), bl) > _EDGE).astype(np.uint8)

    image = np.ascontiguousarray(image)
    dx = step(image[:, 2:], image[:, :-2])
    dy = step(image[2:], image[:-2])
    vertical = cv2.morphologyEx(dx, cv2.MORPH_OPEN, np.ones((min_len, 1), np.uint8))
    horizontal = cv2.morphologyEx(dy, cv2.MORPH_OPEN, np.ones((1, min_len), np.uint8))
    return vertical, horizontal


def _comb(profile: np.ndarray, sizes: np.ndarray) -> tuple[float, float, float]:
    """The spacing and first tooth where seven equally spaced teeth all hit strong edges:
    (score, first line, spacing), the score being the weakest tooth's edge count."""
    wide = np.maximum.reduce([np.roll(profile, k) for k in (-2, -1, 0, 1, 2)]).astype(np.float32)
    n = len(wide)
    best = (0.0, 0.0, 0.0)
    for s in sizes:
        span = int(np.ceil(6 * s)) + 1
        if span >= n:
            break
        starts = np.arange(n - span)
        teeth = np.stack([wide[np.rint(starts + m * s).astype(int)] for m in range(7)])
        weakest = teeth.min(axis=0)
        i = int(weakest.argmax())
        if weakest[i] > best[0]:
            best = (float(weakest[i]), float(starts[i]), float(s))
    return best


def _refine(profile: np.ndarray, first: float, size: float) -> tuple[float, float]:
    """Least-squares line positions from the profile's centroid near each tooth."""
    xs, ms = [], []
    for m in range(7):
        c = int(round(first + m * size))
        lo, hi = max(0, c - 3), min(len(profile), c + 4)
        w = profile[lo:hi].astype(np.float64)
        if w.sum() > 0:
            xs.append(float((np.arange(lo, hi) * w).sum() / w.sum()))
            ms.append(m)
    if len(xs) < 4:
        return first, size
    slope, intercept = np.polyfit(ms, xs, 1)
    return float(intercept), float(slope)


def locate(image: np.ndarray) -> Grid | None:
    """The board in a frame, or None when no 8x8 checkerboard is shown."""
    h, w = image.shape[:2]
    min_len = max(8, min(h, w) // 60)
    vertical, horizontal = _long_edges(image, min_len)
    sizes = np.arange(max(_MIN_SQUARE, min_len / 2), min(h, w) / 8 + 1, 0.25)
    score, fx, s = _comb(vertical.sum(axis=0), sizes)
    if score < 3 * min_len:
        return None
    for _ in range(2):  # rows inside the columns found, then columns inside those rows
        x0 = int(max(0, fx - s)) + 1
        x1 = int(min(w - 2, fx + 7 * s)) + 1
        score, fy, sy = _comb(horizontal[:, x0:x1].sum(axis=1), np.arange(0.96 * s, 1.04 * s, 0.25))
        if score < 3 * min_len:
            return None
        y0 = int(max(0, fy - sy)) + 1
        y1 = int(min(h - 2, fy + 7 * sy)) + 1
        score, fx, s = _comb(vertical[y0:y1].sum(axis=0), np.arange(0.96 * sy, 1.04 * sy, 0.25))
        if score < 3 * min_len:
            return None
    fx, s = _refine(vertical[y0:y1].sum(axis=0), fx, s)
    fy, sy = _refine(horizontal[:, x0:x1].sum(axis=1), fy, sy)
    size = (s + sy) / 2
    # The seven lines found may include the board's outer edge: of the placements that leave
    # them inside the board, the one whose cells alternate best is the board. Profiles index
    # the edge between pixels i and i+2, centred on pixel i+1.
    best, best_score = None, -1
    for kx in (1, 0, 2):
        for ky in (1, 0, 2):
            grid = Grid(fx + 1 - kx * s, fy + 1 - ky * sy, size)
            x, y, x2, y2 = grid.box()
            if x < -2 or y < -2 or x2 > w + 2 or y2 > h + 2:
                continue
            score = _checker_score(_cells(image, grid))
            if score > best_score:
                best, best_score = grid, score
    return best if best_score >= 56 else None


def _cells(image: np.ndarray, grid: Grid) -> np.ndarray:
    """The board resampled to 8x8 cells of CELL x CELL pixels: (64, CELL, CELL, 3) float32,
    in reading order (top row first, left to right)."""
    h, w = image.shape[:2]
    # np.array(..., dtype=np.float32) is what np.float32(list) returns; numpy's stubs take only scalars there
    src = np.array([[grid.x, grid.y], [grid.x + 8 * grid.size, grid.y], [grid.x, grid.y + 8 * grid.size]],
                   dtype=np.float32)
    dst = np.array([[0, 0], [8 * CELL, 0], [0, 8 * CELL]], dtype=np.float32)
    board = cv2.warpAffine(image, cv2.getAffineTransform(src, dst), (8 * CELL, 8 * CELL),
                           flags=cv2.INTER_AREA if grid.size > CELL else cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    return board.reshape(8, CELL, 8, CELL, 3).transpose(0, 2, 1, 3, 4).reshape(64, CELL, CELL, 3).astype(np.float32)


_yy, _xx = np.mgrid[0:CELL, 0:CELL]
_EDGE_DIST = np.minimum(np.minimum(_yy, _xx), np.minimum(CELL - 1 - _yy, CELL - 1 - _xx))
_RIM_MASK = (_EDGE_DIST >= 1) & (_EDGE_DIST < 1 + _RIM) & ((_yy + _xx) % 3 == 0)  # a third of the rim suffices
_PARITY = np.array([(r + c) % 2 for r in range(8) for c in range(8)])


def _backgrounds(cells: np.ndarray) -> np.ndarray:
    return np.median(cells[:, _RIM_MASK], axis=1)  # (64, 3)


def _checker_score(cells: np.ndarray) -> int:
    """How many cells' backgrounds fall on their side of a chessboard's two alternating colours
    (64 on a board; a few highlighted or marked squares aside)."""
    bg = _backgrounds(cells)
    a, b = np.median(bg[_PARITY == 0], axis=0), np.median(bg[_PARITY == 1], axis=0)
    if np.abs(a - b).max() < _EDGE:
        return 0
    own = np.where(_PARITY[:, None] == 0, a, b)
    other = np.where(_PARITY[:, None] == 0, b, a)
    return int((np.abs(bg - own).sum(axis=1) < np.abs(bg - other).sum(axis=1)).sum())


def _checkered(cells: np.ndarray) -> bool:
    return _checker_score(cells) >= 56


# -- reading -------------------------------------------------------------------------------------

def _inner(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell without its rim, its background colour, and how far each pixel is from it."""
    bg = _backgrounds(cells)
    inner = cells[:, _INSET:CELL - _INSET, _INSET:CELL - _INSET]
    return inner, bg, np.abs(inner - bg[:, None, None, :]).max(axis=3)


def _coloured(inner: np.ndarray, bg: np.ndarray) -> np.ndarray:
    """Pixels off the plane of greys blended with their square's colour: where most piece sets are
    drawn in greys, an arrow's or a marker's colour. (On a grey square the plane is undefined:
    saturation decides.)"""
    normal = np.cross(np.array([1, 1, 1], dtype=np.float32), bg)
    norm = np.linalg.norm(normal, axis=1)
    off_plane = np.einsum("nhwc,nc->nhw", inner, normal / np.maximum(norm, 1e-6)[:, None])
    saturation = inner.max(axis=3) - inner.min(axis=3)
    return np.where((norm > 8)[:, None, None], np.abs(off_plane) >= _OFF_PLANE, saturation >= _SATURATED)


def _bins(pixels: np.ndarray) -> np.ndarray:
    """Each RGB pixel's cell of a coarse colour grid (`_BIN` levels a channel), as one integer."""
    q = np.clip(pixels // (256 // _BIN), 0, _BIN - 1).astype(np.int32)
    return (q[..., 0] * _BIN + q[..., 1]) * _BIN + q[..., 2]


@dataclass(frozen=True)
class Palette:
    """The colours a piece set is drawn in (cream, gold, red ... where most sets use greys), seen on
    the starting position: a pixel of one of them is piece, not an arrow."""

    bins: np.ndarray  # (_BIN ** 3,) bool: the colour grid's cells the pieces fill, grown by one cell

    @staticmethod
    def learn(inner: np.ndarray, piece: np.ndarray, marking: np.ndarray) -> Palette:
        """The colours of the `piece` pixels of `inner` cells but those of `marking` pixels (an
        arrow or a marker on the starting position's empty squares)."""
        def seen(mask: np.ndarray) -> np.ndarray:
            counts = np.bincount(_bins(inner[mask]).ravel(), minlength=_BIN ** 3).reshape(_BIN, _BIN, _BIN)
            return counts >= max(_PALETTE_SHARE * piece.sum(), 1)

        colours = seen(piece)
        padded = np.pad(colours, 1)  # a roll brings in the padding's False, not the far edge
        grown = colours.copy()
        for axis in range(3):
            for step in (-1, 1):
                grown |= np.roll(padded, step, axis=axis)[1:-1, 1:-1, 1:-1]
        return Palette((grown & ~seen(marking)).ravel())

    def holds(self, inner: np.ndarray) -> np.ndarray:
        return self.bins[_bins(inner)]


def describe(cells: np.ndarray, palette: Palette | None = None,
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per cell: a descriptor (grey where the piece is, neutral elsewhere, 14x14 flattened), how
    much of each descriptor pixel is visible (not under an arrow or marker), the share of the
    cell that is piece, and the mean grey of the piece. A coloured pixel is an arrow's or a
    marker's unless the piece set's `palette` holds its colour."""
    inner, bg, diff = _inner(cells)
    coloured = _coloured(inner, bg)
    if palette is not None:
        coloured &= ~palette.holds(inner)
    covered = (diff > _FG) & coloured
    mask = (diff > _FG) & ~covered
    grey = inner @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
    # a pixel near the line between piece and background counts in part, so that noise around it
    # (a video's compression; a piece filled in almost its square's colour) moves the descriptor a little
    part = np.clip((diff - (_FG - _SOFT)) / (2 * _SOFT), 0.0, 1.0) * ~coloured  # an arrow's fringe is none
    neutral = _NEUTRAL + part * (grey - _NEUTRAL)
    n = inner.shape[1] // 2

    def pool(a: np.ndarray) -> np.ndarray:
        return a[:, : 2 * n, : 2 * n].reshape(-1, n, 2, n, 2).mean(axis=(2, 4)).reshape(len(cells), -1)

    share = mask.mean(axis=(1, 2))
    tone = np.where(mask, grey, 0).sum(axis=(1, 2)) / np.maximum(mask.sum(axis=(1, 2)), 1)
    return pool(neutral), pool((~covered).astype(np.float32)), share, tone


def square_at(index: int, flipped: bool) -> int:
    """The square of cell `index` (reading order) on a board shown White-below or flipped."""
    row, col = divmod(index, 8)
    return chess.square(7 - col, row) if flipped else chess.square(col, 7 - row)


_START = chess.BaseBoard()
_SIDE_ROWS = np.repeat([True, True, False, False, False, False, True, True], 8)  # cells a start fills


@dataclass
class Templates:
    """Piece descriptors with their labels ((piece type, is white)); calibrated ones read any
    piece set, rendered ones only python-chess's."""

    descriptors: np.ndarray
    labels: list[tuple[int, bool]]
    calibrated: bool = False
    empty_share: float = _EMPTY_SHARE  # less piece than this is an empty square

    def classify(self, desc: np.ndarray, visible: np.ndarray, share: np.ndarray) -> list[tuple[int, bool] | None | str]:
        """Per cell: a label, "empty", or None (unknown). Pixels under an arrow are not compared."""
        weight = visible[:, None, :]
        dist = (np.abs(desc[:, None, :] - self.descriptors[None, :, :]) * weight).sum(axis=2) / \
            np.maximum(weight.sum(axis=2), 1.0)  # (cells, templates)
        out: list = []
        for i in range(len(desc)):
            if share[i] < self.empty_share:
                out.append("empty")
                continue
            order = np.argsort(dist[i])
            best = order[0]
            label = self.labels[best]
            rival = next((dist[i, j] for j in order[1:] if self.labels[j] != label), np.inf)
            if dist[i, best] > _MATCH or rival - dist[i, best] < _MARGIN:
                out.append(None)
            else:
                out.append(label)
        return out


def _rendered(size: int) -> Templates:
    """python-chess's SVG pieces rendered on a plain square, one template per piece and colour,
    on a light and on a dark square."""
    import cairosvg  # imported when a board is first read without a starting position

    descs, labels = [], []
    for shade in ((240, 217, 181), (181, 136, 99)):
        for color in (chess.WHITE, chess.BLACK):
            for piece_type in chess.PIECE_TYPES:
                svg = chess.svg.piece(chess.Piece(piece_type, color), size=size)
                fill = "#%02x%02x%02x" % shade
                svg = svg.replace("<svg ", "<svg style=\"background-color:%s\" " % fill, 1)
                png = cairosvg.svg2png(bytestring=svg.encode(), output_width=size, output_height=size,
                                       background_color=fill)
                bgr = cast(np.ndarray, cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR))  # our own PNG
                rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
                cell = cv2.resize(rgb, (CELL, CELL), interpolation=cv2.INTER_AREA).astype(np.float32)
                descs.append(describe(cell[None])[0][0])
                labels.append((piece_type, color))
    return Templates(np.stack(descs), labels)



class BoardReader:
    """Reads boards frame after frame: keeps where the board was and what its pieces look like."""

    def __init__(self) -> None:
        self.grid: Grid | None = None
        self.templates: Templates | None = None
        self.flipped: bool | None = None
        self.palette: Palette | None = None  # a coloured piece set's colours, from its starting position
        self._last: tuple[np.ndarray, Reading] | None = None  # the board's thumbnail, its reading

    def read(self, frame: Frame | np.ndarray) -> Reading:
        """The board in a frame (or an RGB image); a board unchanged since the last frame (only
        an overlay or the presenter moved) is not read again, nor the frame's RGB converted."""
        frame = frame if isinstance(frame, Frame) else Frame(0.0, frame)
        thumb = self._thumbnail(frame)
        if thumb is not None and self._last is not None and self._last[0].shape == thumb.shape and \
                float(np.abs(thumb - self._last[0]).max()) < _UNCHANGED:
            return self._last[1]
        reading = self._read(frame.image)
        thumb = self._thumbnail(frame)
        self._last = (thumb, reading) if thumb is not None and reading.found else None
        return reading

    def _thumbnail(self, frame: Frame) -> np.ndarray | None:
        return frame.grey(self.grid.box()) if self.grid is not None else None

    def _read(self, image: np.ndarray) -> Reading:
        grid = self.grid
        cells = _cells(image, grid) if grid is not None else None
        if cells is None or not _checkered(cells):
            grid = locate(image)
            if grid is None or grid.size < _MIN_SQUARE:
                return Reading(None)
            cells = _cells(image, grid)
        self.grid = grid
        desc, visible, share, tone = describe(cells, self.palette)
        if self.templates is None or not self.templates.calibrated:
            self._calibrate(cells, desc, share, tone)
            if self.palette is not None:
                desc, visible, share, tone = describe(cells, self.palette)
        if self.templates is None:
            self.templates = _rendered(max(CELL, int(round(cast(Grid, grid).size))))  # cells were cut from it
        labels = self.templates.classify(desc, visible, share)
        flipped = self.flipped if self.flipped is not None else _white_on_top(labels)
        placement: Placement = {}
        unknown = 0
        for i, label in enumerate(labels):
            if label == "empty":
                continue
            placement[square_at(i, flipped)] = cast("tuple[int, bool] | None", label)  # not "empty"
            unknown += label is None
        return Reading(grid, placement, flipped, unknown)

    def _calibrate(self, cells: np.ndarray, desc: np.ndarray, share: np.ndarray, tone: np.ndarray) -> None:
        """Take the templates from a starting position or, on a board never shown at its start, from
        a position of opening theory it shows."""
        if not self._calibrate_on_start(cells, desc, share, tone):
            self._calibrate_on_opening(cells)

    def _calibrate_on_start(self, cells: np.ndarray, desc: np.ndarray, share: np.ndarray, tone: np.ndarray) -> bool:
        """Take the templates from a starting position (`cells` and what `describe` made of them):
        four full rows, four empty ones, the lighter pieces White's. A set drawn in colours (cream,
        gold, red: the grey rule hides its pieces, or all but their outlines, or its pieces on a
        highlighted square) has the colours it is drawn in taken as its palette, and the position
        is read again with it. Whether the cells were a start."""
        if (share[~_SIDE_ROWS] >= _EMPTY_SHARE).any():
            return False  # a piece between the two sides' rows: no start (most frames)
        inner, bg, diff = _inner(cells)
        drawn = diff > _FG
        # between the rows, the grey rule's share: an arrow is no piece
        if _start_threshold(np.where(_SIDE_ROWS, drawn.mean(axis=(1, 2)), share)) is None:
            return self._take_start(desc, share, tone, None)  # the start, faint or not, in any colour
        pieces = _SIDE_ROWS[:, None, None]
        coloured = (_coloured(inner, bg) & drawn & pieces).sum() >= _COLOURED_SET * (drawn & pieces).sum()
        if not coloured and self._take_start(desc, share, tone, None):
            return True
        palette = Palette.learn(inner, drawn & pieces, drawn & ~pieces)  # between: arrows, markers
        desc, _, share, tone = describe(cells, palette)
        return self._take_start(desc, share, tone, palette)

    def _take_start(self, desc: np.ndarray, share: np.ndarray, tone: np.ndarray, palette: Palette | None) -> bool:
        """Calibrate on these cells' descriptions if they are a starting position's; whether they were."""
        empty = _start_threshold(share)
        if empty is None:
            return False
        occupied = share >= empty
        top, bottom = tone.reshape(8, 8)[:2].mean(), tone.reshape(8, 8)[6:].mean()
        if abs(top - bottom) < _LIGHTER:
            return False
        flipped = top > bottom  # the lighter pieces (White) stand at the top
        indexes = [i for i in range(64) if occupied[i]]
        labels = []
        for i in indexes:
            piece = cast(chess.Piece, _START.piece_at(square_at(i, flipped)))  # a start row: occupied
            labels.append((piece.piece_type, piece.color))
        self.templates = Templates(desc[indexes], labels, calibrated=True, empty_share=empty)
        self.flipped, self.palette = flipped, palette
        return True

    def _calibrate_on_opening(self, cells: np.ndarray) -> None:
        """Take the templates from a position of opening theory: one whose pieces stand where the
        cells' do (`openings.by_occupancy`, the board either way up) and whose White's pieces are
        the lighter (as at the start). Where the pieces stand is read twice: with every pixel that
        differs from its square (a set drawn in colours, whose palette is then learnt as at the
        start) and, where that names no position, with the grey rule's (a grey set under an arrow
        or a marker, which are no piece); the cells an arrow crosses teach nothing."""
        inner, bg, diff = _inner(cells)
        drawn = diff > _FG
        shares = drawn.mean(axis=(1, 2))
        occupied = shares >= _occupancy_threshold(shares)
        pieces = occupied[:, None, None]
        coloured = (_coloured(inner, bg) & drawn & pieces).sum() >= _COLOURED_SET * (drawn & pieces).sum()
        for palette in ([Palette.learn(inner, drawn & pieces, drawn & ~pieces)] if coloured else []) + [None]:
            desc, visible, share, tone = describe(cells, palette)
            empty = _occupancy_threshold(share)
            occupied = share >= empty
            if occupied.sum() < _OPENING_PIECES:
                continue
            named = []
            for flipped in (False, True):
                for board in openings.by_occupancy(_bitboard(occupied, flipped)):
                    white = np.array([board.color_at(square_at(i, flipped)) is chess.WHITE for i in range(64)])
                    if tone[white].mean() - tone[occupied & ~white].mean() >= _LIGHTER:
                        named.append((flipped, board))
            if len(named) == 1:
                break
        else:
            return
        flipped, board = named[0]
        indexes = [i for i in range(64) if occupied[i] and visible[i].mean() >= _WHOLE]  # no arrow across it
        labels = [(piece.piece_type, piece.color) for i in indexes
                  for piece in [cast(chess.Piece, board.piece_at(square_at(i, flipped)))]]
        if len(set(labels)) < 12:
            return  # a piece not seen whole would have no template
        more, _, more_share, _ = describe(_on_both_shades(cells, indexes), palette)
        kept = more_share >= empty  # a piece that vanishes on a shade (its fill that shade's colour) is none
        labels += [label for label, keep in zip(labels + labels, kept) if keep]
        self.templates = Templates(np.concatenate([desc[indexes], more[kept]]), labels, calibrated=True,
                                   empty_share=empty)
        self.flipped, self.palette = flipped, palette


def _on_both_shades(cells: np.ndarray, indexes: list[int]) -> np.ndarray:
    """The cells at `indexes` redrawn on the board's light and on its dark squares' colour (the
    medians of the 64 cells' backgrounds, a shade at a time): their piece pixels kept, the rest
    that colour; the light ones first. A position of theory may show a kind of piece on one shade
    only (the start shows all but the king and queen on both), and a piece filled near a shade's
    colour looks another on it (a white bishop on a light square is mostly its outline)."""
    bg = _backgrounds(cells)
    shades = [np.median(bg[_PARITY == parity], axis=0) for parity in (0, 1)]  # parity 0: a8's, light
    chosen = cells[indexes]
    piece = np.abs(chosen - bg[indexes][:, None, None, :]).max(axis=3) > _FG - _SOFT
    return np.concatenate([np.where(piece[..., None], chosen, shade.astype(np.float32)) for shade in shades])


def _bitboard(cells: np.ndarray, flipped: bool) -> int:
    """The squares of the cells set in `cells` (reading order), as a python-chess bitboard."""
    return sum(1 << square_at(int(i), flipped) for i in np.flatnonzero(cells))


def _start_rows(occupied: np.ndarray) -> bool:
    """Whether the cells occupied (reading order) are a starting position's: two full rows at
    each side, none between."""
    return bool(occupied[_SIDE_ROWS].all() and not occupied[~_SIDE_ROWS].any())


def _start_threshold(share: np.ndarray) -> float | None:
    """The share of piece below which a square is empty, when the cells' shares are a starting
    position's (None when not): `_EMPTY_SHARE`, or less where a small board's faint pieces (white
    pawns on light squares, ~24-pixel squares) fall under it while the four middle rows stay far
    below them."""
    if _start_rows(share >= _EMPTY_SHARE):
        return _EMPTY_SHARE
    faintest, middle = float(share[_SIDE_ROWS].min()), float(share[~_SIDE_ROWS].max())
    if faintest >= _EMPTY_SHARE / 2 and middle < faintest / 4:
        return (faintest + middle) / 2
    return None


def _occupancy_threshold(share: np.ndarray) -> float:
    """The share of piece below which a square is empty, on a board in any position: `_EMPTY_SHARE`,
    or less where some squares' shares fall under it but far above every other's (a faint set's
    pieces, as `_start_threshold` finds them at the start)."""
    under = share[share < _EMPTY_SHARE]
    faint = under[under >= _EMPTY_SHARE / 2]
    rest = under[under < _EMPTY_SHARE / 2]
    if faint.size and rest.max(initial=0.0) < faint.min() / 4:
        return float(faint.min() + rest.max(initial=0.0)) / 2
    return _EMPTY_SHARE


def _white_on_top(labels: list) -> bool:
    """Without a calibration, a board is taken as flipped when White's pieces stand mostly in
    the top half (an opening keeps each side's pieces on its own half)."""
    top = sum(1 for i, label in enumerate(labels[:32]) if isinstance(label, tuple) and label[1])
    bottom = sum(1 for i, label in enumerate(labels[32:]) if isinstance(label, tuple) and label[1])
    return top > bottom
