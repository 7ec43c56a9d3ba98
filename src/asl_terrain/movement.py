"""Movement: what one move costs, what a whole path costs, and everywhere a unit can reach.

This module decides the movement rules of the seeds and the base rules they lean on:

* B3.1 (paved/dirt road hexsides), B3.3/B3.4 (the Infantry road rate, its FFMO exposure, the road bonus),
  B3.41/B3.42 (the vehicle road rate, the halved climb surcharge, the doubled vehicle/wreck penalty),
  B3.43 (road-negating rubble, protection that costs the bonus);
* P2.5-P2.53 (Up-Slope and Down-Slope costs, skis, no vehicle across a Crest-Line slope), P2.54 (flagged);
* P4.11/P4.12 (stream-woods/brush/orchard entry and Crest costs), P4.21/P4.22 (the Stream Culvert), P4.3
  (printed fords cost as ford counters);
* P5.11 (Narrow Streets: Bypass along them, no road rate into an obstacle, no Dash, no rout along them,
  their SMOKE), P5.123 (VCA changes on them), P5.124 (VBM while towing), P5.126 (Bypass NA there),
  P5.141 (the Narrow Street roadblock);
* and the base costs of the terrain chart: every terrain of the map format, walls, hedges, fences and
  roadblocks, the doubled COT going up (B10.4), SMOKE as COT (B.2), building levels by stairwell
  (B23.42), Infantry Bypass (A4.3) and VBM (D2.3).

Shape (as networkx's shortest paths): the public :func:`move_cost`, :func:`path` and :func:`reach` wrap
one rules object (:class:`_Mover`) whose methods each decide one rule and return a :class:`MoveRuling`,
allowed or not, and :func:`reach` runs one private Dijkstra over (Location, state) nodes. The state is what
the rules remember along the way: whether the B3.4 road bonus can still apply (a Bypass position also
carries the hexside it was reached along, which decides P5.11's "along a Narrow Street"). The allowance is
the cutoff, raised by the road bonus for the states that kept it. The search's tables (adjacency lists,
built the first time a node is expanded) do not depend on the allowance, so every ``reach`` of one unit on
one map shares them; each way of entering a hex (its COT, the road rate) is its own edge, so the search
weighs an ALL cost against the road rate by the actual allowance. Every number comes from the terrain
chart.

Imports: chart, errors, grid, model, rulings, units. Never los, effects, render, ask or cli.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import heapq
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, NamedTuple

from .chart import Chart, default_chart
from .errors import NotAdjacent, QueryError, UnknownLocation
from .grid import Hex, Hexside, Naming, Vertex, naming
from .model import Conditions, HexsideTerrain, HexTerrain, Location, Map
from .rulings import Item, distinct, fmt, num
from .units import Unit

__all__ = [
    "MoveRuling",
    "PathRuling",
    "ReachRuling",
    "Reached",
    "Step",
    "VcaRuling",
    "bypass_hex",
    "crest_status_problem",
    "culvert_entry_problem",
    "is_crest_line_slope",
    "move_cost",
    "moves_up_slope",
    "narrow_street_bypass_blocked",
    "narrow_street_smoke",
    "path",
    "reach",
    "road_bonus_spoilers",
    "road_hex_type",
    "road_hexside_type",
    "road_negated",
    "vca_change",
]

ZERO = Fraction(0)
ONE = Fraction(1)
#: Dijkstra works on integer costs: every cost times this (halves and quarters, and more, are exact)
_SCALE = 5040

_DESC = {
    "infantry": "Infantry", "cavalry": "Cavalry", "wagon": "a Wagon", "fully-tracked": "a fully-tracked vehicle",
    "half-track": "a half-track", "armored-car": "an armored car", "truck": "a truck", "motorcycle": "a motorcycle",
}


# ============================================================================================ rulings


@dataclass(frozen=True, slots=True)
class MoveRuling:
    """The ruling on one move: allowed or not (with the rule that forbids it), its cost and items.

    ``items`` add up to ``cost``; a bonus (skis Down-Slope, P2.51) is an item with a negative amount.
    ``road_rate`` says whether the move used the road rate, ``ffmo_exposed`` whether that left Infantry
    to FFMO instead of the hex's TEM (B3.3), ``keeps_road_bonus`` whether this move leaves the B3.4 road
    bonus possible, ``all_mf`` whether the move takes ALL the unit's MF/MP (the cost is then its
    allowance), ``bog`` whether a vehicle must make a Bog check.
    """

    allowed: bool
    cost: Fraction | None
    units: str
    items: tuple[Item, ...] = ()
    frm: Location | None = None
    to: Location | None = None
    reason: str | None = None
    forbidden_by: str | None = None
    road_rate: bool = False
    ffmo_exposed: bool = False
    keeps_road_bonus: bool = False
    bypass: Hexside | None = None
    all_mf: bool = False
    bog: bool = False
    weather_elevation: bool = False
    notes: tuple[str, ...] = ()
    prefix: str | Naming = ""
    #: what spoils the B3.4 road bonus on this road-rate move (empty when it keeps it or is no road move)
    bonus_lost_by: tuple[str, ...] = ()
    #: rules that decided the move without an item of their own (a note's rule: P4.11 adds nothing across a
    #: stream hexside, the P5.2/P5.3 inherent stairwell, ...)
    note_rules: tuple[str, ...] = ()

    def rules(self) -> tuple[str, ...]:
        """The distinct rule references of the items, the notes' rules (and the forbidding rule), in order."""
        rs = [i.rule for i in self.items]
        rs.extend(self.note_rules)
        if self.forbidden_by:
            rs.append(self.forbidden_by)
        return distinct(rs)

    def _names(self) -> tuple[str, str]:
        """The canonical names of the Locations left and entered."""
        f = self.frm.text(self.prefix) if self.frm is not None else "?"
        t = self.to.text(self.prefix) if self.to is not None else "?"
        return f, t

    def explain(self) -> str:
        """Sentences a player can check: the verdict, then each item with its rule."""
        f, t = self._names()
        if not self.allowed:
            s = f"Moving from {f} to {t} is not allowed: {self.reason} ({self.forbidden_by})."
        else:
            s = (f"Moving from {f} to {t} costs {fmt(self.cost)} {self.units}: "
                 + "; ".join(f"{fmt(i.amount)} {i.why} ({i.rule})" for i in self.items) + ".")
            if self.road_rate:
                s += " It uses the road rate."
            if self.ffmo_exposed:
                s += (" Entering at the road rate leaves Infantry subject to Interdiction/FFMO instead of the "
                      "hex's TEM (B3.3).")
        if self.bonus_lost_by and self.road_rate:
            s += f" This road move earns no road bonus (B3.4): {', '.join(self.bonus_lost_by)}."
        if self.notes:
            s += " " + " ".join(self.notes)
        return s

    def to_json(self) -> dict[str, Any]:
        """The queries.md ``move`` answer (and more: from, to, bypass, road bonus, ALL, Bog)."""
        f, t = self._names()
        out: dict[str, Any] = {
            "kind": "move",
            "allowed": self.allowed,
            "cost": num(self.cost),
            "units": self.units,
            "items": [{"cost": num(i.amount), "why": i.why, "rule": i.rule} for i in self.items],
            "road_rate": self.road_rate,
            "ffmo_exposed": self.ffmo_exposed,
            "from": f,
            "to": t,
            "keeps_road_bonus": self.keeps_road_bonus,
        }
        if self.bypass is not None:
            out["bypass"] = naming(self.prefix).hexside(self.bypass)
        if self.all_mf:
            out["all"] = True
        if self.bog:
            out["bog"] = True
        if self.weather_elevation:
            out["weather_elevation"] = True
        if not self.allowed:
            out["reason"] = self.reason
        out["rules"] = list(self.rules())
        out["explain"] = self.explain()
        if self.bonus_lost_by:
            out["road_bonus_lost_by"] = list(self.bonus_lost_by)
        return out


@dataclass(frozen=True, slots=True)
class PathRuling:
    """The ruling on a whole move through several Locations (queries.md ``path``).

    ``cost`` is the sum of the steps' costs (``None`` when a step is forbidden); ``road_bonus`` says
    whether the B3.4 extra MF applies to this path; ``allowance`` is the allowance after that bonus.
    """

    allowed: bool
    cost: Fraction | None
    units: str
    road_bonus: bool
    allowance: Fraction
    steps: tuple[MoveRuling, ...]
    start: Location
    reason: str | None = None
    forbidden_by: str | None = None
    prefix: str | Naming = ""
    #: why a unit that could earn the B3.4 road bonus does not on this path (None when it does, or cannot)
    bonus_lost: str | None = None

    def rules(self) -> tuple[str, ...]:
        """The distinct rule references of the steps, the road bonus (B3.4) and the forbidding rule."""
        rs: list[str] = []
        for s in self.steps:
            rs.extend(s.rules())
        if self.road_bonus:
            rs.append("B3.4")
        if self.forbidden_by:
            rs.append(self.forbidden_by)
        return distinct(rs)

    def explain(self) -> str:
        """Sentences a player can check: the steps' costs, the road bonus (B3.4) and the verdict."""
        start = self.start.text(self.prefix)
        if self.cost is None:
            return f"The move from {start} is not allowed: {self.reason} ({self.forbidden_by})."
        s = (f"The move from {start} through {len(self.steps)} step{'s' if len(self.steps) != 1 else ''} costs "
             f"{fmt(self.cost)} {self.units}")
        s += " (" + " + ".join(fmt(x.cost) for x in self.steps) + ")." if self.steps else "."
        if self.road_bonus:
            s += (f" Every hexside crossed is a road hexside and nothing spoils it, so the road bonus raises "
                  f"the allowance to {fmt(self.allowance)} {self.units} (B3.4).")
        else:
            s += f" The allowance is {fmt(self.allowance)} {self.units}"
            s += f" ({self.bonus_lost}, B3.4)." if self.bonus_lost else "."
        if not self.allowed:
            s += f" Not allowed: {self.reason} ({self.forbidden_by})."
        return s

    def to_json(self) -> dict[str, Any]:
        """The queries.md ``path`` answer: each step a ``move`` answer."""
        out: dict[str, Any] = {
            "kind": "path",
            "allowed": self.allowed,
            "cost": num(self.cost),
            "units": self.units,
            "road_bonus": self.road_bonus,
            "allowance": num(self.allowance),
            "steps": [s.to_json() for s in self.steps],
            "from": self.start.text(self.prefix),
        }
        if not self.allowed:
            out["reason"] = self.reason
        out["rules"] = list(self.rules())
        out["explain"] = self.explain()
        if self.bonus_lost:
            out["road_bonus_lost"] = self.bonus_lost
        return out


@dataclass(frozen=True, slots=True)
class Reached:
    """One Location (or Bypass position) reached: its least cost and one cheapest path to it.

    ``road_bonus``: reached only thanks to the B3.4 road bonus; ``all_mf``: entered by a move that takes ALL
    the unit's MF/MP (its cost is then the whole allowance)."""

    location: Location
    cost: Fraction
    path: tuple[Location, ...]
    road_bonus: bool
    all_mf: bool = False


@dataclass(frozen=True, slots=True)
class ReachRuling:
    """Every Location a unit can reach with its allowance (queries.md ``reach``).

    ``reached`` holds, by canonical name order of discovery, each Location and Bypass position with its
    least cost and one cheapest path; ``road_bonus`` is true for those that need the B3.4 bonus.
    """

    start: Location
    allowance: Fraction
    units: str
    reached: tuple[Reached, ...]
    rules_used: tuple[str, ...] = ()
    prefix: str | Naming = ""

    @property
    def costs(self) -> dict[str, Fraction]:
        """Canonical name -> least cost (the start at 0)."""
        return {r.location.text(self.prefix): r.cost for r in self.reached}

    @property
    def paths(self) -> dict[str, list[str]]:
        """Canonical name -> one cheapest path, as names."""
        return {r.location.text(self.prefix): [x.text(self.prefix) for x in r.path] for r in self.reached}

    def cost_of(self, loc: Location | str) -> Fraction | None:
        """The least cost of reaching ``loc`` (a Location or its canonical name), or None."""
        name = loc.text(self.prefix) if isinstance(loc, Location) else loc
        return self.costs.get(name)

    def hex_costs(self) -> dict[Hex, Fraction]:
        """The least cost of reaching any Location of each hex (for drawing a reach map)."""
        out: dict[Hex, Fraction] = {}
        for r in self.reached:
            h = r.location.hex
            if h not in out or r.cost < out[h]:
                out[h] = r.cost
        return out

    def rules(self) -> tuple[str, ...]:
        """The distinct rule references of the moves on the cheapest paths (and B3.4 when the bonus is used)."""
        return self.rules_used

    def explain(self) -> str:
        """How many Locations the unit reaches, and how many only with the road bonus (B3.4)."""
        start = self.start.text(self.prefix)
        n = len(self.reached)
        hexes = len({r.location.hex for r in self.reached})
        s = (f"From {start} with {fmt(self.allowance)} {self.units}, the unit can reach {n} Location"
             f"{'s' if n != 1 else ''} and Bypass position{'s' if n != 1 else ''} in {hexes} hex"
             f"{'es' if hexes != 1 else ''}, each at its least cost.")
        nb = sum(1 for r in self.reached if r.road_bonus)
        if nb:
            s += f" {nb} of them only with the road bonus of a move crossing nothing but road hexsides (B3.4)."
        return s

    def to_json(self) -> dict[str, Any]:
        """The queries.md ``reach`` answer (and more: the Locations needing the road bonus, the ALL moves)."""
        return {
            "kind": "reach",
            "from": self.start.text(self.prefix),
            "allowance": num(self.allowance),
            "units": self.units,
            "costs": {k: num(v) for k, v in self.costs.items()},
            "paths": self.paths,
            "road_bonus": [r.location.text(self.prefix) for r in self.reached if r.road_bonus],
            "all": [r.location.text(self.prefix) for r in self.reached if r.all_mf],
            "rules": list(self.rules()),
            "explain": self.explain(),
        }


