"""Entering an adjacent hex: what forbids it whatever it costs (:data:`ENTRY_PROHIBITIONS`, and
:data:`CROSSING_PROHIBITIONS`, which Bypass meets too), what the Location entered costs (:data:`ENTRY_COSTS`),
and the ways of paying for it: at the hex's COT or, where B3.4 leaves it to the mover, at the road rate.

Each rule is a function named for what it decides, citing its rule, put in its place in its tuple: a
prohibition returns a :class:`Prohibition` or None (the first that answers forbids the entry), a cost rule
the COT :class:`Part` s of the Location entered or None (the first that answers decides). A new rule is one
function put in its place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any, NamedTuple

from ..errors import QueryError
from ..grid import Hex, Hexside, Vertex
from ..model import HexsideTerrain, HexTerrain, Location
from ..rulings import Item
from .common import (
    P2_54_NOTE,
    answers_only_if,
    blaze_prohibition,
    can_meet_blaze,
    bonus_spoilers,
    climb_items,
    first_prohibition,
    hexside_items,
    rulebook,
    smoke_item,
    vehicle_items,
    weather_flag,
)
from .context import Context
from .levels import building_level_entry, culvert_entry
from .rulings import ZERO, MoveRuling, Prohibition, _total
from .terrain import crest_status_problem, road_hexside_type, road_negated

# ============================================================================================ entry prohibitions


class _Entry(NamedTuple):
    """What the entry prohibitions read: the mover (its unit, map, chart and flags), the hex entered and its
    terrain, the hexside crossed, and whether the unit comes from Bypass along a Narrow Street. (A NamedTuple
    rather than a frozen dataclass: one is built for every entry the search weighs, and it builds faster.)"""

    ctx: Context
    b: Hex
    tb: HexTerrain | None
    hs: Hexside
    hst: HexsideTerrain
    along_ns: bool = False
    #: the Locations left and entered and the terrain of the hex left (None where a rule of crossing a
    #: hexside is asked for Bypass)
    frm: Location | None = None
    to: Location | None = None
    ta: HexTerrain | None = None


#: an entry prohibition: a :class:`Prohibition` when it forbids the entry, else None
_EntryRule = Callable[[_Entry], "Prohibition | None"]


@answers_only_if(lambda c: c.dash and c.has_ns)
def no_dash_across_or_along_narrow_street(e: _Entry) -> Prohibition | None:
    """A Dash across or along a Narrow Street is NA (P5.11)."""
    if e.ctx.dash and (e.hst.narrow_street is not None or e.along_ns):
        return Prohibition("Dashing across or along a Narrow Street is NA", "P5.11")
    return None


@answers_only_if(lambda c: c.rout and c.has_ns)
def no_rout_across_narrow_street(e: _Entry) -> Prohibition | None:
    """Routing straight across a Narrow Street is allowed unless judgment rout_across_narrow_street says
    otherwise (P5.11 forbids routing along one: bypass.no_rout_along_narrow_street)."""
    if e.ctx.rout and e.hst.narrow_street is not None and not e.ctx.judgment_calls.rout_across_narrow_street.value:
        return Prohibition("routing across a Narrow Street is NA (judgment rout_across_narrow_street)", "P5.11")
    return None


@answers_only_if(lambda c: c.dash)
def no_dash_into_rubbled_road(e: _Entry) -> Prohibition | None:
    """No Dash into a road hex whose road is covered by rubble (B3.43)."""
    if e.ctx.dash and road_negated(e.ctx.m, e.b):
        return Prohibition(f"no Dash in a road hex covered by rubble ({e.ctx.n(e.b)})", "B3.43")
    return None


@answers_only_if(can_meet_blaze)
def no_entry_into_blaze(e: _Entry) -> Prohibition | None:
    """Entering a Blaze Location is NA (B25; judgment blaze_entry_na)."""
    return blaze_prohibition(e.ctx, e.b)


@answers_only_if(lambda c: c.k.pays_mp or c.k.wagon)
def no_vehicle_across_crest_line_slope(e: _Entry) -> Prohibition | None:
    """No vehicle (Wagons included) may cross a combination Crest-Line-slope hexside (P2.53)."""
    if e.hst.slope is not None and e.hst.crest and (e.ctx.k.pays_mp or e.ctx.k.wagon):
        return Prohibition(f"no vehicle may cross combination Crest-Line-slope hexside {e.ctx.n(e.hs)}", "P2.53")
    return None


@answers_only_if(lambda c: c.k.cav and c.unit.charging)
def no_charging_cavalry_across_crest_line_slope(e: _Entry) -> Prohibition | None:
    """No charging Cavalry may cross a combination Crest-Line-slope hexside (P2.53)."""
    if e.hst.slope is not None and e.hst.crest and e.ctx.k.cav and e.ctx.unit.charging:
        return Prohibition(f"no charging Cavalry may cross combination Crest-Line-slope hexside {e.ctx.n(e.hs)}",
                           "P2.53")
    return None


@answers_only_if(lambda c: c.has_counters("roadblock"))
def no_vehicle_across_roadblock(e: _Entry) -> Prohibition | None:
    """No vehicle (Wagons included) may cross a roadblock's hexside (B29.4, and on a Narrow Street P5.141):
    the chart's NA in the unit's column of the roadblock's entry."""
    if e.ctx.m.roadblock(e.hs) is None:
        return None
    v = e.ctx.cost("narrow-street-roadblock" if e.hst.narrow_street is not None else "roadblock")[0]
    if v != "NA":
        return None
    who = "no vehicle" if e.ctx.k.pays_mp or e.ctx.k.wagon else f"no {e.ctx.k.desc}"
    return Prohibition(f"{who} may cross the roadblock on {e.ctx.n(e.hs)}", "B29.4")


