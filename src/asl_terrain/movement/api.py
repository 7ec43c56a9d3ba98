"""The public movement API: :func:`move_cost`, :func:`path` and :func:`reach` (as networkx's shortest
paths: one set of rules, one search), and the contexts and search tables cached with each map."""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..chart import Chart, default_chart
from ..errors import QueryError, UnknownLocation
from ..grid import Hex, Hexside, Vertex
from ..model import Conditions, Location, Map
from ..rulings import distinct, fmt
from ..units import Unit
from .context import Context
from .graph import SCALE, Tables, edges, scaled
from .moves import move, with_vca
from .rulings import ONE, ZERO, MoveRuling, PathRuling, Reached, ReachRuling, Step
from .search import dijkstra, gc_paused
from .terrain import bypass_hex, road_bonus_spoilers

# ============================================================================================ caches

#: per map: the contexts by (chart, conditions, unit, allowance, flags), and the search's tables by
#: ("tables", chart, conditions, unit, flags); they go when the map goes
_MOVERS: weakref.WeakKeyDictionary[Map, dict[tuple[Any, ...], Context | Tables]] = weakref.WeakKeyDictionary()


def _as_unit(unit: Unit | str | Mapping[str, Any] | None) -> Unit:
    """A :class:`Unit` from a Unit or queries.md's string/object forms (infantry when left out)."""
    if isinstance(unit, Unit):
        return unit
    return Unit.from_json(unit if unit is not None else "infantry")


def _per_map(m: Map) -> dict[tuple[Any, ...], Context | Tables]:
    per = _MOVERS.get(m)
    if per is None:
        per = {}
        _MOVERS[m] = per
    return per


def _context(m: Map, unit: Unit | str | Mapping[str, Any] | None, allowance: Any = None, *, dash: bool = False,
             rout: bool = False, conditions: Conditions | Mapping[str, Any] | None = None,
             chart: Chart | None = None) -> Context:
    """The (cached) context of ``unit`` moving on ``m``; checks the flags (only Infantry Dash, A4.63, or
    rout) and the allowance (a number >= 0), naming the key."""
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
    per = _per_map(m)
    c = per.get(key)
    if not isinstance(c, Context):
        if len(per) > 64:
            per.clear()
        c = Context.of(m, ch, cond, u, allow, dash, rout)
        per[key] = c
    return c


#: the allowance of the context that builds the search's tables (any positive value: the tables do not
#: depend on it, see :mod:`.graph`)
_SEARCH_ALLOWANCE = ONE


def _search_tables(c: Context) -> Tables:
    """The tables every ``reach`` of ``c``'s unit, map, chart, conditions and flags shares."""
    key = ("tables", c.chart, c.cond, c.unit, c.dash, c.rout)
    per = _per_map(c.m)
    t = per.get(key)
    if not isinstance(t, Tables):
        sc = _context(c.m, c.unit, _SEARCH_ALLOWANCE, dash=c.dash, rout=c.rout, conditions=c.cond, chart=c.chart)
        t = Tables(sc)
        per = _per_map(c.m)  # _context may have cleared it
        per[key] = t
    return t


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
    c = _context(m, unit, allowance, dash=dash, rout=rout, conditions=conditions, chart=chart)
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
    _check_vca(c, vca, f, t, hs)
    r = move(c, f, t, bypass=hs, in_hex=ih, to_vertex=tv, road_rate=road_rate, protection=protection,
             declared_vertex=dv)
    return with_vca(c, r, vca)[0]


def _check_vca(c: Context, vca: Any, frm: Location, to: Location | None, bypass: Hexside | None) -> None:
    """Check a query's ``vca``: a hexspine 0-5 of a vehicle or Wagon, not in Bypass (where a vca-change query
    rules the turn, D2.33, P5.123)."""
    if vca is None:
        return
    if isinstance(vca, bool) or not isinstance(vca, int) or not 0 <= vca <= 5:
        raise QueryError(f"vca: expected the hexspine the vehicle faces, 0 (N) to 5 (NW), got {vca!r}")
    if not c.k.vbm:
        raise QueryError(f"vca: only vehicles and Wagons have a VCA, not {c.unit.type}")
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
    c = _context(m, unit, allowance, dash=dash, rout=rout, conditions=conditions, chart=chart)
    if not steps:
        raise QueryError("hexes: expected at least the start Location")
    first = steps[0]
    if isinstance(first, (Mapping, Step)):
        raise QueryError("hexes[0]: expected the start Location's name")
    start = _loc(m, first, "hexes[0]")
    if vca is not None:
        _check_vca(c, vca, start, None, None)
    pos = start
    rulings: list[MoveRuling] = []
    total = ZERO
    bonus = c.bonus_unit
    for i, raw in enumerate(steps[1:], start=1):
        st = _as_step(m, raw, i)
        r = move(c, pos, st.to, bypass=st.bypass, in_hex=st.in_hex, to_vertex=st.to_vertex, road_rate=st.road_rate,
                 protection=st.protection, declared_vertex=st.declared_vertex)
        r, vca = with_vca(c, r, vca)
        rulings.append(r)
        if not r.allowed or r.cost is None:
            return PathRuling(False, None, c.k.units, False, c.allowance, tuple(rulings), start,
                              f"step {i} ({c.n(pos)} to {c.n(r.to) if r.to else '?'}): {r.reason}", r.forbidden_by,
                              m.names)
        total += r.cost
        bonus = bonus and r.keeps_road_bonus
        assert r.to is not None
        pos = r.to
    road_bonus = bonus and bool(rulings)
    allow = c.allowance + (c.p.road_bonus_mf if road_bonus else ZERO)
    lost = (None if road_bonus or not rulings else c.p.bonus_spoiled_by or
            (_road_bonus_lost(m, c, rulings) if any(r.road_rate for r in rulings) else None))
    if total > allow:
        why = (f"it costs {fmt(total)} {c.k.units}, more than the allowance of {fmt(allow)}"
               + ("" if road_bonus else (f" ({c.p.bonus_spoiled_by})" if c.p.bonus_spoiled_by and rulings else
                                          f" ({_road_bonus_lost(m, c, rulings)})" if rulings else "")))
        return PathRuling(False, total, c.k.units, road_bonus, allow, tuple(rulings), start, why,
                          "B3.4" if not road_bonus and c.bonus_unit else "A4.1", m.names)
    return PathRuling(True, total, c.k.units, road_bonus, allow, tuple(rulings), start, None, None, m.names, lost)


