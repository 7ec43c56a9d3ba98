"""Hex names, the hex grid and exact thread tracing.

This module decides the geometry every engine builds on:

* how a hex, hexside or vertex is named and parsed (``StN17``, ``N17-O17``, ``O17-O18-P17``; the map
  prefix and board numbers of ASL hex names, rules digest 1.1);
* which hexes are neighbours, in which direction, and the ASL range between two hexes (1.2);
* which hexes, hexsides and vertices a thread between two centre dots or vertices passes through,
  runs along or touches (A6.1, A4.34, rules digest 1.3 and 3.9), decided exactly.

Coordinates
-----------
Columns count from A = 0 (A..Z = 0..25, AA = 26, BB = 27, ... ZZ = 51, AAA = 52, ...) and rows count
downward. ASL's layout is Red Blob's *odd-q*: flat-topped hexes, with the columns of odd index (B, D, F,
...) half a hex lower than those of even index. Exact geometry uses *scaled integer points*: with hex size 1
(centre to vertex), the true point (x, y), y growing downward, maps to (X, Y) = (2x, 2y/sqrt(3)). The
centre dot of hex (col, row) is ``(3*col, 2*row + (col & 1))`` and its vertices are the centre plus
(+1, -1), (+2, 0), (+1, +1), (-1, +1), (-2, 0), (-1, -1) (vertex 0 to vertex 5). The map is linear, so
"on the thread", "left of it" and "right of it" are exact integer cross products at any range, and the
parameter t along a thread is the same in both coordinate systems.

Directions are 0 = N, 1 = NE, 2 = SE, 3 = S, 4 = SW, 5 = NW; hexside k of a hex faces direction k, and
vertex k is the corner between hexsides k and k + 1 (vertex 0 is the N/NE corner).

The grid is infinite: any ints are a hex, including negative columns and rows, which simply have no
ASL name. Only hexes on a map (``model``) exist for the rules.

This module uses the standard library only and imports nothing from the package except
``asl_terrain.errors``. It never imports an engine.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
import math
import re
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from typing import Any, TypeVar

from .errors import BadName, NotAdjacent
from .limits import MAX_HEX_NAME

__all__ = [
    "Hex",
    "Hexside",
    "Naming",
    "Point",
    "Contact",
    "Span",
    "Trace",
    "Vertex",
    "column_index",
    "column_label",
    "contacts",
    "Grid",
    "hex_corners",
    "locate",
    "nudged_line",
    "parse_hex_name",
    "parse_hexside_name",
    "parse_vertex_name",
    "to_pixel",
    "trace",
    "trace_hexes",
]

Point = tuple[int, int]
"""A scaled integer point (X, Y): ``(2x, 2y/sqrt(3))`` of the true point, see the module docstring."""

# Centre offsets of the six neighbours, in direction order N, NE, SE, S, SW, NW.
_NEIGHBOUR_STEP: tuple[Point, ...] = ((0, -2), (3, -1), (3, 1), (0, 2), (-3, 1), (-3, -1))
# Offsets of the six vertices from the centre, vertex k between hexsides k and k + 1.
_VERTEX_STEP: tuple[Point, ...] = ((1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1))
# (col, row) steps to the neighbours, for columns of even and of odd index (odd-q).
_OFFSET_STEP: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]] = (
    ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1)),
    ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)),
)
_DIRECTION_OF: tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]] = (
    {step: k for k, step in enumerate(_OFFSET_STEP[0])},
    {step: k for k, step in enumerate(_OFFSET_STEP[1])},
)
# For hexside k: its far vertex (vertex k), its near vertex (vertex k - 1) and its vector, near to far.
_HEXSIDE_GEOMETRY: tuple[tuple[int, int, int, int, int, int], ...] = tuple(
    (vx, vy, sx, sy, vx - sx, vy - sy) for (sx, sy), (vx, vy) in zip(_VERTEX_STEP[-1:] + _VERTEX_STEP[:-1], _VERTEX_STEP)
)

_COLUMN_RE = re.compile(r"([A-Z])\1*", re.ASCII)
_HEX_RE = re.compile(r"(?P<prefix>[A-Z][a-z]+|[0-9]+)?(?P<col>([A-Z])\3*)(?P<row>[0-9]+)", re.ASCII)
_HEX_FORM = (
    "expected an optional map prefix (a capital and lower-case letters such as 'St', or a board number "
    "such as '12'), a column (A..Z, AA..ZZ, AAA...) and a row number (0 or more), e.g. 'N17', 'StMM5', "
    "'1Y10'"
)


# --------------------------------------------------------------------------------------------- names


def column_index(label: str) -> int:
    """Index of a column label: A..Z are 0..25, AA is 26, BB 27, ... ZZ 51, AAA 52.

    Parameters
    ----------
    label : str
        One capital letter, repeated: ``"N"``, ``"MM"``, ``"AAA"``.

    Returns
    -------
    int
        The column index, counting A as 0.

    Raises
    ------
    BadName
        If the label is empty, mixes letters (``"AB"``) or is not upper case.

    Examples
    --------
    >>> column_index("A"), column_index("Z"), column_index("AA"), column_index("MM"), column_index("AAA")
    (0, 25, 26, 38, 52)
    """
    if not _COLUMN_RE.fullmatch(label):
        raise BadName(
            f"bad column label {label!r}: expected one capital letter, repeated (A..Z, AA, BB, ... ZZ, AAA, ...)"
        )
    return (len(label) - 1) * 26 + ord(label[0]) - ord("A")


def column_label(index: int) -> str:
    """Label of column ``index``; the inverse of :func:`column_index`.

    Raises
    ------
    ValueError
        If ``index`` is negative (such a column has no ASL name).

    Examples
    --------
    >>> column_label(0), column_label(25), column_label(26), column_label(51), column_label(52)
    ('A', 'Z', 'AA', 'ZZ', 'AAA')
    """
    if index < 0:
        raise ValueError(f"column index {index} is negative: it has no ASL label")
    repeat, letter = divmod(index, 26)
    return chr(ord("A") + letter) * (repeat + 1)


def parse_hex_name(text: str) -> tuple[str, Hex]:
    """Split an ASL hex name into its map prefix and the hex.

    Parameters
    ----------
    text : str
        ``[prefix]COLUMN ROW``: the prefix is empty, a capital followed by lower-case letters (a KGP map:
        ``St``, ``Lg``, ``Ch``) or digits (a geomorphic board number); the row is a non-negative integer
        (row 0 exists on geomorphic boards).

    Returns
    -------
    tuple of (str, Hex)
        The prefix (``""`` if none) and the hex.

    Raises
    ------
    BadName
        If the text is not of that form; the message names the text and the expected form.

    Examples
    --------
    >>> parse_hex_name("StN17")
    ('St', Hex(col=13, row=17))
    >>> parse_hex_name("12M4")
    ('12', Hex(col=12, row=4))
    >>> parse_hex_name("B0")
    ('', Hex(col=1, row=0))
    """
    if isinstance(text, str) and len(text) > MAX_HEX_NAME:
        raise BadName(f"bad hex name {text[:20]!r}... ({len(text)} characters): a hex name has at most "
                      f"{MAX_HEX_NAME}; {_HEX_FORM}")
    m = _HEX_RE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise BadName(f"bad hex name {text!r}: {_HEX_FORM}")
    col = m.group("col")
    return m.group("prefix") or "", Hex((len(col) - 1) * 26 + ord(col[0]) - 65, int(m.group("row")))


def _parse_parts(text: str, count: int, what: str, form: str) -> tuple[str, list[Hex]]:
    parts = text.split("-") if isinstance(text, str) else []
    if len(parts) != count:
        raise BadName(f"bad {what} name {text!r}: expected {form}")
    prefixes: set[str] = set()
    hexes: list[Hex] = []
    for part in parts:
        try:
            prefix, h = parse_hex_name(part)
        except BadName as exc:
            raise BadName(f"bad {what} name {text!r}: {exc}") from None
        if prefix:
            prefixes.add(prefix)
        hexes.append(h)
    if len(prefixes) > 1:
        raise BadName(f"bad {what} name {text!r}: its hexes carry different map prefixes {sorted(prefixes)}")
    return (prefixes.pop() if prefixes else ""), hexes


def parse_hexside_name(text: str) -> tuple[str, Hexside]:
    """Split a hexside name (``StN17-O17``, either order) into its map prefix and the hexside.

    Any hex may carry the prefix; two different prefixes are a :class:`BadName`.

    Raises
    ------
    BadName
        If the text is not two hex names joined by ``-``.
    NotAdjacent
        If the two hexes are not adjacent.

    Examples
    --------
    >>> parse_hexside_name("StO17-N17")
    ('St', Hexside(a=Hex(col=13, row=17), b=Hex(col=14, row=17)))
    """
    prefix, (a, b) = _parse_parts(text, 2, "hexside", "two adjacent hexes joined by '-', e.g. 'N17-O17'")
    if not a.is_adjacent(b):
        raise NotAdjacent(f"hexside {text!r}: {a} and {b} are not adjacent")
    return prefix, Hexside(a, b)


def parse_vertex_name(text: str) -> tuple[str, Vertex]:
    """Split a vertex name (``StO17-O18-P17``, any order) into its map prefix and the vertex.

    Raises
    ------
    BadName
        If the text is not three hex names joined by ``-``.
    NotAdjacent
        If the three hexes are not mutually adjacent.

    Examples
    --------
    >>> parse_vertex_name("P17-O17-O18")[1].name
    'O17-O18-P17'
    """
    prefix, (a, b, c) = _parse_parts(
        text, 3, "vertex", "three mutually adjacent hexes joined by '-', e.g. 'O17-O18-P17'"
    )
    return prefix, _checked_vertex(a, b, c, text)


# ----------------------------------------------------------------------------------------------- Hex


@dataclass(frozen=True, slots=True, order=True)
class Hex:
    """One hex of the (infinite) grid, by column index (A = 0) and row.

    Ordered by (col, row), the canonical order of a hexside's or vertex's hexes.

    Examples
    --------
    >>> h = Hex.parse("N17")
    >>> h, str(h), h.neighbours()[1].name, h.distance(Hex.parse("K14"))
    (Hex(col=13, row=17), 'N17', 'O17', 5)
    """

    col: int
    row: int

    # -- names

    @classmethod
    def parse(cls, text: str) -> Hex:
        """The hex named ``text`` (a map prefix is accepted and dropped); see :func:`parse_hex_name`."""
        return parse_hex_name(text)[1]

    @property
    def name(self) -> str:
        """The ASL name without prefix, e.g. ``"N17"``.

        Raises
        ------
        ValueError
            For a hex with a negative column or row: it is off every map and has no ASL name.
        """
        if self.row < 0:
            raise ValueError(f"hex (col={self.col}, row={self.row}) has a negative row: it has no ASL name")
        return column_label(self.col) + str(self.row)

    def __str__(self) -> str:
        if self.col < 0 or self.row < 0:
            return f"Hex(col={self.col}, row={self.row})"
        return column_label(self.col) + str(self.row)

    # -- coordinates

    def cube(self) -> tuple[int, int, int]:
        """Red Blob cube coordinates (q, r, s) of this hex, q + r + s == 0.

        Examples
        --------
        >>> Hex.parse("C3").cube()
        (2, 2, -4)
        """
        q = self.col
        r = self.row - ((q - (q & 1)) >> 1)
        return q, r, -q - r

    @classmethod
    def from_cube(cls, q: int, r: int, s: int | None = None) -> Hex:
        """The hex at cube coordinates (q, r, s); ``s`` defaults to ``-q - r``.

        Raises
        ------
        ValueError
            If q + r + s != 0.
        """
        if s is not None and q + r + s != 0:
            raise ValueError(f"cube coordinates ({q}, {r}, {s}) do not sum to 0")
        return cls(q, r + ((q - (q & 1)) >> 1))

    @classmethod
    def at_centre(cls, point: tuple[float, float]) -> Hex:
        """The hex whose centre dot is the scaled point (the inverse of :meth:`centre`).

        Examples
        --------
        >>> Hex.at_centre((39, 35)).name
        'N17'
        """
        return _hex_at(int(point[0]), int(point[1]))

    def centre(self) -> Point:
        """The centre dot as a scaled integer point ``(3*col, 2*row + (col & 1))``.

        Examples
        --------
        >>> Hex.parse("N17").centre()
        (39, 35)
        """
        return (3 * self.col, 2 * self.row + (self.col & 1))

    # -- neighbours and range

    def neighbour(self, direction: int) -> Hex:
        """The adjacent hex in ``direction`` (0 = N, 1 = NE, 2 = SE, 3 = S, 4 = SW, 5 = NW; taken mod 6).

        Examples
        --------
        >>> [Hex.parse("N17").neighbour(k).name for k in range(6)]
        ['N16', 'O17', 'O18', 'N18', 'M18', 'M17']
        """
        dc, dr = _OFFSET_STEP[self.col & 1][direction % 6]
        return Hex(self.col + dc, self.row + dr)

    def neighbours(self) -> tuple[Hex, ...]:
        """The six adjacent hexes in direction order N, NE, SE, S, SW, NW."""
        c, r = self.col, self.row
        return tuple(Hex(c + dc, r + dr) for dc, dr in _OFFSET_STEP[c & 1])

    def direction_to(self, other: Hex) -> int:
        """The direction (0 = N ... 5 = NW) in which ``other`` lies next to this hex.

        Raises
        ------
        NotAdjacent
            If ``other`` is not adjacent to this hex.

        Examples
        --------
        >>> Hex.parse("K13").direction_to(Hex.parse("L12"))
        1
        """
        k = _DIRECTION_OF[self.col & 1].get((other.col - self.col, other.row - self.row))
        if k is None:
            raise NotAdjacent(f"{self} and {other} are not adjacent")
        return k

    def is_adjacent(self, other: Hex) -> bool:
        """True if ``other`` shares a hexside with this hex (a hex is not adjacent to itself)."""
        return (other.col - self.col, other.row - self.row) in _DIRECTION_OF[self.col & 1]

    def distance(self, other: Hex) -> int:
        """The ASL range to ``other``: hexes counted, the target's but not the firer's.

        Examples
        --------
        >>> Hex.parse("I14").distance(Hex.parse("K14")), Hex.parse("H13").distance(Hex.parse("K14"))
        (2, 3)
        """
        q1, r1, s1 = self.cube()
        q2, r2, s2 = other.cube()
        return max(abs(q1 - q2), abs(r1 - r2), abs(s1 - s2))

    # -- parts

    def hexside(self, direction: int) -> Hexside:
        """The hexside facing ``direction`` (taken mod 6).

        Examples
        --------
        >>> Hex.parse("N17").hexside(1).name
        'N17-O17'
        """
        k = direction % 6
        n = self.neighbour(k)
        return _new_hexside(self, n) if k in (1, 2, 3) else _new_hexside(n, self)

    def hexsides(self) -> tuple[Hexside, ...]:
        """The six hexsides in direction order."""
        return tuple(self.hexside(k) for k in range(6))

    def vertex(self, k: int) -> Vertex:
        """Vertex ``k`` (taken mod 6): the corner between hexsides k and k + 1.

        Examples
        --------
        >>> Hex.parse("N17").vertex(1).name
        'N17-O17-O18'
        """
        cx, cy = self.centre()
        dx, dy = _VERTEX_STEP[k % 6]
        return _vertex_at(cx + dx, cy + dy)

    def vertices(self) -> tuple[Vertex, ...]:
        """The six vertices, vertex 0 (N/NE corner) first, clockwise on the map."""
        return tuple(self.vertex(k) for k in range(6))


def _hex_at(x: int, y: int) -> Hex:
    """The hex whose centre is the scaled point (x, y) (which must be a centre)."""
    col = x // 3
    return Hex(col, (y - (col & 1)) >> 1)


# ------------------------------------------------------------------------------------------- Hexside


@dataclass(frozen=True, slots=True, order=True)
class Hexside:
    """The hexside between two adjacent hexes, stored in canonical (col, row) order.

    ``Hexside(a, b) == Hexside(b, a)``: the constructor sorts its hexes and checks that they are
    adjacent.

    Raises
    ------
    NotAdjacent
        If the two hexes are not adjacent.

    Examples
    --------
    >>> Hexside.parse("O17-N17") == Hexside.of(Hex.parse("N17"), Hex.parse("O17"))
    True
    >>> Hexside.parse("StO17-N17").name
    'N17-O17'
    """

    a: Hex
    b: Hex

    def __post_init__(self) -> None:
        a, b = self.a, self.b
        if not a.is_adjacent(b):
            raise NotAdjacent(f"no hexside between {a} and {b}: they are not adjacent")
        if b < a:
            object.__setattr__(self, "a", b)
            object.__setattr__(self, "b", a)

    @classmethod
    def of(cls, a: Hex, b: Hex) -> Hexside:
        """The hexside between ``a`` and ``b`` (either order); raises :class:`NotAdjacent`."""
        return cls(a, b)

    @classmethod
    def parse(cls, text: str) -> Hexside:
        """The hexside named ``text`` (``"N17-O17"``, either order, prefixes dropped).

        Raises
        ------
        BadName
            If the text is not two hex names joined by ``-``.
        NotAdjacent
            If the hexes are not adjacent.
        """
        return parse_hexside_name(text)[1]

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``"N17-O17"``."""
        return f"{self.a.name}-{self.b.name}"

    def __str__(self) -> str:
        return f"{self.a}-{self.b}"

    @property
    def hexes(self) -> tuple[Hex, Hex]:
        """The two hexes, in canonical order."""
        return (self.a, self.b)

    def other(self, h: Hex) -> Hex:
        """The hex across this hexside from ``h``.

        Raises
        ------
        ValueError
            If ``h`` is not one of the two hexes.
        """
        if h == self.a:
            return self.b
        if h == self.b:
            return self.a
        raise ValueError(f"{h} is not a hex of hexside {self}")

    def endpoints(self) -> tuple[Point, Point]:
        """The two end vertices as scaled points, the smaller (X, Y) first.

        Examples
        --------
        >>> Hexside.parse("I13-I14").endpoints()
        ((23, 27), (25, 27))
        """
        k = self.a.direction_to(self.b)
        cx, cy = self.a.centre()
        v1, v2 = _VERTEX_STEP[k - 1], _VERTEX_STEP[k]
        p1, p2 = (cx + v1[0], cy + v1[1]), (cx + v2[0], cy + v2[1])
        return (p1, p2) if p1 <= p2 else (p2, p1)

    def vertices(self) -> tuple[Vertex, Vertex]:
        """The two end vertices, in the order of :meth:`endpoints`.

        Examples
        --------
        >>> [v.name for v in Hexside.parse("N17-O17").vertices()]
        ['N16-N17-O17', 'N17-O17-O18']
        """
        p1, p2 = self.endpoints()
        return (_vertex_at(*p1), _vertex_at(*p2))

    def midpoint_x2(self) -> Point:
        """Twice the hexside's midpoint (the sum of the two centre dots), exact in integers."""
        (ax, ay), (bx, by) = self.a.centre(), self.b.centre()
        return (ax + bx, ay + by)