@dataclass(frozen=True, slots=True)
class VcaRuling:
    """The ruling on a vehicle's VCA change (P5.123 on a Narrow Street; D2.11/D2.33 elsewhere)."""

    allowed: bool
    cost: Fraction | None
    units: str
    items: tuple[Item, ...] = ()
    reason: str | None = None
    forbidden_by: str | None = None
    at: str = ""
    hexspines: int = 0

    def rules(self) -> tuple[str, ...]:
        """The distinct rule references of the items (and the forbidding rule)."""
        rs = [i.rule for i in self.items]
        if self.forbidden_by:
            rs.append(self.forbidden_by)
        return distinct(rs)

    def explain(self) -> str:
        """The verdict with its cost items or the forbidding rule."""
        what = f"Changing the VCA {self.hexspines} hexspine{'s' if self.hexspines != 1 else ''} at {self.at}"
        if not self.allowed:
            return f"{what} is not allowed: {self.reason} ({self.forbidden_by})."
        return (f"{what} costs {fmt(self.cost)} {self.units}: "
                + "; ".join(f"{fmt(i.amount)} {i.why} ({i.rule})" for i in self.items) + ".")

    def to_json(self) -> dict[str, Any]:
        """The queries.md ``vca-change`` answer."""
        out: dict[str, Any] = {
            "kind": "vca-change",
            "allowed": self.allowed,
            "cost": num(self.cost),
            "units": self.units,
            "items": [{"cost": num(i.amount), "why": i.why, "rule": i.rule} for i in self.items],
        }
        if not self.allowed:
            out["reason"] = self.reason
        out["rules"] = list(self.rules())
        out["explain"] = self.explain()
        return out


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a :func:`path`: to a Location, or in Bypass along a hexside.

    ``to`` is the Location entered (or a Bypass position); ``bypass``/``in_hex``/``to_vertex`` describe a
    Bypass step (moving in Bypass along that hexside, in that hex, to that vertex); ``road_rate`` chooses
    the road rate where B3.4 leaves it to the mover (None: the cheaper legal way); ``protection`` pays
    the extra MF for woods/shellhole protection or takes an orchard's cover (B3.43); ``declared_vertex``
    is the side of a Narrow Street roadblock a unit crossing its hexside declares (P5.141).
    """

    to: Location | None = None
    bypass: Hexside | None = None
    in_hex: Hex | None = None
    to_vertex: Vertex | None = None
    road_rate: bool | None = None
    protection: bool = False
    declared_vertex: Vertex | None = None


# ============================================================================================ rule helpers


def road_hexside_type(hst: HexsideTerrain) -> str | None:
    """The road type whose rate applies to crossing this hexside: ``"paved"`` or ``"dirt"`` (B3.1).

    A Narrow Street counts as a road (P5.1): paved as paved, unpaved as dirt. Entry of a hex is per the
    type of the road hexside crossed, not the hex's own type (B3.1: 12M4 entered across M4-L3 is per dirt).
    """
    if hst.road is not None:
        return hst.road
    if hst.narrow_street is not None:
        return "paved" if hst.narrow_street == "paved" else "dirt"
    return None


def road_hex_type(m: Map, h: Hex) -> str | None:
    """A hex's road type (B3.1): ``"paved"`` when any paved road crosses one of its hexsides (a hex with
    both kinds is a paved road hex), ``"dirt"`` when only dirt roads do, None for no road.

    Narrow Streets do not make a road hex here (P5.14 and P5.142 treat those hexes on their own).

    Examples
    --------
    >>> from asl_terrain.model import Map
    >>> m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "C"], "rows": [1, 3],
    ...     "hexside": [{"at": ["B2-B1"], "road": "paved"}, {"at": ["B2-A2"], "road": "dirt"}]})
    >>> road_hex_type(m, Hex.parse("B2")), road_hex_type(m, Hex.parse("A2")), road_hex_type(m, Hex.parse("C3"))
    ('paved', 'dirt', None)
    """
    kinds = {t.road for t in m.hexsides_of(h) if t.road is not None}
    if "paved" in kinds:
        return "paved"
    if "dirt" in kinds:
        return "dirt"
    return None


def road_negated(m: Map, h: Hex) -> bool:
    """A road covered by rubble is treated as non-existent (B3.43): rubble terrain or a Rubble counter."""
    return m.terrain(h).terrain == "rubble" or m.has_counter(h, "rubble")


def road_bonus_spoilers(m: Map, h: Hex) -> list[str]:
    """What a unit meets in road hex ``h`` that denies the B3.4 road bonus: mines, burning wrecks,
    rubble and SMOKE. (A roadblock is met where the move crosses its hexside or its Narrow Street segment;
    Wire, debris and Panji are outside the map format; mud and Deep Snow come from the conditions.)"""
    out: list[str] = []
    cs = m.counters_at(h)
    if not cs and m.terrain(h).terrain != "rubble":
        return out
    if m.smoke(h):
        out.append(f"SMOKE in {m.name_of(h)}")
    if m.mines(h):
        out.append(f"mines in {m.name_of(h)}")
    if any(c.type == "wreck" and c.burning and c.at == h for c in cs):
        out.append(f"a burning wreck in {m.name_of(h)}")
    if road_negated(m, h):
        out.append(f"rubble in {m.name_of(h)}")
    return out


def moves_up_slope(m: Map, frm: Hex, hs: Hexside) -> bool | None:
    """Whether crossing slope hexside ``hs`` from ``frm`` moves Up-Slope (True) or Down-Slope (False), or
    None when ``hs`` is no slope hexside (P2.5: crossing a slope hexside one is Down-Slope from is moving
    Up-Slope; the hash marks are in the Down-Slope hex, P2.2)."""
    t = m.hexside(hs)
    if t.slope is None:
        return None
    return t.slope == frm


def is_crest_line_slope(m: Map, hs: Hexside) -> bool:
    """A combination Crest-Line-slope hexside (P2.53): a slope hexside that is also a Crest Line."""
    t = m.hexside(hs)
    return t.slope is not None and t.crest


def bypass_hex(m: Map, hs: Hexside, preferred: Hex | None = None) -> Hex | None:
    """The hex a unit Bypassing along Narrow Street ``hs`` is in (P5.11): the lower hex of a Crest Line
    hexside, otherwise ``preferred`` (None when the rule leaves it open)."""
    return m.crest_narrow_street_lower_hex(hs) or preferred


def narrow_street_bypass_blocked(m: Map, hs: Hexside) -> str | None:
    """Why all Bypass along Narrow Street hexside ``hs`` is NA (P5.126), or None: another vehicle/wreck in
    Bypass along it (either hex), a Blaze (a burning wreck in Bypass along another hexside excepted), or
    Rubble in either hex."""
    for h in hs.hexes:
        if h not in m:
            continue
        name = m.name_of(h)
        for c in m.counters_at(h):
            if c.at != h:
                continue
            if c.type in ("vehicle", "wreck") and c.bypass == hs:
                return f"a {c.type} is already in Bypass along {m.name_of(hs)} (in {name})"
            if c.type == "blaze":
                return f"a Blaze in {name}"
            if c.type == "wreck" and c.burning and (c.bypass is None or c.bypass == hs):
                return f"a burning wreck (a Blaze) in {name}"
            if c.type == "rubble":
                return f"a Rubble counter in {name}"
        if m.terrain(h).terrain == "rubble":
            return f"rubble in {name}"
    return None


def narrow_street_smoke(m: Map, hs: Hexside) -> Hex | None:
    """The hex whose SMOKE adds to the cost of Bypass along Narrow Street ``hs`` (P5.11): SMOKE in either
    ground-level Location, but on a Crest Line hexside only the lower hex's. None for no SMOKE."""
    low = bypass_hex(m, hs)
    hexes = (low,) if low is not None else hs.hexes
    for h in hexes:
        if h is not None and h in m and m.smoke(h):
            return h
    return None


def culvert_entry_problem(m: Map, frm: Location, to: Hex) -> tuple[str, str] | None:
    """Why entering the Stream Culvert of ``to`` from ``frm`` is NA (P4.21), or None: entry only from IN
    an ADJACENT stream (or Stream Culvert) Location, never when the stream is flooded."""
    t = m.terrain(to)
    name = m.name_of(to)
    if not t.culvert:
        return (f"{name} has no Stream Culvert", "P4.2")
    if t.stream == "flooded":
        return (f"the stream in {name} is flooded", "P4.21")
    if frm.hex == to:
        return ("a Stream Culvert is entered only from IN an ADJACENT stream or culvert Location, not from its own "
                "hex"), "P4.21"
    if not frm.hex.is_adjacent(to):
        return (f"{m.name_of(frm.hex)} is not adjacent to {name}", "P4.21")
    ft = m.terrain(frm.hex)
    hst = m.hexside(Hexside.of(frm.hex, to))
    if frm.place == "culvert":
        ok = hst.culvert or hst.stream
    else:
        ok = (frm.place == "" and frm.level == 0 and not frm.is_bypass and ft.is_stream
              and (hst.stream or hst.culvert))
    if not ok:
        return ("a Stream Culvert is entered only from IN an ADJACENT stream (or Stream Culvert) Location",
                "P4.21")
    return None


def crest_status_problem(m: Map, h: Hex, hs: Hexside | None) -> tuple[str, str] | None:
    """Why Crest status cannot be gained in hex ``h`` (along ``hs``), or None (P4.22: never in a Stream
    Culvert hex, nor along a stream-and-Stream-Culvert hexside)."""
    t = m.terrain(h)
    if t.culvert:
        return (f"Crest status cannot be gained in a Stream Culvert hex ({m.name_of(h)})", "P4.22")
    if hs is not None:
        hst = m.hexside(hs)
        if hst.stream and hst.culvert:
            return (f"Crest status cannot be gained along stream-and-Stream-Culvert hexside {m.name_of(hs)}",
                    "P4.22")
    if t.stream == "flooded":
        return (f"the stream in {m.name_of(h)} is flooded: a water obstacle, not a depression", "B20.44")
    return None


@functools.lru_cache(maxsize=1 << 16)
def _ends(hs: Hexside) -> tuple[Vertex, Vertex]:
    """The two end vertices of a hexside (cached geometry)."""
    return hs.vertices()


@functools.lru_cache(maxsize=1 << 15)
def _hex_vertices(h: Hex) -> tuple[Vertex, ...]:
    """The six vertices of a hex (cached geometry)."""
    return h.vertices()


def _other_end(hs: Hexside, v: Vertex) -> Vertex:
    """The end vertex of ``hs`` that is not ``v`` (where a step in Bypass along ``hs`` from ``v`` ends)."""
    a, b = _ends(hs)
    return b if a == v else a


@functools.lru_cache(maxsize=1 << 16)
def _hexsides_at(h: Hex, v: Vertex) -> tuple[Hexside, ...]:
    """The two hexsides of ``h`` that meet at its vertex ``v``."""
    for k, x in enumerate(_hex_vertices(h)):
        if x == v:
            return (h.hexside(k), h.hexside(k + 1))
    return ()


# ============================================================================================ the rules object


