"""The search's tables: every allowed move out of each Location (or Bypass position) a unit can stand in, as
the least-cost search (:mod:`.search`) reads them, built the first time the search reaches a node.

The search decides on numbers alone: a move is weighed by the rules' own functions asked in the context's
:meth:`~.context.Context.deciding` twin, which names nothing, and the tables keep only what the search reads
(destination, cost, road bonus, ALL) and how to ask the same rule again. Only the moves the search returns
are ruled again with names (:func:`explain`): a few thousand, not the tens of thousands it weighs. A move is
weighed only when the search could take it (:class:`Move`): about half the moves out of a node lead where
the search has already been as cheaply, and those are never ruled.

The tables of one unit, map, chart, conditions and flags do not depend on the allowance (an ALL move costs
the whole allowance, whatever it is, and the search applies the allowance as its cutoff), so every ``reach``
of that unit on that map shares them. Moves out of a Bypass position that do not depend on which position of
its hex the unit is at are made once and shared.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..errors import QueryError
from ..grid import Hex, Hexside, Vertex
from ..model import Location, Place
from .bypass import bypass_floor, bypass_move, bypass_to_interior
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
#: ruled, its items' rules)
Edge = tuple[int, int, bool, bool, How, tuple[str, ...]]

#: one allowed move as it is weighed: its ruling in the deciding context (no names) and how it is ruled
_Ruled = tuple[MoveRuling, How]

#: a move out of a node as the builders below name it: the Location entered (or its node id, when it has one),
#: the rule and what it is asked after the context and the Location left, and what a move the Bypass
#: positions of a hex share depends on besides the Location entered (plain values; None: not shared)
_Way = tuple["Location | int", Callable[..., Any], tuple[Any, ...], "tuple[Any, ...] | None"]

#: the rules whose moves cost at least a floor known before they are ruled (by the Tables' context)
_FLOORS: dict[Callable[..., Any], Callable[[Context], Fraction]] = {bypass_move: bypass_floor}


class Move:
    """A move out of a node that the search may weigh: the node it enters, how it is ruled, the key of a move
    shared by a hex's Bypass positions (or None), the least it can cost (scaled: a step in Bypass never costs
    less than :func:`.bypass.bypass_floor`), and its edges once weighed (None until then; a move into a node
    already reached as cheaply, or one the allowance cannot pay for, is never weighed)."""

    __slots__ = ("to", "rule", "args", "key", "floor", "edges")

    def __init__(self, to: int, rule: Callable[..., Any], args: tuple[Any, ...], key: tuple[Any, ...] | None,
                 floor: int) -> None:
        self.to = to
        self.rule = rule
        self.args = args
        self.key = key
        self.floor = floor
        self.edges: list[Edge] | None = None


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
    ids: dict[tuple[Any, ...], int] = field(default_factory=dict)
    nodes: list[Location] = field(default_factory=list)
    adj: list[list[Move] | None] = field(default_factory=list)
    _shared: dict[tuple[Any, ...], list[Edge]] = field(default_factory=dict)
    _at_vertex: dict[tuple[Any, ...], list[Move]] = field(default_factory=dict)
    _bypass_ok: dict[tuple[int, int], bool] = field(default_factory=dict)
    _names: dict[int, str] = field(default_factory=dict)
    _floors: dict[Callable[..., Any], int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.d = self.c.deciding()
        self._floors = {rule: scaled(floor(self.d)) for rule, floor in _FLOORS.items()}

    def name(self, u: int) -> str:
        """The canonical name of node ``u``'s Location (cached)."""
        got = self._names.get(u)
        if got is None:
            got = self._names[u] = self.nodes[u].text(self.c.m.names)  # c.n's name, without its Location-keyed cache
        return got

    def node_id(self, loc: Location) -> int:
        """The search's integer id of a Location (or Bypass position)."""
        i = self.ids.get(_plain(loc))
        if i is None:
            with self.lock:
                i = self._new_id(loc)
        return i

    def _new_id(self, loc: Location) -> int:
        """``loc``'s id, made if it has none (the caller holds ``lock``)."""
        k = _plain(loc)
        i = self.ids.get(k)
        if i is None:
            i = len(self.nodes)
            self.nodes.append(loc)
            self.adj.append(None)
            self.ids[k] = i
        return i

    def moves(self, u: int) -> list[Move]:
        """The moves out of node ``u`` that the rules could allow (not yet weighed), listed the first time the
        search needs them."""
        got = self.adj[u]
        if got is None:
            ways = _ways(self, self.nodes[u])  # made outside the lock: other threads search on
            with self.lock:
                got = self.adj[u]
                if got is None:
                    got = self.adj[u] = [w if isinstance(w, Move) else self._move(w) for w in ways]
        return got

    def _move(self, way: _Way) -> Move:
        """The move ``way`` lists, with its node's id (the caller holds ``lock``)."""
        to, rule, args, key = way
        v = to if isinstance(to, int) else self._new_id(to)
        return Move(v, rule, args, None if key is None else (*key, v), self._floors.get(rule, 0))

    def at_vertex(self, key: tuple[Any, ...], make: Callable[..., list[_Way]], *args: Any) -> list[Move]:
        """The moves ``make(*args)`` lists that the Bypass positions of a hex at one vertex (or anywhere in
        it) all have (``key`` names the hex, the vertex and what else they depend on), listed once: the same
        Move objects, so a move one of them weighed is weighed for all."""
        got = self._at_vertex.get(key)
        if got is None:
            ways = make(*args)
            with self.lock:
                got = self._at_vertex.get(key)
                if got is None:
                    got = self._at_vertex[key] = [self._move(w) for w in ways]
        return got

    def weigh(self, u: int, mv: Move) -> list[Edge]:
        """The allowed ways of move ``mv`` out of node ``u`` as (node, scaled cost, keeps road bonus, ALL, how
        it is ruled, its items' rules), ruled the first time the search weighs it (a shared move once for all
        who share it). Rule references are no names: the deciding context's rulings cite them as the
        explaining one's do."""
        got = mv.edges
        if got is None:
            got = self._shared.get(mv.key) if mv.key is not None else None
            if got is None:
                v = mv.to
                got = [(v, scaled(r.cost), r.keeps_road_bonus, r.all_mf, how, tuple([i.rule for i in r.items]))
                       for r, how in _ruled(self, self.nodes[u], mv.rule, *mv.args)]
                if mv.key is not None:
                    self._shared[mv.key] = got
            mv.edges = got
        return got

    def bypassable(self, h: Hex) -> bool:
        """Whether hex ``h`` is on the map and may be bypassed off a Narrow Street: a woods or building hex
        (the chart's ``bypass_terrain``), not a stream hex (A4.3, D2.3). Cached for the search."""
        k = (h.col, h.row)  # plain values: hashed in C
        got = self._bypass_ok.get(k)
        if got is None:
            m = self.d.m
            t = self.d.terrain(h) if h in m else None
            got = t is not None and t.terrain in self.d.parameters.bypass_terrain.value and not t.is_stream
            self._bypass_ok[k] = got
        return got