def _new_hexside(a: Hex, b: Hex) -> Hexside:
    """A hexside from two hexes already known to be adjacent and in canonical order (no checks)."""
    hs = object.__new__(Hexside)
    object.__setattr__(hs, "a", a)
    object.__setattr__(hs, "b", b)
    return hs


# -------------------------------------------------------------------------------------------- Vertex


@dataclass(frozen=True, slots=True, order=True)
class Vertex:
    """The corner where three mutually adjacent hexes meet, stored in canonical (col, row) order.

    The constructor sorts its hexes and checks that they are mutually adjacent (raises
    :class:`NotAdjacent` otherwise).

    Examples
    --------
    >>> v = Vertex.parse("P17-O18-O17")
    >>> v.name, v.point()
    ('O17-O18-P17', (43, 35))
    """

    a: Hex
    b: Hex
    c: Hex

    def __post_init__(self) -> None:
        a, b, c = sorted((self.a, self.b, self.c))
        if not (a.is_adjacent(b) and a.is_adjacent(c) and b.is_adjacent(c)):
            raise NotAdjacent(f"no vertex joins {a}, {b} and {c}: they are not mutually adjacent")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "c", c)

    @classmethod
    def of(cls, a: Hex, b: Hex, c: Hex) -> Vertex:
        """The vertex of three mutually adjacent hexes (any order); raises :class:`NotAdjacent`."""
        return cls(a, b, c)

    @classmethod
    def parse(cls, text: str) -> Vertex:
        """The vertex named ``text`` (``"O17-O18-P17"``, any order, prefixes dropped).

        Raises
        ------
        BadName
            If the text is not three hex names joined by ``-``.
        NotAdjacent
            If the hexes are not mutually adjacent.
        """
        return parse_vertex_name(text)[1]

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``"O17-O18-P17"``."""
        return f"{self.a.name}-{self.b.name}-{self.c.name}"

    def __str__(self) -> str:
        return f"{self.a}-{self.b}-{self.c}"

    @property
    def hexes(self) -> tuple[Hex, Hex, Hex]:
        """The three hexes, in canonical order."""
        return (self.a, self.b, self.c)

    def point(self) -> Point:
        """The vertex as a scaled integer point (the centroid of the three centre dots)."""
        (ax, ay), (bx, by), (cx, cy) = self.a.centre(), self.b.centre(), self.c.centre()
        return ((ax + bx + cx) // 3, (ay + by + cy) // 3)

    def hexsides(self) -> tuple[Hexside, Hexside, Hexside]:
        """The three hexsides that meet here: (a, b), (a, c), (b, c)."""
        a, b, c = self.a, self.b, self.c
        return (_new_hexside(a, b), _new_hexside(a, c), _new_hexside(b, c))


def _new_vertex(a: Hex, b: Hex, c: Hex) -> Vertex:
    """A vertex from three hexes already known to meet there, in canonical order (no checks)."""
    v = object.__new__(Vertex)
    object.__setattr__(v, "a", a)
    object.__setattr__(v, "b", b)
    object.__setattr__(v, "c", c)
    return v


def _checked_vertex(a: Hex, b: Hex, c: Hex, text: str) -> Vertex:
    try:
        return Vertex(a, b, c)
    except NotAdjacent:
        raise NotAdjacent(f"vertex {text!r}: {a}, {b} and {c} are not mutually adjacent") from None


#: vertices made by :func:`_vertex_at`, by point: each vertex is made once and shared by its three hexes and
#: three hexsides (a search or a walk asks for them again and again; emptied when full)
_VERTICES_AT: dict[tuple[int, int], Vertex] = {}
_VERTICES_AT_LIMIT = 1 << 15  # a 3-board layout has about 2,000 vertices; a full table is about 10 MB


def _vertex_at(x: int, y: int) -> Vertex:
    """The vertex at scaled point (x, y), which must be a vertex (x + y even, x not a multiple of 3).

    A vertex with ``x % 3 == 2`` has one hex to its west and two to its east (NE, SE); one with
    ``x % 3 == 1`` has two to its west (NW, SW) and one to its east. Canonical order follows.
    """
    k = (x, y)
    got = _VERTICES_AT.get(k)
    if got is None:
        if x % 3 == 2:
            got = _new_vertex(_hex_at(x - 2, y), _hex_at(x + 1, y - 1), _hex_at(x + 1, y + 1))
        else:
            got = _new_vertex(_hex_at(x - 1, y - 1), _hex_at(x - 1, y + 1), _hex_at(x + 2, y))
        if len(_VERTICES_AT) >= _VERTICES_AT_LIMIT:
            _VERTICES_AT.clear()
        _VERTICES_AT[k] = got
    return got


def locate(p: Point) -> Hex | Vertex:
    """The hex whose centre dot is ``p``, or the vertex at ``p``.

    Raises
    ------
    ValueError
        If ``p`` is neither a centre dot nor a vertex (its X + Y is odd).

    Examples
    --------
    >>> locate((39, 35)), locate((43, 35)).name
    (Hex(col=13, row=17), 'O17-O18-P17')
    """
    x, y = p
    if (x + y) & 1:
        raise ValueError(f"point {p} is neither a centre dot nor a vertex (X + Y must be even)")
    if x % 3 == 0:
        return _hex_at(x, y)
    return _vertex_at(x, y)


# ------------------------------------------------------------------------------------------- naming


class Naming:
    """How a map prints the names of its hexes, hexsides and vertices: with the map's prefix once at the
    start (``1Y10``, ``HrN17-O17``). A layout of several boards names each hex by its board instead
    (``asl_terrain.model.BoardNaming``: ``2K5``, ``2K5-2K6``); every name it prints parses back.

    >>> n = Naming("Hr")
    >>> n.hex(Hex.parse("N17")), n.hexside(Hexside.parse("N17-O17")), str(n)
    ('HrN17', 'HrN17-O17', 'Hr')
    """

    __slots__ = ("prefix",)

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix

    def hex(self, h: Hex) -> str:
        return self.prefix + h.name

    def hexside(self, hs: Hexside) -> str:
        return self.prefix + hs.name

    def vertex(self, v: Vertex) -> str:
        return self.prefix + v.name

    def after_at(self, x: Hexside | Vertex) -> str:
        """The hexside or vertex after a Location's ``@`` (``N17@N17-O17``): the prefix is said once, at
        the start of the Location's name."""
        return x.name

    def __str__(self) -> str:
        return self.prefix

    def __repr__(self) -> str:
        return f"Naming({self.prefix!r})"