def hexside_not_crossable(e: _Entry) -> Prohibition | None:
    """A wall, hedge, bocage, rowhouse wall, cliff or fence this unit may not cross: NA in the chart for its
    type (the chart entry's rule: B9.4 walls and hedges, B9.5 bocage, B23.71 rowhouse walls, B11.1
    cliffs, P3.2 fences)."""
    hst = e.hst
    if not (hst.wall or hst.hedge or hst.bocage or hst.rowhouse_wall or hst.cliff or hst.fence):
        return None  # most hexsides: nothing to cross (asked for every entry)
    for key, present in (("wall", hst.wall), ("hedge", hst.hedge), ("bocage", hst.bocage),
                         ("rowhouse-wall", hst.rowhouse_wall), ("cliff", hst.cliff), ("fence", hst.fence)):
        if present:
            v, rule, _, name = e.ctx.cost(key)
            if v == "NA":
                return Prohibition(f"{e.ctx.k.desc} may not cross the {name.lower()} on {e.ctx.n(e.hs)}", rule)
    return None


@answers_only_if(lambda c: c.k.pays_mp)
def vehicle_onto_or_off_bridge_only_by_its_road(e: _Entry) -> Prohibition | None:
    """A bridge vehicles use connects to the road it extends, and only there: a vehicle drives onto or off a
    bridge's deck only across its road hexsides (B6.1)."""
    if not e.ctx.k.pays_mp or e.hst.road is not None or e.frm is None or e.to is None:
        return None
    if (e.tb is None or e.tb.bridge is None) and (e.ta is None or e.ta.bridge is None):
        return None  # no bridge in either hex: most entries
    for t, loc, way in ((e.tb, e.to, "onto"), (e.ta, e.frm, "off")):
        if t is not None and t.bridge is not None and t.is_stream and loc.place == "" and not loc.level:
            return Prohibition(f"a vehicle drives {way} the {t.bridge} bridge in {e.ctx.n(t.hex)} only across its "
                               f"road hexsides, not across {e.ctx.n(e.hs)}", "B6.1")
    return None