def _plain(loc: Location) -> tuple[Any, ...]:
    """``loc`` as plain values (its node's key: :func:`_key`)."""
    return _key(loc.hex, loc.level, loc.place, loc.bypass, loc.vertex)


def _key(h: Hex, level: int = 0, place: str = "", s: Hexside | None = None, v: Vertex | None = None
         ) -> tuple[Any, ...]:
    """The key of the node of Location (``h``, ``level``, ``place``; in Bypass along ``s`` at vertex ``v``):
    plain values, hashed and compared in C (a Location's own hash calls the dataclass hashes of its hex,
    hexside and vertex: about ten Python calls, for every move listed). A Location is made only for a key
    with no node yet."""
    return (h.col, h.row, level, place,
            None if s is None else (s.a.col, s.a.row, s.b.col, s.b.row),
            None if v is None else (v.a.col, v.a.row, v.b.col, v.b.row, v.c.col, v.c.row))


def scaled(x: Fraction | None) -> int:
    """A cost as the search's integer (``SCALE`` per MF/MP), exact for the chart's halves and quarters."""
    if x is None:
        return 0
    y, rest = divmod(x.numerator * SCALE, x.denominator)  # no Fraction arithmetic: this is per edge
    if rest:
        raise QueryError(f"a movement cost of {x} is not a multiple of 1/{SCALE}; check the chart")
    return y