def example_vertex(hs: Hexside, on_map: Callable[[Hex], bool] | None = None) -> Vertex | None:
    """An end vertex of ``hs`` to name in a hint ("name it with the vertex form, e.g. ..."): one whose three
    hexes are all on the map if there is one, else one whose hexes all have names (on an edge hex, column A
    or row 0, a vertex may touch a hex of column -1 or row -1, which has none); None if neither."""
    named = [v for v in hs.vertices() if all(h.col >= 0 and h.row >= 0 for h in v.hexes)]
    if on_map is not None:
        inside = [v for v in named if all(on_map(h) for h in v.hexes)]
        if inside:
            return inside[0]
    return named[0] if named else None


def naming(p: str | Naming) -> Naming:
    """``p`` as a :class:`Naming` (a prefix string names with that prefix)."""
    return p if isinstance(p, Naming) else Naming(p)


# ------------------------------------------------------------------------------------------- drawing


def to_pixel(p: Point, size: float) -> tuple[float, float]:
    """The true (pixel) point of scaled point ``p`` for hexes of ``size`` (centre to vertex).

    Examples
    --------
    >>> to_pixel((3, 1), 2.0)
    (3.0, 1.7320508075688772)
    """
    return (p[0] * size / 2, p[1] * size * math.sqrt(3) / 2)


