"""Drawing on ``H x W x 3`` uint8 frames with numpy alone: a small bitmap font and rectangles.

``rgb_array`` pictures must work on a plain install (no pygame, no Pillow), so the labels of
the pictures are drawn with this 5 x 7 pixel font (with one row below for descenders). Every
printable ASCII character has a glyph, and ``±``; any other character is drawn as ``?``.

    >>> import numpy as np
    >>> frame = np.full((20, 80, 3), 255, dtype=np.uint8)
    >>> draw_text(frame, "reward -1", 2, 2, (0, 0, 0))
    56
    >>> text_size("reward -1")
    (53, 8)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

#: A frame: ``H x W x 3`` uint8.
Frame: TypeAlias = "npt.NDArray[np.uint8]"
#: A lit-or-not mask, ``H x W``.
Mask: TypeAlias = "np.ndarray[tuple[int, int], np.dtype[np.bool_]]"
#: An RGB colour (each channel 0..255).
Colour: TypeAlias = tuple[int, int, int]

GLYPH_WIDTH = 5
GLYPH_HEIGHT = 8  # 7 rows and a row for the descenders of g, j, p, q, y
ADVANCE = GLYPH_WIDTH + 1  # one blank column between characters
LINE_HEIGHT = GLYPH_HEIGHT + 2

# Each glyph: its rows from the top, "#" lit, "." not; rows left out at the bottom are blank.
# fmt: off
_GLYPHS = {
    " ": "..... ..... ..... ..... ..... ..... .....", "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.", "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "####. #...# #...# #...# #...# #...# ####.", "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....", "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#", "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..", "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####", "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#", "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....", "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#", "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..", "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..", "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#", "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####", "a": "..... ..... .###. ....# .#### #...# .####",
    "b": "#.... #.... #.##. ##..# #...# #...# ####.", "c": "..... ..... .###. #.... #.... #...# .###.",
    "d": "....# ....# .##.# #..## #...# #...# .####", "e": "..... ..... .###. #...# ##### #.... .###.",
    "f": "..##. .#..# .#... ###.. .#... .#... .#...", "g": "..... ..... .#### #...# #...# .#### ....# .###.",
    "h": "#.... #.... #.##. ##..# #...# #...# #...#", "i": "..#.. ..... .##.. ..#.. ..#.. ..#.. .###.",
    "j": "...#. ..... ..##. ...#. ...#. ...#. #..#. .##..", "k": "#.... #.... #..#. #.#.. ##... #.#.. #..#.",
    "l": ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###.", "m": "..... ..... ##.#. #.#.# #.#.# #...# #...#",
    "n": "..... ..... #.##. ##..# #...# #...# #...#", "o": "..... ..... .###. #...# #...# #...# .###.",
    "p": "..... ..... ####. #...# #...# ####. #.... #....", "q": "..... ..... .#### #...# #...# .#### ....# ....#",
    "r": "..... ..... #.##. ##..# #.... #.... #....", "s": "..... ..... .###. #.... .###. ....# ####.",
    "t": ".#... .#... ###.. .#... .#... .#..# ..##.", "u": "..... ..... #...# #...# #...# #..## .##.#",
    "v": "..... ..... #...# #...# #...# .#.#. ..#..", "w": "..... ..... #...# #...# #.#.# #.#.# .#.#.",
    "x": "..... ..... #...# .#.#. ..#.. .#.#. #...#", "y": "..... ..... #...# #...# #...# .#### ....# .###.",
    "z": "..... ..... ##### ...#. ..#.. .#... #####", "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.", "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "##### ...#. ..#.. ...#. ....# #...# .###.", "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.", "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...", "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..", ".": "..... ..... ..... ..... ..... .##.. .##..",
    ",": "..... ..... ..... ..... .##.. ..#.. .#...", ":": "..... .##.. .##.. ..... .##.. .##.. .....",
    ";": "..... .##.. .##.. ..... .##.. ..#.. .#...", "-": "..... ..... ..... ##### ..... ..... .....",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....", "=": "..... ..... ##### ..... ##### ..... .....",
    "_": "..... ..... ..... ..... ..... ..... #####", "/": "..... ....# ...#. ..#.. .#... #.... .....",
    "\\": "..... #.... .#... ..#.. ...#. ....# .....", "%": "##... ##..# ...#. ..#.. .#... #..## ...##",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.", ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    "[": ".###. .#... .#... .#... .#... .#... .###.", "]": ".###. ...#. ...#. ...#. ...#. ...#. .###.",
    "{": "...#. ..#.. ..#.. .#... ..#.. ..#.. ...#.", "}": ".#... ..#.. ..#.. ...#. ..#.. ..#.. .#...",
    "<": "...#. ..#.. .#... #.... .#... ..#.. ...#.", ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#...",
    "!": "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..", "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
    "'": "..#.. ..#.. .#... ..... ..... ..... .....", '"': ".#.#. .#.#. ..... ..... ..... ..... .....",
    "`": ".#... ..#.. ..... ..... ..... ..... .....", "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.",
    "*": "..... ..#.. #.#.# .###. #.#.# ..#.. .....", "|": "..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "^": "..#.. .#.#. #...# ..... ..... ..... .....", "~": "..... ..... .#... #.#.# ...#. ..... .....",
    "&": ".##.. #..#. #.#.. .#... #.#.# #..#. .##.#", "@": ".###. #...# ....# .##.# #.#.# #.#.# .###.",
    "$": "..#.. .#### #.#.. .###. ..#.# ####. ..#..", "±": "..#.. ..#.. ##### ..#.. ..#.. ..... #####",
}
# fmt: on


def _bitmap(rows: str) -> Mask:
    lines = [[c == "#" for c in line] for line in rows.split()]
    return np.array(lines + [[False] * GLYPH_WIDTH] * (GLYPH_HEIGHT - len(lines)), dtype=bool)


GLYPHS: dict[str, Mask] = {char: _bitmap(rows) for char, rows in _GLYPHS.items()}


def text_mask(text: str, scale: int = 1) -> Mask:
    """The lit pixels of ``text`` in one line: a bool array of ``text_size(text, scale)`` (H x W)."""
    if not text:
        return np.zeros((GLYPH_HEIGHT * scale, 0), dtype=bool)
    mask = np.zeros((GLYPH_HEIGHT, len(text) * ADVANCE - 1), dtype=bool)
    for i, char in enumerate(text):
        mask[:, i * ADVANCE : i * ADVANCE + GLYPH_WIDTH] = GLYPHS.get(char, GLYPHS["?"])
    if scale > 1:
        mask = mask.repeat(scale, axis=0).repeat(scale, axis=1)
    return mask


def text_size(text: str, scale: int = 1) -> tuple[int, int]:
    """``(width, height)`` in pixels of ``text`` drawn in one line."""
    return max(0, len(text) * ADVANCE - 1) * scale, GLYPH_HEIGHT * scale


def draw_text(frame: Frame, text: str, x: int, y: int, colour: Colour, scale: int = 1) -> int:
    """Draw ``text`` with its top-left corner at ``(x, y)``, clipped to the frame; returns the x after it."""
    mask = text_mask(text, scale)
    height, width = frame.shape[:2]
    top, left = max(0, y), max(0, x)
    bottom, right = min(height, y + mask.shape[0]), min(width, x + mask.shape[1])
    if top < bottom and left < right:
        frame[top:bottom, left:right][mask[top - y : bottom - y, left - x : right - x]] = colour
    return x + mask.shape[1] + scale


def draw_text_right(frame: Frame, text: str, right: int, y: int, colour: Colour, scale: int = 1) -> int:
    """Draw ``text`` so that it ends at column ``right`` (exclusive); returns its left x."""
    x = right - text_size(text, scale)[0]
    draw_text(frame, text, x, y, colour, scale)
    return x


def draw_text_centred(frame: Frame, text: str, centre: int, y: int, colour: Colour, scale: int = 1) -> int:
    """Draw ``text`` centred on column ``centre``; returns its left x."""
    x = centre - text_size(text, scale)[0] // 2
    draw_text(frame, text, x, y, colour, scale)
    return x
