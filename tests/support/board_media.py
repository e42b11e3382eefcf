"""Chess videos made on the spot: a 2D board (python-chess SVG rendered by cairosvg) that follows
a schedule of positions, placed in a larger frame beside a webcam box, a caption bar and a moving
overlay, encoded by ffmpeg with an optional narration track.

A helper module for tests and benchmarks (not a test file); nothing generated is committed.
Themes and piece sets vary what a reader must cope with: board colours, last-move highlights,
arrows, a flipped board, a second piece set drawn from a font's chess glyphs (DejaVu Sans),
which python-chess's templates do not know, a third drawn in colours rather than greys
(python-chess's shapes in ivory and dark red, as xboard's cream or Freestaunton's red pieces are),
and text's chess symbols, White's in thin outline (faint on a small board).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import cairosvg
import chess
import chess.svg
import cv2
import numpy as np

THEMES = {
    "brown": {"square light": "#f0d9b5", "square dark": "#b58863",
              "square light lastmove": "#cdd26a", "square dark lastmove": "#aaa23a"},
    "green": {"square light": "#eeeed2", "square dark": "#769656",
              "square light lastmove": "#f6f669", "square dark lastmove": "#baca2b"},
    "blue": {"square light": "#dee3e6", "square dark": "#8ca2ad",
             "square light lastmove": "#c3d888", "square dark lastmove": "#92b166"},
    "purple": {"square light": "#e8e0f0", "square dark": "#8f7cb0",
               "square light lastmove": "#d8d890", "square dark lastmove": "#a89a58"},
    "cream": {"square light": "#f2e3b3", "square dark": "#b58863",  # light squares the tinted set's White
              "square light lastmove": "#cdd26a", "square dark lastmove": "#aaa23a"},
}
PIECE_SETS = ("cburnett", "glyph", "tinted", "outline")
_TINTS = {chess.WHITE: (("#ffffff", "#f2e3b3"), ("#fff", "#f2e3b3")),
          chess.BLACK: (("#000000", "#6b1d1d"), ("#000", "#6b1d1d"))}
_GLYPHS = {chess.KING: "\u265a", chess.QUEEN: "\u265b", chess.ROOK: "\u265c",
           chess.BISHOP: "\u265d", chess.KNIGHT: "\u265e", chess.PAWN: "\u265f"}
_OUTLINED = {chess.KING: "\u2654", chess.QUEEN: "\u2655", chess.ROOK: "\u2656",
             chess.BISHOP: "\u2657", chess.KNIGHT: "\u2658", chess.PAWN: "\u2659"}  # Unicode's "white" pieces


@dataclass
class Look:
    """How a board is drawn and where it sits in the frame."""

    theme: str = "brown"
    pieces: str = "cburnett"
    size: int = 360
    x: int = 40
    y: int = 40
    flipped: bool = False
    coordinates: bool = False
    frame: tuple[int, int] = (1280, 720)
    webcam: bool = True
    caption: bool = True
    moving_overlay: bool = True
    background: tuple[int, int, int] = (38, 36, 33)
    piece_scale: float = 1.0  # the tinted set's pieces drawn this much of their square's size, centred


def board_svg(board: chess.Board, look: Look, lastmove: chess.Move | None = None,
              arrows: list[tuple[int, int]] = ()) -> str:
    """The SVG of one position in a look (sets other than python-chess's own are drawn over its empty board)."""
    shown = board if look.pieces == "cburnett" else chess.Board(None)  # the others are drawn below
    svg = chess.svg.board(shown, size=look.size, flipped=look.flipped, coordinates=look.coordinates,
                          lastmove=lastmove, colors=THEMES[look.theme],
                          arrows=[chess.svg.Arrow(a, b) for a, b in arrows])
    if look.pieces == "tinted":
        cells = []
        for (x, y), piece in _placed(board, look):
            drawn = re.sub(r' id="[^"]*"', "", chess.svg.PIECES[piece.symbol()])
            for old, new in _TINTS[piece.color]:  # the fill only: a black piece's light details stay
                drawn = drawn.replace(f'fill="{old}"', f'fill="{new}"').replace(f"fill:{old};", f"fill:{new};")
            inset = 22.5 * (1 - look.piece_scale)
            cells.append(f'<g transform="translate({x + inset}, {y + inset}) scale({look.piece_scale})">{drawn}</g>')
        arrow = svg.find('class="arrow')
        at = svg.rfind("<", 0, arrow) if arrow >= 0 else svg.rfind("</svg>")
        svg = svg[:at] + "".join(cells) + svg[at:]  # under the arrows, as python-chess draws its own
    if look.pieces in ("glyph", "outline"):
        cells = []
        for (x, y), piece in _placed(board, look):
            if look.pieces == "outline":  # text's chess symbols: White's drawn in outline, no stroke
                glyph, fill, stroke = (_OUTLINED if piece.color else _GLYPHS)[piece.piece_type], "#000000", "none"
            else:
                glyph, fill, stroke = _GLYPHS[piece.piece_type], "#ffffff" if piece.color else "#000000", "#000000"
            cells.append(f'<text x="{x + 22.5}" y="{y + 38}" font-family="DejaVu Sans" font-size="40" '
                         f'text-anchor="middle" fill="{fill}" stroke="{stroke}" stroke-width="1.2">{glyph}</text>')
        svg = svg.replace("</svg>", "".join(cells) + "</svg>")
    return svg


def _placed(board: chess.Board, look: Look) -> list[tuple[tuple[float, float], chess.Piece]]:
    """Each piece with its square's top-left corner in python-chess's SVG units (45 a square)."""
    margin = 15 if look.coordinates else 0
    placed = []
    for square, piece in board.piece_map().items():
        col, row = chess.square_file(square), 7 - chess.square_rank(square)
        if look.flipped:
            col, row = 7 - col, 7 - row
        placed.append(((margin + col * 45, margin + row * 45), piece))
    return placed


def render_board(board: chess.Board, look: Look, lastmove=None, arrows=()) -> np.ndarray:
    png = cairosvg.svg2png(bytestring=board_svg(board, look, lastmove, arrows).encode(),
                           output_width=look.size, output_height=look.size)
    bgr = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if bgr.shape[2] == 4:  # transparent margin: flatten onto the frame colour
        alpha = bgr[:, :, 3:4].astype(np.float32) / 255
        bgr = (bgr[:, :, :3] * alpha + np.array(look.background[::-1]) * (1 - alpha)).astype(np.uint8)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def board_box(look: Look) -> tuple[int, int, int, int]:
    """The 8x8 squares' box in the frame (inside the coordinate margin)."""
    margin = round(look.size * 15 / 390) if look.coordinates else 0
    inner = look.size - 2 * margin
    return look.x + margin, look.y + margin, inner, inner


@dataclass
class Shown:
    """A position on screen from `time` on, with the move that led to it (highlighted)."""

    time: float
    board: chess.Board
    lastmove: chess.Move | None = None
    arrows: list[tuple[int, int]] = field(default_factory=list)
    half_drawn: bool = False
    """A frame caught while the board is being drawn: only its top half is there."""
    fade_from: chess.Board | None = None
    """A transition: this position blended half and half with `fade_from`'s picture."""


def compose(picture: np.ndarray | None, look: Look, t: float, caption: str = "") -> np.ndarray:
    w, h = look.frame
    frame = np.empty((h, w, 3), np.uint8)
    frame[:] = look.background
    if picture is not None:
        ph, pw = picture.shape[:2]
        frame[look.y:look.y + ph, look.x:look.x + pw] = picture
    if look.webcam:  # a presenter's box: a soft gradient and a face-like blob
        bx, by, bw, bh = w - w // 4 - 20, 20, w // 4, h // 4
        ramp = np.linspace(60, 160, bw, dtype=np.float32)[None, :, None] * np.array([1.0, 0.8, 0.7])
        frame[by:by + bh, bx:bx + bw] = ramp.astype(np.uint8)
        cv2.ellipse(frame, (bx + bw // 2, by + bh // 2 + int(4 * np.sin(t * 3))), (bw // 6, bh // 3), 0, 0, 360,
                    (205, 160, 130), -1)
    if look.caption and caption:
        cv2.rectangle(frame, (0, h - 60), (w, h), (0, 0, 0), -1)
        cv2.putText(frame, caption[:90], (20, h - 22), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    if look.moving_overlay:  # a logo sliding along the bottom-right corner
        ox = int(w - 200 + 60 * np.sin(t))
        cv2.rectangle(frame, (ox, h - 130), (ox + 90, h - 80), (200, 40, 40), -1)
        cv2.putText(frame, "LIVE", (ox + 10, h - 95), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    return frame


def board_video(schedule: list[Shown], look: Look, out: Path, seconds: float, fps: int = 10,
                audio: Path | None = None, captions: list[tuple[float, float, str]] = ()) -> Path:
    """Encode the schedule as an MP4 (H.264, yuv420p), muxed with `audio` when given."""
    out = Path(out)
    w, h = look.frame
    cmd = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
           "-s", f"{w}x{h}", "-r", str(fps), "-i", "-"]
    if audio is not None:
        cmd += ["-i", str(audio), "-c:a", "aac", "-b:a", "64k", "-shortest"]
    cmd += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(out)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    pictures: dict[int, np.ndarray] = {}
    for n in range(int(seconds * fps)):
        t = n / fps
        current = [i for i, s in enumerate(schedule) if s.time <= t + 1e-9]
        picture = None
        if current:
            i = current[-1]
            if i not in pictures:
                s = schedule[i]
                picture = render_board(s.board, look, s.lastmove, s.arrows)
                if s.half_drawn:
                    picture[picture.shape[0] // 2:] = look.background
                if s.fade_from is not None:
                    other = render_board(s.fade_from, look).astype(np.uint16)
                    picture = ((picture.astype(np.uint16) + other) // 2).astype(np.uint8)
                pictures[i] = picture
            picture = pictures[i]
        text = next((c for a, b, c in captions if a <= t <= b), "")
        try:
            proc.stdin.write(compose(picture, look, t, text).tobytes())
        except BrokenPipeError:
            break  # ffmpeg stopped: its error follows
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    if proc.wait() != 0:
        raise RuntimeError(f"ffmpeg failed: {proc.stderr.read().decode()[-2000:]}")
    return out


def line_schedule(sans: list[str], first: float = 1.0, every: float = 2.0, arrows: bool = True) -> list[Shown]:
    """The starting position at `first` seconds, then one move of the line every `every` seconds,
    the move highlighted and, on every other move, an arrow for the next one."""
    board = chess.Board()
    schedule = [Shown(0.0 if first <= 0 else first, board.copy())]
    moves = []
    for san in sans:
        moves.append(board.parse_san(san))
        board.push(moves[-1])
    board = chess.Board()
    for n, move in enumerate(moves):
        board.push(move)
        nxt = moves[n + 1] if n + 1 < len(moves) else None
        arrow = [(nxt.from_square, nxt.to_square)] if arrows and nxt and n % 2 == 0 else []
        schedule.append(Shown(first + (n + 1) * every, board.copy(), move, arrow))
    return schedule