def _ruled(t: Tables, frm: Location, rule: Callable[..., Any], *args: Any) -> list[_Ruled]:
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
    u = t.node_id(node)
    return [explain(t, node, e[4]) for mv in t.moves(u) for e in t.weigh(u, mv)]


def _ways(t: Tables, node: Location) -> list[_Way | Move]:
    """The moves out of ``node`` that the rules could allow, not yet ruled."""
    if node.is_bypass:
        return _bypass_ways(t, node)
    if node.level:
        return [*_upper_level_ways(t, node)]
    if node.place == "culvert":
        return [*_culvert_ways(t, node)]
    return [*_ground_ways(t, node)]


def _way(t: Tables, h: Hex, rule: Callable[..., Any], level: int = 0, place: Place = "") -> _Way:
    """The move into Location (``h``, ``level``, ``place``) ruled by ``rule(c, frm, to)``, shared by nobody."""
    i, to = _dest(t, h, level, place)
    return (to if i is None else i, rule, (to,), None)


def _dest(t: Tables, h: Hex, level: int = 0, place: Place = "") -> tuple[int | None, Location]:
    """Location (``h``, ``level``, ``place``) with its node id, or None and the Location made (most moves lead
    where others already do: their node's Location is taken)."""
    i = t.ids.get(_key(h, level, place))
    return (None, Location(h, level, place)) if i is None else (i, t.nodes[i])


def _try_bypass(t: Tables, frm: Location, h: Hex, s: Hexside, v0: Vertex, out: list[_Way],
                shared_key: tuple[Any, ...] | None = None, v: Vertex | None = None) -> None:
    """The Bypass move from ``frm`` along ``s`` in ``h`` starting at ``v0`` (to ``s``'s other end ``v``,
    found when not given), when the rules could allow it (cheap filters first: a woods or building hex not
    one's own, or a Narrow Street in the right hex)."""
    c = t.d
    m = c.m
    fh = frm.hex
    in_own = h is fh or (h.col == fh.col and h.row == fh.row)
    if c.has_ns and h in m and m.hexside(s).narrow_street is not None:
        low = bypass_hex(m, s)
        if low is not None and low != h:
            return
    elif (in_own and not frm.is_bypass) or not t.bypassable(h):
        return
    key = None if shared_key is None or in_own else ("bypass", *shared_key)  # the Location entered says h, s, v0
    _add_bypass(t, h, s, v0, _other_end(s, v0) if v is None else v, key, out)


def _add_bypass(t: Tables, h: Hex, s: Hexside, v0: Vertex, v: Vertex, key: tuple[Any, ...] | None,
                out: list[_Way]) -> None:
    """The Bypass move along ``s`` in ``h`` from ``v0`` to ``v``, past :func:`_try_bypass`'s filters."""
    to = t.ids.get(_key(h, 0, "", s, v))  # most moves lead where others already do: no Location made
    out.append((Location(h, bypass=s, vertex=v) if to is None else to, bypass_move, (h, s, v0, v), key))