class _NA(Exception):
    """Internal: a move the rules forbid (turned into a MoveRuling by the caller)."""

    def __init__(self, reason: str, rule: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


Part = tuple[Any, str, str, bool]  # (amount | "ALL" | "NA", why, rule, bog)
#: one allowed move as the search sees it: (node id, scaled cost, keeps the road bonus, takes ALL, ruling)
Edge = tuple[int, int, bool, bool, MoveRuling]
#: the ways of entering a hex: at its COT, at the road rate (or None), why not at the road rate, the road type
EntryOptions = tuple[MoveRuling, "MoveRuling | None", "tuple[str, str] | None", "str | None"]

_P2_54_NOTE = ("P2.54: in rain or snow, E3.54/E3.723 would apply to this change of elevation; the E3 weather rules "
               "are not modelled.")


def _total(items: Sequence[Item]) -> Fraction:
    """The sum of the items' amounts (the COT so far, or a ruling's cost)."""
    t = ZERO
    for i in items:
        t += i.amount
    return t


def _what(why: str) -> str:
    """The thing entered, from a COT item's text ("COT: enters woods N17" -> "woods N17")."""
    return why.removeprefix("COT: enters ").removeprefix("COT: ")


def _restamp(r: MoveRuling, frm: Location) -> MoveRuling:
    """The same ruling, made from ``frm``: the search shares one ruling among the Bypass positions of a hex
    whose move does not depend on which of them the unit is at."""
    if r.frm is frm:
        return r
    return replace(r, frm=frm)


def _beyond_grid(v: Vertex) -> bool:
    """Whether a vertex touches a hex of negative column or row, which has no name (the edge of the grid)."""
    return any(h.col < 0 or h.row < 0 for h in v.hexes)


def _in_vca_obstacle(m: Map, h: Hex, obstacles: tuple[str, ...]) -> bool:
    """Whether a vehicle (not in Bypass) in hex ``h`` is in a building, woods or rubble hex, where each
    hexspine of VCA change costs more (D2.11; the hexes are the chart's ``vca_obstacle_terrain``)."""
    return m.terrain(h).terrain in obstacles or m.has_counter(h, "rubble")


# ============================================================================================ entry prohibitions
#
# Each function below decides one thing that forbids entering an adjacent hex whatever the entry costs, and
# cites its rule; :meth:`_Mover.entry_prohibitions` asks them in order and the first that answers forbids the
# move. A new prohibition is one function, put in its place in :data:`ENTRY_PROHIBITIONS` (or, for one of
# crossing a hexside, which Bypass meets too, in :data:`CROSSING_PROHIBITIONS`).


class Prohibition(NamedTuple):
    """Why a move is NA, and the rule that says so."""

    reason: str
    rule: str


class _Entry(NamedTuple):
    """What the entry prohibitions read: the mover (its unit, map, chart and flags), the hex entered and its
    terrain, the hexside crossed, and whether the unit comes from Bypass along a Narrow Street. (A NamedTuple
    rather than a frozen dataclass: one is built for every entry the search weighs, and it builds faster.)"""

    mv: _Mover
    b: Hex
    tb: HexTerrain | None
    hs: Hexside
    hst: HexsideTerrain
    along_ns: bool = False


#: an entry prohibition: a :class:`Prohibition` when it forbids the entry, else None
_EntryRule = Callable[[_Entry], "Prohibition | None"]


def no_dash_across_or_along_narrow_street(e: _Entry) -> Prohibition | None:
    """A Dash across or along a Narrow Street is NA (P5.11)."""
    if e.mv.dash and (e.hst.narrow_street is not None or e.along_ns):
        return Prohibition("Dashing across or along a Narrow Street is NA", "P5.11")
    return None


def no_dash_into_rubbled_road(e: _Entry) -> Prohibition | None:
    """No Dash into a road hex whose road is covered by rubble (B3.43)."""
    if e.mv.dash and road_negated(e.mv.m, e.b):
        return Prohibition(f"no Dash in a road hex covered by rubble ({e.mv.n(e.b)})", "B3.43")
    return None


def no_entry_into_blaze(e: _Entry) -> Prohibition | None:
    """Entering a Blaze Location is NA (B25; judgment blaze_entry_na)."""
    return blaze_prohibition(e.mv, e.b)


def no_vehicle_across_crest_line_slope(e: _Entry) -> Prohibition | None:
    """No vehicle (Wagons included) may cross a combination Crest-Line-slope hexside (P2.53)."""
    if e.hst.slope is not None and e.hst.crest and (e.mv.pays_mp or e.mv.wagon):
        return Prohibition(f"no vehicle may cross combination Crest-Line-slope hexside {e.mv.n(e.hs)}", "P2.53")
    return None


def no_charging_cavalry_across_crest_line_slope(e: _Entry) -> Prohibition | None:
    """No charging Cavalry may cross a combination Crest-Line-slope hexside (P2.53)."""
    if e.hst.slope is not None and e.hst.crest and e.mv.cav and e.mv.unit.charging:
        return Prohibition(f"no charging Cavalry may cross combination Crest-Line-slope hexside {e.mv.n(e.hs)}",
                           "P2.53")
    return None


def no_vehicle_across_roadblock(e: _Entry) -> Prohibition | None:
    """No vehicle (Wagons included) may cross a roadblock's hexside (B29.4)."""
    if (e.mv.pays_mp or e.mv.wagon) and e.mv.m.roadblock(e.hs) is not None:
        return Prohibition(f"no vehicle may cross the roadblock on {e.mv.n(e.hs)}", "B29.4")
    return None


def hexside_not_crossable(e: _Entry) -> Prohibition | None:
    """A wall, hedge, bocage, rowhouse wall, cliff or fence this unit may not cross: NA in the chart for its
    type (the chart entry's rule: B9.4 walls and hedges, B9.5 bocage, B23.71 rowhouse walls, B11.1
    cliffs, P3.2 fences)."""
    hst = e.hst
    for key, present in (("wall", hst.wall), ("hedge", hst.hedge), ("bocage", hst.bocage),
                         ("rowhouse-wall", hst.rowhouse_wall), ("cliff", hst.cliff), ("fence", hst.fence)):
        if present:
            v, rule, _, name = e.mv.cost(key)
            if v == "NA":
                return Prohibition(f"{e.mv.desc} may not cross the {name.lower()} on {e.mv.n(e.hs)}", rule)
    return None


def no_cavalry_charge_into_woods(e: _Entry) -> Prohibition | None:
    """Cavalry may not charge into woods (B13.4; the terrain is the chart's ``charge_na``)."""
    if e.mv.cav and e.mv.unit.charging and e.tb is not None and e.tb.terrain in e.mv.charge_na:
        return Prohibition("Cavalry may not charge into woods", "B13.4")
    return None


def blaze_prohibition(mv: _Mover, h: Hex) -> Prohibition | None:
    """Entering a Blaze Location is NA (B25; judgment blaze_entry_na): shared by every kind of entry."""
    if mv.blaze_na and mv.m.has_counter(h, "blaze"):
        return Prohibition(f"{mv.n(h)} holds a Blaze", "B25")
    return None


#: the prohibitions of crossing a hexside, asked in order (by an entry, and by a Bypass entered across it)
CROSSING_PROHIBITIONS: tuple[_EntryRule, ...] = (
    no_vehicle_across_crest_line_slope,
    no_charging_cavalry_across_crest_line_slope,
    no_vehicle_across_roadblock,
    hexside_not_crossable,
)

#: the prohibitions of entering an adjacent hex's ground Location whatever it costs, asked in order
ENTRY_PROHIBITIONS: tuple[_EntryRule, ...] = (
    no_dash_across_or_along_narrow_street,
    no_dash_into_rubbled_road,
    no_entry_into_blaze,
    *CROSSING_PROHIBITIONS,
    no_cavalry_charge_into_woods,
)


class _Cost(NamedTuple):
    """What the entry cost rules read: the mover, the Location entered and its hex's terrain, the hexside
    crossed, and whether the unit pays for the hex's protection (B3.43)."""

    mv: _Mover
    to: Location
    tb: HexTerrain
    hst: HexsideTerrain
    protection: bool


#: an entry cost rule: the COT parts of the Location entered when it decides them, else None
_CostRule = Callable[[_Cost], "list[Part] | None"]


def crest_status_cost(c: _Cost) -> list[Part] | None:
    """Entering a stream hex with Crest status (P4.12, B20.91; NA in a culvert hex, P4.22)."""
    return c.mv.crest_parts(c.tb, c.hst) if c.to.place == "crest" else None


def in_stream_cost(c: _Cost) -> list[Part] | None:
    """Entering IN a stream: its depth cost, plus the hex's other terrain across a non-stream hexside (P4.11,
    a printed ford P4.3)."""
    return c.mv.stream_parts(c.tb, c.hst) if c.tb.is_in_stream(c.to.place) else None


def bridge_cost(c: _Cost) -> list[Part] | None:
    """Onto a bridge over a stream, the stream below not entered (B6)."""
    return c.mv.bridge_parts(c.tb) if c.tb.bridge is not None and c.tb.is_stream else None


def terrain_cost(c: _Cost) -> list[Part]:
    """Otherwise the hex's terrain by the chart (shellholes paid for their protection, B3.43): always decides."""
    return c.mv.terrain_parts(c.tb, c.protection)


#: the costs of the Location entered (before SMOKE and the climb), asked in order; the last always decides
ENTRY_COSTS: tuple[_CostRule, ...] = (crest_status_cost, in_stream_cost, bridge_cost, terrain_cost)


class _Mover:
    """The movement rules for one unit on one map with one chart and conditions.

    Every move ruling comes from here (:meth:`move`, and :meth:`edges` for the search), so ``move``, ``path``
    and ``reach`` can never disagree. Built once per (map, chart, conditions, unit, allowance, flags) and
    cached while the map lives. The search's tables (the adjacency lists, and the rulings shared by the
    Bypass positions of one hex) live in the mover of allowance :data:`_SEARCH_ALLOWANCE`: they do not
    depend on the allowance, which the search applies as its cutoff (an ALL move costs the whole allowance,
    whatever it is), so every ``reach`` of one unit on one map shares them.
    """

    def __init__(self, m: Map, chart: Chart, cond: Conditions, unit: Unit, allowance: Fraction,
                 dash: bool, rout: bool) -> None:
        self.m = m
        self.chart = chart
        self.cond = cond
        self.unit = unit
        self.allowance = allowance
        self.dash = dash
        self.rout = rout
        self.prefix = m.names
        self.cls = unit.chart_class
        self.pays_mp = unit.pays_mp
        self.units = unit.units
        self.desc = _DESC.get(self.cls, self.cls)
        self.inf = unit.type == "infantry"
        self.cav = unit.type == "cavalry"
        self.wagon = unit.type == "wagon"
        self.vbm = unit.pays_mp or self.wagon  # vehicles (Wagons included) Bypass by VBM (D2.3)
        p = chart.param
        j = chart.judgment
        # Infantry and Cavalry pay COT x2 going up; Wagons, which pay MF too, by judgment
        self.doubles_cot = not unit.pays_mp and (not self.wagon or bool(j("wagon_cot_doubled_up").value))
        weather = cond.weather
        self.bonus_spoiled_by: str | None = None
        if unit.type not in p("road_bonus_units").value:
            self.bonus_spoiled_by = "only Infantry, Cavalry and horse-drawn units get the road bonus"
        elif unit.pushing_gun:
            self.bonus_spoiled_by = "no road bonus while pushing a Gun (C10.3)"
        elif weather in p("road_bonus_lost_weather").value:
            self.bonus_spoiled_by = f"no road bonus in {weather.replace('-', ' ')} (B3.4)"
        self.bonus_unit = self.bonus_spoiled_by is None
        self.p_double = Fraction(p("cot_doubled_up").value)
        self.p_up_mp = Fraction(p("vehicle_up_level_mp").value)
        self.p_up_road_mp = Fraction(p("vehicle_up_level_road_mp").value)
        self.p_bonus = Fraction(p("road_bonus_mf").value)
        self.p_veh = Fraction(p("vehicle_in_hex_mp").value)
        self.p_veh_road = Fraction(p("vehicle_in_hex_road_mp").value)
        self.p_smoke = Fraction(p("smoke_cot").value)
        self.p_up_slope = Fraction(p("up_slope_mp" if unit.pays_mp else "up_slope_mf").value)
        self.p_skis = Fraction(p("skis_down_slope_bonus_mf").value)
        self.p_stair = Fraction(p("stairwell_mf").value)
        self.p_bypass = Fraction(p("bypass_mf").value)
        self.p_vbm = Fraction(p("vbm_factor").value)
        self.p_ns_vbm = Fraction(p("narrow_street_vbm_factor").value)
        self.p_ns_smoke = Fraction(p("narrow_street_smoke_bypass").value)
        self.p_crest = Fraction(p("crest_status_mf").value)
        self.p_vca = Fraction(p("vca_change_mp").value)
        self.p_vca_obstacle = Fraction(p("vca_change_in_obstacle_mp").value)
        self.p_stream_crest = {
            "woods": Fraction(p("stream_woods_crest_mf").value),
            "pine-woods": Fraction(p("stream_pine_woods_crest_mf").value),
            "brush": Fraction(p("stream_brush_crest_mf").value),
            "orchard": Fraction(p("stream_orchard_crest_mf").value),
        }
        self.grain_season = tuple(p("grain_season").value)
        self.bypass_terrain = tuple(p("bypass_terrain").value)
        self.vca_obstacles = tuple(p("vca_obstacle_terrain").value)
        self.charge_na = tuple(p("cavalry_charge_na_terrain").value)
        self.elevation_weather = cond.weather in p("elevation_change_weather").value
        self.ns_crossing_is_road = bool(j("narrow_street_crossing_is_road").value)
        self.rout_across_ns = bool(j("rout_across_narrow_street").value)
        self.wagon_half = bool(j("wagon_half_bypass").value)
        self.blaze_na = bool(j("blaze_entry_na").value)
        self.ns_smoke_replaces = bool(j("narrow_street_smoke_replaces_cot").value)
        self.bypass_crosses = bool(j("bypass_entry_crosses_hexside").value)
        self.fence_denies_bonus = bool(j("fence_denies_road_bonus").value)
        self._cost_cache: dict[str, tuple[Any, str, bool, str]] = {}
        og = self.cost("open")[0]
        #: VBM per hexside (D2.3): twice the Open Ground cost; half that along a Narrow Street (P5.11)
        self.vbm_full: Fraction | None = og * self.p_vbm if isinstance(og, Fraction) else None
        self.vbm_half: Fraction = self.vbm_full * self.p_ns_vbm if self.vbm_full is not None else ZERO
        self.vbm_full_text = fmt(self.vbm_full) if self.vbm_full is not None else ""
        self._names: dict[object, str] = {}
        #: whether the map has any Narrow Street at all (most have none: the search then skips their checks)
        written = getattr(m, "_written_hexsides", None)
        self.has_ns = True if written is None else any(t.narrow_street is not None for t in written.values())
        # the search's tables: adjacency lists by node id, and the rulings the Bypass positions of a hex share
        self._ids: dict[Location, int] = {}
        self._nodes: list[Location] = []
        self._iadj: list[list[Edge] | None] = []
        self._shared: dict[tuple[Any, ...], list[MoveRuling]] = {}
        self._bypass_ok: dict[Hex, bool] = {}

    # ------------------------------------------------------------------ names
    def n(self, x: Hex | Hexside | Location) -> str:
        """The canonical name of a hex, hexside or Location, with the map's prefix (cached)."""
        got = self._names.get(x)
        if got is None:
            got = x.text(self.prefix) if isinstance(x, Location) else self.m.name_of(x)
            self._names[x] = got
        return got

    def n_vertex(self, v: Vertex | None) -> str:
        """The canonical name of a vertex, with the map's prefix (cached)."""
        if v is None:
            return ""
        got = self._names.get(v)
        if got is None:
            got = self.prefix.vertex(v)
            self._names[v] = got
        return got

    # ------------------------------------------------------------------ chart look-ups
    def cost(self, key: str) -> tuple[Any, str, bool, str]:
        """(value, rule, bog, name) of a terrain or hexside entry of the chart for this unit's column: a
        Fraction, "ALL" or "NA"; the buttoned-up column where the chart has one (B3.41 EXC, D5.2); an entry
        missing from the chart is NA."""
        c = self._cost_cache.get(key)
        if c is not None:
            return c
        e = self.chart.terrain.get(key) or self.chart.hexside.get(key)
        base = key.rsplit("-", 1)[0] if key.endswith("-wooden") else None
        if e is None and base:
            e = self.chart.terrain.get(base)
        if e is None:
            c = ("NA", "B", False, key)
        else:
            g = None
            if self.pays_mp and self.unit.buttoned_up and e.mp_buttoned_up is not None:
                g = e.mp_buttoned_up
            if g is None:
                g = e.mp if self.pays_mp else e.mf
            if g is None and base:
                be = self.chart.terrain.get(base)
                if be is not None:
                    g = be.mp if self.pays_mp else be.mf
            if g is None:
                c = ("NA", "B", False, e.name)
            else:
                v = g.get(self.cls, "NA")
                c = (v, g.rule, bool(g.get("bog", False)), e.name)
        self._cost_cache[key] = c
        return c

    def is_obstacle(self, t: HexTerrain) -> bool:
        """An obstacle for P5.11's road-rate restriction: woods, pine woods, buildings (LOS obstacles)."""
        e = self.chart.terrain.get(t.terrain)
        return e is not None and e.los is not None and e.los.get("role") == "obstacle"

    def ground_key(self, t: HexTerrain) -> str:
        """The chart entry that prices entering the hex's ground Location: rubble (terrain or counter)
        as stone or wooden rubble (B24.4), grain out of season as Open Ground (B15.4)."""
        if t.terrain == "rubble" or self.m.has_counter(t.hex, "rubble"):
            return "rubble-wooden" if t.building == "wooden" else "rubble"
        if t.terrain == "grain" and not self.cond.in_season("grain", self.cond.month in self.grain_season):
            return "open"
        return t.terrain

    def open_ground(self, t: HexTerrain) -> bool:
        """Whether the hex's other terrain is Open Ground, so a road-rate entry changes nothing for FFMO
        (B3.3)."""
        e = self.chart.terrain.get(self.ground_key(t))
        return bool(e is not None and e.tem is not None and e.tem.get("open_ground", False))

    # ------------------------------------------------------------------ ruling builders
    def na(self, frm: Location, to: Location, reason: str, rule: str, bypass: Hexside | None = None) -> MoveRuling:
        """A ruling that the rules forbid the move (``rule`` says which)."""
        return MoveRuling(False, None, self.units, (), frm, to, reason, rule, bypass=bypass, prefix=self.prefix)

    def ok(self, frm: Location, to: Location, items: list[Item], *, road: bool = False, ffmo: bool = False,
           keeps: bool = False, bypass: Hexside | None = None, all_mf: bool = False, bog: bool = False,
           weather: bool = False, notes: tuple[str, ...] = (), bonus_lost: tuple[str, ...] = ()) -> MoveRuling:
        """An allowed move whose cost is the sum of its items; it keeps the road bonus only for a unit that
        can earn it (B3.4); ``bonus_lost`` names what spoils it."""
        return MoveRuling(True, _total(items), self.units, tuple(items), frm, to, None, None, road, ffmo,
                          keeps and self.bonus_unit, bypass, all_mf, bog, weather, notes, self.prefix, bonus_lost)

    def all_ruling(self, frm: Location, to: Location, what: str, rule: str, bog: bool,
                   bypass: Hexside | None = None) -> MoveRuling:
        """A move that takes ALL the unit's MF/MP (woods for vehicles, B13.41; marsh, B16.4): its cost is
        the allowance, and a vehicle then checks for Bog (D8.21)."""
        if self.allowance <= 0:
            raise _NA(f"entering {what} takes ALL of a unit's {self.units}, and it has none", rule)
        item = Item(self.allowance, f"ALL its {self.units} to enter {what}", rule)
        notes = ("The vehicle must then make a Bog check (D8.21).",) if bog and self.pays_mp else ()
        return self.ok(frm, to, [item], all_mf=True, bog=bog, bypass=bypass, notes=notes)

    # ------------------------------------------------------------------ checks and items every entry shares
    def check_blaze(self, h: Hex) -> None:
        """Entering a Blaze Location is NA (B25; judgment blaze_entry_na)."""
        p = blaze_prohibition(self, h)
        if p is not None:
            raise _NA(*p)

    def crossing_checks(self, hs: Hexside, hst: HexsideTerrain) -> None:
        """Raise the first of :data:`CROSSING_PROHIBITIONS` that forbids crossing hexside ``hs`` (P2.53,
        B29.4, the chart's hexside entries)."""
        e = _Entry(self, hs.a, None, hs, hst)
        for rule in CROSSING_PROHIBITIONS:
            p = rule(e)
            if p is not None:
                raise _NA(*p)

    def hexside_items(self, a: Hex, hs: Hexside, hst: HexsideTerrain, items: list[Item]) -> None:
        """Hexside extras added to (not doubled with) the COT (P2.51 EX): wall, hedge, fence (+1 & COT for
        Infantry, B9.4, P3.2), a B29 roadblock (as a wall, B29.4), Up-Slope (+½ MF, P2.51; +1 MP, P2.52)
        and the skis bonus for crossing Down-Slope (-½ MF, P2.51)."""
        for key, present in (("wall", hst.wall), ("hedge", hst.hedge), ("bocage", hst.bocage),
                             ("fence", hst.fence)):
            if present:
                v, rule, _, name = self.cost(key)
                if isinstance(v, Fraction) and v:
                    items.append(Item(v, f"crosses {name.lower()} hexside {self.n(hs)}", rule))
        if hst.narrow_street is None and self.m.roadblock(hs) is not None:
            v, rule, _, name = self.cost("roadblock")
            if isinstance(v, Fraction) and v:
                items.append(Item(v, f"crosses the roadblock on {self.n(hs)} (as a wall)", rule))
        if hst.slope is None:
            return
        if hst.slope == a:
            items.append(Item(self.p_up_slope, f"moves Up-Slope across slope hexside {self.n(hs)}",
                              "P2.52" if self.pays_mp else "P2.51"))
        elif self.inf and self.unit.skis:
            items.append(Item(-self.p_skis, f"skis: bonus for crossing slope hexside {self.n(hs)} Down-Slope",
                              "P2.51"))

    def climb_items(self, cot: Fraction, levels: int, road: bool, hs: Hexside, items: list[Item]) -> None:
        """Going up across a Crest Line: Infantry/Cavalry pay the COT twice (B10.4; the road rate 1 x 2,
        B3.4); a vehicle pays +4 MP per level, halved to +2 across a road hexside at the road rate (B3.41)."""
        if levels <= 0:
            return
        if not self.pays_mp:
            extra = cot * (self.p_double - 1) if self.doubles_cot else ZERO
            if extra:
                items.append(Item(extra, f"COT doubled: climbs across Crest Line {self.n(hs)}",
                                  "B3.4" if road else "B10.4"))
        else:
            per = self.p_up_road_mp if road else self.p_up_mp
            items.append(Item(per * levels, f"climbs {levels} level{'s' if levels > 1 else ''} across Crest "
                                            f"Line {self.n(hs)}" + (" at the road rate" if road else ""),
                              "B3.41" if road else "B10.4"))

    def smoke_item(self, h: Hex) -> Item:
        """SMOKE in the Location entered: artificial terrain, +1 to the COT (B.2)."""
        return Item(self.p_smoke, f"SMOKE in {self.n(h)} (part of the COT)", "B.2")

    def vehicle_items(self, h: Hex, road: bool) -> list[Item]:
        """The penalty for entering a hex that holds vehicles/wrecks: +1 MP each (D2.14), +2 each across a
        road hexside at the road rate (B3.42); none for units that pay MF."""
        if not self.pays_mp:
            return []
        nv = len(self.m.vehicles(h))
        if not nv:
            return []
        per = self.p_veh_road if road else self.p_veh
        return [Item(per * nv, f"{nv} vehicle/wreck{'s' if nv > 1 else ''} in {self.n(h)}"
                     + (" entered at the road rate" if road else ""), "B3.42" if road else "D2.14")]

    def weather_flag(self, hst: HexsideTerrain, ta: HexTerrain, tb: HexTerrain) -> bool:
        """Whether P2.54 flags this crossing: rain or snow (E3.54/E3.723, the chart's
        ``elevation_change_weather``) with a slope hexside crossed or a change of elevation across a Crest
        Line."""
        return self.elevation_weather and (hst.slope is not None or (hst.crest and tb.level != ta.level))

    def keeps_bonus(self, hexes: Sequence[Hex], hst: HexsideTerrain | None) -> bool:
        """Whether a road move into ``hexes`` leaves the B3.4 road bonus possible: nothing in them spoils it,
        no roadblock is met on the hexside crossed, and no fence is crossed (judgment
        fence_denies_road_bonus: the fence is the Wire B3.4 names); a slope does not cost it (P2.51)."""
        return self.bonus_unit and not self.bonus_spoilers(hexes, hst)

    def bonus_spoilers(self, hexes: Sequence[Hex], hst: HexsideTerrain | None) -> list[str]:
        """What a road move into ``hexes`` across ``hst`` meets that spoils the B3.4 road bonus, named: the
        fence (judgment fence_denies_road_bonus), a roadblock on the hexside, and :func:`road_bonus_spoilers`."""
        out: list[str] = []
        if hst is not None and self.fence_denies_bonus and hst.fence:
            tag = self.chart.judgment("fence_denies_road_bonus").tag
            out.append(f"the barbed-wire fence on {self.n(hst.hexside)} (judgment fence_denies_road_bonus [{tag}])")
        if hst is not None and self.m.roadblock(hst.hexside) is not None:
            out.append(f"the roadblock on {self.n(hst.hexside)}")
        for h in hexes:
            if h in self.m:
                out += road_bonus_spoilers(self.m, h)
        return out

    # ------------------------------------------------------------------ entering an adjacent hex
    def entry_prohibitions(self, b: Hex, hs: Hexside, hst: HexsideTerrain, tb: HexTerrain, along_ns: bool) -> None:
        """Raise the first of :data:`ENTRY_PROHIBITIONS` that forbids entering hex ``b`` across ``hs`` whatever
        it costs (the prohibition travels as :class:`_NA`, as every other NA of this engine does)."""
        e = _Entry(self, b, tb, hs, hst, along_ns)
        for rule in ENTRY_PROHIBITIONS:
            p = rule(e)
            if p is not None:
                raise _NA(*p)

    def stream_parts(self, tb: HexTerrain, hst: HexsideTerrain) -> list[Part]:
        """The cost of entering IN a stream hex: the stream's depth cost (a ford's where printed, P4.3), plus
        the woods/brush/orchard cost when entered across a non-stream hexside (P4.11)."""
        depth = tb.stream or "shallow"
        key = "ford" if tb.ford else f"stream-{depth}"
        v, rule, bog, name = self.cost(key)
        where = self.n(tb.hex)
        parts: list[Part] = [(v, f"COT: enters {name.lower()} {where}" + (" (printed ford, P4.3)" if tb.ford else ""),
                              rule, bog)]
        if tb.terrain != "open" and not hst.stream:
            ov, _, obog, oname = self.cost(tb.terrain)
            why = f"{oname.lower()} in {where}, cumulative across non-stream hexside {self.n(hst.hexside)}"
            parts.append((ov, why, "P4.11", obog))
        return parts

    def bridge_parts(self, tb: HexTerrain) -> list[Part]:
        """B6: onto a bridge (the base Location of a bridge hex) at the chart's bridge cost, the stream
        below not entered (the road rate applies where a road crosses the hexside, B3.4)."""
        v, rule, bog, name = self.cost("bridge")
        return [(v, f"COT: enters the {tb.bridge} bridge in {self.n(tb.hex)}", rule, bog)]

    def crest_parts(self, tb: HexTerrain, hst: HexsideTerrain) -> list[Part]:
        """Entering a stream hex with Crest status across ``hst``: P4.12's costs for Good Order Infantry in
        stream-woods/brush/orchard across a non-stream hexside; otherwise the IN cost plus the MF of
        gaining Crest status (B20.91, [U] parameter crest_status_mf); never in a culvert hex or along a
        stream-and-culvert hexside (P4.22)."""
        if not (self.inf or self.cav):
            raise QueryError("to: Crest status for vehicles and Wagons (B20.92) is not modelled by this engine; "
                             "expected an Infantry or Cavalry unit")
        prob = crest_status_problem(self.m, tb.hex, hst.hexside)
        if prob:
            raise _NA(*prob)
        special = self.p_stream_crest.get(tb.terrain)
        if special is not None and not hst.stream and self.inf and self.unit.good_order:
            why = (f"gains Crest status in stream-{tb.terrain} {self.n(tb.hex)} along non-stream hexside "
                   f"{self.n(hst.hexside)}")
            return [(special, why, "P4.12", False)]
        parts = self.stream_parts(tb, hst)
        parts.append((self.p_crest, f"gains Crest status in {self.n(tb.hex)}", "B20.91", False))
        return parts

    def entry_parts(self, to: Location, tb: HexTerrain, hst: HexsideTerrain, protection: bool) -> list[Part]:
        """The COT parts of the Location entered, before SMOKE and the climb: the first of
        :data:`ENTRY_COSTS` that answers (Crest status, IN a stream, onto a bridge, else the hex's terrain)."""
        c = _Cost(self, to, tb, hst, protection)
        for rule in ENTRY_COSTS:
            parts = rule(c)
            if parts is not None:
                return parts
        raise AssertionError("no entry cost rule decided")  # the last one always decides

    def terrain_parts(self, tb: HexTerrain, protection: bool) -> list[Part]:
        """The hex's terrain by the chart (shellholes paid for their protection, B3.43)."""
        key = self.ground_key(tb)
        v, rule, bog, name = self.cost(key)
        if protection and key == "shellholes" and not self.pays_mp:
            g = self.chart.terrain["shellholes"].mf
            pv = g.get("protection") if g is not None else None
            if isinstance(pv, Fraction):
                v, name = pv, "shellholes, paying for their protection"
        return [(v, f"COT: enters {name.lower()} {self.n(tb.hex)}", rule, bog)]

    def road_rate_problem(self, to: Location, tb: HexTerrain, hs: Hexside, hst: HexsideTerrain,
                          road_type: str | None, along_ns: bool) -> tuple[str, str] | None:
        """Why this entry cannot use the road rate, or None: no road crosses the hexside (B3.4); a Narrow
        Street crossing is not taken as a road (judgment narrow_street_crossing_is_road, P5.11); IN a stream
        or to Crest status (B3.4); the road is covered by rubble (B3.43); an obstacle entered along or
        across a Narrow Street (P5.11)."""
        if road_type is None:
            return (f"no road crosses hexside {self.n(hs)}", "B3.4")
        if hst.road is None and not self.ns_crossing_is_road:
            return (f"crossing Narrow Street {self.n(hs)} is not a road hexside crossing", "P5.11")
        if to.place != "" or tb.is_in_stream(to.place):
            return (f"the road rate does not take a unit IN a stream or to Crest status ({self.n(to)})", "B3.4")
        if road_negated(self.m, tb.hex):
            return (f"the road in {self.n(tb.hex)} is covered by rubble and treated as non-existent", "B3.43")
        if (hst.narrow_street is not None or along_ns) and self.is_obstacle(tb):
            return (f"a unit moving along/across a Narrow Street cannot enter an obstacle ({self.n(tb.hex)}) at the "
                    "road rate"), "P5.11"
        return None

    def entry_notes(self, hs: Hexside, hst: HexsideTerrain, weather: bool,
                    declared_vertex: Vertex | None) -> tuple[str, ...]:
        """The notes an entry carries: P2.54's weather flag, and the vertex a unit crossing a Narrow Street
        roadblock's hexside declares (P5.141: crossing along the segment costs nothing extra)."""
        notes: list[str] = []
        if weather:
            notes.append(_P2_54_NOTE)
        if hst.narrow_street is not None and self.m.roadblock(hs) is not None:
            side = (f"it declares vertex {self.n_vertex(declared_vertex)}" if declared_vertex is not None
                    else "it must declare a vertex of that hexside")
            notes.append(f"Crossing {self.n(hs)} along the Narrow Street roadblock's segment costs nothing extra, "
                         f"but {side} to fix its side of the roadblock vs Snap Shots (P5.141).")
        return tuple(notes)

    def hex_entry(self, frm: Location, to: Location, *, road_rate: bool | None = None, protection: bool = False,
                  along_ns: bool = False, declared_vertex: Vertex | None = None) -> MoveRuling:
        """Entering a Location of an adjacent hex: the Stream Culvert (P4.21), the same upper level of the
        same building (B23.42), or the hex's ground Location (IN the stream in a stream hex) or Crest status,
        at the hex's COT or, where B3.4 leaves it to the mover, at the road rate (:meth:`choose_rate`)."""
        opts = self.entry_options(frm, to, protection, along_ns, declared_vertex)
        if isinstance(opts, MoveRuling):
            return opts
        return self.choose_rate(*opts, road_rate, protection)

    def entry_options(self, frm: Location, to: Location, protection: bool, along_ns: bool,
                      declared_vertex: Vertex | None) -> MoveRuling | EntryOptions:
        """The ways of entering ``to`` from ``frm``: one ruling where there is no choice (the culvert, an
        upper building level), else the ruling at the hex's COT, the ruling at the road rate (None where there
        is none), why the road rate cannot be used, and the road type of the hexside crossed (B3.1)."""
        m = self.m
        a, b = frm.hex, to.hex
        hs = a.hexside(a.direction_to(b))
        hst = m.hexside(hs)
        ta, tb = m.terrain(a), m.terrain(b)
        if to.place == "culvert":
            prob = culvert_entry_problem(m, frm, b)
            if prob:
                raise _NA(*prob)
            return self.culvert_entry(frm, to, tb)
        if frm.place == "culvert" and not (to.place == "" and to.level == 0 and tb.is_stream
                                           and (hst.stream or hst.culvert)):
            raise _NA("a unit leaves a Stream Culvert only INTO an ADJACENT stream Location", "P4.21")
        if frm.level or to.level:
            return self.building_level_entry(frm, to, hs, hst, ta, tb)
        self.entry_prohibitions(b, hs, hst, tb, along_ns)
        parts = self.entry_parts(to, tb, hst, protection)
        up = tb.level - ta.level if (hst.crest and tb.level > ta.level) else 0
        weather = self.weather_flag(hst, ta, tb)
        notes = self.entry_notes(hs, hst, weather, declared_vertex)
        across_stream = tb.is_stream and tb.terrain != "open" and hst.stream and to.place in ("", "crest")
        if across_stream:
            other = self.chart.terrain[tb.terrain].name.lower()
            notes += (f"Entered across stream hexside {self.n(hs)}, the {other} of {self.n(b)} costs nothing more: "
                      "P4.11 adds it only across a non-stream hexside.",)
        terrain_r = self._option(frm, to, a, b, hs, hst, parts, up, False, notes, weather)
        if across_stream:
            terrain_r = replace(terrain_r, note_rules=(*terrain_r.note_rules, "P4.11"))
        road_type = road_hexside_type(hst)
        road_problem = self.road_rate_problem(to, tb, hs, hst, road_type, along_ns)
        road_r: MoveRuling | None = None
        if along_ns and terrain_r.allowed and self.is_obstacle(tb):
            # the P5.11 EX step: from Bypass along a Narrow Street into the obstacle, its full COT
            terrain_r = replace(terrain_r, notes=terrain_r.notes + (
                f"From Bypass along a Narrow Street into the obstacle {self.n(b)}, the unit still pays its full COT, "
                "never the road rate (P5.11).",), note_rules=(*terrain_r.note_rules, "P5.11"))
        if road_problem is None and road_type is not None and protection and terrain_r.allowed:
            # B3.43: paying for the hex's protection is the mover's choice against the road rate and bonus
            what = self.chart.terrain[self.ground_key(tb)].name.lower()
            terrain_r = replace(terrain_r, notes=terrain_r.notes + (
                f"Paying the {what} cost of {self.n(b)} for its protection forgoes the road rate across "
                f"{self.n(hs)} and the road bonus (B3.43).",),
                bonus_lost_by=(f"it pays for the protection of the {what} in {self.n(b)} (B3.43)",)
                if self.bonus_unit else (), note_rules=(*terrain_r.note_rules, "B3.43"))
        if road_problem is None and road_type is not None and not protection:
            v, rule, _, _ = self.cost("road-" + road_type)
            if isinstance(v, Fraction):
                why = f"crosses {road_type} road hexside {self.n(hs)} (road rate, not the terrain of {self.n(b)})"
                rparts: list[Part] = [(v, why, rule, False)]
                road_r = self._option(frm, to, a, b, hs, hst, rparts, up, True, notes, weather)
        return terrain_r, road_r, road_problem, road_type

    def entry_rulings(self, frm: Location, to: Location, along_ns: bool = False) -> list[MoveRuling]:
        """Every way of entering ``to`` from ``frm`` (at the hex's COT and at the road rate): the search
        weighs them itself, since which is better may depend on the allowance (an ALL cost) or on keeping
        the road bonus (B3.4)."""
        try:
            opts = self.entry_options(frm, to, False, along_ns, None)
        except _NA as e:
            return [self.na(frm, to, e.reason, e.rule)]
        if isinstance(opts, MoveRuling):
            return [opts]
        terrain_r, road_r = opts[0], opts[1]
        return [terrain_r] if road_r is None else [terrain_r, road_r]

    def choose_rate(self, terrain_r: MoveRuling, road_r: MoveRuling | None, road_problem: tuple[str, str] | None,
                    road_type: str | None, road_rate: bool | None, protection: bool) -> MoveRuling:
        """The road rate or the hex's COT: as the mover asks (the road rate is his option, B3.4; paying for
        protection excludes it, B3.43), or else the cheaper legal way."""
        if road_rate is True:
            if road_problem is not None:
                raise _NA(*road_problem)
            if protection:
                raise _NA("paying for protection (B3.43) and moving at the road rate exclude each other", "B3.43")
            if road_r is None:
                v, rule, _, name = self.cost("road-" + (road_type or "paved"))
                raise _NA(f"{self.desc} may not use the road rate ({name.lower()}: {v})", rule)
            return road_r
        if road_rate is False or road_r is None or not road_r.allowed:
            return terrain_r
        if not terrain_r.allowed:
            return road_r
        tc = terrain_r.cost if terrain_r.cost is not None else ZERO
        rc = road_r.cost if road_r.cost is not None else ZERO
        return road_r if rc <= tc else terrain_r

    def _option(self, frm: Location, to: Location, a: Hex, b: Hex, hs: Hexside, hst: HexsideTerrain,
                parts: list[Part], up: int, road: bool, notes: tuple[str, ...], weather: bool) -> MoveRuling:
        """One way of paying for an entry: the COT parts (the terrain's, or the road rate, B3.4), SMOKE
        (B.2), the climb (B10.4, B3.41), the hexside extras (B9.4, P3.2, B29.4, P2.51, P2.52), the
        vehicle/wreck penalty (D2.14, B3.42). At the road rate it may keep the road bonus (B3.4) and leaves
        Infantry to FFMO where the hex is not Open Ground (B3.3)."""
        for v, why, rule, _ in parts:
            if v == "NA":
                return self.na(frm, to, f"{self.desc} may not enter {_what(why)}", rule)
        for v, why, rule, bog in parts:
            if v == "ALL":
                try:
                    return self.all_ruling(frm, to, _what(why), rule, bog)
                except _NA as e:
                    return self.na(frm, to, e.reason, e.rule)
        items = [Item(v, why, rule) for v, why, rule, _ in parts]
        bog = any(p[3] for p in parts) and self.pays_mp and not road
        m = self.m
        if m.smoke(b):
            items.append(self.smoke_item(b))
        if up:
            self.climb_items(_total(items), up, road, hs, items)
        self.hexside_items(a, hs, hst, items)
        items.extend(self.vehicle_items(b, road))
        lost = tuple(self.bonus_spoilers((b,), hst)) if road and self.bonus_unit else ()
        keeps = road and self.bonus_unit and not lost
        ffmo = road and (self.inf or self.cav) and not self.open_ground(m.terrain(b))
        if bog:
            notes = notes + ("The vehicle must make a Bog check (D8.21).",)
        return self.ok(frm, to, items, road=road, ffmo=ffmo, keeps=keeps, bog=bog, weather=weather, notes=notes,
                       bonus_lost=lost)

    def culvert_entry(self, frm: Location, to: Location, tb: HexTerrain) -> MoveRuling:
        """Entering a Stream Culvert as if INTO another hex of that stream (P4.21): the stream's depth
        cost; Infantry only (no 5/8-inch vehicle or Gun counter)."""
        v = self.cost("culvert")[0]
        if v == "NA":
            raise _NA(f"{self.desc} may not enter a Stream Culvert (only Infantry; no 5/8-inch vehicle or Gun "
                      "counter)", "P4.21")
        depth = tb.stream or "shallow"
        sv, srule, _, sname = self.cost(f"stream-{depth}")
        if sv == "NA":
            raise _NA(f"the stream in {self.n(tb.hex)} cannot be entered ({sname})", srule)
        if sv == "ALL":
            return self.all_ruling(frm, to, f"the Stream Culvert of {self.n(tb.hex)}", "P4.21", False)
        items = [Item(sv, f"enters the Stream Culvert of {self.n(tb.hex)} as INTO the {depth} stream", "P4.21")]
        return self.ok(frm, to, items)

    def building_level_entry(self, frm: Location, to: Location, hs: Hexside, hst: HexsideTerrain,
                             ta: HexTerrain, tb: HexTerrain) -> MoveRuling:
        """Moving between the same upper level of two hexes of one building (B23.42); any other change of
        level goes by a stairwell inside one hex."""
        lv = frm.level
        same = (lv == to.level and lv >= 1 and ta.is_building and tb.is_building and ta.building_id is not None
                and ta.building_id == tb.building_id and lv <= tb.building_levels and lv <= ta.building_levels)
        if not same:
            raise _NA("a unit changes building level only by a stairwell inside one hex, and moves between hexes "
                      "at one level only within the same building", "B23.42")
        self.check_blaze(tb.hex)
        v, rule, _, _ = self.cost("building")
        if v == "NA" or v == "ALL":
            raise _NA(f"{self.desc} may not enter a building", rule)
        items = [Item(v, f"COT: enters level {lv} of building {self.n(tb.hex)}", rule)]
        up = tb.level - ta.level if (hst.crest and tb.level > ta.level) else 0
        self.climb_items(v, up, False, hs, items)
        return self.ok(frm, to, items)

    # ------------------------------------------------------------------ same hex
    def level_change(self, frm: Location, to: Location) -> MoveRuling:
        """A change of Location inside one hex: building levels by stairwell, 1 MF a level (B23.42; the
        steeple's and the single-hex two-story house's inherent stairwells, P5.2, P5.3), IN <-> Crest status
        (B20.91, P4.22), never into or out of a Stream Culvert from its own hex (P4.21)."""
        h = frm.hex
        t = self.m.terrain(h)
        if "culvert" in (frm.place, to.place):
            raise _NA("a Stream Culvert is entered and left only through an ADJACENT stream or culvert Location",
                      "P4.21")
        if {frm.place, to.place} == {"", "crest"}:
            if not (self.inf or self.cav):
                raise QueryError("to: Crest status for vehicles and Wagons (B20.92) is not modelled by this engine; "
                                 "expected an Infantry or Cavalry unit")
            if to.place == "crest":
                prob = crest_status_problem(self.m, h, None)
                if prob:
                    raise _NA(*prob)
                why = f"gains Crest status in {self.n(h)} from IN the stream"
            else:
                why = f"leaves Crest status for IN the stream in {self.n(h)}"
            return self.ok(frm, to, [Item(self.p_crest, why, "B20.91")])
        if frm.place == "" and to.place == "" and t.is_building:
            if not self.inf:
                raise _NA(f"{self.desc} may not enter building levels", "B23.41")
            if not t.has_stairwell:
                raise _NA(f"{self.n(h)} has no stairwell: its levels are not linked there", "B23.42")
            d = abs(to.level - frm.level)
            way = "climbs" if to.level > frm.level else "descends"
            # the stairwell's source is named: mapped, or inherent in a steeple hex (P5.2) or a single-hex
            # two-story house (P5.3); the cost stays B23.42's
            stair = ("stairwell" if t.stairwell else "steeple's inherent stairwell (P5.2)" if t.steeple
                     else "inherent stairwell of a single-hex two-story house (P5.3)")
            inherent = () if t.stairwell else ("P5.2",) if t.steeple else ("P5.3",)
            r = self.ok(frm, to, [Item(self.p_stair * d, f"{way} {d} level{'s' if d > 1 else ''} by the "
                                                          f"{stair} of {self.n(h)}", "B23.42")])
            return replace(r, note_rules=inherent) if inherent else r
        raise _NA(f"no move links {self.n(frm)} and {self.n(to)}", "B23.42")

    # ------------------------------------------------------------------ Bypass
    def bypass_to_interior(self, frm: Location, to: Location) -> MoveRuling:
        """Leaving Bypass to enter the obstacle of the hex itself: its COT (and SMOKE, B.2), no hexside
        crossed (A4.3, [U])."""
        t = self.m.terrain(to.hex)
        self.check_blaze(to.hex)
        v, rule, bog, name = self.cost(self.ground_key(t))
        if v == "NA":
            raise _NA(f"{self.desc} may not enter {name.lower()} {self.n(to.hex)}", rule)
        if v == "ALL":
            return self.all_ruling(frm, to, f"{name.lower()} {self.n(to.hex)}", rule, bog)
        items = [Item(v, f"COT: leaves Bypass into the {name.lower()} of {self.n(to.hex)}", rule)]
        if self.m.smoke(to.hex):
            items.append(self.smoke_item(to.hex))
        return self.ok(frm, to, items, bog=bog and self.pays_mp)

    def bypass_prohibitions(self, h: Hex, s: Hexside, ns: bool, own: bool) -> None:
        """What forbids moving in Bypass along ``s`` in ``h``: along a Narrow Street, the unit is in the lower
        hex of a Crest Line hexside, and neither routs nor Dashes there (P5.11), and nobody Bypasses with
        another vehicle/wreck in Bypass along it, a Blaze or Rubble (P5.126); elsewhere Bypass is movement
        along the hexsides of a woods or building hex entered from outside it (A4.3, D2.3) and not into a
        Blaze (B25)."""
        m = self.m
        if ns:
            low = bypass_hex(m, s)
            if low is not None and low != h:
                raise _NA(f"a unit Bypassing along Crest-Line Narrow Street {self.n(s)} is in the lower hex "
                          f"{self.n(low)}", "P5.11")
            if self.rout:
                raise _NA("routing along a Narrow Street is NA", "P5.11")
            if self.dash:
                raise _NA("Dashing along a Narrow Street is NA", "P5.11")
            blocked = narrow_street_bypass_blocked(m, s)
            if blocked:
                raise _NA(f"all Bypass along Narrow Street {self.n(s)} is NA: {blocked}", "P5.126")
            return
        rule = "D2.3" if self.vbm else "A4.3"
        if own:
            raise _NA(f"Bypass is movement along the hexsides of an obstacle hex entered from outside it; "
                      f"{self.n(s)} is no Narrow Street", rule)
        th = m.terrain(h)
        if th.terrain not in self.bypass_terrain or th.is_stream:
            raise _NA(f"only woods and building hexes are bypassed ({self.n(h)} is {th.terrain}"
                      f"{', a stream hex' if th.is_stream else ''})", rule)
        self.check_blaze(h)

    def bypass_cost_items(self, h: Hex, s: Hexside, v: Vertex, ns: bool) -> list[Item]:
        """The cost of one hexside of Bypass: Infantry and Cavalry the Bypass MF (A4.3, also along a Narrow
        Street, P5.11), vehicles and Wagons VBM at twice the Open Ground cost (D2.3), half that along a
        Narrow Street (P5.11; Wagons by judgment wagon_half_bypass); SMOKE: +1 for SMOKE in either hex of a
        Narrow Street (only the lower hex's on a Crest Line, P5.11), else the bypassed hex's (B.2)."""
        m = self.m
        along = f"along {self.n(s)} in {self.n(h)} to vertex {self.n_vertex(v)}"
        items: list[Item] = []
        if self.vbm:
            if self.vbm_full is None:
                raise _NA(f"{self.desc} may not use VBM", "D2.3")
            if ns and (not self.wagon or self.wagon_half):
                items.append(Item(self.vbm_half, f"VBM {along}: half the normal {self.vbm_full_text} "
                                                 f"{self.units} on a Narrow Street", "P5.11"))
            else:
                items.append(Item(self.vbm_full, f"VBM {along}", "D2.3"))
        else:
            items.append(Item(self.p_bypass, f"Bypass {along}", "A4.3"))
        if ns:
            sh = narrow_street_smoke(m, s)
            if sh is not None:
                items.append(Item(self.p_ns_smoke, f"SMOKE in {self.n(sh)} beside Narrow Street {self.n(s)}",
                                  "P5.11"))
            if not self.ns_smoke_replaces and m.smoke(h) and sh != h:
                items.append(self.smoke_item(h))
        elif m.smoke(h):
            items.append(self.smoke_item(h))
        return items

    def bypass_entry_items(self, x: Hex, h: Hex, hs_x: Hexside, hst_x: HexsideTerrain, items: list[Item]) -> bool:
        """Entering Bypass of ``h`` from adjacent hex ``x`` crosses the hexside between them (judgment
        bypass_entry_crosses_hexside): its climb (B10.4), extras and slope (B9.4, P2.51, P2.52), and the
        vehicle/wreck penalty of ``h`` (D2.14). Returns P2.54's weather flag."""
        m = self.m
        tx, th = m.terrain(x), m.terrain(h)
        up = th.level - tx.level if (hst_x.crest and th.level > tx.level) else 0
        if self.bypass_crosses:
            if up:
                self.climb_items(_total(items), up, False, hs_x, items)
            self.hexside_items(x, hs_x, hst_x, items)
        items.extend(self.vehicle_items(h, False))
        return self.weather_flag(hst_x, tx, th)

    def bypass_keeps_bonus(self, frm: Location, h: Hex, s: Hexside, ns: bool, roadblock: bool,
                           hst_x: HexsideTerrain | None) -> bool:
        """Whether a step in Bypass keeps the B3.4 road bonus possible: only along a Narrow Street (P5.11),
        not across its roadblock's segment, reached across a road hexside (or on from along another Narrow
        Street) into a hex whose road is not rubbled (B3.43), with nothing in its two hexes spoiling it
        (B3.4) and no fence crossed (judgment fence_denies_road_bonus)."""
        if not (ns and self.bonus_unit) or roadblock:
            return False
        if hst_x is not None:
            road_in = road_hexside_type(hst_x) is not None or (frm.is_bypass and self.bypass_ns(frm, self.m))
            if not road_in or road_negated(self.m, h) or (self.fence_denies_bonus and hst_x.fence):
                return False
        return self.keeps_bonus(s.hexes, None)

    def bypass_move(self, frm: Location, h: Hex, s: Hexside, v0: Vertex, v: Vertex) -> MoveRuling:
        """Moving in Bypass along hexside ``s`` of hex ``h`` from vertex ``v0`` to vertex ``v``: Infantry and
        Cavalry at the Bypass MF (A4.3), vehicles and Wagons by VBM (D2.3); along a Narrow Street VBM needs
        no clearance and costs half, Infantry/Cavalry pay normally and may keep the road bonus, SMOKE in
        either hex adds 1 (P5.11); P5.126 and P5.141 may forbid it, and crossing a Narrow Street roadblock's
        segment costs +1 MF (P5.141). Entering from another hex crosses the hexside between them."""
        m = self.m
        to = Location(h, bypass=s, vertex=v)
        ns = m.hexside(s).narrow_street is not None
        x = frm.hex
        if frm.level or frm.place in ("culvert", "rooftop"):
            raise _NA("Bypass starts from a ground-level Location", "A4.3")
        continuing = frm.is_bypass and x == h
        own = x == h and not frm.is_bypass
        self.bypass_prohibitions(h, s, ns, own)
        roadblock = ns and m.roadblock(s) is not None
        if roadblock and self.vbm:
            raise _NA(f"the Narrow Street roadblock on {self.n(s)} prohibits VBM along it", "P5.141")
        hs_x: Hexside | None = None
        hst_x: HexsideTerrain | None = None
        if not continuing and not own:
            hs_x = x.hexside(x.direction_to(h))
            hst_x = m.hexside(hs_x)
            self.crossing_checks(hs_x, hst_x)
        if _beyond_grid(v):
            raise _NA("that vertex lies beyond the edge of the map's grid", "A4.3")
        items = self.bypass_cost_items(h, s, v, ns)
        weather = False
        if hs_x is not None and hst_x is not None:
            weather = self.bypass_entry_items(x, h, hs_x, hst_x, items)
        if roadblock:
            v_rb, rule_rb, _, _ = self.cost("narrow-street-roadblock")
            if isinstance(v_rb, Fraction) and v_rb:
                items.append(Item(v_rb, f"crosses the Narrow Street roadblock's segment on {self.n(s)}", rule_rb))
        keeps = self.bypass_keeps_bonus(frm, h, s, ns, roadblock, hst_x)
        return self.ok(frm, to, items, keeps=keeps, bypass=s, weather=weather,
                       notes=(_P2_54_NOTE,) if weather else ())

    # ------------------------------------------------------------------ dispatch
    def guard(self, fn: Any, frm: Location, to: Location, *args: Any, bypass: Hexside | None = None,
              **kw: Any) -> MoveRuling:
        """The ruling of ``fn(*args, **kw)``, a forbidden move turned into a not-allowed ruling."""
        try:
            r: MoveRuling = fn(*args, **kw)
            return r
        except _NA as e:
            return self.na(frm, to, e.reason, e.rule, bypass)

    @staticmethod
    def bypass_ns(loc: Location, m: Map) -> bool:
        """Whether a Bypass position is along a Narrow Street (its hexside, or any hexside at its vertex)."""
        if loc.bypass is not None:
            return m.hexside(loc.bypass).narrow_street is not None
        if loc.vertex is not None:
            return any(m.hexside(hs).narrow_street is not None for hs in _hexsides_at(loc.hex, loc.vertex))
        return False

    def start_vertices(self, frm: Location) -> tuple[Vertex, ...]:
        """The vertices from which a move out of ``frm`` may start in Bypass."""
        if frm.vertex is not None:
            return (frm.vertex,)
        if frm.bypass is not None:
            return _ends(frm.bypass)
        return _hex_vertices(frm.hex)

    def bypass_candidates(self, frm: Location, s: Hexside, in_hex: Hex | None,
                          to_vertex: Vertex | None) -> list[tuple[Hex, Vertex, Vertex]]:
        """The (hex, start vertex, end vertex) of each way ``frm`` can move in Bypass along ``s`` (the lower
        hex only on a Crest-Line Narrow Street, P5.11)."""
        m = self.m
        ends = _ends(s)
        starts = self.start_vertices(frm)
        hexes = [in_hex] if in_hex is not None else [h for h in s.hexes if h in m]
        low = bypass_hex(m, s)
        if low is not None:
            hexes = [low]
        out: list[tuple[Hex, Vertex, Vertex]] = []
        for h in hexes:
            for v0 in ends:
                if v0 not in starts:
                    continue
                if frm.is_bypass and frm.hex != h and h not in v0.hexes:
                    continue
                v = _other_end(s, v0)
                if to_vertex is not None and v != to_vertex:
                    continue
                out.append((h, v0, v))
        return out

    def bypass_step(self, frm: Location, bypass: Hexside, in_hex: Hex | None, to_vertex: Vertex | None) -> MoveRuling:
        """A step in Bypass along ``bypass`` (in ``in_hex``, to ``to_vertex``), the cheapest allowed way when
        the rules leave the hex open; bad requests raise QueryError naming the key."""
        if in_hex is not None and in_hex not in bypass.hexes:
            raise NotAdjacent(f"in: {self.n(in_hex)} is not a hex of {self.n(bypass)}; expected "
                              + " or ".join(self.n(h) for h in bypass.hexes))
        ends = [x for x in _ends(bypass) if not _beyond_grid(x)]
        if to_vertex is not None and to_vertex not in ends:
            raise QueryError(f"to_vertex: {self.n_vertex(to_vertex) if not _beyond_grid(to_vertex) else to_vertex!r} "
                             f"is not a vertex of {self.n(bypass)} on the grid; expected "
                             + " or ".join(self.n_vertex(x) for x in ends))
        cands = [c for c in self.bypass_candidates(frm, bypass, in_hex, to_vertex) if not _beyond_grid(c[2])]
        if not cands:
            raise NotAdjacent(f"bypass: hexside {self.n(bypass)} does not touch {self.n(frm)} at a vertex it can "
                              "start from" + (f" in {self.n(in_hex)}" if in_hex is not None else ""))
        if to_vertex is None and len({c[2] for c in cands}) > 1:
            raise QueryError(f"to_vertex: missing; moving in Bypass along {self.n(bypass)} from {self.n(frm)} "
                             f"can end at " + " or ".join(sorted({self.n_vertex(c[2]) for c in cands})))
        return _cheapest([self.guard(self.bypass_move, frm, Location(h, bypass=bypass, vertex=v), frm, h, bypass,
                                     v0, v, bypass=bypass) for h, v0, v in cands])

    def move(self, frm: Location, to: Location | None = None, *, bypass: Hexside | None = None,
             in_hex: Hex | None = None, to_vertex: Vertex | None = None, road_rate: bool | None = None,
             protection: bool = False, declared_vertex: Vertex | None = None) -> MoveRuling:
        """The ruling on one move, however it is asked (see :func:`move_cost`)."""
        if to is not None and to.is_bypass and bypass is None:
            if to.bypass is not None:
                return self.bypass_step(frm, to.bypass, to.hex, to.vertex)
            assert to.vertex is not None
            starts = self.start_vertices(frm)
            cands = [hs for hs in _hexsides_at(to.hex, to.vertex) if _other_end(hs, to.vertex) in starts]
            if not cands:
                raise NotAdjacent(f"to: Bypass position {self.n(to)} cannot be reached in one move from "
                                  f"{self.n(frm)}")
            return _cheapest([self.bypass_step(frm, hs, to.hex, to.vertex) for hs in cands])
        if bypass is not None:
            return self.bypass_step(frm, bypass, in_hex, to_vertex)
        if to is None:
            raise QueryError("missing key 'to' (or 'bypass'); expected the Location entered")
        if to.place == "rooftop" or frm.place == "rooftop":
            raise QueryError("Rooftop movement (B23.8) is not modelled by this engine")
        if to.base() == frm.base() and not frm.is_bypass:
            raise QueryError(f"to: {self.n(to)} is the Location the unit is in")
        if frm.is_bypass:
            if to.hex == frm.hex:
                if to.level or to.place:
                    return self.na(frm, to, "a unit in Bypass enters the ground Location of its hex first", "A4.3")
                return self.guard(self.bypass_to_interior, frm, to, frm, to)
            if not any(to.hex in v.hexes for v in self.start_vertices(frm)):
                raise NotAdjacent(f"to: {self.n(to.hex)} does not touch the Bypass position {self.n(frm)}")
            return self.guard(self.hex_entry, frm, to, frm, to, road_rate=road_rate, protection=protection,
                              along_ns=self.bypass_ns(frm, self.m), declared_vertex=declared_vertex)
        if to.hex == frm.hex:
            return self.guard(self.level_change, frm, to, frm, to)
        if not frm.hex.is_adjacent(to.hex):
            raise NotAdjacent(f"to: {self.n(to.hex)} is not adjacent to {self.n(frm.hex)}; a move enters an adjacent "
                              "hex")
        return self.guard(self.hex_entry, frm, to, frm, to, road_rate=road_rate, protection=protection,
                          declared_vertex=declared_vertex)

    # ------------------------------------------------------------------ VCA
    def with_vca(self, r: MoveRuling, vca: int | None) -> tuple[MoveRuling, int | None]:
        """The ruling with the VCA change a vehicle (or Wagon) facing hexspine ``vca`` makes to enter the hex
        it moves into (D2.11: 1 MP a hexspine, 2 in a building, woods or rubble hex), and its VCA after it.
        Only for a move between the ground Locations of adjacent hexes; None where the VCA is not tracked."""
        if vca is None or not r.allowed or r.frm is None or r.to is None:
            return r, None
        frm, to = r.frm, r.to
        if frm.is_bypass or to.is_bypass or frm.hex == to.hex or not frm.hex.is_adjacent(to.hex):
            return r, None
        d = frm.hex.direction_to(to.hex)
        turn = min((d - vca) % 6, (vca - d) % 6)
        if not turn or r.all_mf:
            return r, d
        obstacle = _in_vca_obstacle(self.m, frm.hex, self.vca_obstacles)
        per = self.p_vca_obstacle if obstacle else self.p_vca
        item = Item(per * turn, f"changes VCA {turn} hexspine{'s' if turn > 1 else ''} to face {self.n(to.hex)}"
                                + (f" in {self.m.terrain(frm.hex).terrain} {self.n(frm.hex)}" if obstacle else ""),
                    "D2.11")
        total = item.amount + (r.cost if r.cost is not None else ZERO)
        return replace(r, allowed=True, cost=total, items=(item, *r.items), reason=None, forbidden_by=None), d

    # ------------------------------------------------------------------ the search's tables
    def node_id(self, loc: Location) -> int:
        """The search's integer id of a Location (or Bypass position)."""
        i = self._ids.get(loc)
        if i is None:
            i = len(self._nodes)
            self._ids[loc] = i
            self._nodes.append(loc)
            self._iadj.append(None)
        return i

    def adjacency(self, u: int) -> list[Edge]:
        """The allowed moves out of node ``u`` as (node, scaled cost, keeps road bonus, ALL, ruling), built
        the first time the search needs them."""
        got = self._iadj[u]
        if got is None:
            got = [(self.node_id(r.to), _scaled(r.cost), r.keeps_road_bonus, r.all_mf, r)
                   for r in self.edges(self._nodes[u]) if r.to is not None]
            self._iadj[u] = got
        return got

    def _shared_rulings(self, key: tuple[Any, ...], frm: Location, make: Any) -> list[MoveRuling]:
        """The rulings ``make()`` gives for moves that do not depend on which Bypass position of its hex
        ``frm`` is (``key`` names what they depend on): made once, then re-made from each such ``frm``."""
        rs = self._shared.get(key)
        if rs is None:
            rs = make()
            self._shared[key] = rs
        return [_restamp(r, frm) for r in rs]

    def edges(self, node: Location) -> list[MoveRuling]:
        """Every allowed move out of ``node``: the search's adjacency list."""
        if node.is_bypass:
            out = self._bypass_edges(node)
        elif node.level:
            out = self._upper_level_edges(node)
        elif node.place == "culvert":
            out = self._culvert_edges(node)
        else:
            out = self._ground_edges(node)
        return [r for r in out if r.allowed]

    def _try_bypass(self, frm: Location, h: Hex, s: Hexside, v0: Vertex, out: list[MoveRuling],
                    shared_key: tuple[Any, ...] | None = None) -> None:
        """The Bypass move from ``frm`` along ``s`` in ``h`` starting at ``v0``, when the rules could allow it
        (cheap filters first: a woods or building hex not one's own, or a Narrow Street in the right hex)."""
        m = self.m
        if self.has_ns and h in m and m.hexside(s).narrow_street is not None:
            low = bypass_hex(m, s)
            if low is not None and low != h:
                return
        elif not self._bypassable(h) or (h == frm.hex and not frm.is_bypass):
            return
        v = _other_end(s, v0)
        dest = Location(h, bypass=s, vertex=v)
        if shared_key is None or h == frm.hex:
            out.append(self.guard(self.bypass_move, frm, dest, frm, h, s, v0, v))
        else:
            out.extend(self._shared_rulings(("bypass", *shared_key, h, s, v0), frm,
                                            lambda: [self.guard(self.bypass_move, frm, dest, frm, h, s, v0, v)]))

    def _bypassable(self, h: Hex) -> bool:
        """Whether hex ``h`` is on the map and may be bypassed off a Narrow Street: a woods or building hex
        (the chart's ``bypass_terrain``), not a stream hex (A4.3, D2.3). Cached for the search."""
        got = self._bypass_ok.get(h)
        if got is None:
            got = h in self.m and self.m.terrain(h).terrain in self.bypass_terrain and not self.m.terrain(h).is_stream
            self._bypass_ok[h] = got
        return got

    def _bypass_edges(self, node: Location) -> list[MoveRuling]:
        """Out of a Bypass position at vertex v0 of hex a: on in Bypass along a's other hexside at v0, into the
        other hexes at v0 (their ground, Crest status), into Bypass of those hexes, and into a's own obstacle.
        Moves that do not depend on where in a the unit is are shared by a's Bypass positions."""
        m = self.m
        a = node.hex
        out: list[MoveRuling] = []
        ns = self.bypass_ns(node, m)
        can_crest = self.inf or self.cav
        starts = [node.vertex] if node.vertex is not None else list(_ends(node.bypass)) if node.bypass else []
        for v0 in starts:
            for s in _hexsides_at(a, v0):
                if s != node.bypass:
                    self._try_bypass(node, a, s, v0, out)
            for z in v0.hexes:
                if z == a or z not in m:
                    continue
                dests = [Location(z)]
                if can_crest and m.terrain(z).is_stream:
                    dests.append(Location(z, place="crest"))
                for dest in dests:
                    out.extend(self._shared_rulings(("entry", a, node.level, node.place, dest, ns), node,
                                                    lambda d=dest: self.entry_rulings(node, d, ns)))
                if self.has_ns or self._bypassable(z):
                    for s in _hexsides_at(z, v0):
                        self._try_bypass(node, z, s, v0, out, shared_key=(a, node.level, node.place, ns))
        inside = Location(a)
        out.extend(self._shared_rulings(("interior", a), node,
                                        lambda: [self.guard(self.bypass_to_interior, node, inside, node, inside)]))
        return out

    def _upper_level_edges(self, node: Location) -> list[MoveRuling]:
        """Out of an upper building level: the same level of an adjacent hex of the same building, and the
        levels above and below by the stairwell (B23.42)."""
        m = self.m
        a = node.hex
        ta = m.terrain(a)
        out: list[MoveRuling] = []
        for b in m.neighbours(a):
            tb = m.terrain(b)
            if tb.is_building and tb.building_id is not None and tb.building_id == ta.building_id \
                    and node.level <= tb.building_levels:
                out.extend(self.entry_rulings(node, Location(b, node.level)))
        for lv in (node.level - 1, node.level + 1):
            if 0 <= lv <= ta.top_level:
                dest = Location(a, lv)
                out.append(self.guard(self.level_change, node, dest, node, dest))
        return out

    def _culvert_edges(self, node: Location) -> list[MoveRuling]:
        """Out of a Stream Culvert: INTO an adjacent stream hex, or into an adjacent culvert (P4.21)."""
        m = self.m
        out: list[MoveRuling] = []
        for b in m.neighbours(node.hex):
            tb = m.terrain(b)
            if tb.is_stream:
                out.extend(self.entry_rulings(node, Location(b)))
            if tb.culvert:
                out.extend(self.entry_rulings(node, Location(b, place="culvert")))
        return out

    def _ground_edges(self, node: Location) -> list[MoveRuling]:
        """Out of a ground Location, IN a stream or Crest status: into each adjacent hex (its ground, Crest
        status, its culvert), Crest status in this hex (B20.91), up the stairwell (B23.42), and into Bypass
        at each vertex of this hex: along the neighbours' hexsides, and along this hex's own Narrow Streets
        (P5.11)."""
        m = self.m
        a = node.hex
        ta = m.terrain(a)
        can_crest = self.inf or self.cav
        out: list[MoveRuling] = []
        for b in m.neighbours(a):
            tb = m.terrain(b)
            out.extend(self.entry_rulings(node, Location(b)))
            if tb.is_stream and can_crest:
                out.extend(self.entry_rulings(node, Location(b, place="crest")))
            if tb.culvert and node.place == "" and ta.is_stream and self.inf:
                out.extend(self.entry_rulings(node, Location(b, place="culvert")))
        if ta.is_stream and can_crest and ta.bridge is None:  # a bridge hex: Crest status not modelled
            dest = Location(a, place="" if node.place == "crest" else "crest")
            out.append(self.guard(self.level_change, node, dest, node, dest))
        if ta.is_building and ta.top_level and self.inf:
            dest = Location(a, 1)
            out.append(self.guard(self.level_change, node, dest, node, dest))
        for k, v0 in enumerate(_hex_vertices(a)):
            y1, y2 = (h for h in v0.hexes if h != a)
            if not (self.has_ns or self._bypassable(y1) or self._bypassable(y2)):
                continue  # off Narrow Streets only a woods or building neighbour at v0 is bypassed from here
            if y1 in m and y2 in m:
                s = Hexside.of(y1, y2)
                self._try_bypass(node, y1, s, v0, out)
                self._try_bypass(node, y2, s, v0, out)
            for s in (a.hexside(k), a.hexside(k + 1)):
                other = s.other(a)
                if other in m:
                    self._try_bypass(node, other, s, v0, out)
                self._try_bypass(node, a, s, v0, out)
        return out


def _cheapest(rulings: list[MoveRuling]) -> MoveRuling:
    """The cheapest allowed ruling (the first on a tie), or the first ruling when none is allowed."""
    allowed = [r for r in rulings if r.allowed]
    if not allowed:
        return rulings[0]
    return min(allowed, key=lambda r: (r.cost if r.cost is not None else ZERO))


# ============================================================================================ caches

_MOVERS: weakref.WeakKeyDictionary[Map, dict[tuple[Any, ...], _Mover]] = weakref.WeakKeyDictionary()


def _as_unit(unit: Unit | str | Mapping[str, Any] | None) -> Unit:
    """A :class:`Unit` from a Unit or queries.md's string/object forms (infantry when left out)."""
    if isinstance(unit, Unit):
        return unit
    return Unit.from_json(unit if unit is not None else "infantry")


def _mover(m: Map, unit: Unit | str | Mapping[str, Any] | None, allowance: Any = None, *, dash: bool = False,
           rout: bool = False, conditions: Conditions | Mapping[str, Any] | None = None,
           chart: Chart | None = None) -> _Mover:
    """The (cached) rules object of ``unit`` on ``m``; checks the flags (only Infantry Dash, A4.63, or rout)
    and the allowance (a number >= 0), naming the key."""
    u = _as_unit(unit)
    if dash and u.type != "infantry":
        raise QueryError("dash: only Infantry may Dash (A4.63)")
    if rout and u.type not in ("infantry",):
        raise QueryError("rout: only Infantry rout (A10.5)")
    ch = chart if chart is not None else default_chart()
    cond = m.conditions_for(conditions)
    if allowance is None:
        allow = u.allowance
    else:
        if isinstance(allowance, bool) or not isinstance(allowance, (int, float, Fraction)):
            raise QueryError(f"allowance: expected a number, got {allowance!r}")
        allow = Fraction(allowance) if not isinstance(allowance, float) else Fraction(str(allowance))
        if allow < 0:
            raise QueryError(f"allowance: expected a number >= 0, got {allowance!r}")
    key = (ch, cond, u, allow, dash, rout)
    per = _MOVERS.get(m)
    if per is None:
        per = {}
        _MOVERS[m] = per
    mv = per.get(key)
    if mv is None:
        if len(per) > 64:
            per.clear()
        mv = _Mover(m, ch, cond, u, allow, dash, rout)
        per[key] = mv
    return mv


#: the allowance of the mover that holds the search's tables (any positive value: the tables do not depend on
#: it, see :class:`_Mover`)
_SEARCH_ALLOWANCE = ONE


def _search_mover(mv: _Mover) -> _Mover:
    """The mover whose tables every ``reach`` of ``mv``'s unit, map, chart, conditions and flags shares."""
    return _mover(mv.m, mv.unit, _SEARCH_ALLOWANCE, dash=mv.dash, rout=mv.rout, conditions=mv.cond,
                  chart=mv.chart)


def _loc(m: Map, x: Location | str, key: str) -> Location:
    """The Location (or Bypass position) given or named by query key ``key``, checked against the map and in
    its canonical form (P5.11); errors name the key."""
    if isinstance(x, Location):
        if x.hex not in m:
            raise UnknownLocation(f"{key}: hex {x.hex!r} is not on map {m.name!r}")
        if x.is_ground:
            return x  # every hex of the map has its ground Location
        try:
            m.check_location(x.base())
        except QueryError as e:
            raise type(e)(f"{key}: {e}") from None
        loc = _canonical_bypass(m, x)
    else:
        try:
            if isinstance(x, str) and "/" not in x and "@" not in x:
                return Location(m.parse_hex(x))  # a hex names its ground Location
            loc = _canonical_bypass(m, m.parse_location(x))
        except QueryError as e:
            raise type(e)(f"{key}: {e}") from None
    if loc.is_bypass and (loc.level or loc.place):
        raise QueryError(f"{key}: a unit in Bypass is at ground level (A4.3); expected a Bypass position such as "
                         f"{m.name_of(loc.hex)}@... without '/{loc.place or loc.level}'")
    return loc


def _canonical_bypass(m: Map, loc: Location) -> Location:
    """A Bypass position naming the higher hex of a Crest-Line Narrow Street hexside is the lower hex's
    (P5.11)."""
    if loc.bypass is not None:
        low = bypass_hex(m, loc.bypass)
        if low is not None and low != loc.hex:
            return Location(low, loc.level, loc.place, loc.bypass, loc.vertex)
    return loc


# ============================================================================================ public API


def move_cost(m: Map, unit: Unit | str | Mapping[str, Any] | None, frm: Location | str,
              to: Location | str | None = None, *, road_rate: bool | None = None, bypass: Hexside | str | None = None,
              to_vertex: Vertex | str | None = None, in_hex: Hex | str | None = None, dash: bool = False,
              rout: bool = False, declared_vertex: Vertex | str | None = None, protection: bool = False,
              allowance: Any = None, vca: int | None = None,
              conditions: Conditions | Mapping[str, Any] | None = None, chart: Chart | None = None) -> MoveRuling:
    """The ruling on one move into an adjacent hex or Location, or one step in Bypass.

    Parameters
    ----------
    m : Map
        The map.
    unit : Unit, str or mapping
        The mover (queries.md "Units"): ``"infantry"``, ``"vehicle"``, ``{"type": "cavalry", ...}`` ...
    frm, to : Location or str
        Where the unit is (a Location or Bypass position) and the Location it enters (a Location of an
        adjacent hex, another Location of its hex, or a Bypass position).
    road_rate : bool, optional
        Use (True) or refuse (False) the road rate where B3.4 leaves it to the mover; None takes the cheaper
        legal way and says which.
    bypass, to_vertex, in_hex : optional
        A Bypass step: along hexside ``bypass``, in hex ``in_hex`` (the engine picks when left out, P5.11 on
        a Crest Line), ending at vertex ``to_vertex``.
    dash, rout : bool
        Whether the move is part of a Dash or a rout (P5.11, B3.43 prohibitions).
    declared_vertex : Vertex or str, optional
        The side of a Narrow Street roadblock declared when crossing its hexside (P5.141).
    protection : bool
        Pay for woods/shellhole protection, or take an orchard's cover, rather than the road (B3.43).
    allowance : number, optional
        The unit's MF/MP (for ALL costs); defaults to the unit's own.
    vca : int, optional
        The hexspine a vehicle or Wagon faces (0 = N ... 5 = NW): the VCA change to face the hex entered is
        charged (D2.11). Left out, no VCA is charged (queries.md).
    conditions : Conditions or mapping, optional
        Month and weather overriding the map's.
    chart : Chart, optional
        The terrain chart; the bundled one by default.

    Returns
    -------
    MoveRuling
        Allowed or not (with reason and rule), the cost and its items.

    Raises
    ------
    QueryError
        ``NotAdjacent`` for hexes that are not adjacent, ``UnknownLocation``/``BadName`` for bad names, and
        a plain ``QueryError`` for a move the unit type does not fit.

    Examples
    --------
    >>> from asl_terrain.model import load_demo
    >>> r = move_cost(load_demo(), "infantry", "M16", "M17")
    >>> r.allowed, r.cost, r.road_rate
    (True, Fraction(1, 1), True)
    """
    mv = _mover(m, unit, allowance, dash=dash, rout=rout, conditions=conditions, chart=chart)
    f = _loc(m, frm, "from")
    t = _loc(m, to, "to") if to is not None else None
    hs = m.parse_hexside(bypass) if isinstance(bypass, str) else bypass
    tv = m.parse_vertex(to_vertex) if isinstance(to_vertex, str) else to_vertex
    ih = m.parse_hex(in_hex) if isinstance(in_hex, str) else in_hex
    dv = m.parse_vertex(declared_vertex) if isinstance(declared_vertex, str) else declared_vertex
    if (dv is not None and t is not None and not t.is_bypass and t.hex != f.hex and f.hex.is_adjacent(t.hex)
            and dv not in Hexside.of(f.hex, t.hex).vertices()):
        raise QueryError(f"declared_vertex: {m.name_of(dv)} is not a vertex of hexside "
                         f"{m.name_of(Hexside.of(f.hex, t.hex))}")
    _check_vca(mv, vca, f, t, hs)
    r = mv.move(f, t, bypass=hs, in_hex=ih, to_vertex=tv, road_rate=road_rate, protection=protection,
                declared_vertex=dv)
    return mv.with_vca(r, vca)[0]


def _check_vca(mv: _Mover, vca: Any, frm: Location, to: Location | None, bypass: Hexside | None) -> None:
    """Check a query's ``vca``: a hexspine 0-5 of a vehicle or Wagon, not in Bypass (where a vca-change query
    rules the turn, D2.33, P5.123)."""
    if vca is None:
        return
    if isinstance(vca, bool) or not isinstance(vca, int) or not 0 <= vca <= 5:
        raise QueryError(f"vca: expected the hexspine the vehicle faces, 0 (N) to 5 (NW), got {vca!r}")
    if not mv.vbm:
        raise QueryError(f"vca: only vehicles and Wagons have a VCA, not {mv.unit.type}")
    if frm.is_bypass or bypass is not None or (to is not None and to.is_bypass):
        raise QueryError("vca: VCA changes in Bypass are ruled by a vca-change query (D2.33, P5.123); give no vca "
                         "for a Bypass move")


def _as_step(m: Map, x: Any, i: int) -> Step:
    """Step ``i`` of a path from a Location name, a Location, a :class:`Step` or a queries.md step object;
    errors name ``hexes[i]`` and the key."""
    key = f"hexes[{i}]"
    if isinstance(x, Step):
        return x
    if isinstance(x, (str, Location)):
        return Step(to=_loc(m, x, key))
    if not isinstance(x, Mapping):
        raise QueryError(f"{key}: expected a Location name or a step object such as {{\"to\": \"J10\"}}, got {x!r}")
    known = {"to", "bypass", "in", "to_vertex", "road_rate", "protection", "declared_vertex"}
    for k in x:
        if k not in known:
            raise QueryError(f"{key}.{k}: unknown key; expected some of {', '.join(sorted(known))}")

    def flag(k: str) -> bool | None:
        v = x.get(k)
        if v is not None and not isinstance(v, bool):
            raise QueryError(f"{key}.{k}: expected true or false, got {v!r}")
        return v

    def wrap(k: str, fn: Any) -> Any:
        v = x.get(k)
        if v is None:
            return None
        if not isinstance(v, str):
            raise QueryError(f"{key}.{k}: expected a string, got {v!r}")
        try:
            return fn(v)
        except QueryError as e:
            raise type(e)(f"{key}.{k}: {e}") from None

    to = _loc(m, x["to"], f"{key}.to") if x.get("to") is not None else None
    hs = wrap("bypass", m.parse_hexside)
    if to is None and hs is None:
        raise QueryError(f"{key}: a step needs \"to\" (a Location) or \"bypass\" (a hexside)")
    return Step(to=to, bypass=hs, in_hex=wrap("in", m.parse_hex), to_vertex=wrap("to_vertex", m.parse_vertex),
                road_rate=flag("road_rate"), protection=bool(flag("protection")),
                declared_vertex=wrap("declared_vertex", m.parse_vertex))


def path(m: Map, unit: Unit | str | Mapping[str, Any] | None, steps: Sequence[Any], allowance: Any = None, *,
         dash: bool = False, rout: bool = False, vca: int | None = None,
         conditions: Conditions | Mapping[str, Any] | None = None, chart: Chart | None = None) -> PathRuling:
    """The ruling on a whole move: the first item is where the unit starts, each further one a step.

    Parameters
    ----------
    steps : sequence
        The start Location, then steps: Location names (or Bypass positions such as ``"N18@N18-O18-O19"``),
        :class:`Step` values, or queries.md step objects (``{"to": "J10", "road_rate": false}``,
        ``{"bypass": "O18-N18", "in": "N18", "to_vertex": "N18-O18-O19"}``).
    allowance : number, optional
        The unit's MF/MP; defaults to the unit's own. The road bonus (B3.4) raises it by 1 MF when every
        step keeps it.
    vca : int, optional
        The hexspine a vehicle or Wagon faces at the start: each move between ground Locations of adjacent
        hexes is charged its VCA change (D2.11); after a Bypass step the VCA is no longer tracked.

    Returns
    -------
    PathRuling
        ``cost`` is the sum of the steps' costs; ``allowed`` is false when a step is forbidden or the cost
        exceeds the allowance after any bonus.

    Examples
    --------
    >>> from asl_terrain.model import load_demo
    >>> r = path(load_demo(), "infantry", ["M8", "M9", "M10", "M11", "M12", "M13"], 4)
    >>> r.allowed, r.cost, r.road_bonus, r.allowance
    (True, Fraction(5, 1), True, Fraction(5, 1))
    """
    mv = _mover(m, unit, allowance, dash=dash, rout=rout, conditions=conditions, chart=chart)
    if not steps:
        raise QueryError("hexes: expected at least the start Location")
    first = steps[0]
    if isinstance(first, (Mapping, Step)):
        raise QueryError("hexes[0]: expected the start Location's name")
    start = _loc(m, first, "hexes[0]")
    if vca is not None:
        _check_vca(mv, vca, start, None, None)
    pos = start
    rulings: list[MoveRuling] = []
    total = ZERO
    bonus = mv.bonus_unit
    for i, raw in enumerate(steps[1:], start=1):
        st = _as_step(m, raw, i)
        r = mv.move(pos, st.to, bypass=st.bypass, in_hex=st.in_hex, to_vertex=st.to_vertex, road_rate=st.road_rate,
                    protection=st.protection, declared_vertex=st.declared_vertex)
        r, vca = mv.with_vca(r, vca)
        rulings.append(r)
        if not r.allowed or r.cost is None:
            return PathRuling(False, None, mv.units, False, mv.allowance, tuple(rulings), start,
                              f"step {i} ({mv.n(pos)} to {mv.n(r.to) if r.to else '?'}): {r.reason}", r.forbidden_by,
                              m.names)
        total += r.cost
        bonus = bonus and r.keeps_road_bonus
        assert r.to is not None
        pos = r.to
    road_bonus = bonus and bool(rulings)
    allow = mv.allowance + (mv.p_bonus if road_bonus else ZERO)
    lost = (None if road_bonus or not rulings else mv.bonus_spoiled_by or
            (_road_bonus_lost(m, mv, rulings) if any(r.road_rate for r in rulings) else None))
    if total > allow:
        why = (f"it costs {fmt(total)} {mv.units}, more than the allowance of {fmt(allow)}"
               + ("" if road_bonus else (f" ({mv.bonus_spoiled_by})" if mv.bonus_spoiled_by and rulings else
                                          f" ({_road_bonus_lost(m, mv, rulings)})" if rulings else "")))
        return PathRuling(False, total, mv.units, road_bonus, allow, tuple(rulings), start, why,
                          "B3.4" if not road_bonus and mv.bonus_unit else "A4.1", m.names)
    return PathRuling(True, total, mv.units, road_bonus, allow, tuple(rulings), start, None, None, m.names, lost)


def _road_bonus_lost(m: Map, mv: _Mover, rulings: Sequence[MoveRuling]) -> str:
    """Why a path has no B3.4 road bonus: the first step that loses it, and what it meets there."""
    for i, r in enumerate(rulings, start=1):
        if r.keeps_road_bonus:
            continue
        into = mv.n(r.to) if r.to is not None else "?"
        if r.bonus_lost_by and not r.road_rate:
            return f"no road bonus: step {i} into {into}: {', '.join(r.bonus_lost_by)}"
        spoilers = list(r.bonus_lost_by) or (road_bonus_spoilers(m, r.to.hex) if r.to is not None and r.road_rate
                                             else [])
        if spoilers:
            return f"no road bonus: step {i} into {into} meets {', '.join(spoilers)}"
        if not r.road_rate:
            return f"no road bonus: step {i} into {into} does not cross a road hexside at the road rate"
        return f"no road bonus: step {i} into {into} loses it"
    return "no road bonus"


def _dijkstra(mv: _Mover, start: Location,
              allowance: Fraction) -> tuple[dict[int, int], dict[int, tuple[int, MoveRuling]]]:
    """Least costs over (Location, road-bonus-still-possible) nodes, with predecessors.

    A search node is ``2 * id + b``: the Location's id in the search mover's tables and whether the B3.4
    road bonus is still possible. The allowance is the cutoff, raised by the road bonus only for nodes that
    kept it; an ALL move is taken only as the first move, and costs the whole allowance (none when the
    allowance is 0). Costs are integers (``_SCALE`` per MF/MP).
    """
    cut = _scaled(allowance)
    cut_b = _scaled(allowance + mv.p_bonus) if mv.bonus_unit else cut
    s0 = 2 * mv.node_id(start) + (1 if mv.bonus_unit else 0)
    dist: dict[int, int] = {s0: 0}
    pred: dict[int, tuple[int, MoveRuling]] = {}
    # Ties between equal costs go to the earlier push in this search, not to the node ids (which depend on
    # what earlier queries put in the map's tables): a warm map gives the path a fresh one gives.
    heap: list[tuple[int, int, int]] = [(0, 0, s0)]
    seq = 0
    adjacency = mv.adjacency
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        d, _, x = pop(heap)
        if d > dist[x]:
            continue
        b = x & 1
        for v, c, keeps, all_mf, r in adjacency(x >> 1):
            if all_mf:
                if d or not cut:
                    continue
                c = cut
            nb = 1 if (b and keeps) else 0
            nd = d + c
            if nd > (cut_b if nb else cut):
                continue
            y = 2 * v + nb
            old = dist.get(y)
            if old is None or nd < old:
                dist[y] = nd
                pred[y] = (x, r)
                seq += 1
                push(heap, (nd, seq, y))
    return dist, pred


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while the search builds its tables: tens of thousands of acyclic
    rulings and tuples would otherwise trigger full collections that cost a fifth of a cold ``reach``. The
    previous state is restored however the block ends."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _chain(x: int, pred: dict[int, tuple[int, MoveRuling]], nodes: list[Location],
           chains: dict[int, tuple[Location, ...]], rules: list[str]) -> tuple[Location, ...]:
    """The path to search node ``x`` (start first), built on the memoised paths of its predecessors; the
    rules of each move met for the first time are added to ``rules``."""
    stack: list[int] = []
    y = x
    while y not in chains:
        p = pred.get(y)
        if p is None:
            chains[y] = (nodes[y >> 1],)
            break
        stack.append(y)
        y = p[0]
    base = chains[y]
    for z in reversed(stack):
        rules.extend(i.rule for i in pred[z][1].items)
        base = (*base, nodes[z >> 1])
        chains[z] = base
    return chains[x]


