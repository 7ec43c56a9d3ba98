"""The public movement API (as networkx's shortest paths: one set of rules, one search): :func:`context` and
the typed :func:`rule_move`, :func:`rule_path` and :func:`rule_reach`, which take typed values only; the
name-taking :func:`move_cost`, :func:`path` and :func:`reach`, which parse names at the edge
(:mod:`.names`) and call the same code; and the contexts and search tables cached with each map
(thread-safe: two threads may ask about one map at once)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..chart import Chart, default_chart
from ..errors import QueryError
from ..grid import Hex, Hexside, Vertex
from ..model import Conditions, Location, Map, SharedCache
from ..rulings import distinct, fmt
from ..units import Unit
from .context import Context
from .graph import SCALE, Edge, Tables, edges, scaled
from .moves import move, with_vca
from .names import as_allowance, as_unit, parse_location, parse_start, parse_step
from .rulings import ONE, ZERO, MoveRuling, PathRuling, Reached, ReachRuling, Step
from .search import dijkstra, gc_paused
from .terrain import checked_location, road_bonus_spoilers

# ============================================================================================ caches


class _MapCache:
    """The contexts and search tables of one map, kept with it (:meth:`Map.derived`) and shared by threads:
    contexts by (chart, conditions, unit, allowance, flags), tables by (chart, conditions, unit, flags)."""

    __slots__ = ("contexts", "tables")

    def __init__(self) -> None:
        self.contexts: SharedCache[tuple[Any, ...], Context] = SharedCache(64)
        self.tables: SharedCache[tuple[Any, ...], Tables] = SharedCache(64)


def _per_map(m: Map) -> _MapCache:
    return m.derived(("movement",), _MapCache)


def context(m: Map, unit: Unit, allowance: Fraction | None = None, *, dash: bool = False, rout: bool = False,
            conditions: Conditions | None = None, chart: Chart | None = None) -> Context:
    """The (cached) context of ``unit`` moving on ``m`` with ``allowance`` (the unit's own when None) under
    ``conditions`` (the map's when None), the typed values the rules read; checks the flags (only Infantry
    Dash, A4.63, or rout, A10.5)."""
    _check_flags(unit, dash, rout)
    return _cached(m, unit, allowance, dash, rout, conditions if conditions is not None else m.conditions, chart)


def _cached(m: Map, unit: Unit, allowance: Fraction | None, dash: bool, rout: bool, cond: Conditions,
            chart: Chart | None) -> Context:
    """The context of these typed values, from the map's cache or made and kept there."""
    ch = chart if chart is not None else default_chart()
    allow = allowance if allowance is not None else unit.allowance
    key = (ch, cond, unit, allow, dash, rout)
    contexts = _per_map(m).contexts
    return contexts.get(key, lambda: Context.of(m, ch, cond, unit, allow, dash, rout))


def _check_flags(unit: Unit, dash: bool, rout: bool) -> None:
    """Only Infantry Dash (A4.63) or rout (A10.5)."""
    if dash and unit.type != "infantry":
        raise QueryError("dash: only Infantry may Dash (A4.63)")
    if rout and unit.type not in ("infantry",):
        raise QueryError("rout: only Infantry rout (A10.5)")


def _context(m: Map, unit: Unit | str | Mapping[str, Any] | None, allowance: Any = None, *, dash: bool = False,
             rout: bool = False, conditions: Conditions | Mapping[str, Any] | None = None,
             chart: Chart | None = None) -> Context:
    """:func:`context` from names or typed values (a Python caller's edge), checked in the order a query's
    keys have always been: the unit, its flags, the conditions, the allowance."""
    u = as_unit(unit)
    _check_flags(u, dash, rout)
    cond = m.conditions_for(conditions)
    return _cached(m, u, as_allowance(allowance), dash, rout, cond, chart)


#: the allowance of the context that builds the search's tables (any positive value: the tables do not
#: depend on it, see :mod:`.graph`)
_SEARCH_ALLOWANCE = ONE


def _search_tables(c: Context) -> Tables:
    """The tables every ``reach`` of ``c``'s unit, map, chart, conditions and flags shares."""
    key = (c.chart, c.cond, c.unit, c.dash, c.rout)
    return _per_map(c.m).tables.get(key, lambda: Tables(context(c.m, c.unit, _SEARCH_ALLOWANCE, dash=c.dash,
                                                                  rout=c.rout, conditions=c.cond, chart=c.chart)))


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
    f = parse_location(m, frm, "from")
    t = parse_location(m, to, "to") if to is not None else None
    hs = m.parse_hexside(bypass) if isinstance(bypass, str) else bypass
    tv = m.parse_vertex(to_vertex) if isinstance(to_vertex, str) else to_vertex
    ih = m.parse_hex(in_hex) if isinstance(in_hex, str) else in_hex
    dv = m.parse_vertex(declared_vertex) if isinstance(declared_vertex, str) else declared_vertex
    return _ruled_move(c, f, t, road_rate=road_rate, bypass=hs, to_vertex=tv, in_hex=ih, protection=protection,
                       declared_vertex=dv, vca=vca)


def rule_move(c: Context, frm: Location, to: Location | None = None, *, road_rate: bool | None = None,
              bypass: Hexside | None = None, to_vertex: Vertex | None = None, in_hex: Hex | None = None,
              protection: bool = False, declared_vertex: Vertex | None = None, vca: int | None = None) -> MoveRuling:
    """:func:`move_cost` for typed values only: the move of :func:`context` ``c`` from ``frm`` (to ``to``, or
    in Bypass along ``bypass``); the Locations are checked against the map and made canonical (P5.11)."""
    f = checked_location(c.m, frm, "from")
    t = checked_location(c.m, to, "to") if to is not None else None
    return _ruled_move(c, f, t, road_rate=road_rate, bypass=bypass, to_vertex=to_vertex, in_hex=in_hex,
                       protection=protection, declared_vertex=declared_vertex, vca=vca)


def _ruled_move(c: Context, f: Location, t: Location | None, *, road_rate: bool | None, bypass: Hexside | None,
                to_vertex: Vertex | None, in_hex: Hex | None, protection: bool, declared_vertex: Vertex | None,
                vca: int | None) -> MoveRuling:
    """The ruling on one move between checked Locations, with its VCA change (D2.11)."""
    m, dv = c.m, declared_vertex
    if (dv is not None and t is not None and not t.is_bypass and t.hex != f.hex and f.hex.is_adjacent(t.hex)
            and dv not in Hexside.of(f.hex, t.hex).vertices()):
        raise QueryError(f"declared_vertex: {m.name_of(dv)} is not a vertex of hexside "
                         f"{m.name_of(Hexside.of(f.hex, t.hex))}")
    _check_vca(c, vca, f, t, bypass)
    r = move(c, f, t, bypass=bypass, in_hex=in_hex, to_vertex=to_vertex, road_rate=road_rate, protection=protection,
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
    start = parse_start(m, steps[0])
    # each step parsed only when the path gets there (a forbidden step ends the path before the next is read)
    return _ruled_path(c, start, (parse_step(m, x, i) for i, x in enumerate(steps[1:], start=1)), vca)


def rule_path(c: Context, start: Location, steps: Iterable[Step], vca: int | None = None) -> PathRuling:
    """:func:`path` for typed values only: the whole move of :func:`context` ``c`` from ``start`` through
    ``steps`` (each read only when the path gets there)."""
    return _ruled_path(c, checked_location(c.m, start, "hexes[0]"), steps, vca)


def _ruled_path(c: Context, start: Location, steps: Iterable[Step], vca: int | None) -> PathRuling:
    """The ruling on a whole move from a checked start: the steps' rulings, their sum, the road bonus (B3.4)
    and the allowance."""
    m = c.m
    if vca is not None:
        _check_vca(c, vca, start, None, None)
    pos = start
    rulings: list[MoveRuling] = []
    total = ZERO
    bonus = c.bonus_unit
    for i, st in enumerate(steps, start=1):
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
    return _path_total(c, start, rulings, total, bonus)


def _path_total(c: Context, start: Location, rulings: list[MoveRuling], total: Fraction, bonus: bool) -> PathRuling:
    """A path whose every step is allowed: within the allowance, raised by the road bonus when every step kept
    it (B3.4), or not."""
    m = c.m
    road_bonus = bonus and bool(rulings)
    allow = c.allowance + (c.parameters.road_bonus_mf.value if road_bonus else ZERO)
    lost = (None if road_bonus or not rulings else c.bonus_spoiled_by or
            (_road_bonus_lost(m, c, rulings) if any(r.road_rate for r in rulings) else None))
    if total > allow:
        why = (f"it costs {fmt(total)} {c.k.units}, more than the allowance of {fmt(allow)}"
               + ("" if road_bonus else (f" ({c.bonus_spoiled_by})" if c.bonus_spoiled_by and rulings else
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


def _search(t: Tables, start: Location, allowance: Fraction,
            prune: bool = True) -> tuple[dict[int, int], dict[int, tuple[int, Edge]]]:
    """Least costs over (Location, road-bonus-still-possible) nodes, with predecessors.

    A search node is ``2 * id + b``: the Location's id in the search mover's tables and whether the B3.4
    road bonus is still possible. The allowance is the cutoff, raised by the road bonus only for nodes that
    kept it; an ALL move is taken only as the first move, and costs the whole allowance (none when the
    allowance is 0). Costs are integers (``SCALE`` per MF/MP). The search itself (:func:`.search.dijkstra`)
    knows none of this: :func:`successors` says which moves leave a node and what they cost, and weighs
    (rules) a move only when it could reach its node more cheaply than the search already has, within the
    allowance (``prune``; without it every move is weighed, the plain search the tests compare it with).
    """
    cut = scaled(allowance)
    c = t.c
    cut_b = scaled(allowance + c.parameters.road_bonus_mf.value) if c.bonus_unit else cut
    moves, weigh = t.moves, t.weigh

    def successors(x: int, d: int, known: Mapping[int, int]) -> Iterator[tuple[int, int, Edge]]:
        u, kept = x >> 1, x & 1  # kept: the road bonus is still possible on the way here
        room = (cut_b if kept else cut) - d if prune else 1 << 62
        for mv in moves(u):
            y, least = mv.to + mv.to, d + mv.floor  # least: the least this move can reach its node at
            if mv.floor > room or (prune and known.get(y, least + 1) <= least
                                   and (not kept or known.get(y + 1, least + 1) <= least)):
                continue  # beyond the allowance, or its node already reached as cheaply: never weighed
            for e in weigh(u, mv):
                w, keeps, all_mf = e[1], e[2], e[3]
                if all_mf:
                    if d or not cut:
                        continue
                    w = cut
                if kept and keeps:
                    yield y + 1, w, e  # the cutoff, cut_b, is the search's own
                elif d + w <= cut:
                    yield y, w, e

    return dijkstra(2 * t.node_id(start) + (1 if c.bonus_unit else 0), successors, cut_b)


def _chain(t: Tables, x: int, pred: dict[int, tuple[int, Edge]], chains: dict[int, tuple[Location, ...]],
           rules: list[str]) -> tuple[Location, ...]:
    """The path to search node ``x`` (start first), built on the memoised paths of its predecessors; the
    items' rules of each move met for the first time are added to ``rules``."""
    nodes = t.nodes
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
        rules.extend(pred[z][1][5])
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
    return _ruled_reach(c, parse_location(m, start, "from"))


def rule_reach(c: Context, start: Location) -> ReachRuling:
    """:func:`reach` for typed values only: everywhere :func:`context` ``c``'s unit reaches from ``start``."""
    return _ruled_reach(c, checked_location(c.m, start, "from"))


def _ruled_reach(c: Context, s: Location) -> ReachRuling:
    """Everywhere the unit reaches from checked Location ``s`` within its allowance: the least-cost search
    over the shared tables, each Location's least cost and one cheapest path."""
    m = c.m
    search = _search_tables(c)
    with gc_paused():
        dist, pred = _search(search, s, c.allowance)
    nodes = search.nodes
    best: dict[str, tuple[int, int]] = {}
    named: list[tuple[Location, str]] = []  # each node's Location and name, for the answer's keys and paths
    # by cost, ties in the order this search found them (node ids depend on earlier queries' tables)
    for x, d in sorted(dist.items(), key=lambda kv: kv[1]):
        name = search.name(x >> 1)
        named.append((nodes[x >> 1], name))
        if name not in best:
            best[name] = (d, x)
    reached: list[Reached] = []
    rules: list[str] = []
    chains: dict[int, tuple[Location, ...]] = {}
    cut = scaled(c.allowance)
    for d, x in best.values():
        last = pred.get(x)
        reached.append(Reached(nodes[x >> 1], Fraction(d, SCALE), _chain(search, x, pred, chains, rules), d > cut,
                               bool(last is not None and last[1][3])))
    if any(r.road_bonus for r in reached):
        rules.append("B3.4")
    if len(reached) == 1:
        # nowhere to go: the rules are those of the first moves the allowance could not pay for (or forbid)
        for n in m.neighbours(s.hex):
            try:
                rules.extend(rule_move(context(m, c.unit, conditions=c.cond, chart=c.chart), s, Location(n)).rules())
            except QueryError:
                continue
        if not rules:
            # from a Location with no move into a neighbour's ground (a rooftop, an upper level): the rules of
            # the moves out of it that the allowance could not pay for
            for r in edges(search, s):
                rules.extend(r.rules())
    return ReachRuling(s, c.allowance, c.k.units, tuple(reached), distinct(rules), m.names, tuple(named))

