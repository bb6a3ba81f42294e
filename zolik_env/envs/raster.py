"""A tiny numpy raster for ``render_mode="rgb_array"``: filled boxes, a 3x5 bitmap font,
card faces and backs. No imaging library: an env image is a ``uint8 (H, W, 3)`` array
drawn here and scaled up by whole pixels.

Imports only numpy and stdlib.
"""

from __future__ import annotations

import numpy as np

Color = tuple[int, int, int]

FELT: Color = (22, 96, 52)
WHITE: Color = (250, 250, 245)
BLACK: Color = (20, 20, 20)
RED: Color = (200, 30, 40)
PURPLE: Color = (120, 50, 160)
JOKER_FACE: Color = (228, 210, 245)
BACK: Color = (40, 70, 170)
GREY: Color = (150, 150, 150)
YELLOW: Color = (250, 215, 60)
LIGHT: Color = (225, 235, 225)

CARD_W, CARD_H = 11, 17  # a card in base pixels (the image is scaled up afterwards)
LINE = 7  # height of one line of text, with its gap

# 3x5 glyphs, rows top to bottom; "#" is ink
_FONT_ROWS = {
    "0": "### #.# #.# #.# ###", "1": ".#. ##. .#. .#. ###", "2": "### ..# ### #.. ###",
    "3": "### ..# ### ..# ###", "4": "#.# #.# ### ..# ..#", "5": "### #.. ### ..# ###",
    "6": "### #.. ### #.# ###", "7": "### ..# ..# .#. .#.", "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ###", "A": ".#. #.# ### #.# #.#", "B": "##. #.# ##. #.# ##.",
    "C": ".## #.. #.. #.. .##", "D": "##. #.# #.# #.# ##.", "E": "### #.. ##. #.. ###",
    "F": "### #.. ##. #.. #..", "G": ".## #.. #.# #.# .##", "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###", "J": "..# ..# ..# #.# .#.", "K": "#.# #.# ##. #.# #.#",
    "L": "#.. #.. #.. #.. ###", "M": "#.# ### ### #.# #.#", "N": "##. #.# #.# #.# #.#",
    "O": ".#. #.# #.# #.# .#.", "P": "##. #.# ##. #.. #..", "Q": ".#. #.# #.# ##. .##",
    "R": "##. #.# ##. #.# #.#", "S": ".## #.. .#. ..# ##.", "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###", "V": "#.# #.# #.# #.# .#.", "W": "#.# #.# ### ### #.#",
    "X": "#.# #.# .#. #.# #.#", "Y": "#.# #.# .#. .#. .#.", "Z": "### ..# .#. #.. ###",
    "-": "... ... ### ... ...", "/": "..# ..# .#. #.. #..", "+": "... .#. ### .#. ...",
    ":": "... .#. ... .#. ...", ".": "... ... ... ... .#.", " ": "... ... ... ... ...",
    "(": ".#. #.. #.. #.. .#.", ")": ".#. ..# ..# ..# .#.",
}
# 5x5 suit symbols in S H D C order, then the joker's star
_SYMBOL_ROWS = (
    "..#.. .###. ##### ..#.. .###.", ".#.#. ##### ##### .###. ..#..",
    "..#.. .###. ##### .###. ..#..", ".###. .###. ##### ..#.. .###.",
    "#.#.# .###. ##### .###. #.#.#",
)


def _bitmap(rows: str) -> np.ndarray:
    return np.array([[c == "#" for c in row] for row in rows.split()], bool)


FONT = {ch: _bitmap(rows) for ch, rows in _FONT_ROWS.items()}
SYMBOLS = tuple(_bitmap(rows) for rows in _SYMBOL_ROWS)
JOKER_SYMBOL = 4


def canvas(height: int, width: int, color: Color = FELT) -> np.ndarray:
    """A ``uint8 (height, width, 3)`` image filled with ``color``."""
    image = np.empty((height, width, 3), np.uint8)
    image[:] = color
    return image


def box(image: np.ndarray, y: int, x: int, h: int, w: int, color: Color,
        border: Color | None = None) -> None:
    """Fill a rectangle (clipped to the image), with a one-pixel ``border`` if given."""
    image[max(y, 0):y + h, max(x, 0):x + w] = color
    if border is not None:
        image[max(y, 0):y + h, max(x, 0):x + w][[0, -1]] = border
        image[max(y, 0):y + h, max(x, 0):x + w][:, [0, -1]] = border


def stamp(image: np.ndarray, y: int, x: int, bitmap: np.ndarray, color: Color) -> None:
    """Ink the true pixels of ``bitmap`` at (y, x), clipped to the image."""
    h = min(bitmap.shape[0], image.shape[0] - y)
    w = min(bitmap.shape[1], image.shape[1] - x)
    if h > 0 and w > 0:
        image[y:y + h, x:x + w][bitmap[:h, :w]] = color


def text(image: np.ndarray, y: int, x: int, words: str, color: Color = WHITE) -> int:
    """Write ``words`` (upper-cased; unknown characters as blanks); returns the x after it."""
    for ch in words.upper():
        stamp(image, y, x, FONT.get(ch, FONT[" "]), color)
        x += 4
    return x


def card(image: np.ndarray, y: int, x: int, rank: str, suit: int, joker: bool = False) -> None:
    """A face-up card: ``rank`` text over the symbol of ``suit`` (0..3 = S H D C).

    ``joker`` draws a joker: with a rank and suit, one standing for that card on the table
    (a lilac face); with ``suit < 0``, a joker in hand (the star, ``JK``).
    """
    box(image, y, x, CARD_H, CARD_W, JOKER_FACE if joker else WHITE, GREY)
    if suit < 0:
        text(image, y + 2, x + 2, "JK", PURPLE)
        stamp(image, y + 9, x + 3, SYMBOLS[JOKER_SYMBOL], PURPLE)
        return
    ink = RED if suit in (1, 2) else BLACK
    color = PURPLE if joker else ink
    if rank == "10":  # a one-pixel "1" keeps the rank clear of the next overlapping card
        stamp(image, y + 2, x + 2, np.ones((5, 1), bool), color)
        text(image, y + 2, x + 4, "0", color)
    else:
        text(image, y + 2, x + 2, rank, color)
    stamp(image, y + 9, x + 3, SYMBOLS[suit], ink)


def card_back(image: np.ndarray, y: int, x: int) -> None:
    """A face-down card."""
    box(image, y, x, CARD_H, CARD_W, BACK, WHITE)
    image[y + 2:y + CARD_H - 2:2, x + 2:x + CARD_W - 2:2] = LIGHT


def scale(image: np.ndarray, factor: int) -> np.ndarray:
    """``image`` with every pixel a ``factor`` x ``factor`` block."""
    out: np.ndarray = image.repeat(factor, axis=0).repeat(factor, axis=1)
    return out
