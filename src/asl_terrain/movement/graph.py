"""The search's tables: every allowed move out of each Location (or Bypass position) a unit can stand in, as
the least-cost search (:mod:`.search`) reads them, built the first time the search reaches a node.

The search decides on numbers alone: a move is weighed by the rules' own functions asked in the context's
:meth:`~.context.Context.deciding` twin, which names nothing, and the tables keep only what the search reads
(destination, cost, road bonus, ALL) and how to ask the same rule again. Only the moves the search returns
are ruled again with names (:func:`explain`): a few thousand, not the tens of thousands it weighs.

The tables of one unit, map, chart, conditions and flags do not depend on the allowance (an ALL move costs
the whole allowance, whatever it is, and the search applies the allowance as its cutoff), so every ``reach``
of that unit on that map shares them. Moves out of a Bypass position that do not depend on which position of
its hex the unit is at are made once and shared.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from fractions import Fraction
from typing import Any

from ..errors import QueryError
from ..grid import Hex, Hexside, Vertex
from ..model import Location
from .bypass import bypass_move, bypass_to_interior
from .context import Context
from .entry import entry_rulings
from .levels import level_change
from .rulings import MoveRuling, Prohibition
from .terrain import _ends, _hex_vertices, _hexsides_at, _other_end, bypass_hex, bypass_ns

#: the search works on integer costs: every cost times this (halves and quarters, and more, are exact)
SCALE = 5040

#: how a move is ruled: the rule function, what it is asked after the context and the Location left, and
#: which of its rulings (:func:`entry_rulings` gives one per way of paying)
How = tuple[Callable[..., Any], tuple[Any, ...], int]

#: one allowed move as the search sees it: (node id, scaled cost, keeps the road bonus, takes ALL, how it is
#: ruled)
Edge = tuple[int, int, bool, bool, How]

#: one allowed move as the tables are built: its ruling in the deciding context (no names) and how it is ruled
_Move = tuple[MoveRuling, How]


@dataclass(eq=False)
class Tables:
    """The search's tables for one context ``c`` (which explains) and its deciding twin ``d``: node ids,
    adjacency lists by node id (None until built), the moves the Bypass positions of a hex share, which hexes
    may be bypassed off a Narrow Street, and the nodes' names.

    Shared by every search of the context, also from threads searching at once: a node gets its id under
    ``lock`` (its Location and adjacency slot appended before its id is published), and an adjacency list
    is made outside the lock and published under it, the first one made winning. The other look-ups are
    the same whoever makes them first."""

    c: Context
    d: Context = field(init=False)
    ids: dict[Location, int] = field(default_factory=dict)
    nodes: list[Location] = field(default_factory=list)
    adj: list[list[Edge] | None] = field(default_factory=list)
    _shared: dict[tuple[Any, ...], list[_Move]] = field(default_factory=dict)
    _bypass_ok: dict[Hex, bool] = field(default_factory=dict)
    _names: dict[int, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.d = self.c.deciding()

    def name(self, u: int) -> str:
        """The canonical name of node ``u``'s Location (cached)."""
        got = self._names.get(u)
        if got is None:
            got = self._names[u] = self.c.n(self.nodes[u])
        return got

    def node_id(self, loc: Location) -> int:
        """The search's integer id of a Location (or Bypass position)."""
        i = self.ids.get(loc)
        if i is None:
            with self.lock:
                i = self._new_id(loc)
        return i

    def _new_id(self, loc: Location) -> int:
        """``loc``'s id, made if it has none (the caller holds ``lock``)."""
        i = self.ids.get(loc)
        if i is None:
            i = len(self.nodes)
            self.nodes.append(loc)
            self.adj.append(None)
            self.ids[loc] = i
        return i

    def adjacency(self, u: int) -> list[Edge]:
        """The allowed moves out of node ``u`` as (node, scaled cost, keeps road bonus, ALL, how it is ruled),
        built the first time the search needs them."""
        got = self.adj[u]
        if got is None:
            moves = _edges(self, self.nodes[u])  # made outside the lock: other threads search on
            with self.lock:
                got = self.adj[u]
                if got is None:
                    got = [(self._new_id(r.to), scaled(r.cost), r.keeps_road_bonus, r.all_mf, how)
                           for r, how in moves if r.to is not None]
                    self.adj[u] = got
        return got

    def shared(self, key: tuple[Any, ...], make: Callable[[], list[_Move]]) -> list[_Move]:
        """The moves ``make()`` gives that do not depend on which Bypass position of its hex they start from
        (``key`` names what they depend on), made once: their rulings' ``frm`` is the position that made
        them (the search reads their numbers only; :func:`explain` rules them from the position asked)."""
        rs = self._shared.get(key)
        if rs is None:
            rs = make()
            self._shared[key] = rs
        return rs

    def bypassable(self, h: Hex) -> bool:
        """Whether hex ``h`` is on the map and may be bypassed off a Narrow Street: a woods or building hex
        (the chart's ``bypass_terrain``), not a stream hex (A4.3, D2.3). Cached for the search."""
        got = self._bypass_ok.get(h)
        if got is None:
            m = self.d.m
            t = m.terrain(h) if h in m else None
            got = t is not None and t.terrain in self.d.parameters.bypass_terrain.value and not t.is_stream
            self._bypass_ok[h] = got
        return got