def hex_corners(h: Hex, size: float) -> tuple[tuple[float, float], ...]:
    """The six corners of ``h`` in pixels (vertex 0 to vertex 5) for hexes of ``size``."""
    cx, cy = h.centre()
    return tuple(to_pixel((cx + dx, cy + dy), size) for dx, dy in _VERTEX_STEP)


# ------------------------------------------------------------------------------------------- tracing


@dataclass(frozen=True, slots=True)
class Span:
    """A hex whose interior a thread passes through, from parameter ``t_in`` to ``t_out`` (0 <= t <= 1)."""

    hex: Hex
    t_in: Fraction
    t_out: Fraction


@dataclass(frozen=True, slots=True)
class Trace:
    """What a straight thread between two scaled points passes through, decided exactly.

    A point of the thread is ``start + t * (end - start)`` with ``t`` a :class:`~fractions.Fraction`
    from 0 to 1.

    Attributes
    ----------
    start, end : Point
        The thread's ends (centre dots or vertices).
    spans : tuple of Span
        Every hex whose *interior* the thread passes through, in order; consecutive spans either meet
        at a crossed hexside or a vertex (same t), or are joined by hexsides run along.
        A hex the thread starts or ends in (a centre dot) has ``t_in == 0`` or ``t_out == 1``.
    crossed : tuple of (Fraction, Hexside)
        Hexsides crossed at a point strictly between their end vertices, ordered by t.
    along : tuple of (Fraction, Fraction, Hexside)
        Hexsides the thread runs along lengthwise, from t0 to t1 (t0 < t1), in order. Neither flanking
        hex is in ``spans`` there: the thread lies on their common boundary.
    vertices : tuple of (Fraction, Vertex)
        Vertices the thread passes through, in order, including ``start`` and ``end`` when they are
        vertices. A thread through a vertex touches all three of its hexes (rules digest 3.9), even
        the one whose interior it does not enter.
    """

    start: Point
    end: Point
    spans: tuple[Span, ...]
    crossed: tuple[tuple[Fraction, Hexside], ...]
    along: tuple[tuple[Fraction, Fraction, Hexside], ...]
    vertices: tuple[tuple[Fraction, Vertex], ...]

    @property
    def hexes(self) -> tuple[Hex, ...]:
        """The span hexes, in order."""
        return tuple(s.hex for s in self.spans)

    @property
    def touched(self) -> tuple[Hex, ...]:
        """Every hex the thread touches, in order of first contact, no duplicates.

        These are the span hexes, both hexes flanking each hexside run along, and the three hexes of
        each vertex passed. At equal t a vertex comes first, then a hexside run along, then a span;
        the hexes of one vertex or hexside come in canonical order.
        """
        events: list[tuple[Fraction, int, tuple[Hex, ...]]] = []
        events.extend((t, 0, v.hexes) for t, v in self.vertices)
        events.extend((t0, 1, hs.hexes) for t0, _, hs in self.along)
        events.extend((s.t_in, 2, (s.hex,)) for s in self.spans)
        events.sort(key=lambda e: (e[0], e[1]))
        seen: dict[Hex, None] = {}
        for _, _, hexes in events:
            for h in hexes:
                seen.setdefault(h, None)
        return tuple(seen)