@answers_only_if(lambda c: c.k.cav and c.unit.charging)
def no_cavalry_charge_into_woods(e: _Entry) -> Prohibition | None:
    """Cavalry may not charge into woods (B13.4; the terrain is the chart's ``charge_na``)."""
    if (e.ctx.k.cav and e.ctx.unit.charging and e.tb is not None
            and e.tb.terrain in e.ctx.parameters.cavalry_charge_na_terrain.value):
        return Prohibition("Cavalry may not charge into woods", "B13.4")
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
    no_rout_across_narrow_street,
    no_dash_into_rubbled_road,
    no_entry_into_blaze,
    *CROSSING_PROHIBITIONS,
    no_cavalry_charge_into_woods,
    vehicle_onto_or_off_bridge_only_by_its_road,
)




def crossing_prohibition(c: Context, hs: Hexside, hst: HexsideTerrain) -> Prohibition | None:
    """The first of :data:`CROSSING_PROHIBITIONS` that forbids crossing hexside ``hs`` (P2.53, B29.4, the
    chart's hexside entries), or None."""
    return first_prohibition(rulebook(c, CROSSING_PROHIBITIONS), _Entry(c, hs.a, None, hs, hst))


def culvert_left_only_into_stream(c: Context, frm: Location, to: Location, tb: HexTerrain,
                                  hst: HexsideTerrain) -> Prohibition | None:
    """A unit leaves a Stream Culvert only INTO an ADJACENT stream Location (P4.21)."""
    if frm.place == "culvert" and not (to.place == "" and to.level == 0 and tb.is_stream
                                       and (hst.stream or hst.culvert)):
        return Prohibition("a unit leaves a Stream Culvert only INTO an ADJACENT stream Location", "P4.21")
    return None


# ============================================================================================ entry costs


class Part(NamedTuple):
    """One part of the COT of the Location entered: its amount (a Fraction, "ALL" or "NA"), the item's text,
    its rule, whether a vehicle entering it checks for Bog, and the thing entered as a player names it (for
    "may not enter ..." and "ALL its MF to enter ...")."""

    amount: Any
    why: str
    rule: str
    bog: bool
    what: str


def _enters(v: Any, what: str, rule: str, bog: bool) -> Part:
    """The COT part of entering ``what``."""
    return Part(v, f"COT: enters {what}", rule, bog, what)


class _Cost(NamedTuple):
    """What the entry cost rules read: the context, the Location entered and its hex's terrain, the hexside
    crossed, and whether the unit pays for the hex's protection (B3.43)."""

    ctx: Context
    to: Location
    tb: HexTerrain
    hst: HexsideTerrain
    protection: bool


#: an entry cost rule: the COT parts of the Location entered when it decides them (or a Prohibition), else None
_CostRule = Callable[[_Cost], "list[Part] | Prohibition | None"]


def crest_status_cost(c: _Cost) -> list[Part] | Prohibition | None:
    """Entering a stream hex with Crest status: P4.12's costs for Good Order Infantry in
    stream-woods/brush/orchard across a non-stream hexside; otherwise the IN cost plus the MF of gaining
    Crest status (B20.91, [U] parameter crest_status_mf); never in a culvert hex or along a
    stream-and-culvert hexside (P4.22)."""
    if c.to.place != "crest":
        return None
    ctx, tb, hst = c.ctx, c.tb, c.hst
    if not (ctx.k.inf or ctx.k.cav):
        raise QueryError("to: Crest status for vehicles and Wagons (B20.92) is not modelled by this engine; "
                         "expected an Infantry or Cavalry unit")
    no = crest_status_problem(ctx.m, tb.hex, hst.hexside)
    if no:
        return no
    special = ctx.stream_crest_mf.get(tb.terrain)
    if special is not None and not hst.stream and ctx.k.inf and ctx.unit.good_order:
        why = (f"gains Crest status in stream-{tb.terrain} {ctx.n(tb.hex)} along non-stream hexside "
               f"{ctx.n(hst.hexside)}")
        return [Part(special, why, "P4.12", False, why)]
    parts = _stream_parts(ctx, tb, hst)
    why = f"gains Crest status in {ctx.n(tb.hex)}"
    parts.append(Part(ctx.parameters.crest_status_mf.value, why, "B20.91", False, why))
    return parts


