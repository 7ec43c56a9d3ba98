"""Line of sight: whether one Location sees another, what hinders it, Blind Hexes, and viewsheds.

This module decides:

* the thread (A6.1) from centre dot to centre dot, or from the vertex of a unit in Bypass (A4.34), and
  what it meets: obstacles (woods, pine woods, buildings by type, in-season orchards), Half-Level
  obstacles (walls, hedges, roadblocks, rubble; B9.2, B29.2, P5.141), the ground of hills (B10.2) and
  Hindrances (brush, grain in season, orchards at one level, graveyards, marsh, vehicles, wrecks, SMOKE;
  A6.7); roads are neither (B3.2);
* walls at a vertex the thread passes through block only from both sides of it (A6.1, B9.2 EX), a wall
  run along lengthwise by B9.2's rule for the vertex opposite the viewing/target hex;
* orchards out of season (B14.2): a Hindrance to LOS at and one level above their base, and from higher
  only next to the lower end (judgment.orchard_out_of_season_los);
* the A6.2 elevation test and the Blind Hexes of A6.4-.43 (with the crest-line variant of B10.23);
* the Up-Slope ¾ level of P2.3 (vertex-inclusive, ignored along the slope hexside), Height Advantage
  (B10.31), the entrenched restriction (B9.21, kept by P2.3);
* depressions: Locations IN a stream (A6.3, B20.2), stream-woods/brush/orchard rising from the Crest
  level (P4.1), the Stream Culvert that sees only ADJACENT stream and culvert Locations (P4.2);
* the Narrow Street roadblock segment (P5.141), the steeple (P5.2), the single-hex two-story house (P5.3);
* borderline threads (A6.1's dispute): the answer is compared with the answers for the thread shifted
  a small distance (``param.borderline_tolerance``) to either side.

How it is built
---------------
Heights are counted in quarter levels (ints) inside; :class:`LosRuling` gives Fractions. Everything a
thread can meet is read once per (map, chart, conditions) into flat per-hex tables (:class:`_Tables`).
A thread's geometry depends only on its direction and on where its start lies within a two-column
period of the grid, so the exact trace (:func:`asl_terrain.grid.trace`) is compiled once per
(start class, direction) into a *template* of contacts (hex interiors, hexsides run along, hexes only
touched at a vertex, hexsides crossed, and at each vertex passed the hexsides meeting there, by the side of
the thread they lie on) that any thread of that shape reuses. What the thread meets in a
hex is asked of one small interface (``begin`` / ``interior`` / ``boundary``): on hand-made maps
:class:`WholeHexDepiction` (an obstacle fills its hex); on maps imported from VASL boards (a
``[depiction]`` naming board archives) :class:`ArtworkDepiction`, which reads what is drawn where the
thread passes from the boards' artwork (A6.1, as VASL does). One rules engine serves both.

Imports: chart, errors, grid, model, rulings; vasl (numpy) only for maps with an artwork depiction.
Never render, ask or cli.
"""

from __future__ import annotations

import math
import os
import struct
from operator import truediv
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from enum import IntEnum
from functools import lru_cache
from itertools import islice
from types import MappingProxyType, ModuleType
from typing import Any, Literal, NamedTuple, Protocol, TypeAlias, TypeVar

from . import grid
from .chart import Chart, default_chart
from .errors import ChartError, MapError, QueryError
from .grid import Hex, Hexside, Naming, Point, Trace, example_vertex, naming
from .model import Conditions, HexTerrain, Location, Map
from .rulings import Item, distinct, fmt, num

try:  # the compiled walk (_walk.c), an optional extra: without it _walk walks every thread
    from asl_terrain import _walk as _compiled_walk
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled_walk = None  # type: ignore[assignment]
#: the compiled walk, or None: the pure Python walk only ($ASL_TERRAIN_PURE set: the benchmarks compare them)
_kernel: ModuleType | None = None if os.environ.get("ASL_TERRAIN_PURE") else _compiled_walk

__all__ = [
    "BlockedBy",
    "Depiction",
    "Hindrance",
    "LosRuling",
    "ViewshedRuling",
    "ArtworkDepiction",
    "WholeHexDepiction",
    "hexsides_entered",
    "is_up_slope",
    "location_elevation",
    "location_point",
    "los",
    "los_verdicts",
    "obstacle_height",
    "viewshed",
    "viewshed_targets",
]

_Q = 4
"""Heights inside this module are ints in quarter levels (a slope is +3, a wall +2)."""
_NONE = -(10**9)
_NO_HEXES: frozenset[int] = frozenset()


class Contact(IntEnum):
    """What a compiled thread meets, one contact at a time, in order along it."""

    SPAN = 0    # a hex interior passed through, from t0 to t1
    ALONG = 1   # a hexside run along lengthwise
    TOUCH = 2   # a hex only touched at a vertex
    CROSS = 3   # a hexside crossed between its end vertices
    VERTEX = 4  # the hexsides meeting at a vertex passed through, by the side of the thread each lies on
    PASS = 5    # the pass from one hex to another through a vertex (read only for the stream depiction)


class ObstacleKind(IntEnum):
    CREST = 0    # the ground of a hill, its top at the hex's level (B10.2)
    FULL = 1     # woods, buildings, ...: an obstacle standing on the ground (A6.2)
    HALF = 2     # walls, hedges, rubble, ...: a Half-Level obstacle (B9.2)
    ORCHARD = 3  # an orchard in season: an obstacle to LOS from higher, none at its own level (B14.2)
    DRAWN_WALL = 4  # a wall, hedge or bocage as drawn on a board: its hexside's wall (wall_as_drawn, B9.1)


class HindranceKind(IntEnum):
    OTHER = 0          # any other Hindrance (A6.7)
    ORCHARD = 1        # an orchard in season: a Hindrance to same-level LOS only (B14.2)
    ORCHARD_OUT = 2    # an orchard out of season: also LOS to/from higher elevations (out_of_season_orchard_hinders)
    BRIDGE = 3         # a non-pontoon bridge: Hinders a LOS drawn through it (bridge_hinders, B6.2)


# The hot loops compare with these module-level names (an Enum class attribute is a slow look-up). A
# compiled thread's contacts hold the kinds' int values, not the members: a tuple of ints and floats is left
# alone by the garbage collector, one holding an Enum member is traversed at every collection (measured:
# +2.5 % instructions on bd01's pairs with thousands of templates kept). ``Contact(c[0])`` names one.
_S, _A, _T, _X, _V, _P = (Contact.SPAN.value, Contact.ALONG.value, Contact.TOUCH.value, Contact.CROSS.value,
                          Contact.VERTEX.value, Contact.PASS.value)
_CREST, _FULL, _HALF, _ORCHARD = ObstacleKind.CREST, ObstacleKind.FULL, ObstacleKind.HALF, ObstacleKind.ORCHARD
_DRAWN_WALL = ObstacleKind.DRAWN_WALL
_H_OTHER, _H_ORCHARD, _H_ORCHARD_OUT, _H_BRIDGE = (HindranceKind.OTHER, HindranceKind.ORCHARD,
                                                  HindranceKind.ORCHARD_OUT, HindranceKind.BRIDGE)
_ORCHARD_OUT_READINGS = ("same-level", "adjacent-once", "each")


def _quarters(x: Any, where: str) -> int:
    f = Fraction(x)
    q = f * _Q
    if q.denominator != 1:
        raise ChartError(f"{where}: {x} is not a whole number of quarter levels")
    return int(q)


def _lv(q: int) -> Fraction:
    return Fraction(q, _Q)


@lru_cache(maxsize=256)
def _levels(q: int) -> str:
    """Quarter levels as a ruling writes them (2½): a batch's pairs ask for the same few again and again."""
    return fmt(_lv(q))


# ============================================================================================ ruling values


@dataclass(frozen=True, slots=True)
class BlockedBy:
    """What blocks a LOS, where, and the rule: a hex, a hexside (wall, hedge, roadblock), or both.

    For a Blind Hex it is the obstacle or crest that casts it; for a Hindrance total of six, the hex
    where the total reached six. ``get(key)`` reads it like its JSON object.
    """

    terrain: str
    rule: str
    hex: Hex | None = None
    hexside: Hexside | None = None
    t: float = 0.0

    def to_json(self, prefix: str | Naming = "") -> dict[str, Any]:
        n = naming(prefix)
        out: dict[str, Any] = {}
        if self.hex is not None:
            out["hex"] = n.hex(self.hex)
        if self.hexside is not None:
            out["hexside"] = n.hexside(self.hexside)
        out["terrain"] = self.terrain
        out["rule"] = self.rule
        return out

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_json().get(key, default)

    def where(self, prefix: str | Naming = "") -> str:
        n = naming(prefix)
        if self.hexside is not None:
            return n.hexside(self.hexside)
        return n.hex(self.hex) if self.hex is not None else "?"


@dataclass(frozen=True, slots=True)
class Hindrance:
    """One Hindrance on the LOS: the hex, what it is, its DRM and the rule."""

    hex: Hex
    what: str
    drm: int
    rule: str

    def to_json(self, prefix: str | Naming = "") -> dict[str, Any]:
        return {"hex": naming(prefix).hex(self.hex), "what": self.what, "drm": self.drm, "rule": self.rule}

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_json().get(key, default)


@dataclass(frozen=True, slots=True)
class LosRuling:
    """The answer to "can ``a`` see ``b``?" with everything that decided it.

    ``clear`` is True when a LOS exists, hindered or not. ``hindrances`` are those met before any block
    and ``items`` add up to ``hindrance_drm``. ``up_slope`` is (from, to): whether each end counts ¾
    level higher on this LOS (P2.3). ``elevations`` are the ends' elevations for this LOS (with the
    Up-Slope ¾). ``trace`` is the exact grid thread (computed on demand).
    """

    a: Location
    b: Location
    clear: bool
    blocked_by: BlockedBy | None
    hindrances: tuple[Hindrance, ...]
    hindrance_drm: int
    range: int
    height_advantage: Literal["from", "to"] | None
    up_slope: tuple[bool, bool]
    blind: bool
    borderline: bool
    items: tuple[Item, ...]
    elevations: tuple[Fraction, Fraction]
    start: Point
    end: Point
    roadblocks_crossed: tuple[Hexside, ...] = ()
    decided_by: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    prefix: str | Naming = ""  # the map's prefix, or its Naming (a layout's board names)

    @property
    def block_point(self) -> tuple[float, float] | None:
        """Where the thread is blocked, in the grid's scaled coordinates (for drawing), or None."""
        if self.blocked_by is None:
            return None
        t = float(self.blocked_by.t)
        (x0, y0), (x1, y1) = self.start, self.end
        return (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)

    @property
    def trace(self) -> Trace:
        """The exact thread (:func:`asl_terrain.grid.trace`) from ``start`` to ``end``."""
        return grid.trace(self.start, self.end)

    def rules(self) -> tuple[str, ...]:
        """The rules that decided this ruling, each once, in order."""
        return distinct([*self.decided_by, *(i.rule for i in self.items),
                         *((self.blocked_by.rule,) if self.blocked_by else ())])

    def explain(self) -> str:
        p = naming(self.prefix)
        ea, eb = self.elevations

        def end(loc: Location, e: Fraction, up: bool) -> str:
            return f"{loc.text(p)} (level {fmt(e)}{', Up-Slope' if up else ''})"

        s = [(f"LOS from {end(self.a, ea, self.up_slope[0])} to {end(self.b, eb, self.up_slope[1])}, "
              f"range {self.range}:")]
        if self.clear:
            s.append("clear" + (f", hindered +{self.hindrance_drm}" if self.hindrance_drm else ", no Hindrance")
                     + " (A6.1).")
        else:
            bb = self.blocked_by
            assert bb is not None
            if self.blind and bb.terrain.endswith(": Blind Hex"):
                # the Blind Hex is the lower end's hex; the hex named in blocked_by is the obstacle casting it
                low = self.a if ea < eb else self.b
                s.append(f"blocked: {p.hex(low.hex)} is a Blind Hex behind the {bb.terrain[:-len(': Blind Hex')]} "
                         f"at {bb.where(p)} ({bb.rule}).")
            else:
                s.append(f"blocked by {bb.terrain} at {bb.where(p)} ({bb.rule}).")
        for h in self.hindrances:
            s.append(f"{h.what} in {p.hex(h.hex)}: +{h.drm} ({h.rule}).")
        if self.up_slope[0] or self.up_slope[1]:
            s.append("An Up-Slope end counts ¾ level higher to this LOS (P2.3).")
        if self.height_advantage:
            who = self.a if self.height_advantage == "from" else self.b
            s.append(f"{who.text(p)} may claim Height Advantage vs fire along it (B10.31).")
        s.extend(self.notes)
        if self.borderline:
            s.append("Borderline: a thread a hair to one side would be ruled differently (A6.1 dispute).")
        return " ".join(s)

    def to_json(self) -> dict[str, Any]:
        p = naming(self.prefix)
        tr = self.trace
        return {
            "kind": "los",
            "from": self.a.text(p),
            "to": self.b.text(p),
            "clear": self.clear,
            "borderline": self.borderline,
            "blocked_by": self.blocked_by.to_json(p) if self.blocked_by else None,
            "blocked_at": round(float(self.blocked_by.t), 6) if self.blocked_by else None,  # fraction of the thread
            "hindrances": [h.to_json(p) for h in self.hindrances],
            "hindrance_drm": self.hindrance_drm,
            "range": self.range,
            "height_advantage": self.height_advantage,
            "up_slope": {"from": self.up_slope[0], "to": self.up_slope[1]},
            "blind": self.blind,
            "elevations": {"from": num(self.elevations[0]), "to": num(self.elevations[1])},
            "items": [i.to_json("drm") for i in self.items],
            "roadblocks_crossed": [p.hexside(hs) for hs in self.roadblocks_crossed],
            "hexes": [p.hex(h) for h in tr.hexes if h.row >= 0 and h.col >= 0],
            "crossed": [p.hexside(hs) for _, hs in tr.crossed if _named(hs.hexes)],
            "along": [p.hexside(hs) for _, _, hs in tr.along if _named(hs.hexes)],
            "vertices": [p.vertex(v) for _, v in tr.vertices if _named(v.hexes)],
            "rules": list(self.rules()),
            "explain": self.explain(),
        }


def _named(hexes: Iterable[Hex]) -> bool:
    return all(h.col >= 0 and h.row >= 0 for h in hexes)


@dataclass(frozen=True, slots=True)
class ViewshedRuling:
    """Every Location (one per hex, other than the viewer's own hex) that ``origin`` sees, with its
    Hindrance DRM. ``level`` None looks at ground level; n at each hex's building level n where it has
    one."""

    origin: Location
    level: int | None
    visible: tuple[tuple[Location, int], ...]
    considered: int
    prefix: str | Naming = ""
    decided_by: tuple[str, ...] = ("A6.1", "A6.2", "A6.4", "A6.7")

    def as_dict(self) -> dict[Location, int]:
        return dict(self.visible)

    def rules(self) -> tuple[str, ...]:
        return self.decided_by

    def explain(self) -> str:
        p = naming(self.prefix)
        where = "ground level" if self.level is None else f"building level {self.level} where there is one"
        hindered = sum(1 for _, d in self.visible if d)
        return (f"{self.origin.text(p)} sees {len(self.visible)} of the {self.considered} other hexes' Locations "
                f"({where}); {hindered} of them through Hindrances (A6.1, A6.2, A6.4, A6.7).")

    def to_json(self) -> dict[str, Any]:
        p = naming(self.prefix)
        return {
            "kind": "viewshed",
            "from": self.origin.text(p),
            "level": self.level,
            "visible": {loc.text(p): d for loc, d in self.visible},
            "count": len(self.visible),
            "rules": list(self.rules()),
            "explain": self.explain(),
        }


# ============================================================================================ depiction


_ALONG_LIMIT = 200_000
"""Hexsides run along whose combined record is kept (bounded, for big maps)."""
_TEMPLATE_LIMIT = 20_000
"""Compiled thread shapes kept per map tables (a 33 x 10 board's every pair needs about 2,600)."""
_KEPT_SHAPES = 20_000
"""Thread shapes the user cache keeps per grid stride, for a later process (about 1 KB each on a board)."""
_RECORD_LIMIT = 200_000
"""Records of artwork hexes by the codes a thread crosses there, and thread ends, kept per map tables."""

@dataclass(frozen=True, slots=True)
class _Obs:
    """An obstacle a thread can meet in a hex (or along a hexside)."""

    top: int                 # its top, in quarter levels
    kind: ObstacleKind
    what: str                # its name in a ruling
    rule: str
    srcs: tuple[int, ...]    # the hex indices it stands in (two along a hexside)
    inherent: bool           # inherent terrain or a counter: met from either side of a hexside (A6.1 EXC)


@dataclass(frozen=True, slots=True)
class _Hind:
    """A Hindrance a thread can meet in a hex (or along a hexside)."""

    drm: int
    top: int                 # quarter levels: a LOS above it is not hindered (A6.7)
    what: str
    rule: str
    srcs: tuple[int, ...]
    kind: HindranceKind
    inherent: bool
    counter: bool = False    # SMOKE, vehicles, wrecks: a counter, whole-hex on any depiction


@dataclass(frozen=True, slots=True)
class _Meet:
    """What a thread meets in one contact: the highest top of it all (for a quick test), the obstacles and
    the Hindrances."""

    quick: int
    obstacles: tuple[_Obs, ...]
    hindrances: tuple[_Hind, ...]


_EMPTY = _Meet(_NONE, (), ())


class Depiction(Protocol):
    """What a thread meets in a hex: the one interface between the LOS engine and terrain depiction.

    ``interior(idx, t0, t1)``: the obstacles and Hindrances the thread meets passing through the
    interior of hex ``idx`` between parameters t0 and t1. ``boundary(idxs, t0, t1, narrow)``: those it
    meets running along the hexside between two hexes, or touching one hex only at a vertex (one index),
    over [t0, t1]. Each answer is a ``_Meet`` tuple: (highest top, obstacles, hindrances).
    ``begin(p, q, shift)``: the reader of one thread about to be walked (its two end points; ``shift``
    moves it that many pixels to its left, for the A6.1 borderline test), whose ``interior`` and
    ``boundary`` answer for that thread: a depiction that follows artwork reads the pixels under it, the
    whole-hex one is its own reader. A reader belongs to one walk, so threads may be walked at once.
    """

    def begin(self, p: Point, q: Point, shift: float = 0.0) -> Depiction: ...

    def interior(self, idx: int, t0: float, t1: float) -> _Meet: ...

    def boundary(self, idxs: tuple[int, ...], t0: float, t1: float, narrow: bool) -> _Meet: ...