H = TypeVar("H")
T = TypeVar("T")


def _vertex_rule(dx: int, dy: int, west_type: bool) -> tuple[bool, int, int, int, int]:
    """Where a thread of direction (dx, dy) goes from a vertex.

    A vertex with ``x % 3 == 2`` (``west_type``) has the hexes (W, NE, SE) with centres V + (-2, 0),
    V + (1, -1), V + (1, 1); one with ``x % 3 == 1`` has (NW, SW, E) with centres V + (-1, -1),
    V + (-1, 1), V + (2, 0). Both triples are in canonical order (see :func:`_vertex_at`).

    Returns ``(along, sx, sy, i, j)``: if ``along``, the thread runs along the hexside from V to
    V + (sx, sy), flanked by hexes i and j of the triple (canonical order); otherwise it enters hex i of
    the triple, whose centre is V + (sx, sy) (j unused).
    """
    if west_type:
        if dx > 0 and dy == 0:
            return True, 2, 0, 1, 2
        if dx < 0 and dy == dx:
            return True, -1, -1, 0, 1
        if dx < 0 and dy == -dx:
            return True, -1, 1, 0, 2
        if dx < 0 and abs(dy) < -dx:
            return False, -2, 0, 0, 0
        if dy < 0:
            return False, 1, -1, 1, 0
        return False, 1, 1, 2, 0
    if dx < 0 and dy == 0:
        return True, -2, 0, 0, 1
    if dx > 0 and dy == -dx:
        return True, 1, -1, 0, 2
    if dx > 0 and dy == dx:
        return True, 1, 1, 1, 2
    if dx > 0 and abs(dy) < dx:
        return False, 2, 0, 2, 0
    if dy < 0:
        return False, -1, -1, 0, 0
    return False, -1, 1, 1, 0