_SCALED: dict[Fraction, int] = {}


def _scaled(x: Fraction | None) -> int:
    """A cost as the search's integer (``_SCALE`` per MF/MP), exact for the chart's halves and quarters."""
    if x is None:
        return 0
    got = _SCALED.get(x)
    if got is None:
        y = x * _SCALE
        if y.denominator != 1:
            raise QueryError(f"a movement cost of {x} is not a multiple of 1/{_SCALE}; check the chart")
        got = int(y)
        if len(_SCALED) < 4096:
            _SCALED[x] = got
    return got


def reach(m: Map, unit: Unit | str | Mapping[str, Any] | None, start: Location | str, allowance: Any = None, *,
          dash: bool = False, rout: bool = False, conditions: Conditions | Mapping[str, Any] | None = None,
          chart: Chart | None = None) -> ReachRuling:
    """Every Location (and Bypass position) the unit can reach within its allowance, with its least cost
    and one cheapest path, searched over (Location, road-bonus state) so the B3.4 bonus and Bypass are
    honoured exactly.

    Parameters
    ----------
    unit, start : as for :func:`move_cost` (``start`` is the ``from`` Location).
    allowance : number, optional
        The unit's MF/MP (the cutoff); defaults to the unit's own. The road bonus (B3.4) raises it by 1 MF for
        paths that keep it; an ALL move is taken only as the first move.
    dash, rout, conditions, chart : as for :func:`move_cost`.

    Returns
    -------
    ReachRuling
        Each Location reached with its least cost and one cheapest path (the start at 0): the path's
        :func:`path` costs exactly that cost.

    Examples
    --------
    >>> from asl_terrain.model import load_demo
    >>> r = reach(load_demo(), "infantry", "M8", 4)
    >>> r.cost_of("HrM13"), r.cost_of("HrM8")
    (Fraction(5, 1), Fraction(0, 1))
    """
    mv = _mover(m, unit, allowance, dash=dash, rout=rout, conditions=conditions, chart=chart)
    s = _loc(m, start, "from")
    search = _search_mover(mv)
    with _gc_paused():
        dist, pred = _dijkstra(search, s, mv.allowance)
    nodes = search._nodes
    best: dict[str, tuple[int, int]] = {}
    # by cost, ties in the order this search found them (node ids depend on earlier queries' tables)
    for x, d in sorted(dist.items(), key=lambda kv: kv[1]):
        name = search.n(nodes[x >> 1])
        if name not in best:
            best[name] = (d, x)
    reached: list[Reached] = []
    rules: list[str] = []
    chains: dict[int, tuple[Location, ...]] = {}
    cut = _scaled(mv.allowance)
    for d, x in best.values():
        last = pred.get(x)
        reached.append(Reached(nodes[x >> 1], Fraction(d, _SCALE), _chain(x, pred, nodes, chains, rules), d > cut,
                               bool(last is not None and last[1].all_mf)))
    if any(r.road_bonus for r in reached):
        rules.append("B3.4")
    if len(reached) == 1:
        # nowhere to go: the rules are those of the first moves the allowance could not pay for (or forbid)
        for n in m.neighbours(s.hex):
            try:
                rules.extend(move_cost(m, mv.unit, s, Location(n), conditions=mv.cond, chart=mv.chart).rules())
            except QueryError:
                continue
        if not rules:
            # from a Location with no move into a neighbour's ground (a rooftop, an upper level): the rules of
            # the moves out of it that the allowance could not pay for
            for r in search.edges(s):
                rules.extend(r.rules())
    return ReachRuling(s, mv.allowance, mv.units, tuple(reached), distinct(rules), m.names)