def in_stream_cost(c: _Cost) -> list[Part] | None:
    """Entering IN a stream: its depth cost (a ford's where printed, P4.3), plus the hex's other terrain
    across a non-stream hexside (P4.11)."""
    return _stream_parts(c.ctx, c.tb, c.hst) if c.tb.is_in_stream(c.to.place) else None


def bridge_cost(c: _Cost) -> list[Part] | None:
    """Onto a bridge over a stream (the base Location of a bridge hex) at the chart's bridge cost, the stream
    below not entered (B6; the road rate applies where a road crosses the hexside, B3.4)."""
    tb = c.tb
    if tb.bridge is None or not tb.is_stream:
        return None
    v, rule, bog, _ = c.ctx.cost("bridge")
    return [_enters(v, f"the {tb.bridge} bridge in {c.ctx.n(tb.hex)}", rule, bog)]


def terrain_cost(c: _Cost) -> list[Part]:
    """Otherwise the hex's terrain by the chart (shellholes paid for their protection, B3.43): always decides."""
    ctx, tb = c.ctx, c.tb
    key = ctx.ground_key(tb)
    v, rule, bog, name = ctx.cost(key)
    if c.protection and key == "shellholes" and not ctx.k.pays_mp:
        g = ctx.chart.terrain["shellholes"].mf
        pv = g.get("protection") if g is not None else None
        if isinstance(pv, Fraction):
            v, name = pv, "shellholes, paying for their protection"
    return [_enters(v, f"{name.lower()} {ctx.n(tb.hex)}", rule, bog)]


#: the costs of the Location entered (before SMOKE and the climb), asked in order; the last always decides
ENTRY_COSTS: tuple[_CostRule, ...] = (crest_status_cost, in_stream_cost, bridge_cost, terrain_cost)


def _stream_parts(c: Context, tb: HexTerrain, hst: HexsideTerrain) -> list[Part]:
    """The cost of entering IN a stream hex: the stream's depth cost (a ford's where printed, P4.3), plus
    the woods/brush/orchard cost when entered across a non-stream hexside (P4.11)."""
    depth = tb.stream or "shallow"
    key = "ford" if tb.ford else f"stream-{depth}"
    v, rule, bog, name = c.cost(key)
    where = c.n(tb.hex)
    parts = [_enters(v, f"{name.lower()} {where}" + (" (printed ford, P4.3)" if tb.ford else ""), rule, bog)]
    if tb.terrain != "open" and not hst.stream:
        ov, _, obog, oname = c.cost(tb.terrain)
        why = f"{oname.lower()} in {where}, cumulative across non-stream hexside {c.n(hst.hexside)}"
        parts.append(Part(ov, why, "P4.11", obog, why))
    return parts


def entry_parts(c: Context, to: Location, tb: HexTerrain, hst: HexsideTerrain,
                protection: bool) -> list[Part] | Prohibition:
    """The COT parts of the Location entered, before SMOKE and the climb: the first of :data:`ENTRY_COSTS`
    that answers (Crest status, IN a stream, onto a bridge, else the hex's terrain)."""
    x = _Cost(c, to, tb, hst, protection)
    for rule in ENTRY_COSTS:
        parts = rule(x)
        if parts is not None:
            return parts
    raise AssertionError("no entry cost rule decided")  # the last one always decides


# ============================================================================================ the road rate