def _road_bonus_lost(m: Map, c: Context, rulings: Sequence[MoveRuling]) -> str:
    """Why a path has no B3.4 road bonus: the first step that loses it, and what it meets there."""
    for i, r in enumerate(rulings, start=1):
        if r.keeps_road_bonus:
            continue
        into = c.n(r.to) if r.to is not None else "?"
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


def _search(t: Tables, start: Location,
            allowance: Fraction) -> tuple[dict[int, int], dict[int, tuple[int, MoveRuling]]]:
    """Least costs over (Location, road-bonus-still-possible) nodes, with predecessors.

    A search node is ``2 * id + b``: the Location's id in the search mover's tables and whether the B3.4
    road bonus is still possible. The allowance is the cutoff, raised by the road bonus only for nodes that
    kept it; an ALL move is taken only as the first move, and costs the whole allowance (none when the
    allowance is 0). Costs are integers (``SCALE`` per MF/MP). The search itself (:func:`.search.dijkstra`)
    knows none of this: :func:`successors` says which moves leave a node and what they cost.
    """
    cut = scaled(allowance)
    c = t.c
    cut_b = scaled(allowance + c.p.road_bonus_mf) if c.bonus_unit else cut
    adjacency = t.adjacency

    def successors(x: int, d: int) -> Iterator[tuple[int, int, MoveRuling]]:
        b = x & 1
        for v, w, keeps, all_mf, r in adjacency(x >> 1):
            if all_mf:
                if d or not cut:
                    continue
                w = cut
            if b and keeps:
                yield 2 * v + 1, w, r  # the cutoff, cut_b, is the search's own
            elif d + w <= cut:
                yield 2 * v, w, r

    return dijkstra(2 * t.node_id(start) + (1 if c.bonus_unit else 0), successors, cut_b)


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
    c = _context(m, unit, allowance, dash=dash, rout=rout, conditions=conditions, chart=chart)
    s = _loc(m, start, "from")
    search = _search_tables(c)
    with gc_paused():
        dist, pred = _search(search, s, c.allowance)
    nodes = search.nodes
    best: dict[str, tuple[int, int]] = {}
    # by cost, ties in the order this search found them (node ids depend on earlier queries' tables)
    for x, d in sorted(dist.items(), key=lambda kv: kv[1]):
        name = search.c.n(nodes[x >> 1])
        if name not in best:
            best[name] = (d, x)
    reached: list[Reached] = []
    rules: list[str] = []
    chains: dict[int, tuple[Location, ...]] = {}
    cut = scaled(c.allowance)
    for d, x in best.values():
        last = pred.get(x)
        reached.append(Reached(nodes[x >> 1], Fraction(d, SCALE), _chain(x, pred, nodes, chains, rules), d > cut,
                               bool(last is not None and last[1].all_mf)))
    if any(r.road_bonus for r in reached):
        rules.append("B3.4")
    if len(reached) == 1:
        # nowhere to go: the rules are those of the first moves the allowance could not pay for (or forbid)
        for n in m.neighbours(s.hex):
            try:
                rules.extend(move_cost(m, c.unit, s, Location(n), conditions=c.cond, chart=c.chart).rules())
            except QueryError:
                continue
        if not rules:
            # from a Location with no move into a neighbour's ground (a rooftop, an upper level): the rules of
            # the moves out of it that the allowance could not pay for
            for r in edges(search, s):
                rules.extend(r.rules())
    return ReachRuling(s, c.allowance, c.k.units, tuple(reached), distinct(rules), m.names)