def _bypass_ways(t: Tables, node: Location) -> list[_Way | Move]:
    """Out of a Bypass position at vertex v0 of hex a: on in Bypass along a's other hexside at v0, into the
    other hexes at v0 (their ground, Crest status), into Bypass of those hexes, and into a's own obstacle.
    Moves that do not depend on where in a the unit is are shared by a's Bypass positions; those at v0 are
    listed once for the positions at v0 (:meth:`Tables.at_vertex`)."""
    m = t.d.m
    a = node.hex
    out: list[_Way | Move] = []
    ns = t.d.has_ns and bypass_ns(node, m)  # no Narrow Street on the map: none along any hexside
    along = node.bypass
    starts = [node.vertex] if node.vertex is not None else list(_ends(along)) if along else []
    for v0 in starts:
        own: list[_Way] = []
        for s in _hexsides_at(a, v0):
            if along is None or not _same_hexside(s, along):
                _try_bypass(t, node, a, s, v0, own)
        out += own
        key = (a.col, a.row, v0.a.col, v0.a.row, v0.b.col, v0.b.row, v0.c.col, v0.c.row, node.level, node.place, ns)
        out += t.at_vertex(key, _vertex_ways, t, node, v0, ns)
    out += t.at_vertex(("interior", a.col, a.row), _interior_way, a)
    return out


def _same_hexside(s: Hexside, x: Hexside) -> bool:
    """``s == x``, by coordinates (no dataclass __eq__ calls: the search's hexsides are seldom the same objects)."""
    return s is x or (s.a.col == x.a.col and s.a.row == x.a.row and s.b.col == x.b.col and s.b.row == x.b.row)


def _interior_way(a: Hex) -> list[_Way]:
    """Out of Bypass into hex ``a``'s own obstacle: the same move for every Bypass position of ``a``."""
    inside = Location(a)
    return [(inside, bypass_to_interior, (inside,), ("interior",))]


def _vertex_ways(t: Tables, node: Location, v0: Vertex, ns: bool) -> list[_Way]:
    """Out of a Bypass position of hex a at vertex v0, into the other hexes at v0 (their ground, Crest
    status) and into Bypass of those hexes: the same for every position of a at v0 (along a Narrow Street
    or not, ``ns``)."""
    c = t.d
    m = c.m
    a = node.hex
    can_crest = c.k.inf or c.k.cav
    out: list[_Way] = []
    shared = (a.col, a.row, node.level, node.place, ns)
    for z in v0.hexes:
        if (z is a or (z.col == a.col and z.row == a.row)) or z not in m:
            continue
        dests = [_dest(t, z)]
        if can_crest and c.terrain(z).is_stream:
            dests.append(_dest(t, z, place="crest"))
        for i, dest in dests:
            out.append((dest if i is None else i, entry_rulings, (dest, ns), ("entry", *shared)))
        if c.has_ns:
            for s in _hexsides_at(z, v0):
                _try_bypass(t, node, z, s, v0, out, shared_key=shared)
        elif t.bypassable(z):  # :func:`_try_bypass`'s filters, off Narrow Streets: z is not a, and bypassable
            for s in _hexsides_at(z, v0):
                _add_bypass(t, z, s, v0, _other_end(s, v0), ("bypass", *shared), out)
    return out


def _others(v: Vertex, a: Hex) -> tuple[Hex, Hex]:
    """The two hexes at vertex ``v`` other than its hex ``a``, in the vertex's order (by coordinates: no
    dataclass __eq__ calls)."""
    x, y, z = v.a, v.b, v.c
    if x is a or (x.col == a.col and x.row == a.row):
        return y, z
    if y is a or (y.col == a.col and y.row == a.row):
        return x, z
    return x, y


def _upper_level_ways(t: Tables, node: Location) -> list[_Way]:
    """Out of an upper building level: the same level of an adjacent hex of the same building, and the
    levels above and below by the stairwell (B23.42)."""
    c = t.d
    m = c.m
    a = node.hex
    ta = c.terrain(a)
    out: list[_Way] = []
    for b in m.neighbours(a):
        tb = c.terrain(b)
        if tb.is_building and tb.building_id is not None and tb.building_id == ta.building_id \
                and node.level <= tb.building_levels:
            out.append(_way(t, b, entry_rulings, node.level))
    for lv in (node.level - 1, node.level + 1):
        if 0 <= lv <= ta.top_level:
            out.append(_way(t, a, level_change, lv))
    return out