def scaled(x: Fraction | None) -> int:
    """A cost as the search's integer (``SCALE`` per MF/MP), exact for the chart's halves and quarters."""
    if x is None:
        return 0
    y, rest = divmod(x.numerator * SCALE, x.denominator)  # no Fraction arithmetic: this is per edge
    if rest:
        raise QueryError(f"a movement cost of {x} is not a multiple of 1/{SCALE}; check the chart")
    return y


def _ruled(t: Tables, frm: Location, rule: Callable[..., Any], *args: Any) -> list[_Move]:
    """The allowed moves ``rule`` gives from ``frm`` in the deciding context (``rule(t.d, frm, *args)``: one
    ruling, a Prohibition, or a list of the ways of paying), each with how it is ruled again."""
    got = rule(t.d, frm, *args)
    rs = got if isinstance(got, list) else [got]
    return [(r, (rule, args, i)) for i, r in enumerate(rs) if isinstance(r, MoveRuling) and r.allowed]


def explain(t: Tables, frm: Location, how: How) -> MoveRuling:
    """The move ``how`` from ``frm``, ruled with names (items, notes, rules): the rule the search asked,
    asked again in the explaining context."""
    rule, args, i = how
    got = rule(t.c, frm, *args)
    r = (got if isinstance(got, list) else [got])[i]
    assert isinstance(r, MoveRuling)
    return r


def edges(t: Tables, node: Location) -> list[MoveRuling]:
    """Every allowed move out of ``node`` (the search's adjacency list), each ruled with names from ``node``."""
    return [explain(t, node, how) for _, how in _edges(t, node)]


def _edges(t: Tables, node: Location) -> list[_Move]:
    """The allowed moves out of ``node`` as the search weighs them: a move shared by the Bypass positions of
    a hex keeps the position that made it as its ruling's ``frm``."""
    if node.is_bypass:
        return _bypass_edges(t, node)
    if node.level:
        return _upper_level_edges(t, node)
    if node.place == "culvert":
        return _culvert_edges(t, node)
    return _ground_edges(t, node)


def _try_bypass(t: Tables, frm: Location, h: Hex, s: Hexside, v0: Vertex, out: list[_Move],
                shared_key: tuple[Any, ...] | None = None) -> None:
    """The Bypass move from ``frm`` along ``s`` in ``h`` starting at ``v0``, when the rules could allow it
    (cheap filters first: a woods or building hex not one's own, or a Narrow Street in the right hex)."""
    c = t.d
    m = c.m
    if c.has_ns and h in m and m.hexside(s).narrow_street is not None:
        low = bypass_hex(m, s)
        if low is not None and low != h:
            return
    elif not t.bypassable(h) or (h == frm.hex and not frm.is_bypass):
        return
    v = _other_end(s, v0)
    if shared_key is None or h == frm.hex:
        out.extend(_ruled(t, frm, bypass_move, h, s, v0, v))
    else:
        out.extend(t.shared(("bypass", *shared_key, h, s, v0), lambda: _ruled(t, frm, bypass_move, h, s, v0, v)))