def road_rate_problem(c: Context, to: Location, tb: HexTerrain, hs: Hexside, hst: HexsideTerrain,
                      road_type: str | None, along_ns: bool) -> Prohibition | None:
    """Why this entry cannot use the road rate, or None: no road crosses the hexside (B3.4); a Narrow
    Street crossing is not taken as a road (judgment narrow_street_crossing_is_road, P5.11); IN a stream
    or to Crest status (B3.4); the road is covered by rubble (B3.43); an obstacle entered along or
    across a Narrow Street (P5.11)."""
    if road_type is None:
        return Prohibition(f"no road crosses hexside {c.n(hs)}", "B3.4")
    if hst.road is None and not c.judgment_calls.narrow_street_crossing_is_road.value:
        return Prohibition(f"crossing Narrow Street {c.n(hs)} is not a road hexside crossing", "P5.11")
    if to.place != "" or tb.is_in_stream(to.place):
        return Prohibition(f"the road rate does not take a unit IN a stream or to Crest status ({c.n(to)})", "B3.4")
    if road_negated(c.m, tb.hex):
        return Prohibition(f"the road in {c.n(tb.hex)} is covered by rubble and treated as non-existent", "B3.43")
    if (hst.narrow_street is not None or along_ns) and c.is_obstacle(tb):
        return Prohibition(f"a unit moving along/across a Narrow Street cannot enter an obstacle ({c.n(tb.hex)}) "
                           "at the road rate", "P5.11")
    return None


def choose_rate(c: Context, opts: EntryOptions, road_rate: bool | None, protection: bool) -> MoveRuling | Prohibition:
    """The road rate or the hex's COT: as the mover asks (the road rate is his option, B3.4; paying for
    protection excludes it, B3.43), or else the cheaper legal way."""
    terrain_r, road_r, road_problem, road_type = opts
    if road_rate is True:
        if road_problem is not None:
            return road_problem
        if protection:
            return Prohibition("paying for protection (B3.43) and moving at the road rate exclude each other",
                               "B3.43")
        if road_r is None:
            v, rule, _, name = c.cost("road-" + (road_type or "paved"))
            return Prohibition(f"{c.k.desc} may not use the road rate ({name.lower()}: {v})", rule)
        return road_r
    if road_rate is False or road_r is None or not road_r.allowed:
        return terrain_r
    if not terrain_r.allowed:
        return road_r
    tc = terrain_r.cost if terrain_r.cost is not None else ZERO
    rc = road_r.cost if road_r.cost is not None else ZERO
    return road_r if rc <= tc else terrain_r


# ============================================================================================ the ways of entering


#: the ways of entering a hex: at its COT, at the road rate (or None), why not at the road rate, the road type
EntryOptions = tuple[MoveRuling, "MoveRuling | None", "Prohibition | None", "str | None"]


class _Way(NamedTuple):
    """One entry as its ways of paying read it: from, to, the two hexes, the hexside crossed, the levels
    climbed, the notes and P2.54's weather flag."""

    frm: Location
    to: Location
    a: Hex
    b: Hex
    hs: Hexside
    hst: HexsideTerrain
    up: int
    notes: tuple[str, ...]
    weather: bool


def entry_notes(c: Context, hs: Hexside, hst: HexsideTerrain, weather: bool,
                declared_vertex: Vertex | None) -> tuple[str, ...]:
    """The notes an entry carries: P2.54's weather flag, and the vertex a unit crossing a Narrow Street
    roadblock's hexside declares (P5.141: crossing along the segment costs nothing extra)."""
    notes: list[str] = []
    if weather:
        notes.append(P2_54_NOTE)
    if hst.narrow_street is not None and c.m.roadblock(hs) is not None:
        side = (f"it declares vertex {c.n_vertex(declared_vertex)}" if declared_vertex is not None
                else "it must declare a vertex of that hexside")
        notes.append(f"Crossing {c.n(hs)} along the Narrow Street roadblock's segment costs nothing extra, "
                     f"but {side} to fix its side of the roadblock vs Snap Shots (P5.141).")
    return tuple(notes)


def hex_entry(c: Context, frm: Location, to: Location, *, road_rate: bool | None = None, protection: bool = False,
              along_ns: bool = False, declared_vertex: Vertex | None = None) -> MoveRuling:
    """Entering a Location of an adjacent hex: the Stream Culvert (P4.21), the same upper level of the
    same building (B23.42), or the hex's ground Location (IN the stream in a stream hex) or Crest status,
    at the hex's COT or, where B3.4 leaves it to the mover, at the road rate (:func:`choose_rate`)."""
    opts = entry_options(c, frm, to, protection, along_ns, declared_vertex)
    r = opts if isinstance(opts, (MoveRuling, Prohibition)) else choose_rate(c, opts, road_rate, protection)
    return c.na(frm, to, r) if isinstance(r, Prohibition) else r


