"""What every movement rule reads: a small frozen context (the map, the chart's movement parameters as they
apply to the unit and the conditions, the unit, the allowance and the flags of the move), and the ruling
values a rule gives back (:class:`Prohibition`, and the allowed and forbidden :class:`MoveRuling`).

A rule is a function of a :class:`Context` (and the few things it looks at), never a method of a rules
object: the context holds no rules, only what they read and the look-ups they share (names, the chart's
cost for this unit's column).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from ..chart import Chart, Judgments
from ..chart import Params as ChartParams
from ..grid import Hex, Hexside, Vertex
from ..model import Conditions, HexsideTerrain, HexTerrain, Location, Map, material_key, seasonal_terrain
from ..rulings import Item, fmt
from ..units import Unit
from .rulings import ZERO, MoveRuling, Prohibition, _total

_DESC = {
    "infantry": "Infantry", "cavalry": "Cavalry", "wagon": "a Wagon", "fully-tracked": "a fully-tracked vehicle",
    "half-track": "a half-track", "armored-car": "an armored car", "truck": "a truck", "motorcycle": "a motorcycle",
}


@dataclass(frozen=True, slots=True)
class Kind:
    """The unit as the movement rules tell units apart: its chart column, the units it pays (MF or MP) and
    whether it is Infantry, Cavalry, a Wagon, or moves in Bypass by VBM (vehicles and Wagons, D2.3)."""

    cls: str
    desc: str
    units: str
    pays_mp: bool
    inf: bool
    cav: bool
    wagon: bool
    vbm: bool

    @classmethod
    def of(cls, unit: Unit) -> Kind:
        """The kind of ``unit``."""
        wagon = unit.type == "wagon"
        return cls(unit.chart_class, _DESC.get(unit.chart_class, unit.chart_class), unit.units, unit.pays_mp,
                   unit.type == "infantry", unit.type == "cavalry", wagon, unit.pays_mp or wagon)


def _bonus_spoiled_by(chart: Chart, unit: Unit, weather: str) -> str | None:
    """Why ``unit`` can never earn the B3.4 road bonus in ``weather`` (None when it can)."""
    parameters = chart.parameters
    if unit.type not in parameters.road_bonus_units.value:
        return "only Infantry, Cavalry and horse-drawn units get the road bonus"
    if unit.pushing_gun:
        return "no road bonus while pushing a Gun (C10.3)"
    if weather in parameters.road_bonus_lost_weather.value:
        return f"no road bonus in {weather.replace('-', ' ')} (B3.4)"
    return None


@dataclass(frozen=True, slots=True, eq=False)
class Context:
    """What the movement rules read for one unit on one map: the map, the chart and its typed entries
    (``chart.parameters``, ``chart.judgment_calls``: the chart's one declaration of them), what those come to
    for this unit, the conditions, the unit and its :class:`Kind`, the allowance (for ALL costs) and
    whether the move is a Dash or a rout. Frozen; the dictionaries are caches of look-ups, never rules."""

    m: Map
    chart: Chart
    cond: Conditions
    unit: Unit
    k: Kind
    #: the chart's entries, typed (one declaration: chart.Params and chart.Judgments); each carries its rule
    parameters: ChartParams
    judgment_calls: Judgments
    allowance: Fraction
    dash: bool
    rout: bool
    #: whether the map has any Narrow Street at all (most have none: the search then skips their checks)
    has_ns: bool
    #: VBM per hexside (D2.3): twice the Open Ground cost (None: this unit may not use VBM)
    vbm_full: Fraction | None
    #: half that along a Narrow Street (P5.11)
    vbm_half: Fraction
    #: what the chart's entries come to for this unit under these conditions:
    #: param.up_slope_mp for a unit that pays MP, else param.up_slope_mf (P2.51)
    up_slope: Fraction
    #: param.stream_woods_crest_mf and its kin, by the terrain of the stream hex (P4.12)
    stream_crest_mf: dict[str, Fraction]
    #: grain is in season under the conditions (B15.3, Conditions.grain_in_season)
    grain_in_season: bool
    #: the conditions' weather is one of param.elevation_change_weather (P2.54)
    elevation_change_weather: bool
    #: Infantry and Cavalry pay COT x2 going up; Wagons, which pay MF too, by judgment.wagon_cot_doubled_up
    doubles_cot: bool
    #: why this unit can never earn the B3.4 road bonus (None when it can)
    bonus_spoiled_by: str | None
    #: whether this unit can earn the B3.4 road bonus at all (``bonus_spoiled_by`` is None)
    bonus_unit: bool
    _names: dict[object, str] = field(default_factory=dict)
    _costs: dict[str, tuple[Any, str, bool, str]] = field(default_factory=dict)
    #: False for the search's deciding twin (:meth:`deciding`): it names nothing (every name is "")
    naming: bool = True
    #: each rule tuple's rules that can answer in this context (:func:`.common.rulebook`)
    _rulebooks: dict[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict)
    #: whether the map holds a counter of each type asked about (:meth:`has_counters`)
    _counter_types: dict[str, bool] = field(default_factory=dict)
    #: the map's terrain and rubble by hex and hexsides crossed by pair of hexes, kept by plain coordinates
    #: (:meth:`terrain`, :meth:`is_rubble`, :meth:`crossing`; shared with the :meth:`deciding` twin)
    _terrain: dict[tuple[int, int], HexTerrain] = field(default_factory=dict)
    _crossings: dict[tuple[int, int, int, int], tuple[Hexside, HexsideTerrain]] = field(default_factory=dict)
    _rubble: dict[tuple[int, int], bool] = field(default_factory=dict)

    @classmethod
    def of(cls, m: Map, chart: Chart, cond: Conditions, unit: Unit, allowance: Fraction, dash: bool,
           rout: bool) -> Context:
        """The context of ``unit`` moving on ``m``."""
        written = getattr(m, "_written_hexsides", None)
        has_ns = True if written is None else any(t.narrow_street is not None for t in written.values())
        parameters, judgment_calls = chart.parameters, chart.judgment_calls
        crest = {"woods": parameters.stream_woods_crest_mf, "pine-woods": parameters.stream_pine_woods_crest_mf,
                 "brush": parameters.stream_brush_crest_mf, "orchard": parameters.stream_orchard_crest_mf}
        spoiled = _bonus_spoiled_by(chart, unit, cond.weather)
        up_slope = parameters.up_slope_mp if unit.pays_mp else parameters.up_slope_mf
        c = cls(m, chart, cond, unit, Kind.of(unit), parameters, judgment_calls, allowance, dash, rout, has_ns,
                vbm_full=None, vbm_half=ZERO, up_slope=up_slope.value,
                stream_crest_mf={k: v.value for k, v in crest.items()}, grain_in_season=cond.grain_in_season(chart),
                elevation_change_weather=cond.weather in parameters.elevation_change_weather.value,
                doubles_cot=not unit.pays_mp and (unit.type != "wagon" or judgment_calls.wagon_cot_doubled_up.value),
                bonus_spoiled_by=spoiled, bonus_unit=spoiled is None)
        og = c.cost("open")[0]
        if isinstance(og, Fraction):
            full = og * parameters.vbm_factor.value
            object.__setattr__(c, "vbm_full", full)
            object.__setattr__(c, "vbm_half", full * parameters.narrow_street_vbm_factor.value)
        return c

    @property
    def vbm_full_text(self) -> str:
        """The VBM cost per hexside, as a player writes it."""
        return fmt(self.vbm_full) if self.vbm_full is not None else ""

    def deciding(self) -> Context:
        """The same context naming nothing: the search weighs a move by its numbers (allowed, cost, road
        bonus, ALL, destination) and rules the moves it returns again with names (:mod:`.graph`), so the
        names of the tens of thousands of moves it weighs are never made."""
        return replace(self, naming=False, _names={})

    # ------------------------------------------------------------------ names
    def n(self, x: Hex | Hexside | Location) -> str:
        """The canonical name of a hex, hexside or Location, with the map's prefix (cached); "" in the
        :meth:`deciding` twin."""
        if not self.naming:
            return ""
        got = self._names.get(x)
        if got is None:
            got = x.text(self.m.names) if isinstance(x, Location) else self.m.name_of(x)
            self._names[x] = got
        return got

    def n_vertex(self, v: Vertex | None) -> str:
        """The canonical name of a vertex, with the map's prefix (cached)."""
        if v is None or not self.naming:
            return ""
        got = self._names.get(v)
        if got is None:
            got = self.m.names.vertex(v)
            self._names[v] = got
        return got

    # ------------------------------------------------------------------ chart look-ups
    def cost(self, key: str) -> tuple[Any, str, bool, str]:
        """(value, rule, bog, name) of a terrain or hexside entry of the chart for this unit's column: a
        Fraction, "ALL" or "NA"; the buttoned-up column where the chart has one (B3.41 EXC, D5.2); an entry
        missing from the chart is NA."""
        c = self._costs.get(key)
        if c is not None:
            return c
        e = self.chart.terrain.get(key) or self.chart.hexside.get(key)
        base = key.rsplit("-", 1)[0] if key.endswith("-wooden") else None
        if e is None and base:
            e = self.chart.terrain.get(base)
        if e is None:
            c = ("NA", "B", False, key)
        else:
            pays_mp = self.k.pays_mp
            g = None
            if pays_mp and self.unit.buttoned_up and e.mp_buttoned_up is not None:
                g = e.mp_buttoned_up
            if g is None:
                g = e.mp if pays_mp else e.mf
            if g is None and base:
                be = self.chart.terrain.get(base)
                if be is not None:
                    g = be.mp if pays_mp else be.mf
            if g is None:
                c = ("NA", "B", False, e.name)
            else:
                v = g.get(self.k.cls, "NA")
                c = (v, g.rule, bool(g.get("bog", False)), e.name)
        self._costs[key] = c
        return c

    def has_counters(self, kind: str) -> bool:
        """Whether the map holds any counter of type ``kind`` (cached)."""
        got = self._counter_types.get(kind)
        if got is None:
            got = self._counter_types[kind] = any(x.type == kind for x in self.m.counters)
        return got

    # ------------------------------------------------------------------ map look-ups
    def terrain(self, h: Hex) -> HexTerrain:
        """The map's terrain of hex ``h`` (:meth:`Map.terrain`), kept by its coordinates: a search asks tens of
        thousands of times, and a Hex's own hash and equality are Python code."""
        k = (h.col, h.row)
        got = self._terrain.get(k)
        if got is None:
            got = self._terrain[k] = self.m.terrain(h)
        return got

    def is_rubble(self, h: Hex) -> bool:
        """Whether rubble is in ``h`` (:meth:`Map.is_rubble`: rubble terrain or a Rubble counter), kept by its
        coordinates."""
        k = (h.col, h.row)
        got = self._rubble.get(k)
        if got is None:
            got = self._rubble[k] = self.m.is_rubble(h)
        return got

    def crossing(self, a: Hex, b: Hex) -> tuple[Hexside, HexsideTerrain]:
        """The hexside between adjacent hexes ``a`` and ``b`` and what lies on it (:meth:`Map.hexside`), kept
        by their coordinates. :raises NotAdjacent: when they are not adjacent."""
        k = (a.col, a.row, b.col, b.row)
        got = self._crossings.get(k)
        if got is None:
            hs = a.hexside(a.direction_to(b))
            got = self._crossings[k] = (hs, self.m.hexside(hs))
        return got

    def is_obstacle(self, t: HexTerrain) -> bool:
        """An obstacle for P5.11's road-rate restriction: woods, pine woods, buildings (LOS obstacles)."""
        e = self.chart.terrain.get(t.terrain)
        return e is not None and e.los is not None and e.los.get("role") == "obstacle"

    def ground_key(self, t: HexTerrain) -> str:
        """The chart entry that prices entering the hex's ground Location: rubble (terrain or counter)
        as stone or wooden rubble (B24.4), grain out of season as Open Ground (B15.4)."""
        if self.is_rubble(t.hex):
            return material_key("rubble", t.building)
        return seasonal_terrain(t.terrain, self.grain_in_season)

    def open_ground(self, t: HexTerrain) -> bool:
        """Whether the hex's other terrain is Open Ground, so a road-rate entry changes nothing for FFMO
        (B3.3)."""
        e = self.chart.terrain.get(self.ground_key(t))
        return bool(e is not None and e.tem is not None and e.tem.get("open_ground", False))

    # ------------------------------------------------------------------ ruling builders
    def na(self, frm: Location, to: Location, no: Prohibition, bypass: Hexside | None = None) -> MoveRuling:
        """A ruling that the rules forbid the move (the prohibition says why, and by which rule)."""
        return MoveRuling(False, None, self.k.units, (), frm, to, no.reason, no.rule, bypass=bypass,
                          prefix=self.m.names)

    def ok(self, frm: Location, to: Location, items: list[Item], *, road: bool = False, ffmo: bool = False,
           keeps: bool = False, bypass: Hexside | None = None, all_mf: bool = False, bog: bool = False,
           weather: bool = False, notes: tuple[str, ...] = (), bonus_lost: tuple[str, ...] = ()) -> MoveRuling:
        """An allowed move whose cost is the sum of its items; it keeps the road bonus only for a unit that
        can earn it (B3.4); ``bonus_lost`` names what spoils it."""
        return MoveRuling(True, _total(items), self.k.units, tuple(items), frm, to, None, None, road, ffmo,
                          keeps and self.bonus_unit, bypass, all_mf, bog, weather, notes, self.m.names,
                          bonus_lost)

    def all_ruling(self, frm: Location, to: Location, what: str, rule: str, bog: bool,
                   bypass: Hexside | None = None) -> MoveRuling | Prohibition:
        """A move that takes ALL the unit's MF/MP (woods for vehicles, B13.41; marsh, B16.4): its cost is
        the allowance, and a vehicle then checks for Bog (D8.21)."""
        units = self.k.units
        if self.allowance.numerator <= 0:  # (a Fraction compared with an int is Python code)
            return Prohibition(f"entering {what} takes ALL of a unit's {units}, and it has none", rule)
        item = Item(self.allowance, f"ALL its {units} to enter {what}", rule)
        notes = ("The vehicle must then make a Bog check (D8.21).",) if bog and self.k.pays_mp else ()
        return self.ok(frm, to, [item], all_mf=True, bog=bog, bypass=bypass, notes=notes)