def _front_chain(dx: int, dy: int) -> list[tuple[int, int, int, int, int, int]]:
    """The hexsides a thread of direction (dx, dy) can leave a hex by, in order around the hex.

    Returns, for each such hexside k (those with cross(d, hexside vector) > 0, two or three of them,
    contiguous), ``(K_end, k, start_x, start_y, ex, ey)``: ``K_end`` is cross(d, offset of vertex k)
    (the side test of the hexside's far vertex, up to the per-hex constant), ``(start_x, start_y)`` the
    offset of vertex k - 1 and ``(ex, ey)`` the hexside vector. Along the chain the side test increases
    strictly, so a thread through the hex leaves it where the test changes sign.
    """
    # cross(d, hexside vector) for hexsides 0..5, whose vectors are (2,0), (1,1), (-1,1) and their negatives
    forward = (dy < 0, dx > dy, dx + dy > 0, dy > 0, dy > dx, dx + dy < 0)
    k = next(k for k in range(6) if forward[k] and not forward[k - 1])
    chain = []
    while forward[k % 6]:
        vx, vy, sx, sy, ex, ey = _HEXSIDE_GEOMETRY[k % 6]
        chain.append((dx * vy - dy * vx, k % 6, sx, sy, ex, ey))
        k += 1
    return chain


class Contact(IntEnum):
    """What a thread meets, one contact at a time, in order along it (:func:`contacts`)."""

    SPAN = 0    # (SPAN, t0, t1, h): a hex interior passed through from t0 to t1
    ALONG = 1   # (ALONG, t0, t1, a, b): the hexside between a and b run along lengthwise
    TOUCH = 2   # (TOUCH, t, t, h): a hex only touched at a vertex passed through
    CROSS = 3   # (CROSS, t, t, a, b): the hexside between a and b crossed between its end vertices
    VERTEX = 4  # (VERTEX, t, t, a, b, c, d[, e, f]): the hexsides at a vertex passed through, not run
    #             along, by the side of the thread: the lone one on its side (a-b) first
    PASS = 5    # (PASS, t, t, a, b): the thread goes from hex a to hex b (or b to a) through a vertex
    AT = 6      # (AT, t, t, a, b, c): the thread is at the vertex of hexes a, b, c, its ends included
    #             (only with ``at=True``, instead of TOUCH, PASS and VERTEX)


# The walk yields the kinds' int values (a tuple of ints and floats is left alone by the garbage
# collector; one holding an Enum member is traversed at every collection).
_C_SPAN, _C_ALONG, _C_TOUCH, _C_CROSS, _C_VERTEX, _C_PASS, _C_AT = (int(k) for k in Contact)

# The hexsides meeting at a vertex, as pairs of its hexes (indices into the canonical triple) and the
# offset from the vertex to the hexside's other end: for a vertex with x % 3 == 2 (hexes W, NE, SE) and
# for one with x % 3 == 1 (hexes NW, SW, E), in the order of Vertex.hexsides.
_VERTEX_SIDES = (
    ((0, 1, -1, -1), (0, 2, -1, 1), (1, 2, 2, 0)),
    ((0, 1, -2, 0), (0, 2, 1, -1), (1, 2, 1, 1)),
)


def _sides_by_side(dx: int, dy: int, west_type: bool) -> tuple[int, ...]:
    """For a thread of direction (dx, dy) through a vertex of the given type: the trio indices of the
    hexsides there that it does not run along, the lone one on its side of the thread first."""
    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    for i, j, ex, ey in _VERTEX_SIDES[0 if west_type else 1]:
        side = dx * ey - dy * ex
        if side > 0:
            left.append((i, j))
        elif side < 0:
            right.append((i, j))
    lone, others = (left, right) if len(left) == 1 else (right, left)
    assert len(lone) == 1 and 1 <= len(others) <= 2, (dx, dy, west_type)
    return tuple(x for pair in (*lone, *others) for x in pair)