class WholeHexDepiction:
    """Hand-made maps: an obstacle or Hindrance fills its whole hex (rules digest 3.1, 3.9).

    A thread exactly along a hexside meets a non-inherent obstacle (or Hindrance) only when both hexes
    flanking it hold one (the lower counts), never along a Narrow Street hexside, whose road lies on the
    hexside (P5.1); inherent terrain (orchard, graveyard) and counters (SMOKE, vehicles, wrecks) count
    from either side. A thread through a vertex touches all three hexes there: the one it only touches
    adds its inherent terrain.
    """

    def __init__(self, recs: list[_Meet | None] | _Sparse, touch: list[_Meet | None] | _Sparse,
                 fill: Callable[[int], _Meet] | None = None) -> None:
        self.recs = recs
        self.touch = touch
        self.fill = fill  # reads a hex's records into recs and touch when they are None
        self._along: dict[tuple[tuple[int, ...], bool], _Meet] = {}

    def begin(self, p: Point, q: Point, shift: float = 0.0) -> WholeHexDepiction:
        return self

    def _rec(self, idx: int) -> _Meet:
        r = self.recs[idx]
        if r is None:
            assert self.fill is not None
            r = self.fill(idx)
        return r

    def interior(self, idx: int, t0: float, t1: float) -> _Meet:
        return self._rec(idx)

    def boundary(self, idxs: tuple[int, ...], t0: float, t1: float, narrow: bool) -> _Meet:
        if len(idxs) == 1:
            t = self.touch[idxs[0]]
            if t is None:
                self._rec(idxs[0])
                t = self.touch[idxs[0]]
                assert t is not None
            return t
        key = (idxs, narrow)
        m = self._along.get(key)
        if m is None:
            if len(self._along) >= _ALONG_LIMIT:
                self._along.clear()
            m = self._along[key] = _combine_along(self._rec(idxs[0]), self._rec(idxs[1]), narrow)
        return m


def _combine_along(ra: _Meet, rb: _Meet, narrow: bool) -> _Meet:
    obs: list[_Obs] = []
    hinds: list[_Hind] = []
    # non-inherent (depicted) terrain: both sides, the lower counts
    for kind in (_CREST, _FULL, _HALF, _ORCHARD):
        if narrow and kind is not _CREST:
            continue
        oa = [o for o in ra.obstacles if o.kind == kind and not o.inherent]
        ob = [o for o in rb.obstacles if o.kind == kind and not o.inherent]
        if oa and ob:
            lo_a, lo_b = max(oa, key=lambda o: o.top), max(ob, key=lambda o: o.top)
            if lo_a.top == lo_b.top:
                obs.append(replace(lo_a, srcs=lo_a.srcs + lo_b.srcs, inherent=False))
            else:
                obs.append(min(lo_a, lo_b, key=lambda o: o.top))
    ha = [h for h in ra.hindrances if not h.inherent]
    hb = [h for h in rb.hindrances if not h.inherent]
    if ha and hb and not narrow:
        hinds.append(min(ha[0], hb[0], key=lambda h: (h.top, h.drm)))
    # inherent terrain and counters: either side, each hex for itself (A6.1 EXC; B14.21: +1 per orchard hex)
    inh_o = [o for o in (*ra.obstacles, *rb.obstacles) if o.inherent]
    if inh_o:
        top = max(o.top for o in inh_o)
        tops = [o for o in inh_o if o.top == top]
        o = tops[0]
        # both flanking hexes as high cast the Blind Hex, whichever is nearer the lower end (A6.4)
        obs.append(replace(o, srcs=tuple(x for t in tops for x in t.srcs), inherent=True) if len(tops) > 1 else o)
    hinds.extend(_each_hex_once(h for h in (*ra.hindrances, *rb.hindrances) if h.inherent))
    return _meet(obs, hinds)


def _each_hex_once(hinds: Iterable[_Hind]) -> list[_Hind]:
    """The Hindrances given, the same Hindrance of the same hex once (it may come from two records of
    that hex): two hexes each add theirs (A6.7), even of one kind (two orchards along a hexside: +2)."""
    best: dict[tuple[str, tuple[int, ...]], _Hind] = {}
    for h in hinds:
        k = (h.what, h.srcs)
        if k not in best or h.drm > best[k].drm:
            best[k] = h
    return list(best.values())


def _meet(obs: Sequence[_Obs], hinds: Sequence[_Hind]) -> _Meet:
    quick = max([o.top for o in obs] + [h.top for h in hinds] + [_NONE])
    return _Meet(quick, tuple(obs), tuple(hinds))


