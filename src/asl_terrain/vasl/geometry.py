"""VASL's board pixels laid on :mod:`asl_terrain.grid`'s hex grid.

A VASL board is grid.py's grid drawn at VASL's hex size: a point ``(X, Y)`` of grid.py's scaled integer
frame (a hex centre is ``(3·col, 2·row + col % 2)``) is the pixel ``(18.75·X, 32.25·(Y − 1))``, which
puts column A's centres on x = 0 and A1's on y = 32.25. Hex names, neighbours and ranges are grid.py's;
this module adds only what needs pixels: centres, vertices and the hex under a pixel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from asl_terrain.errors import BadName, UnknownLocation
from asl_terrain.grid import Hex as GridHex
from asl_terrain.grid import column_index, column_label

Hex = tuple[int, int]  # (column index, row number as printed)
HexsideKey = tuple[Hex, Hex]  # the two hexes, ordered by column then row

HEX_WIDTH = 56.25  # horizontal distance between the centres of neighbouring columns, in pixels
HEX_HEIGHT = 64.5  # distance between the centres of two hexes of one column, in pixels
HEXSIDE_NAMES = ("N", "NE", "SE", "S", "SW", "NW")

_HALF_HEIGHT = HEX_HEIGHT / 2  # 32.25: centre to the N or S hexside
_SIDE = HEX_WIDTH * 2 / 3  # 37.5: centre to the E or W vertex (VASL's hexes are not quite regular)
_GRID_X = HEX_WIDTH / 3  # pixels per unit of grid.py's scaled x (18.75)
_GRID_Y = _HALF_HEIGHT  # pixels per unit of grid.py's scaled y (32.25)


def grid_pixel(point: tuple[float, float]) -> tuple[float, float]:
    """The VASL pixel position of a point of grid.py's scaled frame."""
    return point[0] * _GRID_X, (point[1] - 1) * _GRID_Y


# --------------------------------------------------------------------------------------------------
# hex names as VASL writes them (no map prefix), on grid.py's column labels


def _column_name(col: int) -> str:
    if col < 0:
        raise BadName(f"column index {col} is negative")
    return column_label(col)


_column_index = column_index
_HEX_NAME = re.compile(r"([A-Z]+)(\d+)")


def _parse_hex(name: str) -> Hex:
    m = _HEX_NAME.fullmatch(name.strip())
    if not m:
        raise BadName(f"{name!r} is not a hex name (column letters, then the row number, e.g. A1, BB10)")
    return column_index(m.group(1)), int(m.group(2))


def _hex_name(hex_: Hex) -> str:
    return f"{_column_name(hex_[0])}{hex_[1]}"


def _hexside_name(key: HexsideKey) -> str:
    return f"{_hex_name(key[0])}-{_hex_name(key[1])}"


def _hexside_key(a: Hex, b: Hex) -> HexsideKey:
    return (a, b) if a <= b else (b, a)


# --------------------------------------------------------------------------------------------------
# one board's hexes in its pixel raster