def contacts(p: Point, q: Point, hex_at: Callable[[int, int], H], t_of: Callable[[int, int], T],
             at: bool = False) -> Iterator[tuple[Any, ...]]:
    """The thread from ``p`` to ``q``, contact by contact (:class:`Contact`), in order along it: by t, and at
    one t what ends or is crossed there before what starts there (a hex entered, a hexside run along).

    This is the one exact walk of the grid (A6.1): :func:`trace` collects it into a :class:`Trace`, and the
    LOS engine reads it as it walks a thread (stopping at the first block) or compiles it into a thread
    shape. Hexes are given as ``hex_at(x, y)`` of their centre dots (a :class:`Hex`, or an engine's index)
    and every t as ``t_of(numerator, denominator)`` (a Fraction, or a float). The hexes of a hexside come in
    canonical order (as :class:`Hexside` sorts them) when ``hex_at`` keeps (col, row) order; its own end
    vertices only as ``AT`` with ``at``. Exact integer edge tests from hex to hex (or vertex to vertex along
    hexsides): a thread exactly along a hexside or through a vertex is recognised at any range."""
    (px, py), (qx, qy) = p, q
    if (px + py) & 1 or (qx + qy) & 1:
        raise ValueError(f"trace({p}, {q}): both ends must be centre dots or vertices (X + Y even)")
    at_vertex = px % 3 != 0
    if p == q:
        if not at_vertex:
            yield (_C_SPAN, t_of(0, 1), t_of(1, 1), hex_at(px, py))
        elif at:
            yield (_C_AT, t_of(0, 1), t_of(0, 1), *_trio(px, py, hex_at))
        return
    dx, dy = qx - px, qy - py
    dd = dx * dx + dy * dy
    chain, rule_west, rule_east, sides_west, sides_east = _direction(dx, dy)
    limit = 4 * (abs(dx) + abs(dy)) + 8  # far more steps than any thread takes; a guard against bugs

    # State: in hex h (its centre (cx, cy)) or at the vertex (cx, cy), since t; prev: the hex (or a hexside's
    # two) the thread leaves a vertex from.
    cx, cy, t = px, py, t_of(0, 1)
    h = None if at_vertex else hex_at(px, py)
    prev: tuple[Any, ...] = ()
    for _ in range(limit):
        if at_vertex:
            west = cx % 3 == 2
            trio = _trio(cx, cy, hex_at)
            is_along, sx, sy, i, j = rule_west if west else rule_east
            if at:
                yield (_C_AT, t, t, *trio)
            if cx == qx and cy == qy:
                return
            nxt = (trio[i], trio[j]) if is_along else (trio[i],)
            if prev and not at:  # a vertex passed (not the one the thread starts at)
                yield from _vertex_passed(t, trio, prev, nxt, sides_west if west else sides_east)
            cx, cy = cx + sx, cy + sy
            if is_along:
                t1 = t_of((cx - px) * dx + (cy - py) * dy, dd)
                yield (_C_ALONG, t, t1, trio[i], trio[j])
                prev = nxt
                t = t1
            else:
                h = trio[i]
                at_vertex = False
            continue
        if cx == qx and cy == qy:
            yield (_C_SPAN, t, t_of(1, 1), h)
            return
        rx, ry = cx - px, cy - py
        base = dx * ry - dy * rx  # side test of the centre; a vertex's is base + its K
        for k_end, k, sx, sy, ex, ey in chain:
            side = base + k_end
            if side < 0:
                continue
            if side == 0:  # leaves through vertex k
                cx, cy = cx + sx + ex, cy + sy + ey
                t1 = t_of((cx - px) * dx + (cy - py) * dy, dd)
                yield (_C_SPAN, t, t1, h)
                prev = (h,)
                t, at_vertex = t1, True
            else:  # crosses hexside k between its end vertices
                t1 = t_of((rx + sx) * ey - (ry + sy) * ex, dx * ey - dy * ex)
                yield (_C_SPAN, t, t1, h)
                nx, ny = _NEIGHBOUR_STEP[k]
                cx, cy = cx + nx, cy + ny
                n = hex_at(cx, cy)
                yield (_C_CROSS, t1, t1, h, n) if k in (1, 2, 3) else (_C_CROSS, t1, t1, n, h)
                h, t = n, t1
            break
    raise RuntimeError(f"trace({p}, {q}) did not reach its end: a bug in grid.contacts")  # pragma: no cover


@functools.lru_cache(maxsize=1 << 14)
def _direction(dx: int, dy: int) -> tuple[tuple[tuple[int, int, int, int, int, int], ...], tuple[bool, int, int, int, int],
                                          tuple[bool, int, int, int, int], tuple[int, ...], tuple[int, ...]]:
    """What a thread of direction (dx, dy) does in every hex and at every vertex it meets: the hexsides it can
    leave a hex by (:func:`_front_chain`), its step from each type of vertex (:func:`_vertex_rule`) and the
    hexsides there by side of the thread (:func:`_sides_by_side`). The same for every thread of that
    direction, so worked out once (bounded)."""
    return (tuple(_front_chain(dx, dy)), _vertex_rule(dx, dy, True), _vertex_rule(dx, dy, False),
            _sides_by_side(dx, dy, True), _sides_by_side(dx, dy, False))


def _vertex_passed(t: Any, trio: tuple[Any, Any, Any], prev: tuple[Any, ...], nxt: tuple[Any, ...],
                   sides: tuple[int, ...]) -> Iterator[tuple[Any, ...]]:
    """The contacts of a vertex the thread passes through at t (not one of its ends), arriving from the hex
    (or hexside's hexes) ``prev`` and leaving into ``nxt``: the hexes there it only touches, the passes from
    hex to hex, and the hexsides meeting there by side of the thread (``sides``: trio indices)."""
    for x in trio:
        if x not in prev and x not in nxt:
            yield (_C_TOUCH, t, t, x)
    for a, b in _passes(prev, nxt):
        yield (_C_PASS, t, t, a, b) if (a < b) else (_C_PASS, t, t, b, a)
    yield (_C_VERTEX, t, t, *(trio[k] for k in sides))


def _trio(x: int, y: int, hex_at: Callable[[int, int], H]) -> tuple[H, H, H]:
    """The three hexes at vertex (x, y), in canonical order (see :func:`_vertex_at`)."""
    if x % 3 == 2:
        return (hex_at(x - 2, y), hex_at(x + 1, y - 1), hex_at(x + 1, y + 1))
    return (hex_at(x - 1, y - 1), hex_at(x - 1, y + 1), hex_at(x + 2, y))