def entry_rulings(c: Context, frm: Location, to: Location, along_ns: bool = False) -> list[MoveRuling]:
    """Every way of entering ``to`` from ``frm`` (at the hex's COT and at the road rate): the search
    weighs them itself, since which is better may depend on the allowance (an ALL cost) or on keeping
    the road bonus (B3.4)."""
    opts = entry_options(c, frm, to, False, along_ns, None)
    if isinstance(opts, Prohibition):
        return [c.na(frm, to, opts)]
    if isinstance(opts, MoveRuling):
        return [opts]
    terrain_r, road_r = opts[0], opts[1]
    return [terrain_r] if road_r is None else [terrain_r, road_r]


def entry_options(c: Context, frm: Location, to: Location, protection: bool, along_ns: bool,
                  declared_vertex: Vertex | None) -> MoveRuling | Prohibition | EntryOptions:
    """The ways of entering ``to`` from ``frm``: one ruling where there is no choice (the culvert, an
    upper building level), a Prohibition, else the ruling at the hex's COT, the ruling at the road rate
    (None where there is none), why the road rate cannot be used, and the road type of the hexside crossed
    (B3.1)."""
    m = c.m
    a, b = frm.hex, to.hex
    hs, hst = c.crossing(a, b)
    ta, tb = c.terrain(a), c.terrain(b)
    if to.place == "culvert":
        r = culvert_entry(c, frm, to, tb)
        return c.na(frm, to, r) if isinstance(r, Prohibition) else r
    no = culvert_left_only_into_stream(c, frm, to, tb, hst)
    if no is not None:
        return no
    if frm.level or to.level:
        r = building_level_entry(c, frm, to, hst, ta, tb)
        return c.na(frm, to, r) if isinstance(r, Prohibition) else r
    e = _Entry(c, b, tb, hs, hst, along_ns, frm, to, ta)
    for prohibition in rulebook(c, ENTRY_PROHIBITIONS):  # first_prohibition, inline: asked for every entry
        no = prohibition(e)
        if no is not None:
            return no
    parts = entry_parts(c, to, tb, hst, protection)
    if isinstance(parts, Prohibition):
        return parts
    weather = weather_flag(c, hst, ta, tb)
    notes = entry_notes(c, hs, hst, weather, declared_vertex)
    across_stream = tb.is_stream and tb.terrain != "open" and hst.stream and to.place in ("", "crest")
    if across_stream:
        other = c.chart.terrain[tb.terrain].name.lower()
        notes += (f"Entered across stream hexside {c.n(hs)}, the {other} of {c.n(b)} costs nothing more: "
                  "P4.11 adds it only across a non-stream hexside.",)
    way = _Way(frm, to, a, b, hs, hst, tb.level - ta.level if (hst.crest and tb.level > ta.level) else 0, notes,
               weather)
    terrain_r = _option(c, way, parts, False)
    if across_stream:
        terrain_r = replace(terrain_r, note_rules=(*terrain_r.note_rules, "P4.11"))
    road_type = road_hexside_type(hst)
    road_problem = road_rate_problem(c, to, tb, hs, hst, road_type, along_ns)
    terrain_r = _terrain_rate_notes(c, way, terrain_r, along_ns, road_problem is None and road_type is not None,
                                    protection)
    road_r: MoveRuling | None = None
    if road_problem is None and road_type is not None and not protection:
        v, rule, _, _ = c.cost("road-" + road_type)
        if isinstance(v, Fraction):
            why = f"crosses {road_type} road hexside {c.n(hs)} (road rate, not the terrain of {c.n(b)})"
            road_r = _option(c, way, [Part(v, why, rule, False, why)], True)
    road_r = road_r if road_r is None else wire_entry_note(c, to, road_r)
    return wire_entry_note(c, to, terrain_r), road_r, road_problem, road_type


