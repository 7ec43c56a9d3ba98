"""The movement rules for one unit on one map: every entry, level change and Bypass rule, and the search's
tables (the allowed moves out of each Location)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any, NamedTuple

from ..chart import Chart
from ..errors import NotAdjacent, QueryError
from ..grid import Hex, Hexside, Vertex
from ..model import Conditions, HexsideTerrain, HexTerrain, Location, Map
from ..rulings import Item, fmt
from ..units import Unit
from .rulings import ZERO, MoveRuling, _total
from .terrain import (
    _beyond_grid,
    _ends,
    _hex_vertices,
    _hexsides_at,
    _in_vca_obstacle,
    _other_end,
    bypass_hex,
    bypass_ns,
    crest_status_problem,
    culvert_entry_problem,
    narrow_street_bypass_blocked,
    narrow_street_smoke,
    road_bonus_spoilers,
    road_hexside_type,
    road_negated,
)

#: Dijkstra works on integer costs: every cost times this (halves and quarters, and more, are exact)
_SCALE = 5040

_DESC = {
    "infantry": "Infantry", "cavalry": "Cavalry", "wagon": "a Wagon", "fully-tracked": "a fully-tracked vehicle",
    "half-track": "a half-track", "armored-car": "an armored car", "truck": "a truck", "motorcycle": "a motorcycle",
}



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


def _what(why: str) -> str:
    """The thing entered, from a COT item's text ("COT: enters woods N17" -> "woods N17")."""
    return why.removeprefix("COT: enters ").removeprefix("COT: ")



def _restamp(r: MoveRuling, frm: Location) -> MoveRuling:
    """The same ruling, made from ``frm``: the search shares one ruling among the Bypass positions of a hex
    whose move does not depend on which of them the unit is at."""
    if r.frm is frm:
        return r
    return replace(r, frm=frm)



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
        if self.pays_mp and hst.road is None:
            for t, loc, way in ((tb, to, "onto"), (ta, frm, "off")):
                if t.bridge is not None and t.is_stream and loc.place == "" and not loc.level:
                    # B6.1: a bridge vehicles use connects to the road it extends, and only there
                    raise _NA(f"a vehicle drives {way} the {t.bridge} bridge in {self.n(t.hex)} only across its road "
                              f"hexsides, not across {self.n(hs)}", "B6.1")
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
            road_in = road_hexside_type(hst_x) is not None or (frm.is_bypass and bypass_ns(frm, self.m))
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
                              along_ns=bypass_ns(frm, self.m), declared_vertex=declared_vertex)
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
        ns = bypass_ns(node, m)
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