def vca_change(m: Map, unit: Unit | str | Mapping[str, Any] | None, at: Location | str, hexspines: int, *,
               motion_attempt: bool = False, while_bypassing: bool = False,
               chart: Chart | None = None) -> VcaRuling:
    """The ruling on changing a vehicle's VCA by ``hexspines`` (1-3; 3 is 180 degrees) at ``at``.

    On a Narrow Street (a Bypass position along one) only a motorcycle (1/4 of its printed MP) or a
    very-small vehicle (1/2) may turn, and only 180 degrees (P5.123); any vehicle may as part of Bypass
    movement, at 1 MP per hexspine (MF for a Wagon) (D2.33, P5.11); none during a Motion attempt. Elsewhere
    the D2.11 cost applies: 1 MP per hexspine, 2 in a building, woods or rubble hex when not bypassing.

    Raises
    ------
    QueryError
        For a unit that has no VCA (Infantry, Cavalry) or a hexspine count outside 0-5.

    Examples
    --------
    >>> from asl_terrain.model import load_demo
    >>> r = vca_change(load_demo(), {"type": "motorcycle", "mp": 20}, "L11@K11-L11", 3)
    >>> r.allowed, r.cost
    (True, Fraction(5, 1))
    """
    u = _as_unit(unit)
    if u.type not in ("vehicle", "motorcycle", "wagon"):
        raise QueryError(f"unit: a VCA change is for vehicles and Wagons, not {u.type}; expected a vehicle, "
                         "motorcycle or wagon")
    if isinstance(hexspines, bool) or not isinstance(hexspines, int) or not 0 <= hexspines <= 5:
        raise QueryError(f"hexspines: expected a whole number 0-5 (3 is a 180-degree turn), got {hexspines!r}")
    ch = chart if chart is not None else default_chart()
    loc = _loc(m, at, "at")
    turn = min(hexspines, 6 - hexspines)
    units = "MP" if u.pays_mp else "MF"
    name = m.name_of(loc)

    def ruling(items: list[Item] | None = None, reason: str | None = None, rule: str | None = None) -> VcaRuling:
        if reason is not None:
            return VcaRuling(False, None, units, (), reason, rule, name, turn)
        its = tuple(items or ())
        return VcaRuling(True, _total(its), units, its, None, None, name, turn)

    if turn == 0:
        return ruling([Item(Fraction(0), "no hexspine is changed: the VCA stays as it is",
                            ch.param("vca_change_mp").rule)])
    if loc.is_bypass and _Mover.bypass_ns(loc, m):
        return ruling(*_narrow_street_vca(u, turn, units, ch, motion_attempt, while_bypassing))
    return ruling(_vca_items(m, loc, turn, ch, while_bypassing))