def _culvert_ways(t: Tables, node: Location) -> list[_Way]:
    """Out of a Stream Culvert: INTO an adjacent stream hex, or into an adjacent culvert (P4.21)."""
    c = t.d
    m = c.m
    out: list[_Way] = []
    for b in m.neighbours(node.hex):
        tb = c.terrain(b)
        if tb.is_stream:
            out.append(_way(t, b, entry_rulings))
        if tb.culvert:
            out.append(_way(t, b, entry_rulings, place="culvert"))
    return out


def _ground_ways(t: Tables, node: Location) -> list[_Way]:
    """Out of a ground Location, IN a stream or Crest status: into each adjacent hex (its ground, Crest
    status, its culvert), Crest status in this hex (B20.91), up the stairwell (B23.42), and into Bypass
    at each vertex of this hex: along the neighbours' hexsides, and along this hex's own Narrow Streets
    (P5.11)."""
    c = t.d
    m = c.m
    a = node.hex
    ta = c.terrain(a)
    can_crest = c.k.inf or c.k.cav
    out: list[_Way] = []
    for b in m.neighbours(a):
        tb = c.terrain(b)
        out.append(_way(t, b, entry_rulings))
        if tb.is_stream and can_crest:
            out.append(_way(t, b, entry_rulings, place="crest"))
        if tb.culvert and node.place == "" and ta.is_stream and c.k.inf:
            out.append(_way(t, b, entry_rulings, place="culvert"))
    if ta.is_stream and can_crest and ta.bridge is None:  # a bridge hex: Crest status not modelled
        out.append(_way(t, a, level_change, place="" if node.place == "crest" else "crest"))
    if ta.is_building and ta.top_level and c.k.inf:
        out.append(_way(t, a, level_change, 1))
    ok = t.bypassable
    if c.has_ns:
        for k, v0 in enumerate(_hex_vertices(a)):
            y1, y2 = _others(v0, a)
            if y1 in m and y2 in m:
                s = Hexside.of(y1, y2)
                v = _other_end(s, v0)  # the same end for both hexes' Bypass along s
                _try_bypass(t, node, y1, s, v0, out, v=v)
                _try_bypass(t, node, y2, s, v0, out, v=v)
            for s in (a.hexside(k), a.hexside(k + 1)):
                other = s.other(a)
                if other in m:
                    _try_bypass(t, node, other, s, v0, out)
                _try_bypass(t, node, a, s, v0, out)
        return out
    # no Narrow Street on the map: :func:`_try_bypass`'s filters come to "a woods or building hex not this
    # one" (a hex off the map is none), asked once per hex here
    for k, v0 in enumerate(_hex_vertices(a)):
        y1, y2 = _others(v0, a)
        b1, b2 = ok(y1), ok(y2)
        if not (b1 or b2):
            continue  # off Narrow Streets only a woods or building neighbour at v0 is bypassed from here
        if y1 in m and y2 in m:
            s = Hexside.of(y1, y2)
            v = _other_end(s, v0)  # the same end for both hexes' Bypass along s
            if b1:
                _add_bypass(t, y1, s, v0, v, None, out)
            if b2:
                _add_bypass(t, y2, s, v0, v, None, out)
        for s in (a.hexside(k), a.hexside(k + 1)):
            other = s.b if s.a is a or (s.a.col == a.col and s.a.row == a.row) else s.a
            if b1 if other is y1 or (other.col == y1.col and other.row == y1.row) else b2:
                _add_bypass(t, other, s, v0, _other_end(s, v0), None, out)
    return out