class ArtworkDepiction:
    """Imported boards: the thread meets what is drawn where it passes (A6.1), read from the board's
    artwork (:class:`asl_terrain.vasl.ArtworkRaster`) pixel by pixel, as VASL does.

    In a hex's interior the thread meets each feature whose pixels it crosses there (woods, a building
    of the drawn type, brush, grain, rubble), on the ground elevation drawn under it, and the highest
    ground it crosses (the crest line as drawn, B10.2); at most one terrain Hindrance per hex (A6.7).
    Inherent terrain (orchard, graveyard) is not drawn but fills its hex (B.6): a hex the map gives
    inherent terrain is met whole, and inherent artwork spilling into another hex is not met. Along a
    hexside the thread meets what is drawn on the hexside itself, plus the inherent terrain of either
    hex; through a vertex, the inherent terrain of the hex only touched there. Counters (SMOKE,
    vehicles, wrecks) stay whole-hex. A hex on no board (offboard) is depicted whole.
    """

    def __init__(self, tab: _Tables, raster: Any) -> None:
        self.tab = tab
        self.raster = raster
        self.whole = WholeHexDepiction(tab.recs, tab.touch, tab._fill)
        self._cache: dict[tuple[int, frozenset[int]], _Meet] = {}
        self._in_bed: dict[tuple[int, frozenset[int]], bool] = {}  # in_depression by hex and stretch codes
        # per hex index: its record when it does not depend on the thread (one code drawn, inherent or
        # offboard terrain), None when it does; worked out when a thread first meets the hex
        self._static: dict[int, _Meet | None] = {}
        self._counters: dict[int, list[_Hind]] = {}  # SMOKE, vehicles, wrecks: only hexes with counters
        m = tab.m
        for h in list(m._by_hex):
            if h in m.grid:
                i = tab.idx(h)
                hs = [x for x in tab.rec(i).hindrances if x.counter]
                if hs:
                    self._counters[i] = hs
        for i in tab.bridges:  # B6.2: the bridge Hinders wherever the thread crosses its hex (see bridge_hinders)
            self._counters.setdefault(i, []).extend(x for x in tab.rec(i).hindrances if x.kind is _H_BRIDGE)
        # B9.1: the thick wall, hedge and bocage depiction is the wall as well as its hexside; its pixels name
        # their hexside by a number that repeats only six hexes apart (_drawn_wall_key reads it back)
        self._wall_base = len(raster.features)
        self._wall_px: dict[tuple[tuple[int, int], int], Any] = {}
        self._wall_hull: dict[tuple[tuple[int, int], int], list[tuple[float, float]]] = {}
        drawn = [((hs.a.col, hs.a.row), (hs.b.col, hs.b.row), _drawn_wall_number(hs)) for w in tab.walls.values()
                 if w.what in _DRAWN_WALLS for hs in (w.hexside,)]
        if drawn:
            self.raster, self._wall_base = tab.m.derived(("vasl.artwork", "walls drawn", tuple(sorted(drawn))),
                                                         lambda: raster.with_hexside_art(drawn), limit=32)

    def static(self, i: int) -> _Meet | None:
        """Hex index ``i``'s record if it does not depend on where the thread crosses the hex, else None."""
        try:
            return self._static[i]
        except KeyError:
            pass
        tab = self.tab
        got: _Meet | None = None
        if tab.on_map[i]:
            h = tab.hex_of(i)
            t = tab.m.terrain(h)
            codes = self.raster.hex_codes(h.col, h.row)
            if not codes or t.offboard or self._inherent(t.terrain):
                got = tab.rec(i)
            elif len(codes) == 1:
                got = self._record(i, codes)
        self._static[i] = got
        return got

    def _inherent(self, terrain: str) -> bool:
        e = self.tab.chart.terrain.get(terrain)
        return bool(e is not None and e.los is not None and e.los.get("inherent", False))

    def begin(self, p: Point, q: Point, shift: float = 0.0) -> _ArtworkThread:
        return _ArtworkThread(self, p, q, shift)

    def wall_pixels(self, key: tuple[int, int], raster: Any = None, turn: Any = None) -> Any:
        """The pixel centres (an n x 2 array) drawn as the wall on hexside ``key`` (B9.1), in ``raster``'s frame
        (a turned board's view, its points turned by ``turn``; default: the map's raster)."""
        ck = (key, id(raster))
        got = self._wall_px.get(ck)
        if got is None:
            import numpy as np

            raster = raster if raster is not None else self.raster
            hs = self.tab.walls[key].hexside
            fid = self._wall_base + _drawn_wall_number(hs)
            (ax, ay), (bx, by) = (raster.pixel(turn(v) if turn is not None else v) for v in hs.endpoints())
            r = 13
            x0, x1 = max(int(min(ax, bx)) - r, 0), min(int(max(ax, bx)) + r + 1, raster.width)
            y0, y1 = max(int(min(ay, by)) - r, 0), min(int(max(ay, by)) + r + 1, raster.height)
            xs, ys = np.nonzero(raster._raster[x0:x1, y0:y1] // 32 == fid)
            got = self._wall_px[ck] = np.stack([xs + x0 + 0.5, ys + y0 + 0.5], axis=1)
        return got

    def wall_hull(self, key: tuple[int, int], raster: Any = None, turn: Any = None) -> list[tuple[float, float]]:
        """The corners of the convex hull of :meth:`wall_pixels` (pixels of it, in the same frame)."""
        ck = (key, id(raster))
        got = self._wall_hull.get(ck)
        if got is None:
            got = self._wall_hull[ck] = _convex_hull(self.wall_pixels(key, raster, turn).tolist())
        return got

    def interior(self, idx: int, t0: float, t1: float) -> _Meet:
        raise TypeError("ArtworkDepiction reads a thread's pixels: ask begin(p, q) for the thread's reader")

    def boundary(self, idxs: tuple[int, ...], t0: float, t1: float, narrow: bool) -> _Meet:
        raise TypeError("ArtworkDepiction reads a thread's pixels: ask begin(p, q) for the thread's reader")

    def _record(self, i: int, codes: frozenset[int]) -> _Meet:
        key = (i, codes)
        r = self._cache.get(key)
        if r is not None:
            return r
        if len(self._cache) >= _RECORD_LIMIT:
            self._cache.clear()
        tab = self.tab
        raster = self.raster
        src = (i,)
        top = max(raster.decode(c)[1] for c in codes)
        obs: list[_Obs] = [_Obs(top * _Q, _CREST, f"level {top} ground", "B10.2", src, False)]
        hinds: list[_Hind] = []
        for c in sorted(codes):  # not the set's order: that is the first thread's pixel order (history)
            fid, elev = raster.decode(c)
            if fid >= self._wall_base:
                wall = _drawn_wall_key(tab, i, fid - self._wall_base)
                if wall is not None:
                    w = tab.walls[wall]
                    obs.append(_Obs(w.top, _DRAWN_WALL, f"{w.what} as drawn", "B9.1", wall, False))
                continue
            keys = raster.features[fid]
            if not keys or self._inherent(keys["terrain"]):
                continue
            h = tab.hex_of(i)
            steeple = False
            if keys["terrain"] == "building" and keys.get("building_type") == "single-story-house":
                # artwork that prints no height (the KGP maps): the building's levels are the map's (B23.2x)
                mt = tab.m.terrain(h)
                if mt.is_building:
                    keys = {**keys, "building_type": mt.building_type, "upper_levels": mt.upper_levels}
                    steeple = mt.steeple
            t = HexTerrain(h, terrain=keys["terrain"], level=elev, building=keys.get("building"),
                           building_type=keys.get("building_type"), upper_levels=keys.get("upper_levels", 0),
                           steeple=steeple)
            o, hh = tab._terrain_items(t, keys["terrain"], elev * _Q, src)
            obs += o
            hinds += hh
        obs.sort(key=lambda o: o.kind is _DRAWN_WALL)  # a hex's own features first, whatever the codes' order
        if len(hinds) > 1:  # one terrain Hindrance per hex (A6.7)
            hinds = [max(hinds, key=lambda x: (x.drm, x.top))]
        hinds += self._counters.get(i, [])
        r = self._cache[key] = _meet(obs, hinds)
        return r



def _convex_hull(points: list[list[float]]) -> list[tuple[float, float]]:
    """The corners of the convex hull of ``points`` (Andrew's monotone chain), collinear points left out."""
    pts = sorted({(p[0], p[1]) for p in points})
    if len(pts) <= 2:
        return pts

    def half(seq: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(reversed(pts))
    return lower[:-1] + upper[:-1]


class _ArtworkThread:
    """One thread's reader of an :class:`ArtworkDepiction`: the pixels under the thread, sampled when first
    needed, and what they depict. It belongs to one walk (a depiction serves threads walked at once)."""

    __slots__ = ("dep", "p", "q", "sample", "shift")

    def __init__(self, dep: ArtworkDepiction, p: Point, q: Point, shift: float) -> None:
        self.dep = dep
        self.p, self.q, self.shift = p, q, shift
        self.sample: Any = None

    def begin(self, p: Point, q: Point, shift: float = 0.0) -> _ArtworkThread:
        return self.dep.begin(p, q, shift)

    def _codes(self, t0: float, t1: float) -> frozenset[int]:
        return self.sampled().between(t0, t1)  # type: ignore[no-any-return]

    def sampled(self) -> Any:
        """The thread's :class:`~asl_terrain.vasl.artwork.ThreadSample`, read when first asked for."""
        smp = self.sample
        if smp is None:
            smp = self.sample = self.dep.raster.sample(self.p, self.q, self.shift)
        return smp

    def interior(self, idx: int, t0: float, t1: float) -> _Meet:
        dep = self.dep
        s = dep._static.get(idx, _UNSET)
        if s is _UNSET:
            s = dep.static(idx)
        if s is not None:
            return s  # type: ignore[no-any-return]
        smp = self.sample  # _codes inlined: a call less for each stretch read on the hot path
        if smp is None:
            smp = self.sample = dep.raster.sample(self.p, self.q, self.shift)
        return dep._record(idx, smp.between(t0, t1))

    def drawn_on_both_sides(self, key: tuple[int, int]) -> bool:
        """A6.1: whether the wall drawn on hexside ``key`` lies on both sides of this thread (pixels of it
        more than a pixel to its left and to its right, between its ends), as a depiction must to block."""
        import numpy as np

        dep = self.dep
        raster, turn = dep.raster.frame_for(self.p, self.q)  # a turned board: its view, as printed
        p, q = (turn(self.p), turn(self.q)) if turn is not None else (self.p, self.q)
        pts = dep.wall_pixels(key, raster if turn is not None else None, turn)
        if len(pts) < 4:
            return False
        (x0, y0), (x1, y1) = raster.los_point(p), raster.los_point(q)
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy) or 1.0
        if self.shift:
            x0, y0 = x0 + dy / length * self.shift, y0 - dx / length * self.shift
        # the hull's corners first: pixels themselves, so two on each side decide yes; and the drawing lies
        # wholly on one side of the thread when no corner is a pixel beyond it (side is linear: the margin
        # covers rounding); else every pixel is weighed, as the corners' values are computed alike
        pos = neg = 0
        most = least = 0.0
        l2 = length * length
        for hx, hy in dep.wall_hull(key, raster if turn is not None else None, turn) if l2 else ():
            hx, hy = hx - x0, hy - y0
            s = (hx * dy - hy * dx) / length
            most, least = max(most, s), min(least, s)
            if 0 <= (hx * dx + hy * dy) / l2 <= 1:
                if s > 1.0:
                    pos += 1
                elif s < -1.0:
                    neg += 1
        if pos >= 2 and neg >= 2:
            return True
        if l2 and (most < 1.0 - 1e-6 or least > -1.0 + 1e-6):
            return False
        rx, ry = pts[:, 0] - x0, pts[:, 1] - y0
        along = (rx * dx + ry * dy) / (length * length)
        side = (rx * dy - ry * dx) / length
        inside = (along >= 0) & (along <= 1)
        return int(((side > 1.0) & inside).sum()) >= 2 and int(((side < -1.0) & inside).sum()) >= 2

    def in_depression(self, idx: int, t0: float, t1: float) -> bool:
        """Whether the thread stays within the stream or gully as drawn in hex ``idx`` between t0 and
        t1: every pixel it crosses there lies no higher than the stream bed (B20.2, A6.3)."""
        dep = self.dep
        key = (idx, self._codes(t0, t1))
        got = dep._in_bed.get(key)
        if got is None:  # the same hex's stretches repeat a few code sets: each is weighed once
            if len(dep._in_bed) >= _RECORD_LIMIT:
                dep._in_bed.clear()
            tab = dep.tab
            floor = tab.m.terrain(tab.hex_of(idx)).in_level
            decode = dep.raster.decode
            got = dep._in_bed[key] = all(decode(c)[1] <= floor for c in key[1])
        return got

    def boundary(self, idxs: tuple[int, ...], t0: float, t1: float, narrow: bool) -> _Meet:
        dep = self.dep
        if len(idxs) == 1 or narrow:
            return dep.whole.boundary(idxs, t0, t1, narrow)
        a, b = idxs
        tab = dep.tab
        line = dep._record(a if tab.on_map[a] else b, self._codes(t0, t1))
        ta, tb = tab.touch_of(a), tab.touch_of(b)
        if not (ta.obstacles or ta.hindrances or tb.obstacles or tb.hindrances):
            return line
        return _meet([*line.obstacles, *ta.obstacles, *tb.obstacles],
                     _each_hex_once((*line.hindrances, *ta.hindrances, *tb.hindrances)))


# ============================================================================================ per-map tables


@dataclass(frozen=True, slots=True)
class _Wall:
    """A wall, hedge, bocage or B29 roadblock on a hexside (the higher one where two are)."""

    top: int                 # quarter levels
    what: str
    rule: str
    hexside: Hexside
    full: bool               # bocage: a one-level obstacle (B9.52), not a Half-Level one


@dataclass(frozen=True, slots=True)
class _RowhouseWall:
    """A rowhouse wall (B23.71): its top is the taller building's of its two hexes."""

    top: int
    hexside: Hexside


@dataclass(frozen=True, slots=True)
class _Segment:
    """A Narrow Street roadblock: an obstacle from one centre dot of its hexside's hexes to the other (P5.141)."""

    c1: Point
    c2: Point
    top: int
    hexside: Hexside
    ia: int
    ib: int


@dataclass(slots=True)
class _End:
    loc: Location
    hex: Hex
    idx: int
    point: Point
    elev: int                 # quarter levels, without the Up-Slope ¾
    kind: str                 # ground | building | rooftop | crest | in | culvert
    slope_ok: bool            # may count Up-Slope (judgment.up_slope_locations)
    up_sides: frozenset[Hexside]
    base: int                 # Base Level of the hex
    smoke: int                # the SMOKE in its hex (A24.2)


#: a map of more indices than this (a padded hex grid) keeps its per-index tables sparse (_Tables)
SPARSE_OVER = 250_000


class _Sparse(dict[int, Any]):
    """A table by index for a very big map: only the indices set are kept; any other reads as ``default``."""

    def __init__(self, default: Any) -> None:
        super().__init__()
        self.default = default

    def __missing__(self, i: int) -> Any:
        return self.default


class _OnGrid(dict[int, bool]):
    """Whether an index is a hex of the map, worked out from the index (a very big map's on_map)."""

    def __init__(self, stride: int, c0: int, c1: int, r1: int) -> None:
        super().__init__()
        self.stride, self.c0, self.c1, self.r1 = stride, c0, c1, r1

    def __missing__(self, i: int) -> bool:
        c, r = divmod(i, self.stride)
        return self.c0 <= c < self.c1 and self.c0 <= r < self.r1


class _Tables:
    """Everything a thread can meet on one map under one chart and conditions, as flat lists by index (sparse
    tables for a very big map)."""

    def __init__(self, m: Map, chart: Chart, cond: Conditions) -> None:
        self.m = m
        self.chart = chart
        self.cond = cond
        self._layout(m)
        self._read_chart(chart, cond)
        # Work proportional to the question: a hex's record is read from the map when a thread first meets
        # it (_fill), so one LOS on a big map reads only the hexes along it. Streams and counters, which
        # the ends and the depression rules look up by index, are read now (they are written hexes).
        streams = self._read_hexes(m)
        self._read_hexsides(m, chart, streams)
        self._read_counters(m, chart)
        self.depiction: Depiction = WholeHexDepiction(self.recs, self.touch, self._fill)
        self.artwork = bool(getattr(m, "depiction", None) is not None and m.depiction.follows_artwork)
        if self.artwork:
            from .vasl import map_artwork  # imported boards only: numpy and the board archives

            self.depiction = ArtworkDepiction(self, map_artwork(m))
        self.book = _Rulebook.of(self)
        # what the compiled walk reads (_walk.c's env, in its order): the per-index tables as lists, so not a
        # very big map's sparse ones
        self.kernel_env: tuple[Any, ...] | None = None
        self.full_contacts = bool(self.walls or self.rowhouse)  # walk hexsides crossed and vertices passed too
        self.whole_recs = self.recs if isinstance(self.depiction, WholeHexDepiction) else None
        if type(self.recs) is list and type(self.wall_hex) is list:
            self.kernel_env = (self.wall_hex, self.walled, self.block_at, not self.wall_vertex_both_sides,
                               self.book.crossed, self.book.run_along, self.book.vertex, _OBSTACLE_RULES_BY_KIND,
                               _HINDRANCE_RULE_BY_KIND, self.narrow, self._fill, _first_block, _run_along,
                               _vertex_block, _hindrance_total, self.recs_in)
        # what every walk reads of the tables, gathered once: one tuple unpacked per thread
        self.walk_env = (self.recs_in, self.wall_hex, self.walled, self.block_at, not self.wall_vertex_both_sides,
                         self.book.crossed, self.book.run_along, self.book.vertex)
        self.ends: dict[tuple[Location, bool], _End] = {}
        self.templates: dict[tuple[int, int, int, int], _Compiled] = {}
        self.seen: set[tuple[int, int, int, int]] = set()
        # the shapes an earlier process kept (a cache.Shelf: falsy while it holds none), once a batch asks
        # (warm); False: the cache is off. _kept_by: the process that warmed them, the only one to keep them
        self.kept: Any = None
        self._kept_by = 0

    def _layout(self, m: Map) -> None:
        """The flat tables' layout: hex (col, row) at index (col - c0) * stride + (row - r0), with a margin of
        three hexes around the map (a thread's compiled shape may reach past its edge); per-index tables are
        lists, or sparse for a very big map (over ``SPARSE_OVER`` indices)."""
        g = m.grid
        pad = 3
        self.c0 = g.col_first - pad
        self.r0 = g.row_first - pad
        self.stride = g.row_last - g.row_first + 1 + 2 * pad
        ncols = g.col_last - g.col_first + 1 + 2 * pad
        self.n = n = ncols * self.stride
        self.sparse = n > SPARSE_OVER
        rows = g.row_last - g.row_first + 1
        # per index, filled as asked: cube coordinates (dist) and the ground level (ground_at)
        self.cubes: list[tuple[int, int] | None] | _Sparse = _Sparse(None) if self.sparse else [None] * n
        self.grounds: list[int | None] | _Sparse = _Sparse(None) if self.sparse else [None] * n
        self.on_map: list[bool] | _OnGrid
        if self.sparse:
            # a map too big for a list entry per index (built in Python, over the file format's limits):
            # entries only for the hexes read (streams and counters now, the others as met)
            self.on_map = _OnGrid(self.stride, pad, ncols - pad, pad + rows)
        else:
            self.on_map = [False] * n
            for c in range(ncols - 2 * pad):
                first = (c + pad) * self.stride + pad
                self.on_map[first:first + rows] = [True] * rows

    def _read_chart(self, chart: Chart, cond: Conditions) -> None:
        """The chart's LOS parameters and judgment calls, and the seasons in force."""
        p = chart.param
        self.up = _quarters(p("up_slope_height").value, "param.up_slope_height")
        self.hind_h = _quarters(p("hindrance_height").value, "param.hindrance_height")
        self.smoke_h = _quarters(p("smoke_height").value, "param.smoke_height")
        self.veh_drm = int(p("vehicle_hindrance").value)
        self.block_at = int(p("hindrance_blocks_at").value)
        self.blind_step = int(p("blind_hex_range_step").value)
        self.tolerance = float(p("borderline_tolerance").value)
        self.tolerance_px = self.tolerance * 37.5  # on an imported board: hex sizes → pixels (VASL: 37.5 px)
        j = chart.judgment
        self.same_base_orchard = bool(j("orchard_same_base_level").value)
        self.slope_where = str(j("up_slope_locations").value)
        self.roadblock_own_hex = bool(j("roadblock_los_own_hex").value)
        self.depiction_clear = bool(j("stream_depiction_clear").value)
        self.wall_vertex_both_sides = bool(j("wall_vertex_both_sides").value)
        self.wall_on_higher = str(j("wall_on_hillside").value) == "higher-hex"
        self.bocage_vertex_blocks = str(j("bocage_vertex").value) == "vertices-included"
        self.bocage_along_blocks = str(j("bocage_along_hexspine").value) == "blocks"
        self.orchard_out = str(j("orchard_out_of_season_los").value)
        if self.orchard_out not in _ORCHARD_OUT_READINGS:
            raise ChartError(f"{chart.source}: judgment.orchard_out_of_season_los is {self.orchard_out!r}; "
                             f"expected one of {', '.join(_ORCHARD_OUT_READINGS)}")
        month = cond.month
        # the month decides, unless an SSR switch says the season (Conditions.in_season)
        self.orchard_in_season = cond.in_season("orchard", month in tuple(int(x) for x in p("orchard_season").value))
        self.grain_hinders = cond.in_season("grain", month in tuple(int(x) for x in p("grain_hindrance_season").value))

    def _read_hexes(self, m: Map) -> list[Hex]:
        """The per-hex tables, with the records of stream hexes and of hexes with counters read now; returns
        the stream hexes."""
        n, sparse = self.n, self.sparse
        self.stream: list[bool] | _Sparse = _Sparse(False) if sparse else [False] * n
        self.recs: list[_Meet | None] | _Sparse = _Sparse(None) if sparse else [None] * n
        self.touch: list[_Meet | None] | _Sparse = _Sparse(None) if sparse else [None] * n
        self.recs_in: list[_Meet] | _Sparse = _Sparse(_EMPTY) if sparse else [_EMPTY] * n
        self.smoke: list[int] | _Sparse = _Sparse(0) if sparse else [0] * n
        self.bridges: dict[int, int] = {}  # B6.2: bridge hex index -> the deck's level (quarters)
        self._bridge_roads: dict[int, frozenset[int]] = {}
        streams = [h for h in m.stream_hexes() if h in m.grid]
        for h in streams:
            self._hex(h)
        for h in list(m._by_hex):
            if h in m.grid:
                self._hex(h)
        self.culverts = [h for h in streams if m.terrain(h).culvert]  # P4.2 (a culvert is in a stream hex)
        return streams

    def _read_hexsides(self, m: Map, chart: Chart, streams: list[Hex]) -> None:
        """Walls, hedges and bocage, Narrow Streets, cliffs, rowhouse walls, Up-Slope hexsides and stream
        hexsides, as written (derivation adds only crest/stream/culvert)."""
        self._wall_kinds: dict[str, tuple[int, str, str, bool]] = {}  # height, name, rule, full
        self.walls: dict[tuple[int, int], _Wall] = {}
        self.narrow: set[tuple[int, int]] = set()
        self.rowhouse: dict[tuple[int, int], _RowhouseWall] = {}  # B23.71
        self.cliffs: dict[int, list[int]] = {}  # B11: hex index -> the hexes across its cliff hexsides
        self.stream_sides: set[tuple[int, int]] = set()
        ups: dict[int, set[Hexside]] = {}
        stride, c0, r0 = self.stride, self.c0, self.r0
        # as written (derivation adds only crest/stream/culvert), listed by the map at load (a big map's walls
        # are not looked for here); side keys and ground levels worked out inline
        grid, q = m.grid, _Q
        for hs, t, ta, tb in m.walled_hexsides():
            a, b = hs.a, hs.b
            key = ((a.col - c0) * stride + a.row - r0, (b.col - c0) * stride + b.row - r0)
            grounds = ((ta.level if ta is not None else m._default.level) * q if a in grid else None,
                       (tb.level if tb is not None else m._default.level) * q if b in grid else None)
            if t.wall:
                self._add_wall(hs, "wall", key, grounds)
            if t.hedge:
                self._add_wall(hs, "hedge", key, grounds)
            if t.bocage:
                self._add_wall(hs, "bocage", key, grounds)
        for hs, t in m.written_hexsides_with():
            key = self.side_key(hs)
            if t.narrow_street is not None:
                self.narrow.add(key)
            if t.cliff and all(h in m.grid for h in hs.hexes):
                ia_, ib_ = key
                self.cliffs.setdefault(ia_, []).append(ib_)
                self.cliffs.setdefault(ib_, []).append(ia_)
            if t.rowhouse_wall:
                top = max(self.ground_of(h) + _quarters(obstacle_height(m.terrain(h), chart), "rowhouse wall")
                          for h in hs.hexes if h in m.grid)
                self.rowhouse[key] = _RowhouseWall(top, hs)
            if t.slope is not None:
                for h in hs.hexes:
                    if t.up_slope(h) and h in m.grid:
                        ups.setdefault(self.idx(h), set()).add(hs)
        for h in streams:
            for hs in h.hexsides():
                if m.hexside(hs).stream:
                    self.stream_sides.add(self.side_key(hs))
        self.up_sides: dict[int, frozenset[Hexside]] = {i: frozenset(s) for i, s in ups.items()}

    def _read_counters(self, m: Map, chart: Chart) -> None:
        """Roadblock counters (a Narrow Street's: a segment, P5.141; any other: a Half-Level wall, B29), then
        which hexes have a wall or rowhouse wall on a hexside."""
        self.segments: list[_Segment] = []
        for ctr in m.counters:
            if ctr.type == "roadblock" and ctr.hexside is not None:
                hs = ctr.hexside
                if self.side_key(hs) in self.narrow:
                    e = chart.entry("narrow-street-roadblock").los
                    assert e is not None
                    top = max(self.ground_of(h) for h in hs.hexes) + _quarters(e["height"], "los.height")
                    ia, ib = self.side_key(hs)
                    self.segments.append(_Segment(hs.a.centre(), hs.b.centre(), top, hs, ia, ib))
                else:
                    self._add_wall(hs, "roadblock")
        self.wall_hex: list[bool] | _Sparse = _Sparse(False) if self.sparse else [False] * self.n
        for ia, ib in [*self.walls, *self.rowhouse]:
            self.wall_hex[ia] = self.wall_hex[ib] = True
        self.walled = {*self.walls, *self.rowhouse}  # the hexsides with a wall, hedge, bocage or rowhouse wall
        self.bocage = [k for k, w in self.walls.items() if w.full]  # B9.52

    # -- indices
    def idx(self, h: Hex) -> int:
        return (h.col - self.c0) * self.stride + (h.row - self.r0)

    def hex_of(self, i: int) -> Hex:
        c, r = divmod(i, self.stride)
        return Hex(c + self.c0, r + self.r0)

    def side_key(self, hs: Hexside) -> tuple[int, int]:
        return (self.idx(hs.a), self.idx(hs.b))

    def dist(self, i: int, j: int) -> int:
        """The range between the hexes of two indices (cube coordinates of odd-q, as Hex.cube)."""
        n, cubes = self.n, self.cubes
        a: tuple[int, int] = (cubes[i] or self._cube(i)) if 0 <= i < n else self._cube(i, keep=False)
        b: tuple[int, int] = (cubes[j] or self._cube(j)) if 0 <= j < n else self._cube(j, keep=False)
        dq, dr = a[0] - b[0], a[1] - b[1]
        return max(abs(dq), abs(dr), abs(dq + dr))

    def _cube(self, i: int, keep: bool = True) -> tuple[int, int]:
        """Index ``i``'s cube coordinates (q, r), kept in :attr:`cubes`: the rules ask ranges per pair."""
        c, r = divmod(i, self.stride)
        c += self.c0
        got = (c, r + self.r0 - ((c - (c & 1)) >> 1))
        if keep:
            self.cubes[i] = got
        return got

    def ground_at(self, i: int) -> int:
        """:meth:`ground_of` the hex of index ``i``, kept per index."""
        g: int | None = self.grounds[i] if 0 <= i < self.n else None
        if g is None:
            g = self.ground_of(self.hex_of(i))
            if 0 <= i < self.n:
                self.grounds[i] = g
        return g

    def bridge_roads(self, i: int) -> frozenset[int]:
        """The hexes (indices) across the road hexsides of bridge hex index ``i`` (B6.2)."""
        got = self._bridge_roads.get(i)
        if got is None:
            h = self.hex_of(i)
            got = self._bridge_roads[i] = frozenset(self.idx(n) for n in h.neighbours()
                                                    if self.m.hexside(Hexside.of(h, n)).road is not None)
        return got

    def rec(self, i: int) -> _Meet:
        """What a thread through hex index ``i``'s interior meets (read from the map when first asked)."""
        r = self.recs[i]
        return r if r is not None else self._fill(i)

    def touch_of(self, i: int) -> _Meet:
        """What a thread only touching hex index ``i`` meets (its inherent terrain and counters)."""
        t = self.touch[i]
        if t is None:
            self._fill(i)
            t = self.touch[i]
            assert t is not None
        return t

    def _fill(self, i: int) -> _Meet:
        """Read hex index ``i``'s record from the map (an index off the map meets nothing); returns it."""
        if self.on_map[i]:
            self._hex(self.hex_of(i))
        else:
            self.touch[i] = _EMPTY
            self.recs[i] = _EMPTY
        rec = self.recs[i]
        assert rec is not None
        return rec

    def ground_of(self, h: Hex) -> int:
        m = self.m
        if h not in m.grid:
            return _NONE
        t = m._hexes.get(h)  # a hex the file leaves out is the default terrain: no record made for it
        return (t.level if t is not None else m._default.level) * _Q

    # -- per hex
    def _add_wall(self, hs: Hexside, what: str, key: tuple[int, int] | None = None,
                  grounds: tuple[int | None, int | None] | None = None) -> None:
        """Put a wall, hedge, bocage or roadblock (``what``) on ``hs`` (``grounds``: its hexes' ground levels
        in quarters, None off the map; looked up when not given)."""
        got = self._wall_kinds.get(what)
        if got is None:
            los_entry = self.chart.entry(what).los
            assert los_entry is not None
            got = self._wall_kinds[what] = (_quarters(los_entry["height"], f"hexside.{what}.los.height"),
                                            {"roadblock": "roadblock (B29)"}.get(what, what), los_entry.rule,
                                            los_entry["role"] == "obstacle")
        height, name, rule, full = got
        if grounds is None:
            grid = self.m.grid
            ga, gb = (self.ground_of(h) if h in grid else None for h in (hs.a, hs.b))
        else:
            ga, gb = grounds
        if ga is not None and gb is not None:
            # judgment.wall_on_hillside (B9.2)
            base = (ga if ga > gb else gb) if self.wall_on_higher else (ga if ga < gb else gb)
        elif ga is not None:
            base = ga
        elif gb is not None:
            base = gb
        else:
            raise MapError(f"{self.m.name}: hexside {self.m.name_of(hs)} has no hex on the map")
        top = base + height
        if key is None:
            key = self.side_key(hs)
        old = self.walls.get(key)
        if old is None or old.top < top:
            self.walls[key] = _Wall(top, name, rule, hs, full)

    def _hex(self, h: Hex) -> None:
        m = self.m
        t = m.terrain(h)
        i = self.idx(h)
        self.on_map[i] = True
        self.stream[i] = t.is_stream
        g = t.level * _Q
        src = (i,)
        obs: list[_Obs] = [_Obs(g, _CREST, f"level {t.level} ground", "B10.2", src, False)]
        hinds: list[_Hind] = []
        terrain = "rubble" if m.is_rubble(h) else t.terrain  # a Rubble counter makes the hex rubble (B24)
        counters = m.counters_at(h)
        o, hh = self._terrain_items(t, terrain, g, src)
        obs += o
        hinds += hh
        # counters: whole-hex Hindrances (judgment.counters_whole_hex)
        self._counter_items(h, t, g, src, counters, hinds)
        if t.is_stream and t.bridge is not None:
            # B6.2: a non-pontoon bridge Hinders a LOS drawn through it (see bridge_hinders)
            e = self.chart.entry("bridge").los
            assert e is not None
            self.bridges[i] = t.deck_level * _Q
            hinds.append(_Hind(int(e.get("hindrance", 1)), t.deck_level * _Q, f"{t.bridge} bridge", e.rule, src,
                               _H_BRIDGE, True))
        if t.is_stream:
            gi = t.in_level * _Q
            keep = [x for x in hinds if x.counter]
            if not self.depiction_clear:
                keep = hinds
            self.recs_in[i] = _meet([_Obs(gi, _CREST, "stream bed", "B20.2", src, False)], keep)
        # recs last: another thread that finds recs[i] set finds the rest set too
        self.touch[i] = _meet([o for o in obs if o.inherent], [x for x in hinds if x.inherent])
        self.recs[i] = _meet(obs, hinds)

    def _terrain_items(self, t: HexTerrain, terrain: str, g: int, src: tuple[int, ...]
                       ) -> tuple[list[_Obs], list[_Hind]]:
        """The obstacles and Hindrances of a hex's terrain standing on ground ``g`` (quarter levels)."""
        chart = self.chart
        obs: list[_Obs] = []
        hinds: list[_Hind] = []
        if terrain == "building":
            top = g + obstacle_height(t, chart) * _Q
            obs.append(_Obs(int(top), _FULL, _building_name(t), "B23.2" if t.building_type != "single-hex-two-story-house"
                        else "P5.3", src, False))
        elif terrain in chart.terrain and chart.terrain[terrain].los is not None:
            e = chart.terrain[terrain].los
            assert e is not None
            role = e["role"]
            inherent = bool(e.get("inherent", False))
            name = chart.terrain[terrain].name.lower()
            if t.is_stream:
                name = "stream-" + name
            if role == "obstacle":
                obs.append(_Obs(g + _quarters(e["height"], f"terrain.{terrain}.los.height"), _FULL, name,
                            "P4.1" if t.is_stream else e.rule, src, inherent))
            elif role == "half-level":
                obs.append(_Obs(g + _quarters(e["height"], f"terrain.{terrain}.los.height"), _HALF, name, e.rule,
                            src, inherent))
            elif role == "orchard":
                drm = int(e.get("hindrance", 1))
                trees = g + _quarters(e["height"], f"terrain.{terrain}.los.height")
                if self.orchard_in_season:
                    obs.append(_Obs(trees, _ORCHARD, f"{name} (in season)", "P4.1" if t.is_stream else e.rule, src,
                                inherent))
                    hinds.append(_Hind(drm, g + self.hind_h, name, e.rule, src, _H_ORCHARD, inherent))
                else:
                    # out of season: no obstacle, but a Hindrance standing as high as the trees (B14.2)
                    hinds.append(_Hind(drm, trees, f"{name} (out of season)", e.rule, src, _H_ORCHARD_OUT,
                                       inherent))
            elif role == "hindrance" and (terrain != "grain" or self.grain_hinders):
                hinds.append(_Hind(int(e.get("hindrance", 1)), g + self.hind_h, name, e.rule, src, _H_OTHER,
                                   inherent))
        return obs, hinds

    def _counter_items(self, h: Hex, t: HexTerrain, g: int, src: tuple[int, ...], counters: Sequence[Any],
                       hinds: list[_Hind]) -> None:
        """Vehicles, wrecks and SMOKE in hex ``h``: whole-hex Hindrances (judgment.counters_whole_hex)."""
        m, chart = self.m, self.chart
        i = src[0]
        inherent_counters = bool(chart.judgment("counters_whole_hex").value)
        veh = [c for c in counters if c.type in ("vehicle", "wreck") and c.at == h]
        if veh:
            kinds = sorted({"wreck" if c.type == "wreck" else "vehicle" for c in veh})
            hinds.append(_Hind(self.veh_drm * len(veh), g + self.hind_h, " and ".join(kinds), "A6.8", src, _H_OTHER,
                               inherent_counters, counter=True))
        smoke = m.smoke(h)
        self.smoke[i] = smoke
        if smoke:
            # SMOKE stands param.smoke_height above its hex's ground (99: above any end, digest §7.6)
            hinds.append(_Hind(smoke, g + self.smoke_h, f"SMOKE {smoke}", "A24.2", src, _H_OTHER, True, counter=True))

    # -- ends
    def end(self, loc: Location) -> _End:
        e = self.ends.get((loc, True))
        if e is None:
            if len(self.ends) >= _RECORD_LIMIT:
                self.ends.clear()
            e = self.ends[(loc, True)] = self._make_end(loc)
        return e

    def _make_end(self, loc: Location) -> _End:
        m = self.m
        m.check_location(loc.base())
        if loc.bypass is not None and loc.vertex is None:
            v0 = example_vertex(loc.bypass, m.__contains__)
            eg = f", e.g. {m.name_of(Location(loc.hex, vertex=v0))}" if v0 is not None else ""
            raise QueryError(f"{m.name_of(loc)} is a Bypass position along a hexside; a LOS is traced from a "
                             f"vertex (A4.34): name it{eg}")
        t = m.terrain(loc.hex)
        elev = location_elevation_q(t, loc, self.chart)
        if loc.place == "culvert":
            kind = "culvert"
        elif loc.place == "crest":
            kind = "crest"
        elif loc.place == "rooftop":
            kind = "rooftop"
        elif loc.level:
            kind = "building"
        elif t.is_in_stream(loc.place):
            kind = "in"
        else:
            kind = "ground"  # on a bridge (B6) the deck stands at the level of the road it carries (B6.2)
        if kind in ("in", "culvert"):
            slope_ok = False
        elif self.slope_where == "ground-level":
            slope_ok = kind in ("ground", "crest")
        else:
            slope_ok = True
        i = self.idx(loc.hex)
        return _End(loc, loc.hex, i, location_point(loc), elev, kind, slope_ok,
                    self.up_sides.get(i, frozenset()), t.level * _Q, self.smoke[i])

    # -- templates
    def compiled(self, p: Point, q: Point) -> tuple[_Compiled, int]:
        x, y = p
        kx, ky = x % 6, y & 1
        dx, dy = q[0] - x, q[1] - y
        key = (kx, ky, dx, dy)
        c = self.templates.get(key)
        if c is None:
            if len(self.templates) >= _TEMPLATE_LIMIT:  # bounded: a big map's viewsheds do not keep every shape
                self.templates.clear()
            kept = self.kept.get(key) if self.kept else None
            c = self.templates[key] = _Compiled(key, self.stride, self.tolerance, kept)
        dcol = (x - kx) // 3
        drow = (y - ky) >> 1
        base = (dcol - self.c0) * self.stride + (drow - self.r0)
        return c, base

    def reused(self, p: Point, q: Point) -> tuple[_Compiled, int] | None:
        """The compiled shape of the thread p-q if a thread of its shape was met before (compiled now on
        its second sight), else None: the caller walks it with :func:`_stream`. A shape met once (every
        thread of a viewshed on a big map) is never compiled; a shape met again (a board's pairs: each
        shape about 45 times) is compiled once and reused."""
        x, y = p
        kx, ky = x % 6, y & 1
        key = (kx, ky, q[0] - x, q[1] - y)
        c = self.templates.get(key)
        if c is None:
            seen = self.seen
            if key not in seen and not (self.kept and key in self.kept):
                if len(seen) >= _TEMPLATE_LIMIT:
                    seen.clear()
                seen.add(key)
                return None
            return self.compiled(p, q)
        return c, ((x - kx) // 3 - self.c0) * self.stride + ((y - ky) >> 1) - self.r0

    # -- what a later process need not derive again (issue 13: the user cache, asl_terrain.cache)
    def warm(self, stretches: bool = True) -> None:
        """A batch begins: the thread shapes an earlier process kept for this grid are read when first met,
        and (``stretches``) the artwork's stretch codes kept for its pixels are read now: a batch of many
        viewers' pairs, not one viewer's (measured: reading a layout's stretches costs one viewshed more
        than it saves)."""
        if self.kept is None:
            from . import cache

            on = cache.cache_dir() is not None
            # a shape depends only on the grid's stride and grid.py's code (in cache.key's code stamp)
            self._kept_by = os.getpid()
            self.kept = cache.Shelf("los-shapes", cache.key("los shapes", str(self.stride)), _KEPT_SHAPES) if on else False
        if stretches and self.kept is not False and isinstance(self.depiction, ArtworkDepiction):
            self.depiction.raster.warm()

    def keep(self) -> None:
        """A batch ended: keep the shapes and stretch codes it derived, when they are enough to pay (not in a
        forked worker: its parent keeps its own)."""
        if self.kept is not None and self.kept is not False and self._kept_by == os.getpid():
            made = self.templates.copy()  # (another thread may be adding to it)
            # a quarter more than kept (at least 64): a batch ruled in chunks (los-table, vasl-check in one
            # process) rewrites the entry as it grows by a quarter, not after every chunk
            have = len(self.kept)
            least = max(64, have // 4)
            if len(made) - have >= least:
                self.kept.save({k: c.contacts for k, c in made.items()}, least=least)
            if isinstance(self.depiction, ArtworkDepiction):
                self.depiction.raster.keep()


def _building_name(t: HexTerrain) -> str:
    return {"single-story-house": "single-story house", "two-story-house": "two-story house",
            "single-hex-two-story-house": "single-hex two-story house"}.get(t.building_type or "",
                                                                             "multi-level building")


def _tables(m: Map, chart: Chart, cond: Conditions) -> _Tables:
    # kept with the map; the tables hold their chart, so its id names it for as long as they are kept
    return m.derived(("los.tables", id(chart), cond), lambda: _Tables(m, chart, cond), limit=8)


# ============================================================================================ public helpers


def obstacle_height(t: HexTerrain, chart: Chart | None = None) -> Fraction:
    """The LOS obstacle height of a building hex above its Base Level (B23.2x, P5.3, P5.2).

    Single-story house 1, two-story houses 1½ (B23.22; P5.3 for the single-hex one), a multi-level
    building its top Location's level + ½; a steeple raises it only if the chart's
    ``building_height.steeple-raises-height`` says so (digest §7.28). 0 for a hex without a building.
    """
    chart = chart or default_chart()
    if not t.is_building:
        return Fraction(0)
    bh = chart.building_height
    bt = t.building_type or "single-story-house"
    if bt in ("single-story-house", "two-story-house", "single-hex-two-story-house"):
        h = Fraction(bh[bt].value)
    else:
        h = t.upper_levels + Fraction(bh["multi-level-extra"].value)
    if t.steeple and bh["steeple-raises-height"].value:
        h = max(h, (t.steeple_level or 0) + Fraction(bh["multi-level-extra"].value))
    return h


def location_elevation_q(t: HexTerrain, loc: Location, chart: Chart) -> int:
    if loc.place == "rooftop":
        return int(t.level * _Q + obstacle_height(t, chart) * _Q)
    if loc.place == "culvert":
        return t.in_level * _Q
    if loc.place == "crest":
        return t.level * _Q
    if loc.level:
        return (t.level + loc.level) * _Q
    if t.is_in_stream(loc.place):
        return t.in_level * _Q
    return (t.deck_level if t.bridge is not None and t.is_stream else t.level) * _Q


def location_elevation(m: Map, loc: Location, chart: Chart | None = None) -> Fraction:
    """The elevation of a Location, without any Up-Slope ¾ (P2.3: slopes never change Base Level).

    Ground level: the hex's Base Level (B10.1); IN a stream one level lower, Crest status at the Crest
    level (B20.2, P4.1); building level n: Base Level + n, the steeple one above the highest building
    Location (P5.2); a rooftop at the building's height (B23.8); a Stream Culvert at the stream bed.
    """
    return _lv(location_elevation_q(m.terrain(loc.hex), loc, chart or default_chart()))


def location_point(loc: Location) -> Point:
    """The point a Location's LOS is traced from: its hex's centre dot, or the vertex of a unit in
    Bypass (A6.1, A4.34)."""
    return loc.vertex.point() if loc.vertex is not None else loc.hex.centre()


def _boundary(trace: Trace, h: Hex, at_start: bool) -> frozenset[Hexside]:
    """The hexsides of ``h`` the thread passes across, or through an end vertex of, as it leaves ``h``
    (``at_start``) or enters it; hexsides it runs along are left out.

    A thread that begins (ends) at a vertex of ``h`` without passing through ``h``'s interior (a unit in
    Bypass, A4.34) crosses the hexside between ``h`` and the hex it first (last) passes through, or both
    of ``h``'s hexsides at that vertex when it runs along the third hexside there."""
    hs_of_h = set(h.hexsides())
    spans = trace.spans
    if at_start:
        own = spans[0] if spans and spans[0].hex == h and spans[0].t_in == 0 else None
        tx = own.t_out if own is not None else Fraction(0)
    else:
        own = spans[-1] if spans and spans[-1].hex == h and spans[-1].t_out == 1 else None
        tx = own.t_in if own is not None else Fraction(1)
    out: set[Hexside] = set()
    if own is None:  # an end at a vertex of h, outside h's interior
        if at_start:
            nxt_span = next((s.hex for s in spans if s.t_in == 0), None)
            nxt_along = next((hs for t0, _, hs in trace.along if t0 == 0), None)
        else:
            nxt_span = next((s.hex for s in spans if s.t_out == 1), None)
            nxt_along = next((hs for _, t1, hs in trace.along if t1 == 1), None)
        if nxt_span is not None and nxt_span.is_adjacent(h):
            out.add(Hexside.of(h, nxt_span))
        elif nxt_along is not None and h not in nxt_along.hexes:
            out.update(Hexside.of(h, x) for x in nxt_along.hexes if x.is_adjacent(h))
        return frozenset(out & hs_of_h)
    for t, hs in trace.crossed:
        if t == tx and hs in hs_of_h:
            out.add(hs)
    along_here = {hs for t0, t1, hs in trace.along if t0 == tx or t1 == tx}
    for t, v in trace.vertices:
        if t == tx and h in v.hexes:
            for hs in v.hexsides():
                if hs in hs_of_h and hs not in along_here:
                    out.add(hs)
    return frozenset(out)


def hexsides_entered(m: Map, trace: Trace, target_hex: Hex) -> frozenset[Hexside]:
    """The hexsides of ``target_hex`` the thread crosses, or passes through an end vertex of, as it
    enters that hex (P2.1: a slope hexside includes its vertices; used by P2.41's "crosses a Down-Slope
    hexside of the target hex" and P4.13's stream-depiction test). Hexsides run along are left out."""
    return _boundary(trace, target_hex, at_start=False)


def is_up_slope(m: Map, loc: Location, trace: Trace, at_start: bool) -> bool:
    """Whether ``loc`` counts ¾ level higher to this thread (P2.3): the thread begins (``at_start``) or
    ends in it and crosses one of its hex's Up-Slope hexsides, an end vertex included (P2.1), but not by
    running along that hexside. Locations IN a stream or a culvert never do (judgment.up_slope_locations)."""
    t = m.terrain(loc.hex)
    if loc.place == "culvert" or (t.is_stream and loc.place == "" and not loc.level):
        return False
    ups = {hst.hexside for hst in m.hexsides_of(loc.hex) if hst.up_slope(loc.hex)}
    if not ups:
        return False
    return bool(ups & _boundary(trace, loc.hex, at_start))


# ============================================================================================ templates


_Contacts: TypeAlias = tuple[tuple[Any, ...], ...]
_UNSET: Any = object()


_SQ3 = math.sqrt(3.0)


def _true(pt: tuple[float, float]) -> tuple[float, float]:
    return (pt[0] / 2.0, pt[1] * _SQ3 / 2.0)


def _nudged_variants(tr: Trace, p: Point, q: Point, tol: float
                     ) -> tuple[Iterator[tuple[Any, ...]], Iterator[tuple[Any, ...]]] | None:
    """The contacts of the thread shifted by ``tol`` hex sizes to its left and to its right (hexes as (col,
    row)), or None when no vertex lies within ``tol`` of the thread (then a shifted thread meets exactly the
    same hexes). The contacts are walked as they are read: a walk that stops at its first block (most of a
    long thread's) never works out the rest."""
    ax, ay = _true(p)
    bx, by = _true(q)
    ux, uy = bx - ax, by - ay
    length = math.hypot(ux, uy)
    if length == 0:
        return None
    near = bool(tr.along) or any(0 < t < 1 for t, _ in tr.vertices)
    if not near:
        seen: set[Point] = set()
        # a hex's vertex k is at its centre + step k: no Vertex objects (a long thread touches thousands)
        steps = grid._VERTEX_STEP
        for h in tr.touched:
            cx, cy = h.centre()
            for sx, sy in steps:
                pt = (cx + sx, cy + sy)
                if pt in seen or pt == p or pt == q:
                    continue
                seen.add(pt)
                vx, vy = _true(pt)
                t = ((vx - ax) * ux + (vy - ay) * uy) / (length * length)
                if 0.0 < t < 1.0 and abs(ux * (vy - ay) - uy * (vx - ax)) / length <= tol:
                    near = True
                    break
            if near:
                break
    if not near:
        return None
    nx, ny = -uy / length, ux / length
    first, last = _end_hexes(tr, True), _end_hexes(tr, False)
    # the hexes of the vertex the thread starts (ends) at, if it does
    start_v = {(h.col, h.row) for t, v in tr.vertices if t == 0 for h in v.hexes}
    end_v = {(h.col, h.row) for t, v in tr.vertices if t == 1 for h in v.hexes}
    out = []
    for sign in (1.0, -1.0):
        d = tol * 1.000001 * sign
        hexes = _walk_float((ax + nx * d, ay + ny * d), (bx + nx * d, by + ny * d))
        out.append(_variant_contacts(_trimmed(hexes, start_v, first, end_v, last)))
    return (out[0], out[1])


def _trimmed(hexes: Iterator[tuple[int, int]], start_v: set[tuple[int, int]], first: set[tuple[int, int]],
             end_v: set[tuple[int, int]], last: set[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """``hexes`` without their leading hexes of the start vertex (``start_v``) not in ``first`` and their
    trailing ones of the end vertex not in ``last``: a run of the latter is held until a hex follows it."""
    held: list[tuple[int, int]] = []
    leading = bool(start_v)
    for h in hexes:
        if leading:
            if h in start_v and h not in first:
                continue
            leading = False
        if end_v and h in end_v and h not in last:
            held.append(h)
            continue
        if held:
            yield from held
            held.clear()
        yield h


def _variant_contacts(hexes: Iterator[tuple[int, int]]) -> Iterator[tuple[Any, ...]]:
    prev: tuple[int, int] | None = None
    for rel in hexes:
        if prev is not None:
            lo_h, hi_h = (prev, rel) if prev < rel else (rel, prev)
            yield (_X, 0.0, 0.0, lo_h, hi_h)
        yield (_S, 0.0, 0.0, rel)
        prev = rel


def _end_hexes(tr: Trace, first: bool) -> set[tuple[int, int]]:
    """The hex (or the two hexes of the hexside run along) the thread first (last) passes through."""
    span = (tr.spans[0] if first else tr.spans[-1]) if tr.spans else None
    along = (tr.along[0] if first else tr.along[-1]) if tr.along else None
    if span is not None and (along is None or (span.t_in < along[0] if first else span.t_out > along[1])):
        return {(span.hex.col, span.hex.row)}
    if along is not None:
        return {(h.col, h.row) for h in along[2].hexes}
    return set()


def _hex_at_true(x: float, y: float) -> tuple[int, int]:
    col = round(x / 1.5)
    best: tuple[float, tuple[int, int]] | None = None
    for c in (col - 1, col, col + 1):
        cy0 = (y / _SQ3) - 0.5 * (c & 1)
        for r in (math.floor(cy0), math.floor(cy0) + 1):
            hx, hy = 1.5 * c, _SQ3 * (r + 0.5 * (c & 1))
            d = (hx - x) ** 2 + (hy - y) ** 2
            if best is None or d < best[0]:
                best = (d, (c, r))
    assert best is not None
    return best[1]


def _walk_float(a: tuple[float, float], b: tuple[float, float]) -> Iterator[tuple[int, int]]:
    """The hexes a thread between two true points passes through (a thread that passes no vertex), in
    order, as they are read."""
    cur = _hex_at_true(*a)
    end = _hex_at_true(*b)
    yield cur
    ux, uy = b[0] - a[0], b[1] - a[1]
    t_cur = 0.0
    for _ in range(10_000):
        if cur == end:
            break
        h = Hex(*cur)
        cx, cy = _true(h.centre())
        best_t, best_k = -1.0, -1
        for k in range(6):
            v1 = grid._VERTEX_STEP[k - 1]
            v2 = grid._VERTEX_STEP[k]
            p1 = (cx + v1[0] / 2.0, cy + v1[1] * _SQ3 / 2.0)
            p2 = (cx + v2[0] / 2.0, cy + v2[1] * _SQ3 / 2.0)
            ex, ey = p2[0] - p1[0], p2[1] - p1[1]
            den = ux * ey - uy * ex
            if den == 0:
                continue
            t = ((p1[0] - a[0]) * ey - (p1[1] - a[1]) * ex) / den
            s = ((p1[0] - a[0]) * uy - (p1[1] - a[1]) * ux) / den
            if -1e-9 <= s <= 1 + 1e-9 and t > best_t:
                best_t, best_k = t, k
        if best_t <= t_cur - 1e-12 or best_k < 0:
            break
        t_cur = best_t
        n = h.neighbour(best_k)
        cur = (n.col, n.row)
        yield cur


def _conv(cs: Iterator[tuple[Any, ...]], stride: int) -> Iterator[tuple[Any, ...]]:
    """Contacts with hexes as (col, row) turned into index offsets for a map of this stride, as they are
    read."""
    for c in cs:
        yield (c[0], c[1], c[2], *(r[0] * stride + r[1] for r in c[3:]))


class _Unrolled:
    """Contacts worked out as walks read them and kept for the next walk (a thread's nudged variants: the
    borderline walks of a long thread on a big map mostly stop at its first block, issue 13). Walks from
    several threads share it: the source is advanced under a lock."""

    __slots__ = ("_items", "_lock", "_more")

    def __init__(self, more: Iterator[tuple[Any, ...]]) -> None:
        import threading

        self._items: list[tuple[Any, ...]] = []
        self._more: Iterator[tuple[Any, ...]] | None = more
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        items = self._items
        i = 0
        while True:
            n = len(items)
            while i < n:
                yield items[i]
                i += 1
            if self._more is None:
                if i < len(items):  # another walk finished the source meanwhile
                    continue
                return
            with self._lock:
                more = self._more
                if more is not None and len(items) == i:
                    got = list(islice(more, 64))
                    items.extend(got)
                    if len(got) < 64:
                        self._more = None


_PACK = struct.Struct("iiiidd")


def _packed(contacts: _Contacts) -> bytes:
    """Contacts as the compiled walk (``_walk.c``) reads them: kind, first and second hex offset, 0, t0, t1."""
    pack = _PACK.pack
    return b"".join(pack(c[0], c[3], c[4] if len(c) > 4 else 0, 0, c[1], c[2]) for c in contacts)


class _Compiled:
    """A thread shape (the start's class within the grid's period and the direction, ``key``) compiled for one
    map: its contacts, hexes as index offsets from the start's translation (add the thread's base). The
    variants are worked out when first read: most rulings ask for none (a viewshed, a LOS table)."""

    __slots__ = ("_nudged", "_packed", "_packed_full", "_plain_nudged", "contacts", "key", "plain", "stride", "tol")

    def __init__(self, key: tuple[int, int, int, int], stride: int, tol: float, contacts: _Contacts | None = None
                 ) -> None:
        kx, ky, dx, dy = key
        self.key, self.stride, self.tol = key, stride, tol

        def rel(x: int, y: int) -> int:  # the offset of the hex whose centre is (x, y)
            col = x // 3
            return col * stride + ((y - (col & 1)) >> 1)

        # contacts: as kept by an earlier process (the user cache), else traced now
        self.contacts: _Contacts = (contacts if contacts is not None
                                    else tuple(grid.contacts((kx, ky), (kx + dx, ky + dy), rel, truediv)))
        #: without hexsides crossed and vertices passed: for maps without walls, hedges or B29 roadblocks
        self.plain: _Contacts = tuple(x for x in self.contacts if x[0] not in (_X, _V, _P))
        self._packed: bytes | None = None
        self._packed_full: bytes | None = None
        self._nudged: Any = _UNSET
        self._plain_nudged: Any = _UNSET

    def packed(self, full: bool) -> bytes:
        """:attr:`contacts` (``full``) or :attr:`plain` as the compiled walk reads them (:func:`_packed`)."""
        if full:
            got = self._packed_full
            if got is None:
                got = self._packed_full = _packed(self.contacts)
        else:
            got = self._packed
            if got is None:
                got = self._packed = _packed(self.plain)
        return got

    def _nudged_rel(self) -> tuple[Iterator[tuple[Any, ...]], Iterator[tuple[Any, ...]]] | None:
        """The contacts of the thread shifted a hair to either side (the A6.1 borderline test), or None."""
        if self.tol <= 0:
            return None
        kx, ky, dx, dy = self.key
        p, q = (kx, ky), (kx + dx, ky + dy)
        return _nudged_variants(grid.trace.__wrapped__(p, q), p, q, self.tol)

    def _variants(self) -> None:
        g = self._nudged_rel()
        full = plain = None
        if g is not None:  # each walked only as far as a walk reads it; the plain form reads the full one
            full = (_Unrolled(_conv(g[0], self.stride)), _Unrolled(_conv(g[1], self.stride)))
            plain = tuple(_Unrolled(c for c in iter(f) if c[0] not in (_X, _V, _P)) for f in full)
        # plain first: a thread that finds _nudged set (another thread's work) finds _plain_nudged set too
        self._plain_nudged = plain
        self._nudged = full

    @property
    def nudged(self) -> tuple[Iterable[tuple[Any, ...]], Iterable[tuple[Any, ...]]] | None:
        if self._nudged is _UNSET:
            self._variants()
        return self._nudged  # type: ignore[no-any-return]

    @property
    def plain_nudged(self) -> tuple[Iterable[tuple[Any, ...]], Iterable[tuple[Any, ...]]] | None:
        if self._plain_nudged is _UNSET:
            self._variants()
        return self._plain_nudged  # type: ignore[no-any-return]


def _stream(tab: _Tables, p: Point, q: Point) -> Iterator[tuple[Any, ...]]:
    """The contacts of the thread from ``p`` to ``q`` with absolute hex indices, generated as the thread is
    traced (:func:`asl_terrain.grid.contacts`, the grid's one exact walk): the contacts (and order) of its
    compiled shape walked with base 0, but a walk that stops at the first block never traces the rest."""
    stride, c0, r0 = tab.stride, tab.c0, tab.r0

    def ix(x: int, y: int) -> int:  # the table index of the hex whose centre is (x, y)
        col = x // 3
        return (col - c0) * stride + ((y - (col & 1)) >> 1) - r0

    return grid.contacts(p, q, ix, truediv)


# ============================================================================================ the decision
#
# A LOS is decided as a rulebook: one small frozen context (_Los) and ordered tuples of named rule functions,
# each citing its rule in its docstring and returning a value (a block, a Hindrance met, or nothing):
#
# 1. _WITHOUT_A_THREAD (tables, A, B) -> _Outcome | None: a LOS decided before any thread is traced (one hex,
#    a Stream Culvert); the first that answers decides.
# 2. the context (_los_context): the elevations with the Up-Slope ¾ (P2.3), the same-level tests (P2.31,
#    B14.2), the bridge hexes passed by road (B6.2).
# 3. _DEPRESSION_RULES (L, lasts, whole) -> _Block | None: an end IN a stream (B20.2, A6.3).
# 4. the walk (_walk), contact by contact along the thread: the rules of the contact's kind
#    (_HEXSIDE_CROSSED, _HEXSIDE_RUN_ALONG, _VERTEX_PASSED: (L, ...) -> _Block, False (decided: no block) or
#    None (not this rule's case)), then each obstacle met there through the rules of its kind
#    (_OBSTACLE_RULES, the same three answers) and each Hindrance through the rule of its kind
#    (_HINDRANCE_RULES -> _Met | None).
# 5. _OFF_THE_GRID (L) -> _Block | None: obstacles that lie on no hex or hexside (the P5.141 roadblock
#    segment); the first along the thread, before the walk's block, decides.
# 6. _CLEAR_LOS_RESTRICTIONS (L) -> _Block | None: rules that still block a LOS found clear (B9.21).
# 7. the A6.1 borderline test (_borderline).
#
# The walk consults a rule tuple per contact kind (a hexside only where the map has walls, an obstacle only
# when it stands higher than the LOS's lower end), never per pixel.


@dataclass(slots=True)
class _Block:
    """Where and by what a thread is blocked; ``blind``: the lower end lies in a Blind Hex (A6.4); ``also``:
    rules the ruling cites besides ``rule`` (the obstacle's own)."""

    t: float                 # along the thread, 0 at its start
    idx: int | None          # the hex index, or None for a hexside
    hexside: Hexside | None
    what: str
    rule: str
    blind: bool = False
    also: tuple[str, ...] = ()


@dataclass(slots=True)
class _Met:
    """A Hindrance the thread met; ``once``: the one +1 of orchards out of season seen from above (B14.2)."""

    t: float
    idx: int
    drm: int
    what: str
    rule: str
    once: bool = False


@dataclass(slots=True)
class _Outcome:
    """What the rules found for one thread: the block, the Hindrances met and the rules cited."""

    clear: bool = True
    block: _Block | None = None
    blind: bool = False
    hinds: list[_Met] = field(default_factory=list)
    drm: int = 0
    rules: list[str] = field(default_factory=list)
    walked: bool = False     # the thread was walked (no rule before the walk decided)

    def blocked(self, b: _Block) -> None:
        self.clear = False
        self.block = b
        self.blind = b.blind
        self.rules.extend(b.also)


class _Los(NamedTuple):
    """One LOS being decided: what every rule reads. Elevations are quarter levels."""

    tab: _Tables
    A: _End
    B: _End
    ea: int                  # A's elevation, with the Up-Slope ¾ where it counts (P2.3)
    eb: int
    up: tuple[bool, bool]    # whether A, B count Up-Slope
    lo: int                  # the lower and the higher of ea, eb
    hi: int
    slo: int                 # the same for "same-level" tests: Base Levels on a Fire Lane (P2.31)
    shi: int
    same: bool               # both ends at one level for an orchard (judgment.orchard_same_base_level)
    fire_lane: bool
    entrenched: tuple[bool, bool]
    bridge_road: Container[int]  # B6.2: bridge hexes the thread passes only through their road depiction
    reader: Depiction        # the depiction's reader of this thread (``depiction.begin``)


_R = TypeVar("_R", bound=Callable[..., Any])


def _reads(*tables: str, entrenched: bool = False) -> Callable[[_R], _R]:
    """Marks a rule that can answer only on a map whose tables named here are not empty (its walls, its
    roadblock segments, a judgment call's reading, ...): a map's :class:`_Rulebook` leaves the rule out
    elsewhere, so the pairs of a board without walls ask no wall rule. ``entrenched``: a rule that answers
    only for an entrenched end, asked only then."""

    def mark(rule: _R) -> _R:
        rule.reads = tables  # type: ignore[attr-defined]
        rule.entrenched_only = entrenched  # type: ignore[attr-defined]
        return rule

    return mark


# -------------------------------------------------------------------------- 1. without a thread


def los_within_one_hex(tab: _Tables, A: _End, B: _End) -> _Outcome | None:
    """A6.1: two Locations at one point of a hex (or a Stream Culvert and another Location of its hex) see
    each other, with the SMOKE of that hex (A24.2); except a unit on a bridge and one beneath it (B6.2) and a
    Stream Culvert and a Location of its hex outside it (P4.2)."""
    if A.idx != B.idx or not (A.point == B.point or A.kind == "culvert" or B.kind == "culvert"):
        return None
    out = _Outcome()
    if A.idx in tab.bridges and {A.kind, B.kind} == {"ground", "in"}:
        out.blocked(_Block(0.0, A.idx, None, "the bridge (a unit on it and one beneath it)", "B6.2"))
    elif (A.kind == "culvert") != (B.kind == "culvert"):
        out.blocked(_Block(0.0, A.idx, None, "Stream Culvert (sees only ADJACENT stream and culvert Locations)",
                           "P4.2"))
    out.rules.append("A6.1")
    if tab.smoke[A.idx]:
        out.drm = tab.smoke[A.idx]
        out.hinds.append(_Met(0.0, A.idx, out.drm, f"SMOKE {out.drm}", "A24.2"))
    return out


@_reads("culverts")
def stream_culvert_sees_only_adjacent(tab: _Tables, A: _End, B: _End) -> _Outcome | None:
    """P4.2: a unit IN a Stream Culvert sees only ADJACENT stream (IN) and culvert Locations, and only they
    see it (digest §7.18: adjacent hexes sharing a stream hexside; Crest-status units excluded)."""
    if A.kind != "culvert" and B.kind != "culvert":
        return None
    other, me = (B, A) if A.kind == "culvert" else (A, B)
    out = _Outcome(rules=["P4.2"])
    ok = (other.kind in ("in", "culvert") and me.hex.is_adjacent(other.hex)
          and tab.side_key(Hexside.of(me.hex, other.hex)) in tab.stream_sides)
    if not ok:
        out.blocked(_Block(0.5, me.idx, None, "Stream Culvert (sees only ADJACENT stream and culvert Locations)",
                           "P4.2"))
    return out


_WITHOUT_A_THREAD: tuple[Callable[[_Tables, _End, _End], _Outcome | None], ...] = (
    los_within_one_hex,
    stream_culvert_sees_only_adjacent,
)


# -------------------------------------------------------------------------- 2. the context


def up_slope(tab: _Tables, e: _End, p: Point, q: Point, at_start: bool) -> bool:
    """P2.3: whether end ``e`` counts ¾ level higher (``param.up_slope_height``) to the thread p-q: it may
    (judgment.up_slope_locations) and the thread leaves (``at_start``) or enters its hex across one of its
    Up-Slope hexsides or through their vertices (P2.1), not along one."""
    if not (e.up_sides and e.slope_ok):
        return False
    cx, cy = e.hex.centre()
    return not _side_steps(e.hex, e.up_sides).isdisjoint(
        _boundary_steps(p[0] - cx, p[1] - cy, q[0] - cx, q[1] - cy, at_start))


_REF = Hex(64, 64)  # any hex: the grid looks the same from every hex centre (a lattice; grid.trace is exact)


def _direction(h: Hex, hs: Hexside) -> int:
    """Hexside ``hs`` of ``h`` as the direction of the neighbour across it (:meth:`Hex.direction_to`)."""
    return h.direction_to(hs.b if hs.a == h else hs.a)


@lru_cache(maxsize=4096)
def _side_steps(h: Hex, sides: frozenset[Hexside]) -> frozenset[int]:
    return frozenset(_direction(h, hs) for hs in sides)


@lru_cache(maxsize=1 << 16)
def _boundary_steps(px: int, py: int, qx: int, qy: int, at_start: bool) -> frozenset[int]:
    """:func:`_boundary` of a thread from ``p`` to ``q`` given relative to the centre of its end's hex, as
    directions (:func:`_direction`): the same at every hex, so it is traced once per shape (a board's pairs
    ask each shape about 45 times)."""
    rx, ry = _REF.centre()
    tr = grid.trace((px + rx, py + ry), (qx + rx, qy + ry))
    return frozenset(_direction(_REF, hs) for hs in _boundary(tr, _REF, at_start))


def _los_context(tab: _Tables, A: _End, B: _End, entrenched: tuple[bool, bool], fire_lane: bool) -> _Los:
    ea, eb = A.elev, B.elev
    up_a = up_b = False
    if A.up_sides or B.up_sides:
        up_a, up_b = up_slope(tab, A, A.point, B.point, True), up_slope(tab, B, A.point, B.point, False)
        ea, eb = ea + tab.up * up_a, eb + tab.up * up_b
    lo, hi = (ea, eb) if ea <= eb else (eb, ea)
    if fire_lane:  # P2.31: "same-level" compares Base Levels, not the Up-Slope elevations
        slo, shi = (A.elev, B.elev) if A.elev <= B.elev else (B.elev, A.elev)
    else:
        slo, shi = lo, hi
    same = A.elev == B.elev if tab.same_base_orchard else ea == eb
    road = _BridgeRoad(tab, A, B) if tab.bridges else _NO_HEXES  # worked out when a bridge is weighed
    # tuple.__new__: the NamedTuple's own __new__ is one more Python call for each of a board's pairs
    return tuple.__new__(_Los, (tab, A, B, ea, eb, (up_a, up_b), lo, hi, slo, shi, same, fire_lane, entrenched, road,
                                tab.depiction.begin(A.point, B.point)))


def _own_hex_smoke(A: _End, B: _End) -> list[_Met]:
    """A24.2: SMOKE in the firer's or target's own hex hinders the LOS (digest 3.1, 3.8)."""
    return [_Met(t, e.idx, e.smoke, f"SMOKE {e.smoke}", "A24.2") for e, t in ((A, 0.0), (B, 1.0)) if e.smoke]


_HALF_SQRT3 = math.sqrt(3) / 2


def _passes_near(p: Point, q: Point, c: Point) -> bool:
    """Whether the segment p-q (scaled points) comes within a hex's circumradius of the centre c, with a
    margin: a thread that passes through the hex of c always does (a cheap, conservative test)."""
    px, py, qx, qy = p[0] / 2, p[1] * _HALF_SQRT3, q[0] / 2, q[1] * _HALF_SQRT3
    cx, cy = c[0] / 2, c[1] * _HALF_SQRT3
    dx, dy = qx - px, qy - py
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((cx - px) * dx + (cy - py) * dy) / n))
    ex, ey = px + t * dx - cx, py + t * dy - cy
    return ex * ex + ey * ey <= 1.0 + 1e-6


def _bridge_road_only(tab: _Tables, A: _End, B: _End) -> frozenset[int]:
    """The bridge hexes (indices) the thread A-B passes through entering and leaving across road hexsides
    of the hex, at no vertex (B6.2: a LOS traced only through the road depiction of the bridge). Read from
    the thread's compiled contacts: a hex interior entered (left) across a hexside has that crossing just
    before (after) it; one entered at a vertex has the vertex's contacts there instead."""
    if not any(_passes_near(A.point, B.point, tab.hex_of(i).centre()) for i in tab.bridges if i not in (A.idx, B.idx)):
        return frozenset()  # no bridge hex within reach of the thread: nothing to trace
    comp, base = tab.compiled(A.point, B.point)
    cs = comp.contacts
    got: set[int] = set()
    for n, c in enumerate(cs):
        if c[0] != _S:
            continue
        i = base + c[3]
        if i not in tab.bridges or i == A.idx or i == B.idx:
            continue  # (an end's hex: the first or last contact, so n - 1 and n + 1 below are on the thread)
        before, after = cs[n - 1], cs[n + 1]
        if before[0] != _X or after[0] != _X:
            continue
        roads = tab.bridge_roads(i)
        if all((base + x[4] if base + x[3] == i else base + x[3]) in roads for x in (before, after)):
            got.add(i)
    return frozenset(got)


class _BridgeRoad:
    """:func:`_bridge_road_only` of one thread, worked out when a bridge's Hindrance is first weighed: most
    threads never meet one, and the exact trace it needs is the costliest step of a walk."""

    __slots__ = ("A", "B", "got", "tab")

    def __init__(self, tab: _Tables, A: _End, B: _End) -> None:
        self.tab, self.A, self.B = tab, A, B
        self.got: frozenset[int] | None = None

    def __contains__(self, i: object) -> bool:
        if self.got is None:
            self.got = _bridge_road_only(self.tab, self.A, self.B)
        return i in self.got


# -------------------------------------------------------------------------- 3. an end IN a stream


def _depression_runs(tab: _Tables, contacts: tuple[tuple[Any, ...], ...], base: int,
                     A: _End, B: _End, reader: Depiction) -> tuple[dict[int, bool], list[int], bool]:
    """Which contacts lie within the stream depiction next to an end IN a stream (B20.2, A6.3).

    Returns (contacts in depression mode, the last hex index within the depiction from each IN end,
    whether the whole thread stays within it)."""
    art = reader if tab.artwork else None

    def within(c: tuple[Any, ...]) -> bool | None:
        k = c[0]
        if k == _S:
            return bool(tab.stream[base + c[3]])
        if k == _A:
            key = (base + c[3], base + c[4])
            return tab.stream[key[0]] and tab.stream[key[1]] and key in tab.stream_sides
        if k == _X or k == _P:
            return (base + c[3], base + c[4]) in tab.stream_sides
        return None

    dep: dict[int, bool] = {}
    lasts: list[int] = []
    whole = True
    for end, order in ((A, range(len(contacts))), (B, range(len(contacts) - 1, -1, -1))):
        if end.kind != "in":
            continue
        last = end.idx
        for n in order:
            c = contacts[n]
            w = within(c)
            if w is None:
                dep[n] = True
                continue
            if not w:
                whole = False
                break
            if c[0] == _S and art is not None and not art.in_depression(base + c[3], c[1], c[2]):  # type: ignore[attr-defined]
                # on an imported board the stream or gully is followed as drawn (A6.1): the thread
                # enters this stream hex within the depiction and leaves the depiction inside it: this
                # is the last hex within the depression
                dep[n] = True
                last = base + c[3]
                whole = False
                break
            dep[n] = True
            if c[0] == _S:
                last = base + c[3]
        lasts.append(last)
    return dep, lasts, whole


def both_ends_in_a_stream(L: _Los, lasts: list[int], whole: bool) -> _Block | None:
    """B20.2: two Locations IN a stream see each other only while the thread stays within the stream
    depiction; it is blocked at the last hex within it from the firer's end, where it leaves."""
    if L.A.kind != "in" or L.B.kind != "in" or whole:
        return None
    return _Block(0.5, lasts[0], None, "the stream depiction's banks (both ends IN a stream; the thread leaves the "
                  "depiction after this hex)", "B20.2")


def one_end_in_a_stream(L: _Los, lasts: list[int], whole: bool) -> _Block | None:
    """A6.3: a Location IN a stream and one outside see each other only if the higher end is at least as many
    levels higher as its range from the last hex within the depiction (the bank blocks otherwise)."""
    if (L.A.kind == "in") == (L.B.kind == "in"):
        return None
    low, high, e_low, e_high = (L.A, L.B, L.ea, L.eb) if L.A.kind == "in" else (L.B, L.A, L.eb, L.ea)
    last = lasts[0]
    need = L.tab.dist(last, high.idx)
    if e_high - e_low >= need * _Q:
        return None
    return _Block(0.0 if low is L.A else 1.0, last, None,
                  (f"the bank of the stream (an elevation difference of {_levels(e_high - e_low)} "
                   f"is less than the range {need} from the last hex inside the depiction)"), "A6.3")


_DEPRESSION_RULES: tuple[Callable[[_Los, list[int], bool], _Block | None], ...] = (
    both_ends_in_a_stream,
    one_end_in_a_stream,
)


# -------------------------------------------------------------------------- 4. hexsides and vertices met


def _own_hexside(L: _Los, key: tuple[int, int]) -> bool:
    a, b = key
    ia, ib = L.A.idx, L.B.idx
    return a == ia or a == ib or b == ia or b == ib


@_reads("rowhouse")
def rowhouse_wall(L: _Los, key: tuple[int, int], t: float) -> _Block | None:
    """B23.71: a rowhouse wall the thread crosses (or runs along: its bar straddles the hexside, A6.1) blocks
    it unless the LOS's higher end is above the wall's top (the taller building of its two hexes), even where
    the wall is a hexside of the firer's or target's own hex: units in a rowhouse do not see through its
    walls."""
    rw = L.tab.rowhouse.get(key)
    if rw is None or rw.top < L.hi:
        return None
    return _Block(t, None, rw.hexside, "rowhouse wall", "B23.71", also=("B23.71",))


def bocage_blocks(L: _Los, w: _Wall, key: tuple[int, int], t: float, how: str = "") -> _Block | None:
    """B9.52: a bocage hexside (not one of the firer's or target's own hexsides, B9.2) crossed by the thread
    is a one-level obstacle on that hexside, not a Half-Level one: it blocks a LOS whose higher end is no
    higher than its top while the lower end is below it, or that it tops (A6.2); a LOS from higher still
    may leave the lower end in one of its Blind Hexes (A6.4), counted from the bocage hexside's hex on the
    higher end's side. Two Locations both level with its top see over it (as VASL reads B9.52)."""
    top, lo, hi = w.top, L.lo, L.hi
    what = f"{w.what} {how}".rstrip()
    if top > hi or (top == hi and top > lo):
        return _Block(t, None, w.hexside, f"{what} (one-level obstacle)", w.rule, also=(w.rule,))
    if lo < top < hi:
        H = L.A if L.ea > L.eb else L.B
        near = min(key, key=lambda i: L.tab.dist(H.idx, i))
        if _blind_source(L, top, (near,), False) is not None:
            return _Block(t, None, w.hexside, f"{what}: Blind Hex", "A6.4", blind=True, also=(w.rule,))
    return None


@_reads("bocage")
def bocage_crossed(L: _Los, key: tuple[int, int], t: float) -> _Block | Literal[False] | None:
    """B9.52 for a bocage hexside crossed (:func:`bocage_blocks`); a hexside of the firer's or target's own
    hex is none (B9.2)."""
    w = L.tab.walls.get(key)
    if w is None or not w.full:
        return None
    return False if _own_hexside(L, key) else (bocage_blocks(L, w, key, t) or False)


@_reads("walls")
def wall_crossed(L: _Los, key: tuple[int, int], t: float) -> _Block | Literal[False] | None:
    """B9.2: a wall, hedge or B29 roadblock crossed by the thread is a Half-Level obstacle: it blocks a LOS
    between Locations both below its top ("same-level", Base Levels on a Fire Lane, P2.31), except a hexside
    of the firer's or target's own hex."""
    w = L.tab.walls.get(key)
    if w is None or w.full:
        return None
    if _own_hexside(L, key) or w.top <= L.shi:
        return False
    return _Block(t, None, w.hexside, f"{w.what} (Half-Level obstacle)", w.rule)


@_reads("bocage")
def bocage_run_along(L: _Los, key: tuple[int, int], t: float) -> _Block | Literal[False] | None:
    """B9.52 for a bocage hexside the thread runs along lengthwise, where it counts (:func:`_along_wall_counts`,
    B9.2)."""
    w = L.tab.walls.get(key)
    if w is None or not w.full:
        return None
    if bocage_along_counts(L.tab, key, L.A.idx, L.B.idx):
        return bocage_blocks(L, w, key, t, "run along") or False
    return False


def bocage_along_counts(tab: _Tables, key: tuple[int, int], ia: int, ib: int) -> bool:
    """Whether bocage the thread runs along lengthwise (on a hexspine) is an obstacle: by B9.2's rule for a
    wall or hedge lying along a LOS (``_along_wall_counts``; bocage is a hedge, B9.5), or, with
    judgment.bocage_along_hexspine = "blocks", unless it is a hexside of the viewing or target hex."""
    if tab.bocage_along_blocks:
        return key[0] not in (ia, ib) and key[1] not in (ia, ib)
    return _along_wall_counts(tab, key, ia, ib)


@_reads("walls")
def wall_run_along(L: _Los, key: tuple[int, int], t: float) -> _Block | Literal[False] | None:
    """B9.2: a wall or hedge the thread runs along lengthwise (on a hexspine) blocks as one crossed, where it
    counts (:func:`_along_wall_counts`: the B9.2 EX)."""
    w = L.tab.walls.get(key)
    if w is None or w.full or w.top <= L.shi or not _along_wall_counts(L.tab, key, L.A.idx, L.B.idx):
        return None
    return _Block(t, None, w.hexside, f"{w.what} run along (Half-Level obstacle)", "B9.2")


def _along_wall_counts(tab: _Tables, key: tuple[int, int], ia: int, ib: int) -> bool:
    """B9.2: whether a wall or hedge the thread runs along lengthwise (on a hexspine) is an obstacle.

    A hexside of the firer's or target's own hex never is. One that touches neither end hex is. One that
    touches an end hex at a vertex is only if its other vertex, the one opposite the viewing/target hex
    (part of neither end hex), has walls or hedges on all three hexspines (the B9.2 EX: 6Z9 -> X6 is clear
    with Y8-Z8 a wall, blocked if Y8-Y9 is a hedge as well). Walls at the vertex touching the end hex do not
    count: two of them are the end hex's own hexsides."""
    if key[0] in (ia, ib) or key[1] in (ia, ib):
        return False
    hs = tab.walls[key].hexside
    ends = {ia, ib}
    far = [v for v in hs.vertices() if not ends.intersection(tab.idx(h) for h in v.hexes)]
    if len(far) == 2:
        return True
    walls = tab.walls
    return any(all(tab.side_key(s) in walls for s in v.hexsides()) for v in far)


def _wall_at(L: _Los, c: tuple[Any, ...], base: int, j: int) -> _Wall | None:
    """The wall, hedge, bocage or B29 roadblock on the hexside at ``c[j], c[j + 1]`` of a vertex contact that
    is high enough to matter (B9.2: same-level LOS; bocage: as high as the higher end, B9.52), not on a
    hexside of the firer's or target's own hex (B9.2)."""
    a, b = base + c[j], base + c[j + 1]
    w = L.tab.walls.get((a, b))
    ia, ib = L.A.idx, L.B.idx
    if w is None or a == ia or a == ib or b == ia or b == ib:
        return None
    if w.top <= L.shi and not (w.full and w.top >= L.hi):
        return None
    return w


@_reads("bocage", "bocage_vertex_blocks")
def bocage_touched_at_its_end_vertex(L: _Los, c: tuple[Any, ...], base: int) -> _Block | None:
    """B9.1 (judgment.bocage_vertex "vertices-included"): a bocage hexside includes its vertices, so a thread
    through one of its end vertices is blocked as by a hedge there."""
    if not L.tab.bocage_vertex_blocks:
        return None
    for j in range(3, len(c), 2):
        w = _wall_at(L, c, base, j)
        if w is not None and w.full:
            return _Block(c[1], None, w.hexside, f"{w.what} touched at its end vertex (one-level obstacle)", w.rule,
                          also=("B9.1",))
    return None


@_reads("walls")
def walls_meeting_at_a_vertex(L: _Los, c: tuple[Any, ...], base: int) -> _Block | None:
    """Walls, hedges and B29 roadblocks meeting at a vertex the thread passes through block it only when such
    an obstacle high enough to matter (:func:`_wall_at`) lies on each side of it (A6.1: an obstacle blocks a
    thread that crosses it, visible on both sides; B9.1: a wall's hexside includes its vertices): the thread
    then passes through the corner where they join. A lone wall the thread only touches at its end vertex,
    on one side, does not block (the B9.2 EX's wall Y8-Z8); judgment.wall_vertex_both_sides false reads
    B9.1's vertices as part of the wall: any one of them blocks."""
    w1 = _wall_at(L, c, base, 3)
    if not L.tab.wall_vertex_both_sides:
        for j in range(5, len(c), 2):
            w1 = w1 or _wall_at(L, c, base, j)
        if w1 is None:
            return None
        kind = "one-level" if w1.full else "Half-Level"
        return _Block(c[1], None, w1.hexside, f"{w1.what} touched at its end vertex ({kind} obstacle)", w1.rule)
    if w1 is None:
        return None
    for j in range(5, len(c), 2):
        w2 = _wall_at(L, c, base, j)
        if w2 is not None:
            what = f"{w1.what}s" if w1.what == w2.what else f"{w1.what} and {w2.what}"
            what += (" meeting at a vertex, on both sides of the LOS "
                     f"({'one-level' if w1.full or w2.full else 'Half-Level'} obstacle)")
            return _Block(c[1], None, w1.hexside, what, w1.rule)
    return None


_HexsideRule: TypeAlias = Callable[[_Los, tuple[int, int], float], _Block | Literal[False] | None]
_HEXSIDE_CROSSED: tuple[_HexsideRule, ...] = (rowhouse_wall, bocage_crossed, wall_crossed)
_HEXSIDE_RUN_ALONG: tuple[_HexsideRule, ...] = (rowhouse_wall, bocage_run_along, wall_run_along)
_VERTEX_PASSED: tuple[Callable[[_Los, tuple[Any, ...], int], _Block | None], ...] = (
    bocage_touched_at_its_end_vertex,
    walls_meeting_at_a_vertex,
)


# -------------------------------------------------------------------------- 4. obstacles and Hindrances met


def half_level_obstacle(L: _Los, o: _Obs, t: float) -> _Block | Literal[False] | None:
    """B9.2: a Half-Level obstacle in a hex (rubble, a depicted wall) blocks a LOS between Locations both
    below its top ("same-level"), and no other."""
    if o.top > L.shi:
        return _Block(t, o.srcs[0], None, f"{o.what} (Half-Level obstacle)", o.rule)
    return False


def orchard_at_its_own_level(L: _Los, o: _Obs, t: float) -> _Block | Literal[False] | None:
    """B14.2: an orchard in season is no obstacle to a LOS between Locations at one level (it is a Hindrance
    there, :func:`orchard_in_season_hinders`); to or from a higher elevation it is an obstacle."""
    return False if L.same else None


def crest_of_an_adjacent_lower_hex(L: _Los, o: _Obs, t: float) -> _Block | Literal[False] | None:
    """B10.2's exception: a LOS from a higher Location may always pass through a Crest Line in an ADJACENT
    lower hex (the B10.2 EX: 15Y4 fires through Y3 to Y2). On a board's artwork the crest of the higher
    ground can be drawn inside that lower hex (bd08's lake shore): ground there no higher than the viewer,
    in a hex adjacent to the viewer's whose Base Level is below the viewer's, does not block."""
    if o.top != L.hi or L.ea == L.eb:
        return None
    H = L.A if L.ea >= L.eb else L.B
    tab = L.tab
    if H.kind in ("ground", "crest") and all(tab.dist(s, H.idx) == 1 and tab.ground_at(s) < H.base
                                             for s in o.srcs):
        return False
    return None


def obstacle_as_high_as_the_higher_end(L: _Los, o: _Obs, t: float) -> _Block | Literal[False] | None:
    """A6.2 (B10.2 for the ground of a hill): an obstacle as high as the higher end, or higher, blocks."""
    if o.top < L.hi:
        return None
    return _Block(t, o.srcs[0], None, o.what, "A6.2" if o.kind is not _CREST else "B10.2", also=(o.rule,))


def blind_hex(L: _Los, o: _Obs, t: float) -> _Block | Literal[False] | None:
    """A6.4 (B10.23 for a Crest Line, B11.21 for a cliff): an obstacle between the ends' elevations puts the
    lower end in a Blind Hex when it is within the obstacle's Blind Hexes (:func:`_blind_source`)."""
    crest = o.kind is _CREST
    src = _blind_source(L, o.top, o.srcs, crest)
    if src is None:
        return None
    rule = "B10.23" if crest else "A6.4"
    if crest and cliff_blind_hexes(L.tab, src, *((L.A, L.B) if L.ea > L.eb else (L.B, L.A))):
        rule = "B11.21"
    return _Block(t, src, None, f"{o.what}: Blind Hex", rule, blind=True, also=(o.rule,))


_DRAWN_WALLS = ("wall", "hedge", "bocage")
_PERIOD = 6  # drawn-wall numbers repeat every six columns and rows: never two such hexsides near one hex


def _drawn_wall_number(hs: Hexside) -> int:
    """The number a hexside's wall pixels carry (see ``ArtworkRaster.with_hexside_art``): its direction N, NE or
    SE from its hex on that side, and that hex's column and row modulo six."""
    d = hs.a.direction_to(hs.b)
    h = hs.a if d < 3 else hs.b
    return d % 3 + 3 * (h.col % _PERIOD + _PERIOD * (h.row % _PERIOD))


def _drawn_wall_key(tab: _Tables, i: int, n: int) -> tuple[int, int] | None:
    """The wall (its key in ``tab.walls``) whose pixels carry number ``n`` and were met in or beside hex index
    ``i``: the one such hexside near the hex; None if it carries no wall."""
    h = tab.hex_of(i)
    d, rest = n % 3, n // 3
    cm, rm = rest % _PERIOD, rest // _PERIOD
    col = h.col + (cm - h.col + _PERIOD // 2) % _PERIOD - _PERIOD // 2
    row = h.row + (rm - h.row + _PERIOD // 2) % _PERIOD - _PERIOD // 2
    a = Hex(col, row)
    key = tab.side_key(Hexside.of(a, a.neighbour(d)))
    return key if key in tab.walls else None


def _runs_along(p: Point, q: Point, hs: Hexside) -> bool:
    """Whether the thread from ``p`` to ``q`` lies exactly along hexside ``hs`` (on its hexspine)."""
    (x0, y0), (x1, y1) = p, q
    for vx, vy in hs.endpoints():
        if abs((x1 - x0) * (vy - y0) - (y1 - y0) * (vx - x0)) > 1e-9:
            return False
    return True


def _crossing(p: Point, q: Point, hs: Hexside) -> float | None:
    """The parameter (0 at ``p``, 1 at ``q``) where the thread crosses hexside ``hs`` between its end
    vertices, or None where it does not."""
    (x0, y0), (x1, y1) = p, q
    (ax, ay), (bx, by) = hs.endpoints()
    den = (x1 - x0) * (by - ay) - (y1 - y0) * (bx - ax)
    if den == 0:
        return None
    tn = (ax - x0) * (by - ay) - (ay - y0) * (bx - ax)
    un = (ax - x0) * (y1 - y0) - (ay - y0) * (x1 - x0)
    if den < 0:
        den, tn, un = -den, -tn, -un
    # compared as numerators (exact for the integer points of centre dots): through a vertex is no crossing
    return tn / den if 0 <= tn <= den and 0 < un < den else None


def wall_as_drawn(L: _Los, o: _Obs, t: float) -> _Block | Literal[False] | None:
    """B9.1: on a board's artwork the thick wall, hedge or bocage depiction, as well as the hexside itself,
    represents the wall and affects any LOS through it: a thread crossing the drawing where it spills past its
    hexside's end meets the wall as if it crossed the hexside. B9.2 still decides: it is a Half-Level
    obstacle to same-level LOS (bocage: a one-level one, B9.52), never one to any part of its own hex, and a
    wall lying lengthwise along the LOS is ruled by the hexspine rule (``_along_wall_counts``), not by its
    drawing; a wall whose hexside the thread crosses is ruled where it crosses it (the hexside rules). Where
    the thread meets the drawing past the hexside's end, the drawing must lie on both sides of it (A6.1): a
    thread through the corner where two drawn walls join, beside one of them, is not blocked by that one.
    The obstacle's ``srcs`` are the wall's key in ``tab.walls``."""
    A, B = L.A, L.B
    if A.idx in o.srcs or B.idx in o.srcs:
        return False
    key = (o.srcs[0], o.srcs[1])
    w = L.tab.walls[key]
    if not w.full and w.top <= L.shi:  # no higher than the higher end: no Half-Level obstacle, drawn or not
        return False
    if _runs_along(A.point, B.point, w.hexside) or _crossing(A.point, B.point, w.hexside) is not None:
        return False
    if not L.reader.drawn_on_both_sides(key):  # type: ignore[attr-defined]
        return False
    how = "as drawn past its hexside"
    if w.full:
        b = bocage_blocks(L, w, key, t, how)
    else:
        b = _Block(t, None, w.hexside, f"{w.what} {how} (Half-Level obstacle)", "B9.1")
    if b is None:
        return False
    b.also += ("B9.1",)
    return b


def _blind_source(L: _Los, top: int, srcs: tuple[int, ...], crest: bool) -> int | None:
    """The obstacle hex that puts the lower end in a Blind Hex (A6.4-.43; B10.23 for a crest), or None.

    Counts use the Locations' own elevations, slopes ignored (P2.3), by whole levels (digest §7.4)."""
    tab = L.tab
    H, Lo = (L.A, L.B) if L.ea > L.eb else (L.B, L.A)
    for s in srcs:
        R = tab.dist(H.idx, s)
        n = 1 + max(0, (top - Lo.elev) // _Q - 1) + R // tab.blind_step - max(0, (H.elev - top) // _Q - 1)
        n = max(n, 1)
        if crest and not cliff_blind_hexes(tab, s, H, Lo):
            n -= 1
        if tab.dist(s, Lo.idx) <= n:
            return s
    return None


def cliff_blind_hexes(tab: _Tables, s: int, H: _End, L: _End) -> bool:
    """B11.21: unlike a Crest Line's (B10.23), the Blind Hexes a cliff hexside casts to a non-adjacent
    viewer are never reduced below one: whether the ground of hex ``s`` drops to the lower end ``L`` across
    one of its cliff hexsides (one whose other hex is nearer ``L``), seen from ``H`` not adjacent to it."""
    if not tab.cliffs or tab.dist(H.idx, s) <= 1:
        return False
    d = tab.dist(s, L.idx)
    return any(tab.dist(n, L.idx) < d for n in tab.cliffs.get(s, ()))


_ObstacleRule: TypeAlias = Callable[[_Los, _Obs, float], _Block | Literal[False] | None]
_OBSTACLE_RULES: Mapping[ObstacleKind, tuple[_ObstacleRule, ...]] = MappingProxyType({
    ObstacleKind.CREST: (crest_of_an_adjacent_lower_hex, obstacle_as_high_as_the_higher_end, blind_hex),
    ObstacleKind.FULL: (obstacle_as_high_as_the_higher_end, blind_hex),
    ObstacleKind.HALF: (half_level_obstacle,),
    ObstacleKind.ORCHARD: (orchard_at_its_own_level, obstacle_as_high_as_the_higher_end, blind_hex),
    ObstacleKind.DRAWN_WALL: (wall_as_drawn,),
})


def hindrance_at_its_level(L: _Los, h: _Hind, t: float, met: list[_Met]) -> _Met | None:
    """A6.7: a Hindrance hinders a LOS at its own level (the higher end's same-level elevation no higher
    than its top, ``param.hindrance_height``), not a LOS above it."""
    return None if h.top < L.shi else _Met(t, h.srcs[0], h.drm, h.what, h.rule)


def orchard_in_season_hinders(L: _Los, h: _Hind, t: float, met: list[_Met]) -> _Met | None:
    """B14.2: an orchard in season is a Hindrance (+1 per hex, B14.21) to a LOS between Locations at one
    level, at its own level (A6.7); to or from a higher elevation it is an obstacle instead."""
    return None if h.top < L.shi or not L.same else _Met(t, h.srcs[0], h.drm, h.what, h.rule)


def out_of_season_orchard_hinders(L: _Los, h: _Hind, t: float, met: list[_Met]) -> _Met | None:
    """B14.2: whether an orchard out of season (Hindrance record ``h``, its top one level above its base)
    hinders this LOS; it is never an obstacle then.

    * Both ends at the same level (judgment.orchard_same_base_level), or the higher end no higher than the
      trees' top (at most one level above the orchard's base, the B14.21 EX's level 1 of J8 to H9): +1 for
      each orchard hex, as a same-level orchard.
    * Both ends at or above the top: no effect (the LOS passes over it, A6.2).
    * The higher end more than one level above the orchard's base: one +1 in all, and only from an orchard
      hex adjacent to the lower (ground-level) end, where it would cast its Blind Hex
      (judgment.orchard_out_of_season_los "adjacent-once"; "each" counts every orchard hex as above,
      "same-level" none).
    """
    top = h.top
    if top <= L.slo:
        return None
    if L.same or top >= L.shi or L.tab.orchard_out == "each":
        return _Met(t, h.srcs[0], h.drm, h.what, h.rule)
    if L.tab.orchard_out == "same-level" or any(x.once for x in met):
        return None
    lo_a = (L.A.elev <= L.B.elev) if L.fire_lane else (L.ea <= L.eb)
    low = L.A if lo_a else L.B
    if all(L.tab.dist(s, low.idx) != 1 for s in h.srcs):
        return None
    return _Met(t, h.srcs[0], h.drm, h.what, h.rule, once=True)


def bridge_hinders(L: _Los, h: _Hind, t: float, met: list[_Met]) -> _Met | None:
    """B6.2: a non-pontoon bridge Hinders a LOS drawn through its hex, unless the LOS is traced only
    through the bridge's road depiction (entering and leaving the hex across road hexsides, not at a
    vertex: ``L.bridge_road``) or is between Locations all beneath or all above the bridge's level (its
    top, the deck). EX: 13CC5 at ground level hinders BB5-FF3; J4 fires beneath the level-1 bridge at 13K6
    to L7 with no Hindrance."""
    deck, ea, eb = h.top, L.ea, L.eb
    if (ea < deck and eb < deck) or (ea > deck and eb > deck) or h.srcs[0] in L.bridge_road:
        return None
    return _Met(t, h.srcs[0], h.drm, h.what, h.rule)


_HindranceRule: TypeAlias = Callable[[_Los, _Hind, float, list[_Met]], _Met | None]
_HINDRANCE_RULES: Mapping[HindranceKind, _HindranceRule] = MappingProxyType({
    HindranceKind.OTHER: hindrance_at_its_level,
    HindranceKind.ORCHARD: orchard_in_season_hinders,
    HindranceKind.ORCHARD_OUT: out_of_season_orchard_hinders,
    HindranceKind.BRIDGE: bridge_hinders,
})
# indexed by the kinds' values on the hot path (a dict keyed by an Enum member hashes its name)
_HALF_LEVEL_KINDS = frozenset({ObstacleKind.HALF})
"""Obstacle kinds met only by a LOS at their own level: compared with the ends' same-level elevations (B9.2;
Base Levels on a Fire Lane, P2.31), where any other kind is met when higher than the lower end (A6.2)."""
_OBSTACLE_RULES_BY_KIND: tuple[tuple[bool, tuple[_ObstacleRule, ...]], ...] = tuple(
    (k in _HALF_LEVEL_KINDS, _OBSTACLE_RULES[k]) for k in ObstacleKind)
_HINDRANCE_RULE_BY_KIND: tuple[_HindranceRule, ...] = tuple(_HINDRANCE_RULES[k] for k in HindranceKind)


def _walk(L: _Los, contacts: Iterable[tuple[Any, ...]], base: int, dep: dict[int, bool] | None, out: _Outcome
          ) -> _Block | None:
    """Walk the thread contact by contact, in order (A6.1): a hexside crossed or run along and a vertex passed
    through the rules of their kind, then what the thread meets in each hex (or along a hexside) through the
    obstacle rules and the Hindrance rule of each one's kind. Returns the first block; the Hindrances met
    before it are added to ``out`` (A6.7). It reads the thread's depiction through ``L.reader``; ``dep``: the
    contacts within a stream depiction next to an end IN it (read as the stream bed, B20.2).

    ``_walk.c`` is this function compiled, for a compiled shape's contacts (:func:`_decide`):
    the same steps in the same order, calling the same rules; tests/test_kernel.py holds them to the same
    answers. A change here is a change there."""
    tab, reader = L.tab, L.reader
    lo, slo, shi = L.lo, L.slo, L.shi
    floor = min(slo, lo)
    ia, ib = L.A.idx, L.B.idx
    dep_interior, dep_boundary = reader.interior, reader.boundary
    # vertex_any: the judgment lets any one wall at a vertex block
    recs_in, wall_hex, walled, block_at, vertex_any, crossed, run_along, vertex_rules = tab.walk_env
    obstacle_rules, hindrance_rule = _OBSTACLE_RULES_BY_KIND, _HINDRANCE_RULE_BY_KIND
    # the whole-hex depiction's interior() is a list lookup: read the list directly on the hot path
    recs: list[_Meet | None] | None = getattr(reader, "recs", None) if dep is None else None
    rec: _Meet
    for n, c in enumerate(contacts):
        k = c[0]
        if k == _S:
            idx = base + c[3]
            if idx == ia or idx == ib:
                continue
            if recs is not None:
                r = recs[idx]
                rec = r if r is not None else tab._fill(idx)
            else:
                rec = recs_in[idx] if dep is not None and n in dep else dep_interior(idx, c[1], c[2])
        elif k == _X:
            if wall_hex[base + c[3]] and (key := (base + c[3], base + c[4])) in walled:
                b = _first_block(crossed, L, key, c[1])
                if b is not None:
                    return b
            continue
        elif k == _A:
            ha, hb = base + c[3], base + c[4]
            if wall_hex[ha] and (ha, hb) in walled:
                b = _first_block(run_along, L, (ha, hb), c[1])
                if b is not None:
                    return b
            if dep is not None and n in dep:
                continue
            rec = _run_along(reader, ha, hb, ia, ib, c, tab.narrow)
        elif k == _T:
            idx = base + c[3]
            if idx == ia or idx == ib or (dep is not None and n in dep):
                continue
            rec = dep_boundary((idx,), c[1], c[2], False)
        elif k == _V:
            if (wall_hex[base + c[3]] or vertex_any) and (b := _vertex_block(vertex_rules, L, c, base)) is not None:
                return b
            continue
        else:  # _P: read by _depression_runs only
            continue
        q = rec.quick
        if q < floor or (q == floor and not (rec.hindrances and slo == shi == q)):
            continue
        t = c[1]
        for o in rec.obstacles:
            # an obstacle no higher than the lower end (Half-Level: its same-level elevation) is not met (A6.2)
            half, orules = obstacle_rules[o.kind]
            if o.top <= (slo if half else lo):
                continue
            for orule in orules:
                v = orule(L, o, t)
                if v is not None:
                    if v:
                        return v
                    break
        for h in rec.hindrances:
            m = hindrance_rule[h.kind](L, h, t, out.hinds)
            if m is not None:
                out.drm += m.drm
                out.hinds.append(m)
                if out.drm >= block_at:  # A6.7: Hindrances that add up to param.hindrance_blocks_at block
                    return _hindrance_total(t, m, out.drm)
    return None


def _hindrance_total(t: float, m: _Met, drm: int) -> _Block:
    """A6.7: the block where the Hindrances met add up to ``param.hindrance_blocks_at`` (``m`` the last)."""
    return _Block(t, m.idx, None, f"Hindrance total {drm}", "A6.7")


def _run_along(reader: Depiction, ha: int, hb: int, ia: int, ib: int, c: tuple[Any, ...],
               narrow: set[tuple[int, int]]) -> _Meet:
    """What the thread meets running along the hexside of hexes ``ha``, ``hb``: that of the hex only touched
    where the other is an end's own hex, else of the hexside (a Narrow Street's road lies on it, P5.1)."""
    if ha == ia or ha == ib:
        return reader.boundary((hb,), c[1], c[2], False)
    if hb == ia or hb == ib:
        return reader.boundary((ha,), c[1], c[2], False)
    return reader.boundary((ha, hb), c[1], c[2], (ha, hb) in narrow)


def _vertex_block(rules: tuple[Callable[[_Los, tuple[Any, ...], int], _Block | None], ...], L: _Los,
                  c: tuple[Any, ...], base: int) -> _Block | None:
    """The block of the first of ``rules`` that blocks at the vertex contact ``c``, or None."""
    for rule in rules:
        b = rule(L, c, base)
        if b is not None:
            return b
    return None


def _first_block(rules: tuple[_HexsideRule, ...], L: _Los, key: tuple[int, int], t: float) -> _Block | None:
    """The block of the first of ``rules`` that decides the hexside ``key`` (None: it does not block)."""
    for rule in rules:
        v = rule(L, key, t)
        if v is not None:
            return v or None
    return None


# -------------------------------------------------------------------------- 5, 6. after the walk


def _orient(a: Point, b: Point, c: Point) -> int:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _roadblocks_crossed(tab: _Tables, p: Point, q: Point) -> list[tuple[float, _Segment]]:
    """The Narrow Street roadblock segments the thread p-q crosses strictly between their centre dots, with
    where along the thread (P5.141)."""
    got = []
    for seg in tab.segments:
        c1, c2 = seg.c1, seg.c2
        d1, d2 = _orient(p, q, c1), _orient(p, q, c2)
        if d1 * d2 >= 0:
            continue
        d3, d4 = _orient(c1, c2, p), _orient(c1, c2, q)
        if d3 * d4 >= 0:
            continue
        got.append((d3 / (d3 - d4), seg))
    return got


@_reads("segments")
def narrow_street_roadblock(L: _Los) -> _Block | None:
    """P5.141: a Narrow Street roadblock is a Half-Level obstacle from the centre dot of one of its hexes
    to the other's; a LOS that crosses that segment strictly between the dots (the one reading,
    docs/chart-research.md) is blocked if at the roadblock's level, unless it begins or ends in one of
    the two hexes (B9.2's own-hex exception, judgment.roadblock_los_own_hex)."""
    if not L.tab.segments:
        return None
    first: _Block | None = None
    for t, seg in _roadblocks_crossed(L.tab, L.A.point, L.B.point):
        own = L.A.idx in (seg.ia, seg.ib) or L.B.idx in (seg.ia, seg.ib)
        if own and L.tab.roadblock_own_hex:
            continue
        if seg.top > L.hi and (first is None or t < first.t):
            first = _Block(t, None, seg.hexside, "Narrow Street roadblock (centre dot to centre dot)", "P5.141")
    return first


@_reads("walls", entrenched=True)
def wall_beside_an_entrenched_unit(L: _Los) -> _Block | None:
    """B9.21 (kept by P2.3): an entrenched unit beside a wall or hedge of its own hex sees, and is seen,
    across that hexside only from an ADJACENT Location or a higher one: a LOS leaving (entering) its hex
    across such a hexside is blocked there."""
    if not (L.entrenched[0] or L.entrenched[1]):
        return None
    tr = grid.trace(L.A.point, L.B.point)
    for flag, me, other, at_start in ((L.entrenched[0], L.A, L.B, True), (L.entrenched[1], L.B, L.A, False)):
        if not flag or me.hex.distance(other.hex) <= 1 or other.elev > me.elev:
            continue
        for hs in _boundary(tr, me.hex, at_start):
            w = L.tab.walls.get(L.tab.side_key(hs))
            if w is not None:
                return _Block(0.0 if at_start else 1.0, None, hs, f"{w.what} beside an entrenched unit", "B9.21")
    return None


_OFF_THE_GRID: tuple[Callable[[_Los], _Block | None], ...] = (narrow_street_roadblock,)
_CLEAR_LOS_RESTRICTIONS: tuple[Callable[[_Los], _Block | None], ...] = (wall_beside_an_entrenched_unit,)


@dataclass(frozen=True, slots=True)
class _Rulebook:
    """The rule tuples one map's tables ask: each tuple above, less the rules whose tables are empty on this
    map (:func:`_reads`). The order is the tuples' own."""

    without_a_thread: tuple[Callable[[_Tables, _End, _End], _Outcome | None], ...]
    crossed: tuple[_HexsideRule, ...]
    run_along: tuple[_HexsideRule, ...]
    vertex: tuple[Callable[[_Los, tuple[Any, ...], int], _Block | None], ...]
    off_the_grid: tuple[Callable[[_Los], _Block | None], ...]
    clear_los: tuple[Callable[[_Los], _Block | None], ...]            # for a LOS with an entrenched end
    clear_los_plain: tuple[Callable[[_Los], _Block | None], ...]      # less the rules of entrenched ends

    @staticmethod
    def of(tab: _Tables) -> _Rulebook:
        def active(rules: tuple[_R, ...]) -> tuple[_R, ...]:
            return tuple(r for r in rules if all(getattr(tab, t) for t in getattr(r, "reads", ())))

        clear = active(_CLEAR_LOS_RESTRICTIONS)
        return _Rulebook(active(_WITHOUT_A_THREAD), active(_HEXSIDE_CROSSED), active(_HEXSIDE_RUN_ALONG),
                         active(_VERTEX_PASSED), active(_OFF_THE_GRID), clear,
                         tuple(r for r in clear if not getattr(r, "entrenched_only", False)))


def _off_the_grid(L: _Los, out: _Outcome) -> None:
    """The obstacles off the grid: one that blocks before the walk's block (or on a clear thread) blocks
    there, and what lies beyond it is not met."""
    for rule in L.tab.book.off_the_grid:
        b = rule(L)
        if b is not None and (out.block is None or b.t < out.block.t):
            out.blocked(b)
            out.hinds = [h for h in out.hinds if h.t <= b.t]
            out.drm = sum(h.drm for h in out.hinds)


def _clear_los_restrictions(L: _Los, out: _Outcome, rules: tuple[Callable[[_Los], _Block | None], ...]) -> None:
    """The restrictions of a LOS found clear: the first that answers blocks it."""
    if out.clear:
        for rule in rules:
            b = rule(L)
            if b is not None:
                out.blocked(b)
                return


# -------------------------------------------------------------------------- the decision in order


def _decide(tab: _Tables, A: _End, B: _End, entrenched: tuple[bool, bool], want_borderline: bool,
            fire_lane: bool = False, compile_first: bool = False) -> tuple[_Outcome, int, int, bool, bool, bool]:
    """The rulebook above in order: returns (outcome, elevation of a, of b (quarters, with Up-Slope), up a,
    up b, borderline). ``compile_first``: compile the thread's shape at its first sight (a batch over a board,
    whose shapes each come back many times), not at its second."""
    book = tab.book
    for rule in book.without_a_thread:
        decided = rule(tab, A, B)
        if decided is not None:
            return decided, A.elev, B.elev, False, False, False
    L = _los_context(tab, A, B, entrenched, fire_lane)
    out = _Outcome()
    own_smoke = 0
    if A.smoke or B.smoke:
        out.hinds = _own_hex_smoke(A, B)
        out.drm = own_smoke = A.smoke + B.smoke
    # the thread's contacts: its compiled shape's (always for the borderline test and an end IN a stream, else
    # once its shape was met before), or traced as walked (a shape met for the first time, only as far as the
    # first block); hexsides crossed are left out on a map without walls, unless an end is IN a stream
    # (B20.2: where the thread leaves the stream depiction)
    ins = A.kind == "in" or B.kind == "in"
    got = (tab.compiled(A.point, B.point) if want_borderline or ins or compile_first else
           tab.reused(A.point, B.point))
    comp, base = got if got is not None else (None, 0)
    full = tab.full_contacts or ins
    contacts: Iterable[tuple[Any, ...]] = (_stream(tab, A.point, B.point) if comp is None else
                                           comp.contacts if full else comp.plain)
    reader = L.reader
    dep: dict[int, bool] | None = None
    if ins:
        assert isinstance(contacts, tuple)  # ends IN a stream always walk a compiled shape
        dep, lasts, whole = _depression_runs(tab, contacts, base, A, B, reader)
        out.rules.append("B20.2")
        for drule in _DEPRESSION_RULES:
            b = drule(L, lasts, whole)
            if b is not None:
                out.blocked(b)
                return out, L.ea, L.eb, L.up[0], L.up[1], False
    out.walked = True
    # the compiled walk: a compiled shape's contacts (a tuple), on a map whose per-index tables are lists
    if comp is not None and tab.kernel_env is not None and _kernel is not None:
        packed = comp._packed_full if full else comp._packed
        b = _kernel.walk(L, contacts, packed if packed is not None else comp.packed(full), base, A.idx, B.idx, out,
                         tab.whole_recs, reader, tab.kernel_env, dep)
    else:
        b = _walk(L, contacts, base, dep, out)
    if b is not None:
        out.blocked(b)
    if book.off_the_grid:
        _off_the_grid(L, out)
    restrictions = book.clear_los if entrenched[0] or entrenched[1] else book.clear_los_plain
    if out.clear and restrictions:
        _clear_los_restrictions(L, out, restrictions)
    borderline = False
    if want_borderline and dep is None:
        assert comp is not None and isinstance(contacts, tuple)  # the borderline test walks a compiled shape
        borderline = _borderline(L, comp, base, contacts, out, own_smoke)
    return out, L.ea, L.eb, L.up[0], L.up[1], borderline


def _borderline(L: _Los, comp: _Compiled, base: int, contacts: _Contacts, out: _Outcome, own_smoke: int) -> bool:
    """A6.1's borderline thread: whether the answer (clear, and its Hindrance DRM) changes when the thread is
    moved a hair (``param.borderline_tolerance``) to either side: over the artwork on an imported board,
    and on the grid (a thread exactly along a hexside or through a vertex)."""
    tab = L.tab
    ref = (out.clear, out.drm if out.clear else None)
    reader = L.reader
    variants: list[tuple[Iterable[tuple[Any, ...]], Depiction, bool]] = []
    if tab.artwork:
        for shift in (tab.tolerance_px, -tab.tolerance_px):
            # the grid-nudged walks below read the last shifted thread's pixels, as they always have
            reader = tab.depiction.begin(L.A.point, L.B.point, shift)
            variants.append((contacts, reader, False))
    nudged = comp.nudged if tab.walls or tab.rowhouse else comp.plain_nudged
    variants.extend((cs, reader, True) for cs in nudged or ())
    for walked, rd, off_grid in variants:
        o2 = _Outcome()
        o2.drm = own_smoke
        b = _walk(L._replace(reader=rd), walked, base, None, o2)
        if b is not None:
            o2.blocked(b)
        if off_grid and tab.book.off_the_grid:
            _off_the_grid(L, o2)
        if (o2.clear, o2.drm if o2.clear else None) != ref:
            return True
    return False


def _height_advantage(tab: _Tables, A: _End, B: _End) -> Literal["from", "to"] | None:
    """B10.31: a ground-level unit on a hill may claim Height Advantage vs fire from a lower elevation.

    Elevations without the Up-Slope ¾ (P2.3: being Up-Slope never grants HA)."""
    for me, other, word in ((A, B, "from"), (B, A, "to")):
        if me.kind in ("ground", "crest") and me.base > 0 and me.elev > other.elev:
            return word  # type: ignore[return-value]
    return None


# ============================================================================================ public API


def _resolve(m: Map, chart: Chart | None, conditions: Conditions | None) -> _Tables:
    """The tables of ``m`` under the chart and conditions given (default: the bundled chart, the map's own
    conditions). The engine takes typed values only: a query's ``conditions`` object is parsed at the edge
    (``ask``, the CLI: :meth:`Map.conditions_for`), never here."""
    if conditions is None:
        conditions = m.conditions
    elif not isinstance(conditions, Conditions):
        raise TypeError(f"conditions: expected a Conditions (or None for the map's), got {type(conditions).__name__}; "
                        "parse a query's conditions object with Map.conditions_for() first")
    return _tables(m, chart or default_chart(), conditions)


def los(m: Map, a: Location, b: Location, *, chart: Chart | None = None,
        conditions: Conditions | None = None,
        entrenched: tuple[bool, bool] = (False, False), borderline: bool = True,
        fire_lane: bool = False) -> LosRuling:
    """Whether Location ``a`` has a line of sight to ``b``, and everything that decided it (A6).

    Parameters
    ----------
    m : Map
    a, b : Location
        Locations or Bypass positions at a vertex (``O17@O17-O18-N17``: traced from the vertex, A4.34).
    chart : Chart, optional
        The terrain chart (default: the bundled one).
    conditions : Conditions, optional
        Month, weather and SSR switches (orchard and grain seasons); default the map's. A query's
        ``conditions`` object is parsed first (:meth:`Map.conditions_for`).
    entrenched : (bool, bool)
        Whether ``a`` / ``b`` is entrenched (B9.21, kept by P2.3).
    borderline : bool
        Compute the A6.1 borderline flag (default True).
    fire_lane : bool
        A Fire Lane's LOS: "same-level" Hindrances and Half-Level obstacles compare Base Levels, not
        Up-Slope elevations (P2.31).

    Returns
    -------
    LosRuling

    Raises
    ------
    UnknownLocation
        A Location that does not exist on the map.
    QueryError
        A Bypass position along a hexside without its vertex.
    """
    tab = _resolve(m, chart, conditions)
    A = tab.end(a)
    B = tab.end(b)
    out, ea, eb, up_a, up_b, bl = _decide(tab, A, B, entrenched, borderline, fire_lane)
    if fire_lane:
        out.rules.append("P2.31")
    return _ruling(tab, A, B, out, ea, eb, up_a, up_b, bl)


def _ruling(tab: _Tables, A: _End, B: _End, out: _Outcome, ea: int, eb: int, up_a: bool, up_b: bool,
            bl: bool) -> LosRuling:
    prefix = tab.m.names
    if out.hinds:
        hinds = tuple(Hindrance(tab.hex_of(h.idx), h.what, h.drm, h.rule) for h in out.hinds)
        items = tuple(Item(Fraction(h.drm), f"{h.what} in {prefix.hex(h.hex)}", h.rule) for h in hinds)
    else:
        hinds, items = (), ()
    blocked = None
    rules = ["A6.1"]
    if out.block is not None:
        b = out.block
        blocked = BlockedBy(b.what, b.rule, tab.hex_of(b.idx) if b.idx is not None else None, b.hexside, b.t)
        rules.append("A6.2")
    if hinds:
        rules.append("A6.7")
    rules.extend(out.rules)
    if up_a or up_b:
        rules.append("P2.3")
    ha = _height_advantage(tab, A, B)
    if ha:
        rules.append("B10.31")
    notes: tuple[str, ...] = ()
    crossed: tuple[Hexside, ...] = ()
    roadblocks = _roadblocks_crossed(tab, A.point, B.point) if tab.segments and out.walked else []
    if roadblocks:
        crossed = tuple(seg.hexside for _, seg in roadblocks)
        notes += ("The LOS crosses the Narrow Street roadblock on "
                  + ", ".join(prefix.hexside(hs) for hs in crossed) + " (P5.141).",)
    return LosRuling(A.loc, B.loc, out.clear, blocked, hinds, out.drm, tab.dist(A.idx, B.idx), ha, (up_a, up_b),
                     out.blind, bl, items, (_lv(ea), _lv(eb)), A.point, B.point, crossed, tuple(rules), notes, prefix)


def los_verdicts(m: Map, pairs: Iterable[tuple[Location, Location]], *, chart: Chart | None = None,
                 conditions: Conditions | None = None
                 ) -> Iterator[tuple[bool, int, bool, int]]:
    """For each pair (a, b), what :func:`los` ``(m, a, b, borderline=False)`` rules, as the plain values
    ``(clear, hindrance DRM, blind, range)``, without building the ruling: the batch path of LOS tables,
    cross-checks and viewsheds (A6.1-.7). Pairs sharing a viewer and a thread shape share their work.

    :raises UnknownLocation: a Location that does not exist on the map.
    """
    tab = _resolve(m, chart, conditions)
    tab.warm()
    end = tab.end
    cube = tab._cube  # kept per end: the range is then three subtractions
    # a shape compiled at its first sight: a batch's shapes come back (a board's about 45 times each), except
    # on a very big map, whose long threads a walk mostly leaves at their first block
    first = not tab.sparse

    last_a: Location | None = None
    A: _End | None = None
    qa = ra = 0
    targets: dict[int, tuple[Location, _End, int, int]] = {}  # by identity: a table asks for the same objects again
    for a, b in pairs:
        if a is not last_a:
            last_a, A = a, end(a)
            qa, ra = cube(A.idx)
        got = targets.get(id(b))
        if got is None or got[0] is not b:
            if len(targets) > 100_000:
                targets.clear()
            B = end(b)
            got = targets[id(b)] = (b, B, *cube(B.idx))
        B = got[1]
        assert A is not None
        out = _decide(tab, A, B, (False, False), False, False, first)[0]
        dq, dr = qa - got[2], ra - got[3]
        yield out.clear, out.drm, out.blind, max(abs(dq), abs(dr), abs(dq + dr))
    tab.keep()


def viewshed_targets(m: Map, a: Location, level: int | None = None) -> list[Location]:
    """The Locations a viewshed looks at: one per hex other than ``a``'s, its base Location, or its
    building Location at ``level`` where it has one."""
    out = []
    for h in m.hexes():
        if h == a.hex:
            continue
        t = m.terrain(h)
        if level and t.is_building and level <= t.top_level:
            out.append(Location(h, level))
        else:
            out.append(Location(h))
    return out


def viewshed(m: Map, a: Location, *, level: int | None = None, chart: Chart | None = None,
             conditions: Conditions | None = None, entrenched: bool = False,
             progress: Callable[[int, int], None] | None = None) -> ViewshedRuling:
    """Every hex's Location (ground level, or building level ``level`` where the hex has one) that ``a``
    sees, with the Hindrance DRM of each LOS: exactly those for which :func:`los` is clear (A6.1-.7).
    ``progress(done, total)`` is called every 1,000 Locations looked at and at the end."""
    tab = _resolve(m, chart, conditions)
    A = tab.end(a)
    if a.bypass is not None and a.vertex is None:
        raise QueryError(f"{m.name_of(a)}: a viewshed is traced from a vertex; name the Bypass vertex")
    targets = viewshed_targets(m, a, level)
    tab.warm(stretches=False)
    vis: list[tuple[Location, int]] = []
    ent = (entrenched, False)
    for k, loc in enumerate(targets, start=1):
        B = tab.end(loc)
        out = _decide(tab, A, B, ent, False)[0]
        if out.clear:
            vis.append((loc, out.drm))
        if progress is not None and (k % 1000 == 0 or k == len(targets)):
            progress(k, len(targets))
    tab.keep()
    return ViewshedRuling(a, level, tuple(vis), len(targets), m.names)