def _narrow_street_vca(u: Unit, turn: int, units: str, ch: Chart, motion_attempt: bool,
                       while_bypassing: bool) -> tuple[list[Item] | None, str | None, str | None]:
    """A VCA change on a Narrow Street, as (items, reason, rule): none as part of a Motion attempt (P5.123);
    1 MP (MF for a Wagon) a hexspine as part of Bypass movement (D2.33, P5.11's EXC); otherwise only 180
    degrees, by a motorcycle for 1/4 of its printed MP or a very small vehicle for 1/2 (P5.123)."""
    p = ch.param
    s = "s" if turn > 1 else ""
    if motion_attempt:
        return None, "no vehicle may change its VCA as part of a Motion attempt on a Narrow Street", "P5.123"
    if while_bypassing:
        per = Fraction(p("vca_change_mp").value)
        return [Item(per * turn, f"VCA change of {turn} hexspine{s} during Bypass on a Narrow Street (still 1 "
                                 f"{units} each)", "P5.11")], None, None
    if turn != 3:
        return None, ("on a Narrow Street a vehicle may change its VCA only 180 degrees (a motorcycle or a very "
                      "small vehicle), or as part of Bypass movement"), "P5.123"
    if u.type == "motorcycle":
        f = Fraction(p("motorcycle_vca_180_fraction").value)
        return [Item(f * u.mp, f"a motorcycle turns 180 degrees on a Narrow Street for {fmt(f)} of its printed "
                               f"{u.mp} MP", "P5.123")], None, None
    if u.pays_mp and u.target_size == "very-small":
        f = Fraction(p("very_small_vca_180_fraction").value)
        return [Item(f * u.mp, f"a very small vehicle turns 180 degrees on a Narrow Street for {fmt(f)} of its "
                               f"printed {u.mp} MP", "P5.123")], None, None
    return None, ("on a Narrow Street only a motorcycle or a very small vehicle may change its VCA (other than in "
                  "Bypass movement, D2.33)"), "P5.123"


def _vca_items(m: Map, loc: Location, turn: int, ch: Chart, while_bypassing: bool) -> list[Item]:
    """A VCA change off a Narrow Street: 1 MP a hexspine (D2.11), also in Bypass (D2.33), 2 in a building,
    woods or rubble hex when not bypassing (D2.11)."""
    p = ch.param
    s = "s" if turn > 1 else ""
    per = Fraction(p("vca_change_mp").value)
    if loc.is_bypass and while_bypassing:
        return [Item(per * turn, f"VCA change of {turn} hexspine{s} in Bypass", "D2.33")]
    if not loc.is_bypass and _in_vca_obstacle(m, loc.hex, tuple(p("vca_obstacle_terrain").value)):
        per2 = Fraction(p("vca_change_in_obstacle_mp").value)
        return [Item(per2 * turn, f"VCA change of {turn} hexspine{s} in {m.terrain(loc.hex).terrain} "
                                  f"{m.name_of(loc)}", "D2.11")]
    return [Item(per * turn, f"VCA change of {turn} hexspine{s}", "D2.11")]