def _bypass_edges(t: Tables, node: Location) -> list[_Move]:
    """Out of a Bypass position at vertex v0 of hex a: on in Bypass along a's other hexside at v0, into the
    other hexes at v0 (their ground, Crest status), into Bypass of those hexes, and into a's own obstacle.
    Moves that do not depend on where in a the unit is are shared by a's Bypass positions."""
    c = t.d
    m = c.m
    a = node.hex
    out: list[_Move] = []
    ns = bypass_ns(node, m)
    can_crest = c.k.inf or c.k.cav
    starts = [node.vertex] if node.vertex is not None else list(_ends(node.bypass)) if node.bypass else []
    for v0 in starts:
        for s in _hexsides_at(a, v0):
            if s != node.bypass:
                _try_bypass(t, node, a, s, v0, out)
        for z in v0.hexes:
            if z == a or z not in m:
                continue
            dests = [Location(z)]
            if can_crest and m.terrain(z).is_stream:
                dests.append(Location(z, place="crest"))
            for dest in dests:
                out.extend(t.shared(("entry", a, node.level, node.place, dest, ns),
                                    partial(_ruled, t, node, entry_rulings, dest, ns)))
            if c.has_ns or t.bypassable(z):
                for s in _hexsides_at(z, v0):
                    _try_bypass(t, node, z, s, v0, out, shared_key=(a, node.level, node.place, ns))
    inside = Location(a)
    out.extend(t.shared(("interior", a), lambda: _ruled(t, node, bypass_to_interior, inside)))
    return out


def _upper_level_edges(t: Tables, node: Location) -> list[_Move]:
    """Out of an upper building level: the same level of an adjacent hex of the same building, and the
    levels above and below by the stairwell (B23.42)."""
    c = t.d
    m = c.m
    a = node.hex
    ta = m.terrain(a)
    out: list[_Move] = []
    for b in m.neighbours(a):
        tb = m.terrain(b)
        if tb.is_building and tb.building_id is not None and tb.building_id == ta.building_id \
                and node.level <= tb.building_levels:
            out.extend(_ruled(t, node, entry_rulings, Location(b, node.level)))
    for lv in (node.level - 1, node.level + 1):
        if 0 <= lv <= ta.top_level:
            dest = Location(a, lv)
            out.extend(_ruled(t, node, level_change, dest))
    return out


def _culvert_edges(t: Tables, node: Location) -> list[_Move]:
    """Out of a Stream Culvert: INTO an adjacent stream hex, or into an adjacent culvert (P4.21)."""
    c = t.d
    m = c.m
    out: list[_Move] = []
    for b in m.neighbours(node.hex):
        tb = m.terrain(b)
        if tb.is_stream:
            out.extend(_ruled(t, node, entry_rulings, Location(b)))
        if tb.culvert:
            out.extend(_ruled(t, node, entry_rulings, Location(b, place="culvert")))
    return out


def _ground_edges(t: Tables, node: Location) -> list[_Move]:
    """Out of a ground Location, IN a stream or Crest status: into each adjacent hex (its ground, Crest
    status, its culvert), Crest status in this hex (B20.91), up the stairwell (B23.42), and into Bypass
    at each vertex of this hex: along the neighbours' hexsides, and along this hex's own Narrow Streets
    (P5.11)."""
    c = t.d
    m = c.m
    a = node.hex
    ta = m.terrain(a)
    can_crest = c.k.inf or c.k.cav
    out: list[_Move] = []
    for b in m.neighbours(a):
        tb = m.terrain(b)
        out.extend(_ruled(t, node, entry_rulings, Location(b)))
        if tb.is_stream and can_crest:
            out.extend(_ruled(t, node, entry_rulings, Location(b, place="crest")))
        if tb.culvert and node.place == "" and ta.is_stream and c.k.inf:
            out.extend(_ruled(t, node, entry_rulings, Location(b, place="culvert")))
    if ta.is_stream and can_crest and ta.bridge is None:  # a bridge hex: Crest status not modelled
        dest = Location(a, place="" if node.place == "crest" else "crest")
        out.extend(_ruled(t, node, level_change, dest))
    if ta.is_building and ta.top_level and c.k.inf:
        dest = Location(a, 1)
        out.extend(_ruled(t, node, level_change, dest))
    for k, v0 in enumerate(_hex_vertices(a)):
        y1, y2 = (h for h in v0.hexes if h != a)
        if not (c.has_ns or t.bypassable(y1) or t.bypassable(y2)):
            continue  # off Narrow Streets only a woods or building neighbour at v0 is bypassed from here
        if y1 in m and y2 in m:
            s = Hexside.of(y1, y2)
            _try_bypass(t, node, y1, s, v0, out)
            _try_bypass(t, node, y2, s, v0, out)
        for s in (a.hexside(k), a.hexside(k + 1)):
            other = s.other(a)
            if other in m:
                _try_bypass(t, node, other, s, v0, out)
            _try_bypass(t, node, a, s, v0, out)
    return out
