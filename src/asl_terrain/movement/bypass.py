"""Bypass (A4.3, D2.3) and Bypass along a Narrow Street (P5.11, P5.126, P5.141): what forbids a step in
Bypass (:data:`BYPASS_PROHIBITIONS`), what it costs (:data:`BYPASS_COSTS`), whether it keeps the B3.4 road
bonus, and leaving Bypass into the hex's own obstacle.

Each rule is a function of the small :class:`_Bypass` record, named for what it decides and citing its
rule, put in its place in its tuple: a prohibition returns a :class:`Prohibition` or None (the first that
answers forbids the step), a cost rule the items it adds (it sees the items before it: the climb doubles the
COT so far).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

from ..errors import NotAdjacent, QueryError
from ..grid import Hex, Hexside, Vertex
from ..model import HexsideTerrain, Location
from ..rulings import Item
from .common import (
    P2_54_NOTE,
    answers_only_if,
    blaze_prohibition,
    can_meet_blaze,
    climb_items,
    first_prohibition,
    hexside_items,
    keeps_bonus,
    rulebook,
    smoke_item,
    vehicle_items,
    weather_flag,
)
from .context import Context
from .entry import crossing_prohibition
from .rulings import ZERO, MoveRuling, Prohibition, _total
from .terrain import (
    _beyond_grid,
    _ends,
    _hex_vertices,
    _other_end,
    bypass_hex,
    bypass_ns,
    narrow_street_bypass_blocked,
    narrow_street_smoke,
    road_hexside_type,
    road_negated,
)


class _Bypass(NamedTuple):
    """One step in Bypass as its rules read it: from ``frm``, along hexside ``s`` of hex ``h``, to vertex
    ``v``; whether ``s`` is a Narrow Street, whether the unit starts inside ``h`` itself (``own``), whether it
    enters ``h``'s Bypass from another hex (``entering``, across the hexside between them), whether a
    roadblock lies on the Narrow Street, and the hexside so crossed with what lies on it (``crossed``, None
    when the step crosses none: several rules read it, so it is found once)."""

    c: Context
    frm: Location
    h: Hex
    s: Hexside
    v: Vertex
    ns: bool
    own: bool
    entering: bool
    roadblock: bool
    crossed: tuple[Hexside, HexsideTerrain] | None


def _crossed(c: Context, frm: Location, h: Hex, entering: bool) -> tuple[Hexside, HexsideTerrain] | None:
    """The hexside crossed into Bypass of ``h`` from ``frm``'s hex and what lies on it (None when the step
    crosses none)."""
    if not entering:
        return None
    return c.crossing(frm.hex, h)


# ============================================================================================ prohibitions


def bypass_starts_at_ground_level(b: _Bypass) -> Prohibition | None:
    """Bypass starts from a ground-level Location (A4.3): not from an upper level, a culvert or a rooftop."""
    if b.frm.level or b.frm.place in ("culvert", "rooftop"):
        return Prohibition("Bypass starts from a ground-level Location", "A4.3")
    return None


@answers_only_if(lambda c: c.has_ns)
def narrow_street_bypass_in_lower_hex(b: _Bypass) -> Prohibition | None:
    """A unit Bypassing along a Crest-Line Narrow Street is in its lower hex (P5.11)."""
    if b.ns:
        low = bypass_hex(b.c.m, b.s)
        if low is not None and low != b.h:
            return Prohibition(f"a unit Bypassing along Crest-Line Narrow Street {b.c.n(b.s)} is in the lower hex "
                               f"{b.c.n(low)}", "P5.11")
    return None


@answers_only_if(lambda c: c.has_ns and c.rout)
def no_rout_along_narrow_street(b: _Bypass) -> Prohibition | None:
    """Routing along a Narrow Street is NA (P5.11)."""
    return Prohibition("routing along a Narrow Street is NA", "P5.11") if b.ns and b.c.rout else None


@answers_only_if(lambda c: c.has_ns and c.dash)
def no_dash_along_narrow_street(b: _Bypass) -> Prohibition | None:
    """Dashing along a Narrow Street is NA (P5.11)."""
    return Prohibition("Dashing along a Narrow Street is NA", "P5.11") if b.ns and b.c.dash else None


@answers_only_if(lambda c: c.has_ns)
def no_bypass_along_blocked_narrow_street(b: _Bypass) -> Prohibition | None:
    """All Bypass along a Narrow Street is NA with another vehicle or wreck in Bypass along it, a Blaze or
    Rubble (P5.126; :func:`narrow_street_bypass_blocked`)."""
    if b.ns:
        blocked = narrow_street_bypass_blocked(b.c.m, b.s)
        if blocked:
            return Prohibition(f"all Bypass along Narrow Street {b.c.n(b.s)} is NA: {blocked}", "P5.126")
    return None


def no_bypass_of_own_hex(b: _Bypass) -> Prohibition | None:
    """Off a Narrow Street, Bypass is movement along the hexsides of an obstacle hex entered from outside it
    (A4.3; VBM D2.3)."""
    if not b.ns and b.own:
        return Prohibition(f"Bypass is movement along the hexsides of an obstacle hex entered from outside it; "
                           f"{b.c.n(b.s)} is no Narrow Street", "D2.3" if b.c.k.vbm else "A4.3")
    return None


def only_woods_and_buildings_bypassed(b: _Bypass) -> Prohibition | None:
    """Off a Narrow Street only woods and building hexes (the chart's ``bypass_terrain``), not stream hexes,
    are bypassed (A4.3; VBM D2.3)."""
    if b.ns:
        return None
    th = b.c.terrain(b.h)
    if th.terrain not in b.c.parameters.bypass_terrain.value or th.is_stream:
        return Prohibition(f"only woods and building hexes are bypassed ({b.c.n(b.h)} is {th.terrain}"
                           f"{', a stream hex' if th.is_stream else ''})", "D2.3" if b.c.k.vbm else "A4.3")
    return None


@answers_only_if(can_meet_blaze)
def no_bypass_of_blaze(b: _Bypass) -> Prohibition | None:
    """Off a Narrow Street, no Bypass of a hex that holds a Blaze (B25; judgment blaze_entry_na; along a
    Narrow Street P5.126 decides)."""
    return None if b.ns else blaze_prohibition(b.c, b.h)


@answers_only_if(lambda c: c.has_ns and c.k.vbm)
def no_vbm_along_narrow_street_roadblock(b: _Bypass) -> Prohibition | None:
    """A Narrow Street roadblock prohibits VBM along it (P5.141)."""
    if b.roadblock and b.c.k.vbm:
        return Prohibition(f"the Narrow Street roadblock on {b.c.n(b.s)} prohibits VBM along it", "P5.141")
    return None


def no_crossing_into_bypass(b: _Bypass) -> Prohibition | None:
    """Entering Bypass from an adjacent hex crosses the hexside between them: what forbids crossing it
    forbids the step (:data:`.entry.CROSSING_PROHIBITIONS`: P2.53, B29.4, the chart's hexside entries)."""
    crossed = b.crossed
    return crossing_prohibition(b.c, *crossed) if crossed is not None else None


def vertex_on_the_grid(b: _Bypass) -> Prohibition | None:
    """A step in Bypass ends at a vertex of the map's grid (A4.3)."""
    if _beyond_grid(b.v):
        return Prohibition("that vertex lies beyond the edge of the map's grid", "A4.3")
    return None


@answers_only_if(lambda c: c.k.vbm and c.vbm_full is None)
def vbm_for_this_unit(b: _Bypass) -> Prohibition | None:
    """A vehicle or Wagon Bypasses by VBM at twice the Open Ground cost: none where it may not enter Open
    Ground (D2.3)."""
    if b.c.k.vbm and b.c.vbm_full is None:
        return Prohibition(f"{b.c.k.desc} may not use VBM", "D2.3")
    return None


#: what forbids a step in Bypass, asked in order
BYPASS_PROHIBITIONS: tuple[Callable[[_Bypass], Prohibition | None], ...] = (
    bypass_starts_at_ground_level,
    narrow_street_bypass_in_lower_hex,
    no_rout_along_narrow_street,
    no_dash_along_narrow_street,
    no_bypass_along_blocked_narrow_street,
    no_bypass_of_own_hex,
    only_woods_and_buildings_bypassed,
    no_bypass_of_blaze,
    no_vbm_along_narrow_street_roadblock,
    no_crossing_into_bypass,
    vertex_on_the_grid,
    vbm_for_this_unit,
)


# ============================================================================================ costs


def bypass_rate(c: Context, ns: bool) -> tuple[Fraction, str, str]:
    """One hexside of Bypass before anything is added, as (amount, what, rule): Infantry and Cavalry the
    Bypass MF (A4.3, also along a Narrow Street, P5.11), vehicles and Wagons VBM at twice the Open Ground
    cost (D2.3), half that along a Narrow Street ``ns`` (P5.11; Wagons by judgment wagon_half_bypass)."""
    if not c.k.vbm:
        return c.parameters.bypass_mf.value, "Bypass", "A4.3"
    assert c.vbm_full is not None  # vbm_for_this_unit
    if ns and (not c.k.wagon or c.judgment_calls.wagon_half_bypass.value):
        return c.vbm_half, "VBM", "P5.11"
    return c.vbm_full, "VBM", "D2.3"


def bypass_mf_or_vbm(b: _Bypass, items: list[Item]) -> list[Item]:
    """One hexside of Bypass at its rate (:func:`bypass_rate`): the Bypass MF, or VBM (half along a Narrow
    Street, P5.11)."""
    c = b.c
    v, what, rule = bypass_rate(c, b.ns)
    along = f"along {c.n(b.s)} in {c.n(b.h)} to vertex {c.n_vertex(b.v)}"
    if rule == "P5.11":
        return [Item(v, f"VBM {along}: half the normal {c.vbm_full_text} {c.k.units} on a Narrow Street", rule)]
    return [Item(v, f"{what} {along}", rule)]


def bypass_floor(c: Context) -> Fraction:
    """The least a step in Bypass can cost this unit, so that the search need not weigh one it cannot pay
    for: the lesser :func:`bypass_rate` (along a Narrow Street only where the map has one), less the skis'
    bonus for crossing a slope Down-Slope (P2.51); the other :data:`BYPASS_COSTS` add the chart's extras,
    none below zero. Zero for a unit that may not use VBM (its every step is NA)."""
    if c.k.vbm and c.vbm_full is None:
        return ZERO
    least = min(bypass_rate(c, ns)[0] for ns in ((False, True) if c.has_ns else (False,)))
    if c.k.inf and c.unit.skis:
        least -= c.parameters.skis_down_slope_bonus_mf.value
    return max(least, ZERO)


@answers_only_if(lambda c: c.has_counters("smoke"))
def bypass_smoke(b: _Bypass, items: list[Item]) -> list[Item]:
    """SMOKE: +1 for SMOKE in either hex of a Narrow Street (only the lower hex's on a Crest Line, P5.11),
    plus the bypassed hex's own unless judgment narrow_street_smoke_replaces_cot; else the bypassed hex's
    (B.2)."""
    c, m, h = b.c, b.c.m, b.h
    if not b.ns:
        return [smoke_item(c, h)] if m.smoke(h) else []
    out: list[Item] = []
    sh = narrow_street_smoke(m, b.s)
    if sh is not None:
        out.append(Item(c.parameters.narrow_street_smoke_bypass.value,
                        f"SMOKE in {c.n(sh)} beside Narrow Street {c.n(b.s)}",
                        "P5.11"))
    if not c.judgment_calls.narrow_street_smoke_replaces_cot.value and m.smoke(h) and sh != h:
        out.append(smoke_item(c, h))
    return out


def bypass_entry_crossing(b: _Bypass, items: list[Item]) -> list[Item]:
    """Entering Bypass from an adjacent hex crosses the hexside between them (judgment
    bypass_entry_crosses_hexside): its climb (B10.4) and extras and slope (B9.4, P2.51, P2.52); and the
    vehicle/wreck penalty of the hex entered (D2.14)."""
    crossed = b.crossed
    if crossed is None:
        return []
    c, (hs_x, hst_x) = b.c, crossed
    x = b.frm.hex
    out = list(items)
    if c.judgment_calls.bypass_entry_crosses_hexside.value:
        tx, th = c.terrain(x), c.terrain(b.h)
        up = th.level - tx.level if (hst_x.crest and th.level > tx.level) else 0
        if up:
            climb_items(c, _total(out), up, False, hs_x, out)
        hexside_items(c, x, hs_x, hst_x, out)
    out.extend(vehicle_items(c, b.h, False))
    return out[len(items):]


@answers_only_if(lambda c: c.has_ns)
def narrow_street_roadblock_segment(b: _Bypass, items: list[Item]) -> list[Item]:
    """Crossing a Narrow Street roadblock's segment in Bypass along it costs the chart's extra MF (P5.141)."""
    if not b.roadblock:
        return []
    v, rule, _, _ = b.c.cost("narrow-street-roadblock")
    if isinstance(v, Fraction) and v:
        return [Item(v, f"crosses the Narrow Street roadblock's segment on {b.c.n(b.s)}", rule)]
    return []


#: the costs of a step in Bypass, asked in order; each adds its items to those before it
BYPASS_COSTS: tuple[Callable[[_Bypass, list[Item]], list[Item]], ...] = (
    bypass_mf_or_vbm,
    bypass_smoke,
    bypass_entry_crossing,
    narrow_street_roadblock_segment,
)


def bypass_keeps_bonus(b: _Bypass) -> bool:
    """Whether a step in Bypass keeps the B3.4 road bonus possible: only along a Narrow Street (P5.11),
    not across its roadblock's segment, reached across a road hexside (or on from along another Narrow
    Street) into a hex whose road is not rubbled (B3.43), with nothing in its two hexes spoiling it
    (B3.4) and no fence crossed (judgment fence_denies_road_bonus)."""
    c = b.c
    if not (b.ns and c.bonus_unit) or b.roadblock:
        return False
    crossed = b.crossed
    if crossed is not None:
        hst_x = crossed[1]
        road_in = road_hexside_type(hst_x) is not None or (b.frm.is_bypass and bypass_ns(b.frm, c.m))
        if not road_in or road_negated(c.m, b.h) or (c.judgment_calls.fence_denies_road_bonus.value and hst_x.fence):
            return False
    return keeps_bonus(c, b.s.hexes, None)


def bypass_move(c: Context, frm: Location, h: Hex, s: Hexside, v0: Vertex, v: Vertex) -> MoveRuling | Prohibition:
    """Moving in Bypass along hexside ``s`` of hex ``h`` from vertex ``v0`` to vertex ``v``: the first of
    :data:`BYPASS_PROHIBITIONS` that forbids it, else the ruling with the items of :data:`BYPASS_COSTS`
    (P2.54's weather flag when it enters across a hexside)."""
    m = c.m
    ns = c.has_ns and m.hexside(s).narrow_street is not None  # a map without Narrow Streets: no look-up
    x = frm.hex
    in_h, in_bypass = x is h or (x.col == h.col and x.row == h.row), frm.is_bypass  # no dataclass __eq__: per move
    own = in_h and not in_bypass
    entering = not (in_bypass and in_h) and not own
    crossed = _crossed(c, frm, h, entering)
    b = _Bypass(c, frm, h, s, v, ns, own, entering, ns and m.roadblock(s) is not None, crossed)
    no = first_prohibition(rulebook(c, BYPASS_PROHIBITIONS), b)
    if no is not None:
        return no
    items: list[Item] = []
    for rule in rulebook(c, BYPASS_COSTS):
        items.extend(rule(b, items))
    weather = crossed is not None and weather_flag(c, crossed[1], c.terrain(x), c.terrain(h))
    return c.ok(frm, Location(h, bypass=s, vertex=v), items, keeps=bypass_keeps_bonus(b), bypass=s,
                weather=weather, notes=(P2_54_NOTE,) if weather else ())


# ============================================================================================ leaving Bypass


def bypass_to_interior(c: Context, frm: Location, to: Location) -> MoveRuling:
    """Leaving Bypass to enter the obstacle of the hex itself: its COT (and SMOKE, B.2), no hexside
    crossed (A4.3, [U]); never into a Blaze (B25), nor into terrain the unit may not enter."""
    t = c.terrain(to.hex)
    v, rule, bog, name = c.cost(c.ground_key(t))
    no = blaze_prohibition(c, to.hex)
    if no is None and v == "NA":
        no = Prohibition(f"{c.k.desc} may not enter {name.lower()} {c.n(to.hex)}", rule)
    if no is not None:
        return c.na(frm, to, no)
    if v == "ALL":
        r = c.all_ruling(frm, to, f"{name.lower()} {c.n(to.hex)}", rule, bog)
        return c.na(frm, to, r) if isinstance(r, Prohibition) else r
    items = [Item(v, f"COT: leaves Bypass into the {name.lower()} of {c.n(to.hex)}", rule)]
    if c.m.smoke(to.hex):
        items.append(smoke_item(c, to.hex))
    return c.ok(frm, to, items, bog=bog and c.k.pays_mp)


# ============================================================================================ asking for a step


def start_vertices(frm: Location) -> tuple[Vertex, ...]:
    """The vertices from which a move out of ``frm`` may start in Bypass."""
    if frm.vertex is not None:
        return (frm.vertex,)
    if frm.bypass is not None:
        return _ends(frm.bypass)
    return _hex_vertices(frm.hex)


def bypass_candidates(c: Context, frm: Location, s: Hexside, in_hex: Hex | None,
                      to_vertex: Vertex | None) -> list[tuple[Hex, Vertex, Vertex]]:
    """The (hex, start vertex, end vertex) of each way ``frm`` can move in Bypass along ``s`` (the lower
    hex only on a Crest-Line Narrow Street, P5.11)."""
    m = c.m
    ends = _ends(s)
    starts = start_vertices(frm)
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


def bypass_step(c: Context, frm: Location, bypass: Hexside, in_hex: Hex | None, to_vertex: Vertex | None) -> MoveRuling:
    """A step in Bypass along ``bypass`` (in ``in_hex``, to ``to_vertex``), the cheapest allowed way when
    the rules leave the hex open; bad requests raise QueryError naming the key."""
    if in_hex is not None and in_hex not in bypass.hexes:
        raise NotAdjacent(f"in: {c.n(in_hex)} is not a hex of {c.n(bypass)}; expected "
                          + " or ".join(c.n(h) for h in bypass.hexes))
    ends = [x for x in _ends(bypass) if not _beyond_grid(x)]
    if to_vertex is not None and to_vertex not in ends:
        raise QueryError(f"to_vertex: {c.n_vertex(to_vertex) if not _beyond_grid(to_vertex) else to_vertex!r} "
                         f"is not a vertex of {c.n(bypass)} on the grid; expected "
                         + " or ".join(c.n_vertex(x) for x in ends))
    cands = [x for x in bypass_candidates(c, frm, bypass, in_hex, to_vertex) if not _beyond_grid(x[2])]
    if not cands:
        raise NotAdjacent(f"bypass: hexside {c.n(bypass)} does not touch {c.n(frm)} at a vertex it can "
                          "start from" + (f" in {c.n(in_hex)}" if in_hex is not None else ""))
    if to_vertex is None and len({x[2] for x in cands}) > 1:
        raise QueryError(f"to_vertex: missing; moving in Bypass along {c.n(bypass)} from {c.n(frm)} "
                         f"can end at " + " or ".join(sorted({c.n_vertex(x[2]) for x in cands})))
    out: list[MoveRuling] = []
    for h, v0, v in cands:
        r = bypass_move(c, frm, h, bypass, v0, v)
        out.append(c.na(frm, Location(h, bypass=bypass, vertex=v), r, bypass) if isinstance(r, Prohibition) else r)
    return cheapest(out)


def cheapest(rulings: list[MoveRuling]) -> MoveRuling:
    """The cheapest allowed ruling (the first on a tie), or the first ruling when none is allowed."""
    allowed = [r for r in rulings if r.allowed]
    if not allowed:
        return rulings[0]
    return min(allowed, key=lambda r: (r.cost if r.cost is not None else ZERO))