def _passes(prev: tuple[H, ...], nxt: tuple[H, ...]) -> tuple[tuple[H, H], ...]:
    """The passes from hex to hex at a vertex: from the hex (or the hexside's two hexes) the thread arrives
    from to the hex (or two) it leaves into; none from a hexside run along to another."""
    if len(prev) == 1:
        return tuple((prev[0], n) for n in nxt)
    if len(nxt) == 1:
        return tuple((a, nxt[0]) for a in prev)
    return ()


@functools.lru_cache(maxsize=1 << 16)
def trace(p: Point, q: Point) -> Trace:
    """Trace the straight thread from ``p`` to ``q`` exactly: hexes entered, hexsides crossed or run
    along, vertices passed.

    ``p`` and ``q`` are scaled points, each a centre dot (a LOS between hexes, A6.1) or a vertex (a
    Bypassing unit's end of a LOS, A4.34). Every test is an integer cross product and every t is a
    :class:`~fractions.Fraction`, so a thread exactly along a hexside or exactly through a vertex is
    recognised at any range; the grid is infinite, so any ints will do.

    Semantics (see :class:`Trace`): ``spans`` are the hexes whose interior the thread passes through;
    ``crossed`` the hexsides it crosses strictly between their end vertices; ``along`` the hexsides it
    runs along lengthwise (e.g. H13 to L13 runs along I13-I14 and K13-K14 and through J13); ``vertices``
    every vertex on the thread, its ends included. A thread through a vertex touches all three hexes
    of that vertex (rules digest 3.9) and a thread along a hexside touches both flanking hexes:
    :attr:`Trace.touched` lists them all. The rules decide what a touch means (inherent terrain in
    either flanking hex, obstacles only in both); this function only reports the geometry.

    The walk is :func:`contacts`' (from hex to hex, or vertex to vertex along hexsides, by exact edge
    tests), so its cost grows with the range only. Results are cached (``functools.lru_cache``); ``trace.__wrapped__``
    is the uncached function.

    Parameters
    ----------
    p, q : Point
        Start and end: centre dots or vertices.

    Returns
    -------
    Trace

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is neither a centre dot nor a vertex.

    Examples
    --------
    >>> t = trace(Hex.parse("H13").centre(), Hex.parse("L13").centre())
    >>> [h.name for h in t.hexes]
    ['H13', 'J13', 'L13']
    >>> [(str(t0), str(t1), hs.name) for t0, t1, hs in t.along]
    [('1/6', '1/3', 'I13-I14'), ('2/3', '5/6', 'K13-K14')]
    >>> [h.name for h in t.touched]
    ['H13', 'I13', 'I14', 'J13', 'K13', 'K14', 'L13']
    """
    spans: list[Span] = []
    crossed: list[tuple[Fraction, Hexside]] = []
    along: list[tuple[Fraction, Fraction, Hexside]] = []
    vertices: list[tuple[Fraction, Vertex]] = []
    for c in contacts(p, q, _hex_at, Fraction, at=True):
        k = c[0]
        if k == _C_SPAN:
            spans.append(Span(c[3], c[1], c[2]))
        elif k == _C_CROSS:
            crossed.append((c[1], _new_hexside(c[3], c[4])))
        elif k == _C_ALONG:
            along.append((c[1], c[2], _new_hexside(c[3], c[4])))
        else:
            vertices.append((c[1], _new_vertex(c[3], c[4], c[5])))
    return Trace(p, q, tuple(spans), tuple(crossed), tuple(along), tuple(vertices))


def trace_hexes(a: Hex, b: Hex) -> Trace:
    """The thread between the centre dots of ``a`` and ``b``: ``trace(a.centre(), b.centre())``.

    Examples
    --------
    >>> [h.name for h in trace_hexes(Hex.parse("N17"), Hex.parse("N19")).hexes]
    ['N17', 'N18', 'N19']
    """
    return trace(a.centre(), b.centre())


# ----------------------------------------------------------------------------------------- test oracle


def _cube_round(q: float, r: float, s: float) -> tuple[int, int, int]:
    rq, rr, rs = math.floor(q + 0.5), math.floor(r + 0.5), math.floor(s + 0.5)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    else:
        rs = -rq - rr
    return rq, rr, rs


def nudged_line(a: Hex, b: Hex, sign: int) -> list[Hex]:
    """Red Blob's ``hex_linedraw`` from ``a`` to ``b`` with both ends nudged by ``sign`` * epsilon.

    A test oracle only (floats): the nudge (+1e-6, +1e-6, -2e-6) in cube space, times ``sign`` (+1 or
    -1), breaks every tie one way. Where the two nudged walks differ, the thread runs along a hexside
    or through a vertex, which :func:`trace` reports exactly.

    Examples
    --------
    >>> [h.name for h in nudged_line(Hex.parse("H13"), Hex.parse("L13"), +1)]
    ['H13', 'I14', 'J13', 'K14', 'L13']
    >>> [h.name for h in nudged_line(Hex.parse("H13"), Hex.parse("L13"), -1)]
    ['H13', 'I13', 'J13', 'K13', 'L13']
    """
    n = a.distance(b)
    eps = 1e-6 * sign
    aq, ar, as_ = a.cube()
    bq, br, bs = b.cube()
    a_nudged = (aq + eps, ar + eps, as_ - 2 * eps)
    b_nudged = (bq + eps, br + eps, bs - 2 * eps)
    step = 1.0 / max(n, 1)
    line = []
    for i in range(n + 1):
        t = step * i
        q, r, s = (x + (y - x) * t for x, y in zip(a_nudged, b_nudged))
        line.append(Hex.from_cube(*_cube_round(q, r, s)))
    return line


class Grid:
    """The extent of a map: which hexes exist."""

    __slots__ = ("col_first", "col_last", "row_first", "row_last")

    def __init__(self, col_first: int, col_last: int, row_first: int, row_last: int) -> None:
        self.col_first, self.col_last, self.row_first, self.row_last = col_first, col_last, row_first, row_last

    def __contains__(self, h: Hex) -> bool:
        return self.col_first <= h.col <= self.col_last and self.row_first <= h.row <= self.row_last

    def describe(self) -> str:
        return (f"columns {column_label(self.col_first)}..{column_label(self.col_last)}, "
                f"rows {self.row_first}..{self.row_last}")