def wire_entry_note(c: Context, to: Location, r: MoveRuling) -> MoveRuling:
    """B26.4: Infantry entering a Wire Location pays only its COT, and is placed on top of the Wire (a Crest
    unit is not on it, B26.1). Getting beneath costs a dr in MF, a die roll no ruling can price: a note."""
    if not r.allowed or not c.k.inf or to.place == "crest" or not c.m.has_counter(to.hex, "wire"):
        return r
    return replace(r, notes=r.notes + (
        f"{c.n(to.hex)} holds Wire: entering costs nothing beyond its COT, but the unit is placed on top of "
        "the Wire; moving beneath it costs a dr in MF (B26.4).",), note_rules=(*r.note_rules, "B26.4"))


def _terrain_rate_notes(c: Context, way: _Way, terrain_r: MoveRuling, along_ns: bool, road_open: bool,
                        protection: bool) -> MoveRuling:
    """The notes of an entry at the hex's COT: from Bypass along a Narrow Street into an obstacle, its full
    COT (the P5.11 EX step); paying for the hex's protection forgoes the road rate and bonus (B3.43)."""
    b, tb = way.b, c.terrain(way.b)
    if along_ns and terrain_r.allowed and c.is_obstacle(tb):
        terrain_r = replace(terrain_r, notes=terrain_r.notes + (
            f"From Bypass along a Narrow Street into the obstacle {c.n(b)}, the unit still pays its full COT, "
            "never the road rate (P5.11).",), note_rules=(*terrain_r.note_rules, "P5.11"))
    if road_open and protection and terrain_r.allowed:
        what = c.chart.terrain[c.ground_key(tb)].name.lower()
        terrain_r = replace(terrain_r, notes=terrain_r.notes + (
            f"Paying the {what} cost of {c.n(b)} for its protection forgoes the road rate across "
            f"{c.n(way.hs)} and the road bonus (B3.43).",),
            bonus_lost_by=(f"it pays for the protection of the {what} in {c.n(b)} (B3.43)",)
            if c.bonus_unit else (), note_rules=(*terrain_r.note_rules, "B3.43"))
    return terrain_r


def _option(c: Context, way: _Way, parts: list[Part], road: bool) -> MoveRuling:
    """One way of paying for an entry: the COT parts (the terrain's, or the road rate, B3.4), SMOKE
    (B.2), the climb (B10.4, B3.41), the hexside extras (B9.4, P3.2, B29.4, P2.51, P2.52), the
    vehicle/wreck penalty (D2.14, B3.42). At the road rate it may keep the road bonus (B3.4) and leaves
    Infantry to FFMO where the hex is not Open Ground (B3.3)."""
    frm, to, b = way.frm, way.to, way.b
    if any(isinstance(p.amount, str) for p in parts):  # only "NA" and "ALL" are str (Fraction == str is Python code)
        for p in parts:
            if p.amount == "NA":
                return c.na(frm, to, Prohibition(f"{c.k.desc} may not enter {p.what}", p.rule))
        for p in parts:
            if p.amount == "ALL":
                r = c.all_ruling(frm, to, p.what, p.rule, p.bog)
                return c.na(frm, to, r) if isinstance(r, Prohibition) else r
    items = [Item(p.amount, p.why, p.rule) for p in parts]
    bog = any(p.bog for p in parts) and c.k.pays_mp and not road
    m = c.m
    if m.smoke(b):
        items.append(smoke_item(c, b))
    if way.up:
        climb_items(c, _total(items), way.up, road, way.hs, items)
    hexside_items(c, way.a, way.hs, way.hst, items)
    items.extend(vehicle_items(c, b, road))
    lost = tuple(bonus_spoilers(c, (b,), way.hst)) if road and c.bonus_unit else ()
    keeps = road and c.bonus_unit and not lost
    ffmo = road and (c.k.inf or c.k.cav) and not c.open_ground(c.terrain(b))
    notes = way.notes + ("The vehicle must make a Bog check (D8.21).",) if bog else way.notes
    return c.ok(frm, to, items, road=road, ffmo=ffmo, keeps=keeps, bog=bog, weather=way.weather, notes=notes,
                bonus_lost=lost)