@dataclass(frozen=True)
class BoardGeometry:
    """The hex grid of one VASL board in its pixel raster (VASL's "Normal" geomorphic layout).

    Hex centres: ``x = 56.25·col``, ``y = 64.5·row − 32.25·(1 − col % 2)`` (grid.py's centre dot, see
    :func:`grid_pixel`); as whole pixels (the centre VASL uses) they are truncated and pulled in by one
    pixel on the right and bottom edges.
    """

    width: int  # hexes per row (columns)
    height: int  # hexes in an even-index column
    grid_width: int  # pixels
    grid_height: int  # pixels

    def rows(self, col: int) -> range:
        """The row numbers of column ``col``: 1..height for A, C, E, ...; 0..height for B, D, F, ..."""
        return range(1, self.height + 1) if col % 2 == 0 else range(self.height + 1)

    @cached_property
    def hexes(self) -> tuple[Hex, ...]:
        """Every hex of the board, column by column (the order of :meth:`hex_index_raster`)."""
        return tuple((c, r) for c in range(self.width) for r in self.rows(c))

    @cached_property
    def _index(self) -> dict[Hex, int]:
        return {h: i for i, h in enumerate(self.hexes)}

    def contains(self, col: int, row: int) -> bool:
        return 0 <= col < self.width and row in self.rows(col)

    def parse(self, name: str) -> Hex:
        """``"O2"`` → ``(14, 2)``; :class:`UnknownLocation` if the hex is not on this board."""
        col, row = _parse_hex(name)
        if not self.contains(col, row):
            raise UnknownLocation(f"hex {name} is not on this board (columns A-{_column_name(self.width - 1)})")
        return col, row

    @staticmethod
    def name(hex_: Hex) -> str:
        return _hex_name(hex_)

    def centre_exact(self, col: int, row: int) -> tuple[float, float]:
        return grid_pixel(GridHex(col, row).centre())

    def centre(self, col: int, row: int) -> tuple[int, int]:
        """The centre pixel VASL uses for the hex (truncated, pulled in on the right and bottom edges)."""
        x, y = self.centre_exact(col, row)
        return min(max(int(x), 0), self.grid_width - 1), min(max(int(y), 0), self.grid_height - 1)

    def vertex(self, col: int, row: int, k: int) -> tuple[float, float]:
        """Vertex ``k`` of the hex: 0 = left end of the N hexside, then clockwise (grid.py's vertex k − 1,
        the corner between hexsides k − 1 and k)."""
        return grid_pixel(GridHex(col, row).vertex((k - 1) % 6).point())

    def hexside_segment(self, col: int, row: int, side: int) -> tuple[tuple[float, float], tuple[float, float]]:
        """The two end vertices of hexside ``side`` (0 = N ... 5 = NW), clockwise."""
        return self.vertex(col, row, side), self.vertex(col, row, side + 1)

    def neighbour(self, col: int, row: int, side: int) -> Hex | None:
        """The hex across hexside ``side`` (0 = N ... 5 = NW), or None off the board."""
        n = GridHex(col, row).neighbour(side)
        return (n.col, n.row) if self.contains(n.col, n.row) else None

    def hex_distance(self, a: Hex, b: Hex) -> int:
        """The ASL range between two hexes (grid.py's)."""
        return GridHex(*a).distance(GridHex(*b))

    def _hex_indices(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Index into :attr:`hexes` of the hex holding each point (vectorised; points must be on the grid)."""
        xs = np.asarray(xs, dtype=np.float64)
        ys = np.asarray(ys, dtype=np.float64)
        best = np.full(xs.shape, np.inf)
        found = np.full(xs.shape, -1, dtype=np.int32)
        base_col = np.rint(xs / HEX_WIDTH).astype(np.int64)
        index = self._index
        lookup = np.full((self.width, self.height + 2), -1, dtype=np.int32)
        for (c, r), i in index.items():
            lookup[c, r] = i
        for dc in (-1, 0, 1):
            col = base_col + dc
            parity = col % 2
            base_row = np.rint((ys + _HALF_HEIGHT * (1 - parity)) / HEX_HEIGHT).astype(np.int64)
            for dr in (-1, 0, 1):
                row = base_row + dr
                ok = (col >= 0) & (col < self.width) & (row >= 0) & (row <= self.height + 1)
                idx = np.where(ok, lookup[np.clip(col, 0, self.width - 1), np.clip(row, 0, self.height + 1)], -1)
                ok &= idx >= 0
                cx = HEX_WIDTH * col
                cy = HEX_HEIGHT * row - _HALF_HEIGHT * (1 - parity)
                ax, ay = np.abs(xs - cx), np.abs(ys - cy)
                norm = np.maximum(ay / _HALF_HEIGHT, ax / _SIDE + ay / HEX_HEIGHT)  # ≤ 1 inside the hex
                better = ok & (norm < best)
                best = np.where(better, norm, best)
                found = np.where(better, idx, found)
        return found

    def hex_at(self, x: float, y: float) -> Hex:
        """The hex holding pixel ``(x, y)``; :class:`UnknownLocation` off the pixel grid."""
        if not (0 <= x < self.grid_width and 0 <= y < self.grid_height):
            raise UnknownLocation(f"pixel ({x}, {y}) is off the board ({self.grid_width} x {self.grid_height})")
        i = int(self._hex_indices(np.array([x]), np.array([y]))[0])
        return self.hexes[i]

    def hex_index_raster(self) -> np.ndarray:
        """For every pixel, the index into :attr:`hexes` of its hex: int16, shaped (grid_width, grid_height)."""
        xs, ys = np.meshgrid(
            np.arange(self.grid_width, dtype=np.float64), np.arange(self.grid_height, dtype=np.float64), indexing="ij"
        )
        return self._hex_indices(xs, ys).astype(np.int16)
