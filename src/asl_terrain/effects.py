"""Effects: the TEM and DRM of an attack, and the other P4/P5 rulings about what reaches a unit.

Decides B3.3 (a road hex's TEM; Interdiction/FFMO for a unit that entered at the road rate; the wider
target points of A4.132), P2.41 (slope TEM), P2.42 (Fire Lane slope DRM), P4.13 (TEM IN a stream-woods/
brush/orchard hex, Air Burst), P4.23 (end-of-Player-Turn checks IN a Stream Culvert), P4.24 (attacks vs a
Stream Culvert; Sniper targets), P5.121/P5.122 (TCA on a Narrow Street), P5.124/P5.125 (towing, (un)loading
in Bypass), P5.126/P5.131/P5.142 (what blocks Bypass and what SMOKE, Residual FP and mines reach a unit in
Bypass along a Narrow Street hexside), P5.132 (Street Fighting CC), P5.141/P5.1411 (Narrow Street roadblock
TEM and removal), P5.15 (placing Rubble), P5.2 / B24.11 (rubble determination drm in a Steeple), and the
A4.6 FFMO/FFNAM DRM, B10.31 Height Advantage and the A.5 Fire Group choice they need, with the base-rule TEM
they rest on: terrain (B13.3 Air Burst, B23.3 with +1 per building level above the target vs Indirect Fire),
entrenchments (B27.1), walls, hedges and roadblocks for a target holding Wall Advantage (B9.3, B9.32, B29.3),
and Crest status (B20.91, a [U] chart value).

Every number comes from the terrain chart (``param`` and ``judgment`` entries name their rule and tag).
Rulings are values: what the rules forbid is a ruling (``affected=False``, ``allowed=False``) with its
reason, and a question that cannot be answered raises a :class:`~asl_terrain.errors.QueryError`.

Imports: los, chart, errors, grid, model, rulings, units. Never setup, movement, ask, cli or render.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

from .chart import Chart, default_chart
from .errors import QueryError
from .grid import Hex, Hexside, Point, Trace, Vertex, example_vertex, trace
from .los import LosRuling, hexsides_entered, location_elevation, location_point, los
from .model import Conditions, Counter, Location, Map, narrow_street_bypass_blockers
from .rulings import Explained, Item, Ruling, distinct, fmt, num, total
from .setup import mines_must_be_revealed
from .units import Unit

__all__ = [
    "ATTACKS",
    "BypassEffects",
    "EndOfPlayerTurn",
    "RemovalRuling",
    "RubbleDrm",
    "RubblePlacement",
    "SniperTarget",
    "StreetFighting",
    "TcaChange",
    "TemRuling",
    "TransferRuling",
    "apply_rubble",
    "bypass_effects",
    "can_load",
    "can_remove",
    "can_unhook",
    "can_unload",
    "down_slope_hexsides",
    "is_ground_level",
    "end_of_player_turn",
    "fire_lane_slope_drm",
    "has_slope_tem_hexsides",
    "narrow_street_of",
    "non_stopped_allowed",
    "place_rubble",
    "rubble_drm",
    "slope_tem_applies",
    "sniper_target",
    "street_fighting",
    "tca_change",
    "tem",
]

#: the attack types queries.md knows
ATTACKS = ("small-arms", "ordnance", "ft", "indirect", "air-burst", "fire-lane", "aerial", "residual-fp")
#: attacks that need no firer (queries.md: ``firer`` may be left out)
NO_FIRER = ("indirect", "aerial", "residual-fp")
#: Direct Fire attacks that may claim slope TEM (P2.41: Direct Fire except FT)
_SLOPE_TEM_ATTACKS = ("small-arms", "ordnance", "fire-lane", "air-burst")
#: attacks vs which a unit in terrain whose chart TEM has an ``air_burst`` value (woods, pine woods, and
#: stream-woods, P4.13) takes Air Burst instead of the terrain's TEM (B13.3)
_AIR_BURST_ATTACKS = ("indirect", "air-burst")
#: Indirect Fire in the rules' sense: neither reaches a unit IN a Stream Culvert (P4.24)
_INDIRECT_ATTACKS = ("indirect", "air-burst")
MovedBy = Literal["road-rate", "non-road"] | None


# ============================================================================================ small helpers


def _json(kind: str, values: dict[str, Any], items: Sequence[Item], rules: Iterable[str],
          sentences: Sequence[str], item_key: str = "amount") -> dict[str, Any]:
    """The queries.md answer of a ruling: its values, then ``rules`` and ``explain`` (rulings.Ruling)."""
    return Ruling(kind, values, tuple(items), tuple(rules), tuple(sentences), item_key).to_json()


def is_ground_level(m: Map, loc: Location) -> bool:
    """``loc`` is a ground-level Location: the hex's base Location, not a building level, a Rooftop, a
    culvert or a Bypass position, and not IN a stream (where Crest status is the ground level), as P5
    uses the term ("the two ground-level Locations common to a Narrow Street hexside"; digest §1.5)."""
    if loc.is_bypass or loc.level:
        return False
    if loc.place == "crest":
        return True
    return loc.place == "" and not m.terrain(loc.hex).is_in_stream(loc.place)


def narrow_street_of(m: Map, loc: Location) -> Hexside | None:
    """The Narrow Street hexside a Bypass position ``loc`` is along (P5.11), or None.

    ``N17@N17-O17`` names it; ``N17@N17-O17-O18`` names a vertex, which gives the hexside when exactly one
    Narrow Street hexside of N17 ends at that vertex.
    """
    if loc.bypass is not None:
        return loc.bypass if m.hexside(loc.bypass).narrow_street is not None else None
    if loc.vertex is not None:
        found = [hs for hs in loc.vertex.hexsides()
                 if loc.hex in hs.hexes and m.hexside(hs).narrow_street is not None]
        return found[0] if len(found) == 1 else None
    return None


def _check_narrow_street(m: Map, hs: Hexside, key: str = "hexside") -> None:
    """:raises QueryError: naming ``key`` when ``hs`` is not a Narrow Street hexside (P5.1: a road depiction
    overprinting the hexside), as queries.md asks of ``bypass-effects``."""
    if m.hexside(hs).narrow_street is None:
        raise QueryError(f"{key}: {m.name_of(hs)} is not a Narrow Street hexside (P5.1); expected a hexside a "
                         "road depiction overprints")


# ============================================================================================ TEM


def _attack_items(tem_items: tuple[Item, ...], hindrance_items: tuple[Item, ...], drm_items: tuple[Item, ...],
                  ffmo: Item | None, ffnam: Item | None) -> tuple[Item, ...]:
    """Every TEM and DRM item of an attack in order: TEM, hindrance, other DRM, FFMO, FFNAM (A4.6). They add
    up to queries.md's total_drm = tem + hindrance_drm + drm - ffmo - ffnam (FFMO and FFNAM are -1 items)."""
    return (*tem_items, *hindrance_items, *drm_items, *(i for i in (ffmo, ffnam) if i is not None))


@dataclass(frozen=True, slots=True)
class _Member:
    """What one firer's attack gets (before the Fire Group choice)."""

    firer: Location | None
    affected: bool
    reason: str | None
    tem_items: tuple[Item, ...] = ()
    hindrance_items: tuple[Item, ...] = ()
    drm_items: tuple[Item, ...] = ()
    ffmo_item: Item | None = None
    ffnam_item: Item | None = None
    open_ground: bool = False
    range: int | None = None
    rule_refs: tuple[str, ...] = ()
    sentences: tuple[str, ...] = ()

    @property
    def items(self) -> tuple[Item, ...]:
        return _attack_items(self.tem_items, self.hindrance_items, self.drm_items, self.ffmo_item, self.ffnam_item)

    @property
    def total_drm(self) -> Fraction:
        return total(self.items)


@dataclass(frozen=True, slots=True)
class TemRuling:
    """The terrain effects on one attack (queries.md ``tem``).

    ``items`` are every TEM and DRM that applied; they add up to ``total_drm`` (tem + hindrance_drm + drm
    - ffmo - ffnam, with FFMO/FFNAM as -1 items). ``members`` holds each firer's own ruling for a Fire
    Group; the one most favourable to the target is the answer (A.5).
    """

    target: str
    attack: str
    affected: bool
    reason: str | None
    tem_items: tuple[Item, ...]
    hindrance_items: tuple[Item, ...]
    drm_items: tuple[Item, ...]
    ffmo_item: Item | None
    ffnam_item: Item | None
    open_ground: bool
    firers: tuple[str, ...]
    chosen: str | None
    range: int | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]
    members: tuple[dict[str, Any], ...] = ()

    @property
    def items(self) -> tuple[Item, ...]:
        return _attack_items(self.tem_items, self.hindrance_items, self.drm_items, self.ffmo_item, self.ffnam_item)

    @property
    def tem(self) -> Fraction:
        return total(self.tem_items)

    @property
    def hindrance_drm(self) -> Fraction:
        return total(self.hindrance_items)

    @property
    def drm(self) -> Fraction:
        return total(self.drm_items)

    @property
    def ffmo(self) -> bool:
        return self.ffmo_item is not None

    @property
    def ffnam(self) -> bool:
        return self.ffnam_item is not None

    @property
    def total_drm(self) -> Fraction:
        return total(self.items)

    def rules(self) -> tuple[str, ...]:
        return distinct([*(i.rule for i in self.items), *self.rule_refs])

    def explain(self) -> str:
        parts = list(self.sentences)
        if self.affected:
            if self.items:
                shown = (f"{'+' if i.amount > 0 else ''}{fmt(i.amount)} {i.why} ({i.rule})" for i in self.items)
                parts.append("Applied: " + "; ".join(shown) + ".")
            parts.append(f"TEM {fmt(self.tem)}, hindrance {fmt(self.hindrance_drm)}, other DRM {fmt(self.drm)}"
                         f"{', FFMO -1' if self.ffmo else ''}{', FFNAM -1' if self.ffnam else ''}: "
                         f"total DRM {fmt(self.total_drm)}.")
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            "target": self.target, "attack": self.attack, "firers": list(self.firers), "affected": self.affected,
            "tem": num(self.tem), "items": [i.to_json("amount") for i in self.items],
            "hindrance_drm": num(self.hindrance_drm), "ffmo": self.ffmo, "ffnam": self.ffnam,
            "drm": num(self.drm), "total_drm": num(self.total_drm), "open_ground": self.open_ground,
            "range": self.range,
        }
        if self.reason is not None:
            values["reason"] = self.reason
        if self.chosen is not None and len(self.firers) > 1:
            values["fire_group_los"] = self.chosen
        if self.members:
            values["members"] = list(self.members)
        return _json("tem", values, (), self.rules(), [self.explain()])


def down_slope_hexsides(m: Map, h: Hex) -> tuple[Hexside, ...]:
    """The hexsides of ``h`` it is Down-Slope across (hash marks in ``h``, P2.2), in direction order."""
    return tuple(t.hexside for t in m.hexsides_of(h) if t.down_slope(h))


def has_slope_tem_hexsides(m: Map, h: Hex) -> bool:
    """``h`` has at least three Down-Slope hexsides, or two that are not contiguous (P2.41).

    Two hexsides are contiguous when they share a vertex, i.e. they are next to each other around the hex
    (digest §7.8).
    """
    dirs = [k for k, t in enumerate(m.hexsides_of(h)) if t.down_slope(h)]
    if len(dirs) >= 3:
        return True
    if len(dirs) == 2:
        d = (dirs[1] - dirs[0]) % 6
        return d not in (1, 5)
    return False


def slope_tem_applies(m: Map, target: Location, firer: Location, attack: str, unit: Unit,
                      thread: Trace, chart: Chart | None = None) -> tuple[bool, str]:
    """Whether ground-level Infantry may claim the +1 slope TEM vs this Direct Fire attack (P2.41), and why.

    All must hold: the target is ground-level Infantry; its hex has three Down-Slope hexsides (or two that
    are not contiguous); the attack is Direct Fire but not FT; the firer is not adjacent; the firer's
    elevation advantage over the target (if any) is less than the range; the firer's LOS crosses one of
    the target hex's Down-Slope hexsides (an end vertex counts, P2.1).

    Notes
    -----
    The elevation advantage compares the Locations' own elevations, without the Up-Slope ¾ (digest §7.7,
    [U]); which hexsides the thread crosses as it enters the target hex comes from
    :func:`asl_terrain.los.hexsides_entered` (end vertices included, lengthwise runs excluded, §7.2).
    """
    chart = chart or default_chart()
    h = target.hex
    if attack not in _SLOPE_TEM_ATTACKS:
        return False, ("slope TEM applies vs Direct Fire only, never vs FT" if attack == "ft"
                       else f"slope TEM applies vs Direct Fire only, not vs {attack}")
    if not unit.is_infantry:
        return False, "slope TEM is for Infantry only"
    if target.level or target.place or m.terrain(h).is_stream:
        return False, f"{m.name_of(target)} is not a ground-level Location"
    downs = down_slope_hexsides(m, h)
    if not has_slope_tem_hexsides(m, h):
        return False, (f"{m.name_of(h)} has {len(downs)} Down-Slope hexside(s)"
                       f"{' (contiguous)' if len(downs) == 2 else ''}; it needs three, or two non-contiguous")
    rng = firer.hex.distance(h)
    if rng <= 1:
        return False, "the firer is adjacent (or in the same hex)"
    adv = location_elevation(m, firer) - location_elevation(m, target)
    if adv >= rng:
        return False, f"the firer's elevation advantage ({fmt(adv)}) is not less than the range ({rng})"
    entered = hexsides_entered(m, thread, h)
    crossed = [hs for hs in downs if hs in entered]
    if not crossed:
        return False, (f"the LOS does not cross a Down-Slope hexside of {m.name_of(h)} "
                       f"({_names(m, downs)}); it enters across {_names(m, sorted(entered)) or 'none'}")
    return True, f"the LOS crosses Down-Slope hexside {_names(m, crossed)} of {m.name_of(h)}"


def fire_lane_slope_drm(m: Map, firer: Location, target: Location, chart: Chart | None = None,
                        conditions: Conditions | None = None) -> tuple[bool, str]:
    """Whether a Fire Lane gets the +1 slope DRM vs Infantry in ``target`` (P2.42), and why: the firer is
    Up-Slope from the target on its LOS to it, ¾ level higher, and not adjacent.

    Notes
    -----
    "Up-Slope from" is relative (``judgment.up_slope_relative``, digest §7.3(ii)/§7.9, [U]): the firer
    gets the +¾ on that LOS and the target does not, so both stand on one Base Level.
    """
    chart = chart or default_chart()
    r = los(m, firer, target, chart=chart, conditions=conditions)
    name = m.name_of(target)
    if not r.clear:
        return False, f"no LOS to {name}"
    if firer.hex.distance(target.hex) <= 1:
        return False, f"{name} is adjacent to the firer"
    up_from, up_to = r.up_slope
    if not up_from:
        return False, f"the firer is not Up-Slope on its LOS to {name}"
    if up_to and chart.judgment("up_slope_relative").value:
        return False, f"{name} is Up-Slope on that LOS too, so the firer is not Up-Slope from it"
    rise = chart.param("up_slope_height").value
    diff = (location_elevation(m, firer) + rise) - (location_elevation(m, target) + (rise if up_to else 0))
    if diff != rise:
        return False, f"the firer is {fmt(diff)} level(s) above {name}, not ¾"
    return True, f"the firer is Up-Slope from {name}, ¾ level higher and not adjacent"


def _tem_column(attack: str, chart: Chart) -> str:
    """The chart TEM column an attack reads: ``indirect`` for Indirect Fire and Air Bursts (B13.3, B23.3) and,
    by ``judgment.aerial_uses_indirect_tem`` (E7.4, [U]), Aerial attacks; ``direct`` otherwise."""
    if attack in ("indirect", "air-burst"):
        return "indirect"
    if attack == "aerial":
        return "indirect" if chart.judgment("aerial_uses_indirect_tem").value else "direct"
    return "direct"


def _hex_is_open_ground(m: Map, h: Hex, chart: Chart, cond: Conditions) -> bool:
    """Open Ground for B3.3's "other non-Open Ground terrain": the chart's open_ground flag of the hex's
    terrain (grain out of season is Open Ground, B15.3)."""
    t = m.terrain(h)
    if t.terrain == "grain" and not cond.grain_in_season(chart):
        return True
    entry = chart.entry(t.chart_key)
    return bool(entry.tem.get("open_ground", True)) if entry.tem is not None else True


@dataclass
class _Cover:
    """The target's own TEM for one attack, before the non-cumulative choice."""

    items: list[Item] = field(default_factory=list)       # the hex's own TEM (may be 0 or negative)
    open_ground: bool = True
    sentences: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)


def _location_tem(m: Map, target: Location, attack: str, thread: Trace | None, firer: Location | None,
                  chart: Chart, conditions: Conditions, entrenched: bool, snap_shot: Hexside | None,
                  unit: Unit) -> _Cover:
    """The TEM the target's Location gives vs this attack (B3.2, B13.3, B20.3, B23.3, P4.2, P4.13, A4.34,
    A9.221)."""
    c = _Cover()
    h = target.hex
    t = m.terrain(h)
    name = m.name_of(target.base())
    if snap_shot is not None and chart.judgment("snap_shot_open_ground").value:
        j = chart.judgment("snap_shot_open_ground")
        c.sentences.append(f"A Snap Shot hits the unit on hexside {m.name_of(snap_shot)}: neither hex's TEM "
                           f"applies ({j.rule}; judgment snap_shot_open_ground [{j.tag}]).")
        c.rules.append(j.rule)
        return c
    if target.place == "culvert":
        e = chart.entry("culvert")
        assert e.tem is not None
        c.sentences.append(f"A unit IN the Stream Culvert of {m.name_of(h)} is in Open Ground ({e.tem.rule}); "
                           "no attack can affect the culvert itself (P4.24).")
        c.rules.append(e.tem.rule)
        return c
    if target.place == "rooftop":
        p = chart.param("rooftop_tem")
        if p.value:
            c.items.append(Item(p.value, f"Rooftop Location {name}", p.rule))
        c.sentences.append(f"{name} is a Rooftop Location, taken as Open Ground ({p.rule}, [{p.tag}]).")
        c.rules.append(p.rule)
        return c
    if target.is_bypass and t.terrain in chart.param("bypass_terrain").value:
        j = chart.judgment("bypass_tem_through_obstacle")
        through = thread is not None and any(s.hex == h for s in thread.spans)
        if not (through and j.value):
            c.sentences.append(f"The unit in Bypass in {m.name_of(h)} is outside its {t.terrain}: Open Ground "
                               f"unless the LOS to it passes through the obstacle ({j.rule}).")
            c.rules.append(j.rule)
            return c
        c.sentences.append(f"The LOS to the unit in Bypass passes through the {t.terrain} of {m.name_of(h)}, "
                           f"so it takes that TEM ({j.rule}).")
    if t.is_stream and t.bridge is not None and target.place == "" and not target.level:
        return bridge_tem(m, target, chart, c)
    if t.is_stream:
        return _stream_tem(m, target, attack, thread, firer, chart, conditions, c, entrenched, unit)
    _terrain_tem(m, target, attack, chart, conditions, c, entrenched)
    return c


def bridge_tem(m: Map, target: Location, chart: Chart, c: _Cover) -> _Cover:
    """B6: a unit on a bridge (the base Location of a bridge hex) is in Open Ground on its deck, whatever
    the stream below (chart ``[terrain.bridge]``)."""
    e = chart.entry("bridge")
    assert e.tem is not None
    c.sentences.append(f"A unit on the {m.terrain(target.hex).bridge} bridge in {m.name_of(target.hex)} is in "
                       f"Open Ground ({e.tem.rule}).")
    c.rules.append(e.tem.rule)
    return c


def _terrain_tem(m: Map, target: Location, attack: str, chart: Chart, conditions: Conditions, c: _Cover,
                 entrenched: bool, rule: str | None = None) -> None:
    """Add the TEM of the terrain of ``target``'s hex vs this attack to ``c``: the chart's Direct or Indirect
    Fire value (B13.3 woods, B23.3 buildings, B12.3 brush, B14.3 orchard, B15.3 grain out of season is Open
    Ground ...), Air Burst instead of the TEM vs Indirect Fire in terrain that has one (B13.3), and +1 per
    building Location above the target's vs Indirect Fire (the chart note on building TEM). ``rule`` names
    the item's rule instead of the chart's (P4.13 for stream-woods/brush/orchard)."""
    h = target.hex
    t = m.terrain(h)
    name = m.name_of(target.base())
    col = _tem_column(attack, chart)
    key = m.terrain(h).chart_key
    if key == "grain" and not conditions.grain_in_season(chart):
        key = "open"
        c.sentences.append(f"Grain in {m.name_of(h)} is out of season: Open Ground (B15.3).")
    e = chart.entry(key)
    if e.tem is None:
        return
    air_burst = e.tem.get("air_burst")
    if air_burst is not None and attack in _AIR_BURST_ATTACKS and not entrenched:
        c.items.append(Item(Fraction(air_burst), f"Air Burst in the {e.name.lower()} of {m.name_of(h)} "
                                                 f"(instead of its TEM)", rule or e.tem.rule))
        c.open_ground = False
        return
    amount = Fraction(e.tem.get(col, e.tem.get("direct", 0)))
    og = bool(e.tem.get("open_ground", amount == 0))
    c.open_ground = og
    why = f"{e.name.lower()} in {name}"
    if t.is_building and col == "indirect" and target.place == "":
        # one building TEM, raised by each building Location above the target's (not a separate TEM to choose)
        above = t.top_level - target.level
        p = chart.param("indirect_building_level_tem")
        if above > 0 and p.value:
            amount += p.value * above
            why += (f" vs Indirect Fire: {fmt(e.tem.get(col, 0))}, +{fmt(p.value)} for each of the {above} building "
                    f"level(s) above it (chart note)")
    if amount or not og:
        c.items.append(Item(amount, why, rule or e.tem.rule))
    else:
        c.sentences.append(f"{name} is {e.name} ({e.tem.rule}): no terrain TEM.")
        c.rules.append(e.tem.rule)
    if t.terrain == "open" and any(hs.is_road for hs in m.hexsides_of(h)):
        c.sentences.append("A road is not TEM-bearing terrain; the hex's other terrain decides its TEM (B3.3).")
        c.rules.append("B3.3")


def _crest_status_tem(m: Map, target: Location, attack: str, firer: Location | None, unit: Unit, chart: Chart,
                      c: _Cover) -> None:
    """Infantry with Crest status claim an entrenchment-like TEM vs Direct Fire from outside the depression
    (B20.91; P4.13 "or entrenchment, if applicable"); they are then not in Open Ground (no FFMO).

    Notes
    -----
    ``param.crest_status_tem`` [U]: the value is unverified, and since the map format has no Crest front
    every attack by a firer neither in the target's hex nor IN a stream is taken as crossing it.
    """
    p = chart.param("crest_status_tem")
    if not p.value:
        c.sentences.append(f"Crest-status TEM is taken as 0 (param.crest_status_tem, {p.rule} [{p.tag}]).")
        c.rules.append(p.rule)
        return
    if not unit.is_infantry or attack not in _SLOPE_TEM_ATTACKS + ("ft",) or firer is None:
        return
    ft = m.terrain(firer.hex)
    if firer.hex == target.hex or firer.place == "culvert" or (ft.is_in_stream(firer.place) and not firer.level):
        c.sentences.append(f"The firer is within the depression of {m.name_of(target.hex)}'s stream: no Crest-status "
                           f"TEM ({p.rule}).")
        c.rules.append(p.rule)
        return
    c.items.append(Item(p.value, f"Crest status in {m.name_of(target.hex)} (entrenchment-like, [{p.tag}])", p.rule))
    c.open_ground = False


def _stream_tem(m: Map, target: Location, attack: str, thread: Trace | None, firer: Location | None,
                chart: Chart, conditions: Conditions, c: _Cover, entrenched: bool, unit: Unit) -> _Cover:
    """A stream hex: IN a plain stream is Open Ground (B20.3); Crest status gives its entrenchment-like TEM
    (B20.91); IN stream-woods/brush/orchard is Open Ground to a LOS from within the hex or within the stream
    depiction as it enters, else the terrain's TEM, and Air Burst applies IN stream-woods (P4.13)."""
    h = target.hex
    t = m.terrain(h)
    if t.terrain == "open":
        e = chart.entry(f"stream-{t.stream}")
        assert e.tem is not None
        where = "with Crest status in" if target.place == "crest" else "IN"
        c.sentences.append(f"A unit {where} stream hex {m.name_of(h)} with no other terrain is in Open Ground "
                           f"({e.tem.rule}).")
        c.rules.append(e.tem.rule)
        if target.place == "crest":
            _crest_status_tem(m, target, attack, firer, unit, chart, c)
        return c
    # stream-woods / stream-brush / stream-orchard (P4.1)
    if target.place == "crest":
        c.sentences.append(f"A unit with Crest status in {m.name_of(h)} is not in Open Ground and claims the "
                           f"{t.terrain} TEM, or the Crest-status entrenchment TEM if better (P4.13).")
        c.rules.append("P4.13")
        _terrain_tem(m, target, attack, chart, conditions, c, entrenched)
        _crest_status_tem(m, target, attack, firer, unit, chart, c)
        c.open_ground = False
        return c
    if attack in _AIR_BURST_ATTACKS and not entrenched and _air_burst_terrain(m, h, chart):
        c.sentences.append(f"Air Burst TEM applies IN stream-woods hex {m.name_of(h)} (P4.13).")
        c.rules.append("P4.13")
        _terrain_tem(m, target, attack, chart, conditions, c, entrenched, rule="P4.13")
        return c
    open_reason = None
    if firer is not None and firer.hex == h:
        open_reason = "the LOS emanates from within the hex"
    elif thread is not None:
        j = chart.judgment("stream_depiction_entry")
        entered = hexsides_entered(m, thread, h)
        if entered and all(m.hexside(hs).stream for hs in entered):
            open_reason = (f"the LOS lies within the stream depiction as it enters the hex (across stream "
                           f"hexside {_names(m, sorted(entered))}; judgment stream_depiction_entry [{j.tag}])")
    if open_reason is not None:
        c.sentences.append(f"The unit IN {m.name_of(h)} is in Open Ground: {open_reason} (P4.13).")
        c.rules.append("P4.13")
        return c
    if thread is None:
        c.sentences.append(f"No LOS is traced for {attack}: the unit IN {m.name_of(h)} claims the {t.terrain} TEM "
                           "and is not in Open Ground (P4.13).")
    else:
        c.sentences.append(f"The LOS enters {m.name_of(h)} from outside the stream depiction: the unit IN it "
                           f"claims the {t.terrain} TEM and is not in Open Ground (P4.13).")
    c.rules.append("P4.13")
    _terrain_tem(m, target, attack, chart, conditions, c, entrenched, rule="P4.13")
    return c


def _air_burst_terrain(m: Map, h: Hex, chart: Chart) -> bool:
    """The terrain of ``h`` gives Air Burst vs Indirect Fire (its chart TEM has an ``air_burst`` value: woods
    and pine woods, B13.3)."""
    e = chart.entry(m.terrain(h).chart_key)
    return e.tem is not None and e.tem.get("air_burst") is not None


def _crosses_segment(p: Point, q: Point, a: Point, b: Point) -> bool:
    """The thread p→q crosses the segment a→b strictly inside both (exact integer orientation tests)."""

    def orient(o: Point, u: Point, v: Point) -> int:
        return (u[0] - o[0]) * (v[1] - o[1]) - (u[1] - o[1]) * (v[0] - o[0])

    d1, d2 = orient(a, b, p), orient(a, b, q)
    d3, d4 = orient(p, q, a), orient(p, q, b)
    return d1 * d2 < 0 and d3 * d4 < 0


def _narrow_street_roadblock_items(m: Map, target: Location, target_point: Point, firer_point: Point | None,
                                   attack: str, chart: Chart) -> tuple[list[Item], list[str], list[str]]:
    """Roadblock TEM from each Narrow Street roadblock whose centre-to-centre segment the LOS first crosses
    (P5.141): none vs Indirect Fire or Residual FP, never Wall Advantage."""
    items: list[Item] = []
    sentences: list[str] = []
    rules: list[str] = []
    e = chart.entry("narrow-street-roadblock")
    assert e.tem is not None
    for c in m.counters:
        if c.type != "roadblock" or c.hexside is None or m.hexside(c.hexside).narrow_street is None:
            continue
        hs = c.hexside
        ends = [v.point() for v in hs.vertices()]
        if target.hex not in hs.hexes and target_point not in ends:
            continue
        key = "residual_fp" if attack == "residual-fp" else _tem_column(attack, chart)
        value = Fraction(e.tem.get(key, 0))
        if value == 0 or firer_point is None:
            what = {"indirect": "Indirect Fire", "residual_fp": "Residual FP"}.get(key, attack)
            sentences.append(f"The Narrow Street roadblock on {m.name_of(hs)} gives no TEM vs {what} (P5.141).")
            rules.append("P5.141")
            continue
        a, b = (h.centre() for h in hs.hexes)
        if _crosses_segment(firer_point, target_point, a, b):
            items.append(Item(value, f"Narrow Street roadblock {m.name_of(hs)}: the LOS first crosses its "
                                     "centre-to-centre segment", e.tem.rule))
        else:
            sentences.append(f"The LOS does not cross the Narrow Street roadblock on {m.name_of(hs)} (from centre "
                             f"dot to centre dot): no roadblock TEM, and it never gives Wall Advantage (P5.141).")
            rules.append("P5.141")
    return items, sentences, rules


def _hexside_tem_items(m: Map, target: Location, thread: Trace, attack: str, chart: Chart) -> list[Item]:
    """Wall, hedge and (B29) roadblock TEM of a hexside of the target's hex the LOS crosses (B9.3, B29.3)."""
    if target.level or target.place or target.is_bypass:
        return []
    col = _tem_column(attack, chart)
    out: list[Item] = []
    entered = hexsides_entered(m, thread, target.hex)
    for hs in sorted(entered):
        t = m.hexside(hs)
        kinds = [k for k in ("wall", "hedge", "bocage") if getattr(t, k)]
        rb = m.roadblock(hs)
        if rb is not None and t.narrow_street is None:
            kinds.append("roadblock")
        for k in kinds:
            e = chart.entry(k)
            if e.tem is None:
                continue
            v = Fraction(e.tem.get(col, 0))
            if v:
                out.append(Item(v, f"{e.name.lower()} on hexside {m.name_of(hs)} the LOS crosses", e.tem.rule))
    return out


def _road_rate_exposed(m: Map, target: Location, firer: Location, thread: Trace, entered_across: Hexside | None,
                       chart: Chart, conditions: Conditions) -> tuple[bool, str]:
    """B3.3 / A4.132: a unit that entered a road hex at the road rate is subject to Interdiction/FFMO instead
    of the other terrain's TEM unless the firer's LOS to every target point (the centre dot, and the road
    where it crosses the hexside entered) is traced through other non-Open Ground terrain."""
    h = target.hex

    def intervening_non_og(tr: Trace) -> list[Hex]:
        return [s.hex for s in tr.spans
                if s.hex not in (firer.hex, h) and not _hex_is_open_ground(m, s.hex, chart, conditions)]

    blockers = intervening_non_og(thread)
    entered = hexsides_entered(m, thread, h)
    along_road = bool(entered) and all(m.hexside(hs).road is not None for hs in entered)
    if not blockers and along_road:
        return True, (f"the LOS to the centre dot enters {m.name_of(h)} along its road "
                      f"({_names(m, sorted(entered))}) and crosses no other non-Open Ground terrain")
    if entered_across is not None and m.hexside(entered_across).road is not None:
        j = chart.judgment("road_target_point")
        for v in entered_across.vertices():
            tr = trace(location_point(firer), v.point())
            if h not in tr.hexes and not intervening_non_og(tr):
                return True, (f"the LOS to the road where it crosses hexside {m.name_of(entered_across)} (the "
                              f"wider target points of A4.132; judged at vertex {m.name_of(v)}: judgment "
                              f"road_target_point [{j.tag}]) crosses no other non-Open Ground terrain")
    why = (f"non-Open Ground terrain in {', '.join(m.name_of(x) for x in blockers)}" if blockers else
           f"the {m.terrain(h).terrain} of {m.name_of(h)} (the LOS enters across "
           f"{_names(m, sorted(entered)) or 'no hexside'}, not along the road)")
    return False, f"the LOS is traced through other non-Open Ground terrain: {why}"


# ------------------------------------------------------------------------------- TEM as a rulebook
#
# ``_member`` answers one firer's attack: the decisions first (each may say the attack cannot affect the target),
# then the TEM/DRM rules in order, each reading the question (``_Attack``) and what the rules before it found
# (``_Tally``) and returning the tally with its own items and sentences added. A new TEM rule is one function,
# put in its place in ``_TEM_RULES``.


@dataclass(frozen=True, slots=True)
class _Attack:
    """What the TEM rules read: one firer's attack as asked, and the LOS traced for it (A6.1)."""

    m: Map
    chart: Chart
    conditions: Conditions
    target: Location
    firer: Location | None
    attack: str
    unit: Unit
    moved_by: MovedBy
    assault_move: bool
    snap_shot: Hexside | None
    declared_vertex: Vertex | None
    entrenched: bool
    entered_across: Hexside | None
    wall_advantage: bool
    los: LosRuling | None = None
    thread: Trace | None = None
    range: int | None = None

    @property
    def tname(self) -> str:
        return self.m.name_of(self.target)

    @property
    def aim(self) -> Location:
        """The point the attack is traced to: a Snap Shot at a roadblock hexside goes to the declared vertex."""
        v = self.declared_vertex
        if v is None:
            return self.target
        hx = self.target.hex if self.target.hex in v.hexes else next(
            h for h in v.hexes if self.snap_shot is not None and h in self.snap_shot.hexes)
        return Location(hx, vertex=v)

    def traced(self) -> _Attack:
        """The attack with its LOS (a firer's attack that needs one) or its range (one that needs none)."""
        m, firer, aim = self.m, self.firer, self.aim
        if firer is not None and self.attack not in NO_FIRER:
            if aim.bypass is not None and aim.vertex is None:
                v0 = example_vertex(aim.bypass, m.__contains__)
                eg = f", e.g. {m.name_of(Location(aim.hex, vertex=v0))}" if v0 is not None else ""
                raise QueryError(f"target: {m.name_of(aim)} is a Bypass position along a hexside; a LOS needs the "
                                 f"vertex form{eg}")
            r = los(m, firer, aim, chart=self.chart, conditions=self.conditions, entrenched=(False, self.entrenched))
            return replace(self, los=r, thread=r.trace if r.clear else None, range=r.range)
        if firer is not None:
            return replace(self, range=firer.hex.distance(self.target.hex))
        return self

    def cannot(self, reason: str, sentence: str, *rules: str) -> _Member:
        return _Member(self.firer, False, reason, range=self.range, rule_refs=rules, sentences=(sentence,))


@dataclass(frozen=True, slots=True)
class _Tally:
    """What the TEM rules found so far for one attack."""

    sentences: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    hindrance: tuple[Item, ...] = ()
    drm: tuple[Item, ...] = ()
    own: tuple[Item, ...] = ()  # the Location's own TEM (B3.3 may take it away)
    open_ground: bool = False
    entrenchment: Item | None = None
    hexside: tuple[Item, ...] = ()  # walls, hedges, roadblocks
    other_own: tuple[Item, ...] = ()  # TEM items that add to the best one
    best: Item | None = None  # the best of the TEM sources that are not cumulative
    slope_applied: bool = False
    weather: tuple[Item, ...] = ()
    height_advantage: Item | None = None
    ffmo: Item | None = None
    ffnam: Item | None = None

    def said(self, sentence: str, *rules: str, **changes: Any) -> _Tally:
        return replace(self, sentences=(*self.sentences, sentence), rules=(*self.rules, *rules), **changes)

    def member(self, c: _Attack) -> _Member:
        tem_items = (*self.other_own, *([self.best] if self.best is not None else []), *self.weather,
                     *([self.height_advantage] if self.height_advantage is not None else []))
        return _Member(c.firer, True, None, tem_items, self.hindrance, self.drm, self.ffmo, self.ffnam,
                       self.open_ground, c.range, self.rules, self.sentences)


def _member(c: _Attack) -> _Member:
    """One firer's attack on the target (one member of a Fire Group): the decisions in order (P4.24, A6.1,
    P2.42), then each rule of ``_TEM_RULES`` in order."""
    decided = nothing_in_a_culvert_is_hit(c)
    if decided is not None:
        return decided
    c = c.traced()
    for decide in (no_los_no_effect, up_slope_fire_lane_base_level, no_ordnance_down_a_cliff):
        decided = decide(c)
        if decided is not None:
            return decided
    t = _Tally()
    for rule in _TEM_RULES:
        t = rule(c, t)
    return t.member(c)


def nothing_in_a_culvert_is_hit(c: _Attack) -> _Member | None:
    """P4.24: nothing IN a Stream Culvert is affected by Indirect Fire or an Aerial attack."""
    if c.target.place == "culvert" and (c.attack in _INDIRECT_ATTACKS or c.attack == "aerial"):
        what = "an Aerial attack" if c.attack == "aerial" else "Indirect Fire"
        return _Member(c.firer, False, f"nothing IN a Stream Culvert can be affected by {what} (P4.24)",
                       rule_refs=("P4.24",),
                       sentences=(f"{c.tname} is IN a Stream Culvert: {what} cannot affect it, nor the culvert "
                                  "itself (P4.24).",))
    return None


def no_los_no_effect(c: _Attack) -> _Member | None:
    """A6.1: an attack that needs a LOS cannot affect a target its firer cannot see."""
    r = c.los
    if c.firer is None or r is None or r.clear:
        return None
    m, bb = c.m, r.blocked_by
    where = bb.where(m.names) if bb is not None else "?"
    what = bb.terrain if bb is not None else "an obstacle"
    rule = bb.rule if bb is not None else "A6.1"
    return c.cannot(f"no LOS from {m.name_of(c.firer)} to {m.name_of(c.aim)}: blocked by {what} at {where} ({rule})",
                    f"{m.name_of(c.firer)} has no LOS to {m.name_of(c.aim)} (blocked by {what} at {where}, {rule}): "
                    "the attack cannot affect it.", rule, "A6.1")


def up_slope_fire_lane_base_level(c: _Attack) -> _Member | None:
    """P2.42: an Up-Slope attacker's Fire Lane cannot affect a target at a different Base Level."""
    m, r, firer = c.m, c.los, c.firer
    if c.attack != "fire-lane" or firer is None or r is None or not r.up_slope[0] \
            or m.terrain(firer.hex).base_level == m.terrain(c.target.hex).base_level:
        return None
    return c.cannot("an Up-Slope attacker's Fire Lane cannot affect a target at a different Base Level (P2.42)",
                    f"{m.name_of(firer)} is Up-Slope and {c.tname} lies at a different Base Level: the Fire Lane "
                    "cannot affect it (P2.42).", "P2.42")


def no_ordnance_down_a_cliff(c: _Attack) -> _Member | None:
    """B11.31: no ordnance (nor vehicle armament or IFE) may fire through a cliff hexside to an adjacent lower
    level hex (LATW other than PIAT and MTR of minimum range 1 excepted: not told apart here); other SW and
    Small Arms Fire are not so restricted."""
    m, firer, target = c.m, c.firer, c.target
    if c.attack != "ordnance" or firer is None or not firer.hex.is_adjacent(target.hex):
        return None
    hs = Hexside.of(firer.hex, target.hex)
    if not m.hexside(hs).cliff or location_elevation(m, firer, c.chart) <= location_elevation(m, target, c.chart):
        return None
    return c.cannot(f"ordnance may not fire through the cliff hexside {m.name_of(hs)} to the adjacent lower hex "
                    f"{m.name_of(target.hex)} (B11.31)",
                    f"{m.name_of(firer)} is above {c.tname} across the cliff hexside {m.name_of(hs)}: ordnance may "
                    "not fire through it to the adjacent lower hex (B11.31).", "B11.31")


def snap_shot_traced_to_declared_vertex(c: _Attack, t: _Tally) -> _Tally:
    """P5.141: a Snap Shot at a unit crossing a roadblock hexside is traced to the vertex it declared."""
    if c.declared_vertex is None:
        return t
    return t.said(f"The unit crossing {c.m.name_of(c.snap_shot) if c.snap_shot else 'the hexside'} declared vertex "
                  f"{c.m.name_of(c.declared_vertex)}: the Snap Shot is traced to it (P5.141).", "P5.141")


def hindrances_on_the_los(c: _Attack, t: _Tally) -> _Tally:
    """A6.7: the Hindrances on the LOS add their DRM (an attack that needs no LOS traces none)."""
    r = c.los
    if r is not None:
        if not r.hindrance_drm:
            return t
        whats = ", ".join(f"{x.what} in {c.m.name_of(x.hex)} +{x.drm}" for x in r.hindrances)
        return replace(t, hindrance=(*t.hindrance,
                                     Item(Fraction(r.hindrance_drm), f"Hindrances on the LOS: {whats}", "A6.7")))
    if c.firer is not None:
        return t.said(f"{c.attack} needs no LOS from the firer; none is traced.")
    return t


def fire_lane_slope(c: _Attack, t: _Tally) -> _Tally:
    """P2.42: the Fire Lane slope DRM vs Infantry (for both hexes of a Snap Shot hexside)."""
    m, firer, snap = c.m, c.firer, c.snap_shot
    if c.attack != "fire-lane" or firer is None or c.los is None or not c.unit.is_infantry:
        return t
    p = c.chart.param("fire_lane_slope_drm")
    if snap is not None:
        oks = [fire_lane_slope_drm(m, firer, Location(hx), c.chart, c.conditions) for hx in snap.hexes]
        if all(ok for ok, _ in oks):
            return replace(t, drm=(*t.drm, Item(p.value, f"Fire Lane slope DRM: for both hexes of Snap Shot "
                                                         f"hexside {m.name_of(snap)}", p.rule)))
        bad = [f"{m.name_of(hx)}: {why}" for hx, (ok, why) in zip(snap.hexes, oks) if not ok]
        return t.said(f"No Fire Lane slope DRM: a Snap Shot needs it for both hexes of {m.name_of(snap)} "
                      f"({'; '.join(bad)}) ({p.rule}).", p.rule)
    ok, why = fire_lane_slope_drm(m, firer, c.target, c.chart, c.conditions)
    if ok:
        return replace(t, drm=(*t.drm, Item(p.value, f"Fire Lane slope DRM: {why}", p.rule)))
    return t.said(f"No Fire Lane slope DRM: {why} ({p.rule}).", p.rule)


def location_tem(c: _Attack, t: _Tally) -> _Tally:
    """The target Location's own TEM (B-rules of its terrain, P4.13, B20.91, bridges) and Open Ground."""
    cover = _location_tem(c.m, c.target, c.attack, c.thread, c.firer, c.chart, c.conditions, c.entrenched,
                          c.snap_shot, c.unit)
    return replace(t, sentences=(*t.sentences, *cover.sentences), rules=(*t.rules, *cover.rules),
                   own=tuple(cover.items), open_ground=cover.open_ground)


def road_rate_exposure(c: _Attack, t: _Tally) -> _Tally:
    """B3.3: a unit that entered at the road rate, seen along the road, is in Open Ground (P5.11: a Narrow
    Street hexside is no road hexside)."""
    m, target = c.m, c.target
    if c.moved_by != "road-rate" or not target.is_ground:
        return t
    if not any(hs.road is not None for hs in m.hexsides_of(target.hex)):
        return t.said(f"{m.name_of(target.hex)} has no road hexside a road depiction crosses (a Narrow Street "
                      "lies on its hexside, and no obstacle is entered at the road rate along or across one, "
                      "P5.11): B3.3's road-rate exposure does not apply.", "B3.3", "P5.11")
    if not (any(i.amount > 0 for i in t.own) or not t.open_ground):
        return t
    if c.firer is None or c.thread is None:
        return t.said("B3.3 needs the firer's LOS to decide road-rate exposure; the TEM is kept.", "B3.3")
    exposed, why = _road_rate_exposed(m, target, c.firer, c.thread, c.entered_across, c.chart, c.conditions)
    if exposed:
        return t.said(f"The unit entered at the road rate and {why}: it is subject to Interdiction/FFMO instead "
                      "of the TEM of the other terrain (B3.3).", "B3.3", own=(), open_ground=True)
    return t.said(f"The unit entered at the road rate, but {why}: it keeps the TEM (B3.3).", "B3.3")


def entrenchment_tem(c: _Attack, t: _Tally) -> _Tally:
    """B27.1: an entrenched target's TEM (its own value vs Indirect Fire)."""
    if not c.entrenched:
        return t
    indirect = _tem_column(c.attack, c.chart) == "indirect"
    p = c.chart.param("entrenchment_indirect_tem" if indirect else "entrenchment_tem")
    return replace(t, entrenchment=Item(p.value, "entrenchment" + (" vs Indirect Fire" if indirect else ""), p.rule))


def wall_and_hedge_tem(c: _Attack, t: _Tally) -> _Tally:
    """B9.3, B9.32, B29.3: walls, hedges and roadblocks on the LOS give TEM to a target holding Wall Advantage."""
    if c.thread is None or c.attack == "residual-fp":
        return t
    walls = _hexside_tem_items(c.m, c.target, c.thread, c.attack, c.chart)
    if c.wall_advantage:
        return replace(t, hexside=(*t.hexside, *walls))
    if walls:
        gone = "; ".join(i.why for i in walls)
        return t.said(f"The target does not hold Wall Advantage: no TEM from the {gone} (B9.32).", "B9.32")
    return t


def narrow_street_roadblock_tem(c: _Attack, t: _Tally) -> _Tally:
    """P5.141: a Narrow Street roadblock's TEM, by the LOS alone (it conveys no Wall Advantage)."""
    if c.firer is None and c.attack not in ("indirect", "aerial", "residual-fp", "air-burst"):
        return t
    fp = location_point(c.firer) if (c.firer is not None and c.attack not in NO_FIRER) else None
    items, sentences, rules = _narrow_street_roadblock_items(c.m, c.target, location_point(c.aim), fp, c.attack,
                                                             c.chart)
    return replace(t, hexside=(*t.hexside, *items), sentences=(*t.sentences, *sentences),
                   rules=(*t.rules, *rules))


def better_tem_applies(c: _Attack, t: _Tally) -> _Tally:
    """The Location's TEM, entrenchment and hexside TEM are not cumulative: the better applies (judgment
    hexside_tem_not_cumulative says whether hexside TEM joins them). Any of them ends Open Ground."""
    cover = [i for i in t.own if i.amount > 0]
    other = [i for i in t.own if i.amount <= 0]
    og = t.open_ground
    if t.entrenchment is not None:
        cover.append(t.entrenchment)
        og = False
    if t.hexside:
        og = False
        if c.chart.judgment("hexside_tem_not_cumulative").value:
            cover += t.hexside
        else:
            other += t.hexside
    best: Item | None = max(cover, key=lambda i: i.amount, default=None)
    said = [f"{i.why} (+{fmt(i.amount)}) is not cumulative with {best.why}: the better applies."
            for i in cover if best is not None and i is not best]
    return replace(t, sentences=(*t.sentences, *said), other_own=tuple(other), best=best, open_ground=og)


def slope_tem(c: _Attack, t: _Tally) -> _Tally:
    """P2.41: slope TEM vs Direct Fire from below, not cumulative with other TEM (the better applies); none
    for a Snap Shot target, which is on the hexside (judgment snap_shot_open_ground)."""
    m, target, best = c.m, c.target, t.best
    if c.snap_shot is not None and c.chart.judgment("snap_shot_open_ground").value and c.firer is not None \
            and has_slope_tem_hexsides(m, target.hex):
        return t.said(f"No slope TEM: a Snap Shot target is on hexside {m.name_of(c.snap_shot)}, not in "
                      f"{m.name_of(target.hex)} (P2.41; judgment snap_shot_open_ground).", "P2.41")
    if c.firer is None or c.thread is None:
        return t
    ok, why = slope_tem_applies(m, target, c.firer, c.attack, c.unit, c.thread, c.chart)
    p = c.chart.param("slope_tem")
    if ok:
        item = Item(p.value, f"slope TEM: {why}", p.rule)
        if best is None:
            return replace(t, rules=(*t.rules, p.rule), best=item, slope_applied=True)
        if item.amount > best.amount:
            return t.said(f"Slope TEM is not cumulative with {best.why}: the better applies (P2.41).", p.rule,
                          best=item, slope_applied=True)
        return t.said(f"Slope TEM ({why}) is not cumulative with {best.why}: the better applies (P2.41).", p.rule)
    if down_slope_hexsides(m, target.hex) and target.is_ground:
        return t.said(f"No slope TEM: {why} ({p.rule}).", p.rule)
    return t


def tem_ends_open_ground(c: _Attack, t: _Tally) -> _Tally:
    """A4.6: positive TEM ends Open Ground; slope TEM only if judgment slope_tem_vs_ffmo says so (P2.41)."""
    if t.best is not None and not t.slope_applied:
        return replace(t, open_ground=False)
    if t.slope_applied and c.chart.judgment("slope_tem_vs_ffmo").value:
        return replace(t, open_ground=False)
    return t


def mud_and_deep_snow_tem(c: _Attack, t: _Tally) -> _Tally:
    """E3.62, E3.72 (chart mud_tem, deep_snow_tem): Mud/Deep Snow TEM at ground level outside buildings,
    cumulative with slope TEM (P2.41)."""
    weather, target = c.conditions.weather, c.target
    if weather not in ("mud", "deep-snow") or target.level != 0 or target.place not in ("", "crest") \
            or c.m.terrain(target.hex).is_building:
        return t
    p = c.chart.param("mud_tem" if weather == "mud" else "deep_snow_tem")
    if not p.value:
        return t
    return replace(t, weather=(*t.weather, Item(p.value, f"{weather.replace('-', ' ')} TEM", p.rule)))


def height_advantage(c: _Attack, t: _Tally) -> _Tally:
    """B10.31: Height Advantage TEM only with no other positive TEM; being Up-Slope gives none (P2.3, P2.41)."""
    r, m = c.los, c.m
    if r is None:
        return t
    if r.height_advantage == "to":
        p = c.chart.param("height_advantage_tem")
        if t.best is None and not t.weather:
            return replace(t, height_advantage=Item(p.value, f"Height Advantage: {m.name_of(c.target)} is higher "
                                                             "than the firer", p.rule))
        return t.said(f"Height Advantage does not apply: the target has other positive TEM ({p.rule}).", p.rule)
    if any(s.up_slope(c.target.hex) for s in m.hexsides_of(c.target.hex)) and r.up_slope[1]:
        return t.said("Being Up-Slope gives no TEM and no Height Advantage (P2.3, P2.41).", "P2.41")
    return t


def ffmo_and_ffnam(c: _Attack, t: _Tally) -> _Tally:
    """A4.6: a moving Infantry/Cavalry target suffers FFNAM unless it used Assault Movement, and FFMO in Open
    Ground on a LOS with no Hindrance and no Height Advantage."""
    if c.moved_by is None or c.unit.type not in ("infantry", "cavalry") or c.attack == "aerial":
        return t
    if not c.assault_move:
        p = c.chart.param("ffnam_drm")
        t = replace(t, ffnam=Item(p.value, "FFNAM: the target moved without Assault Movement", p.rule))
    p = c.chart.param("ffmo_drm")
    if t.open_ground and not t.hindrance and t.height_advantage is None:
        return replace(t, ffmo=Item(p.value, "FFMO: the moving target is in Open Ground and the LOS has no "
                                             "Hindrance", p.rule))
    why = ("a Hindrance lies on the LOS" if t.hindrance else
           "Height Advantage applies" if t.height_advantage is not None else
           "slope TEM applies (P2.41; judgment slope_tem_vs_ffmo)" if t.slope_applied else
           "the target is not in Open Ground")
    return t.said(f"No FFMO: {why} ({p.rule}).", p.rule)


#: the TEM/DRM rules of one attack, asked in this order (later rules read what earlier ones found)
_TEM_RULES: tuple[Callable[[_Attack, _Tally], _Tally], ...] = (
    snap_shot_traced_to_declared_vertex, hindrances_on_the_los, fire_lane_slope, location_tem, road_rate_exposure,
    entrenchment_tem, wall_and_hedge_tem, narrow_street_roadblock_tem, better_tem_applies, slope_tem,
    tem_ends_open_ground, mud_and_deep_snow_tem, height_advantage, ffmo_and_ffnam)


def tem(m: Map, target: Location, firers: Sequence[Location] = (), attack: str = "small-arms", *,
        unit: Unit | None = None, moved_by: MovedBy = None, assault_move: bool = False,
        snap_shot: Hexside | None = None, declared_vertex: Vertex | None = None, entrenched: bool = False,
        entered_across: Hexside | None = None, wall_advantage: bool = True, chart: Chart | None = None,
        conditions: Conditions | None = None) -> TemRuling:
    """The terrain effects on one attack: TEM, hindrance, other DRM and FFMO/FFNAM (B3.3, P2.41, P2.42, P4.13,
    P4.24, P5.141, A4.6, B10.31; A.5 for a Fire Group).

    Parameters
    ----------
    m : Map
    target : Location
        The target's Location or Bypass position (vertex form when a LOS is traced to it).
    firers : sequence of Location
        One firer, or the members of a Fire Group; may be empty for ``indirect``, ``aerial`` and
        ``residual-fp``.
    attack : str
        One of :data:`ATTACKS`.
    unit : Unit
        The target (default Infantry: P2.41 and FFMO depend on it).
    moved_by : ``"road-rate"``, ``"non-road"`` or None
        How the target entered its hex this phase (B3.3; a moving target may suffer FFMO/FFNAM).
    assault_move, entrenched : bool
    snap_shot : Hexside
        A Snap Shot at that hexside (P2.42's two-hex condition; the target is on the hexside).
    declared_vertex : Vertex
        The side of a Narrow Street roadblock the target crossed on (P5.141).
    entered_across : Hexside
        The hexside the target entered across (B3.3's road target point).
    wall_advantage : bool
        Whether the target holds Wall Advantage (B9.32) along the wall, hedge and (B29) roadblock hexsides of
        its hex: when it does not, a LOS across them gives no TEM. A Narrow Street roadblock never conveys
        Wall Advantage, so its TEM depends on the LOS alone (P5.141).

    Returns
    -------
    TemRuling
        ``affected=False`` with its reason when the attack cannot affect the target (no LOS; Indirect Fire
        vs a Stream Culvert; an Up-Slope Fire Lane vs a different Base Level). For a Fire Group every member
        needs a LOS (A7.5) and the member's ruling most favourable to the target is the answer (A.5).

    Raises
    ------
    QueryError
        For an unknown attack, a missing firer, a declared vertex that is not on the Snap Shot hexside.

    Examples
    --------
    >>> from asl_terrain.model import load_demo
    >>> m = load_demo()
    >>> r = tem(m, m.parse_location("T4"), [m.parse_location("T2")])
    >>> r.affected, int(r.tem), [i.rule for i in r.items]
    (True, 1, ['P2.41'])
    """
    chart = chart or default_chart()
    conditions = conditions or m.conditions
    unit = unit or Unit()
    if attack not in ATTACKS:
        raise QueryError(f"attack: unknown attack type {attack!r}; expected one of {', '.join(ATTACKS)}")
    m.check_location(target.base())
    firers = tuple(firers)
    for f in firers:
        m.check_location(f.base())
    if not firers and attack not in NO_FIRER:
        raise QueryError(f"missing key 'firer': a {attack} attack needs a firer (or 'firers' for a Fire Group)")
    if declared_vertex is not None and (snap_shot is None or declared_vertex not in snap_shot.vertices()):
        raise QueryError("declared_vertex: expected a vertex of the Snap Shot hexside "
                         f"({m.name_of(snap_shot) if snap_shot else 'no snap_shot given'})")
    if snap_shot is not None:
        if target.hex not in snap_shot.hexes:
            raise QueryError(f"snap_shot: {m.name_of(snap_shot)} is not a hexside of the target's hex "
                             f"{m.name_of(target.hex)}")
        rb = m.roadblock(snap_shot)
        if rb is not None and m.hexside(snap_shot).narrow_street is not None and declared_vertex is None:
            raise QueryError(f"declared_vertex: a unit crossing Narrow Street roadblock hexside "
                             f"{m.name_of(snap_shot)} declares the vertex it crossed on (P5.141)")
    asked = _Attack(m, chart, conditions, target, None, attack, unit, moved_by, assault_move, snap_shot,
                    declared_vertex, entrenched, entered_across, wall_advantage)
    members = [_member(replace(asked, firer=f)) for f in firers] if firers else [_member(asked)]
    return _fire_group(m, target, attack, tuple(m.name_of(f) for f in firers), members)


def _fire_group(m: Map, target: Location, attack: str, names: tuple[str, ...], members: list[_Member]) -> TemRuling:
    """A lone firer's ruling, or a Fire Group's: every member needs a LOS (A7.5), and the member's ruling
    most favourable to the target is the answer (A.5)."""
    if len(members) == 1:
        return _ruling(m, target, attack, names, members[0], [], (), ())
    blind = [mb for mb in members if not mb.affected]
    if blind:
        mb = blind[0]
        if mb.range is not None and mb.reason is not None and mb.reason.startswith("no LOS"):
            return _ruling(m, target, attack, names, mb, [f"Every member of a Fire Group needs a LOS to the "
                                                          f"target (A7.5): {mb.reason}."], ("A7.5",), members)
        return _ruling(m, target, attack, names, mb, [f"A member of the Fire Group cannot affect the target: "
                                                      f"{mb.reason}."], (), members)
    chosen = max(members, key=lambda x: x.total_drm)
    extra = [f"Fire Group of {', '.join(names)}: the LOS most favourable to the target applies, "
             f"{m.name_of(chosen.firer) if chosen.firer else '-'}'s (A.5)."]
    return _ruling(m, target, attack, names, chosen, extra, ("A.5",), members)


def _ruling(m: Map, target: Location, attack: str, names: tuple[str, ...], mb: _Member, extra: list[str],
            extra_rules: tuple[str, ...], members: Sequence[_Member]) -> TemRuling:
    """The ruling of a member's attack (the chosen one for a Fire Group, A.5), with each member summarised."""
    head = f"{attack} vs {m.name_of(target)}" + (f" from {', '.join(names)}" if names else "") + ":"
    summary = [{"firer": m.name_of(x.firer) if x.firer else None, "affected": x.affected,
                "tem": num(total(x.tem_items)), "hindrance_drm": num(total(x.hindrance_items)),
                "total_drm": num(x.total_drm), **({"reason": x.reason} if x.reason else {})} for x in members]
    if not mb.affected:
        return TemRuling(m.name_of(target), attack, False, mb.reason, (), (), (), None, None, False, names,
                         None, mb.range,
                         (*mb.rule_refs, *extra_rules), (head, *mb.sentences, *extra), tuple(summary))
    return TemRuling(m.name_of(target), attack, True, None, mb.tem_items, mb.hindrance_items, mb.drm_items,
                     mb.ffmo_item, mb.ffnam_item, mb.open_ground, names,
                     m.name_of(mb.firer) if mb.firer else None, mb.range, (*mb.rule_refs, *extra_rules),
                     (head, *mb.sentences, *extra), tuple(summary))


# ============================================================================================ Bypass effects


@dataclass(frozen=True, slots=True)
class MineThreat:
    """A minefield that can attack a unit in Bypass (P5.142)."""

    kind: str
    strength: int
    hex: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "strength": self.strength, "hex": self.hex}


@dataclass(frozen=True, slots=True)
class BypassEffects(Explained):
    """What SMOKE, Residual FP and mines reach a unit in Bypass along a Narrow Street hexside (P5.131,
    P5.142), and whether Bypass (and VBM) along it is allowed (P5.126, P5.141)."""

    hexside: str
    in_hex: str | None
    smoke: int
    residual_fp: int
    mines: tuple[MineThreat, ...]
    bypass_allowed: bool
    vbm_allowed: bool
    smoke_extra_cost: Fraction
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return _json("bypass-effects", {
            "hexside": self.hexside, "in": self.in_hex, "smoke": self.smoke, "residual_fp": self.residual_fp,
            "mines": [x.to_json() for x in self.mines], "bypass_allowed": self.bypass_allowed,
            "vbm_allowed": self.vbm_allowed, "smoke_extra_cost": num(self.smoke_extra_cost),
            **({"reason": self.reason} if self.reason else {})}, (), self.rules(), self.sentences)


def bypass_effects(m: Map, hs: Hexside, in_hex: Hex | None = None, chart: Chart | None = None) -> BypassEffects:
    """What reaches a unit in Bypass along Narrow Street hexside ``hs`` (P5.131, P5.142) and whether Bypass
    along it is allowed (P5.126).

    SMOKE and Residual FP of either ground-level Location reach it, only the higher when they differ; mines
    of either hex (both types when one holds A-P and the other A-T; only the stronger of one type). On a
    Crest-Line hexside the unit is in the lower hex (P5.11) and only that hex's SMOKE, Residual FP and mines
    apply. Bypass is NA when either hex holds another vehicle/wreck in Bypass along ``hs``, a Blaze (a
    burning wreck along another hexside excepted) or Rubble (P5.126); VBM is NA past a Narrow Street
    roadblock straddling ``hs`` (P5.141).

    :raises QueryError: when ``hs`` is not a Narrow Street hexside or ``in_hex`` is not one of its hexes.

    Examples
    --------
    >>> from asl_terrain.model import load_demo
    >>> m = load_demo()
    >>> r = bypass_effects(m, m.parse_hexside("L11-L12"))
    >>> [(x.kind, x.strength, x.hex) for x in r.mines], r.bypass_allowed
    ([('A-P', 6, 'HrL12')], True)
    """
    chart = chart or default_chart()
    _check_narrow_street(m, hs)
    if in_hex is not None and in_hex not in hs.hexes:
        raise QueryError(f"in: {m.name_of(in_hex)} is not a hex of hexside {m.name_of(hs)}")
    hsn = m.name_of(hs)
    sentences: list[str] = []
    rules: list[str] = []
    crest = m.is_crest_line(hs)
    placed = m.crest_narrow_street_lower_hex(hs) or in_hex
    sources = m.bypass_hexes(hs)
    if crest:
        assert placed is not None
        sentences.append(f"{hsn} is also a Crest Line: the unit is in the lower hex {m.name_of(placed)} (P5.11), and "
                         f"only that hex's SMOKE, Residual FP and mines apply (P5.131, P5.142).")
        rules += ["P5.11", "P5.131", "P5.142"]

    def higher(values: dict[Hex, int], what: str, rule: str) -> int:
        v = max(values.values(), default=0)
        if v:
            where = [m.name_of(h) for h, x in values.items() if x == v]
            others = {m.name_of(h): x for h, x in values.items() if x and x != v}
            sentences.append(f"{what} {v} in {' and '.join(where)} reaches the unit"
                             + (f" (only the higher: {', '.join(f'{k} has {x}' for k, x in others.items())})"
                                if others else "") + f" ({rule}).")
        else:
            sentences.append(f"No {what} in {' or '.join(m.name_of(h) for h in sources)} ({rule}).")
        rules.append(rule)
        return v

    smoke = higher({h: m.smoke(h) for h in sources}, "SMOKE", "P5.131")
    residual = higher({h: m.residual_fp(h) for h in sources}, "Residual FP", "P5.131")
    threats: list[MineThreat] = []
    for kind in ("A-P", "A-T"):
        fields_ = [(c.strength, h) for h in sources for c in m.mines(h) if c.kind == kind]
        if fields_:
            strength, h = max(fields_, key=lambda x: x[0])
            threats.append(MineThreat(kind, strength, m.name_of(h)))
            weaker = [f"{m.name_of(x)} {s}" for s, x in fields_ if (s, x) != (strength, h)]
            sentences.append(f"{kind} mines of {strength} factors in {m.name_of(h)} can attack the unit"
                             + (f" (only the higher strength: {', '.join(weaker)})" if weaker else "") + " (P5.142).")
    if not threats:
        sentences.append(f"No mines in {' or '.join(m.name_of(h) for h in sources)} (P5.142).")
    elif len(threats) == 2:
        sentences.append("A-P and A-T mines both attack (P5.142).")
    rules.append("P5.142")
    # P5.126
    found = narrow_street_bypass_blockers(m, hs)
    blockers = [b.words(m, hs) for b in found if b.blocks]
    if any(not b.blocks for b in found):
        sentences.append("A burning wreck in Bypass along another hexside is no Blaze for this hexside (P5.126).")
    reason = None
    if blockers:
        reason = f"all Bypass along {hsn} is NA: {'; '.join(blockers)} (P5.126)"
        sentences.append(reason[0].upper() + reason[1:] + ".")
    else:
        sentences.append(f"Nothing in {' or '.join(m.name_of(h) for h in hs.hexes)} prohibits Bypass along {hsn} "
                         "(P5.126).")
    rules.append("P5.126")
    rb = m.roadblock(hs)
    vbm = not blockers and rb is None
    if rb is not None:
        sentences.append(f"A Narrow Street roadblock straddles {hsn}: VBM along it is NA (P5.141).")
        rules.append("P5.141")
    extra = Fraction(0)
    if smoke:
        p = chart.param("narrow_street_smoke_bypass")
        extra = Fraction(p.value)
        sentences.append(f"SMOKE adds {fmt(extra)} MF/MP to Bypass along {hsn} ({p.rule}).")
        rules.append(p.rule)
    return BypassEffects(hsn, m.name_of(placed) if placed is not None else None, smoke, residual, tuple(threats),
                         not blockers, vbm, extra, reason, tuple(rules), tuple(sentences))


# ============================================================================================ TCA (P5.121-.122)


@dataclass(frozen=True, slots=True)
class TcaChange(Explained):
    """A TCA change on a Narrow Street (P5.122) and Non-Stopped status (P5.121)."""

    required: bool
    allowed: bool
    items: tuple[Item, ...]
    success_probability: Fraction
    failure_cost_mp: Fraction
    non_stopped_allowed: bool | None
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    @property
    def drm(self) -> Fraction:
        return total(self.items)

    def rules(self) -> tuple[str, ...]:
        return distinct([*(i.rule for i in self.items), *self.rule_refs])

    def to_json(self) -> dict[str, Any]:
        values: dict[str, Any] = {"required": self.required, "allowed": self.allowed, "drm": num(self.drm),
                                  "items": [i.to_json("amount") for i in self.items],
                                  "success_probability": float(self.success_probability),
                                  "failure_cost_mp": num(self.failure_cost_mp)}
        if self.non_stopped_allowed is not None:
            values["non_stopped_allowed"] = self.non_stopped_allowed
        if self.reason:
            values["reason"] = self.reason
        return _json("tca-change", values, self.items, self.rules(), self.sentences)


def non_stopped_allowed(unit: Unit, tca_offset: int, chart: Chart | None = None) -> tuple[bool, str]:
    """Whether a vehicle may be Non-Stopped on a Narrow Street with its TCA ``tca_offset`` hexspines from its
    VCA: a turreted vehicle with MA of at least 50mm and a barrel other than "*" only with its TCA on its VCA
    or "rear" VCA (P5.121)."""
    chart = chart or default_chart()
    p = chart.param("tca_min_caliber")
    if not (unit.type == "vehicle" and unit.turreted and unit.caliber >= p.value and unit.barrel != "*"):
        return True, ("P5.121 limits only turreted vehicles with a MA of at least "
                      f"{fmt(p.value)}mm and a barrel other than \"*\"")
    if tca_offset % 6 in (0, 3):
        return True, "its TCA coincides with its VCA or rear VCA"
    return False, f"its TCA is {tca_offset % 6} hexspine(s) off its VCA, neither its VCA nor its rear VCA"


def tca_change(unit: Unit, attempt: int = 1, phase: str = "MPh", tca_offset: int | None = None,
               chart: Chart | None = None) -> TcaChange:
    """A vehicle's TCA change on a Narrow Street: with a MA of at least 50mm it needs a Final TCA-Change dr
    of at most 3, with the drm +2 LL, +1 L, -1 "*", +1 BU and the Armor Leader's modifier; at most two such
    dr per phase; each failure costs 2 MP in its MPh (P5.122). With ``tca_offset`` also P5.121.

    :raises QueryError: for a unit that is not a vehicle, an attempt below 1, an unknown phase.

    Examples
    --------
    >>> r = tca_change(Unit.from_json({"type": "vehicle", "caliber": 75, "barrel": "L", "buttoned_up": True}))
    >>> int(r.drm), str(r.success_probability), int(r.failure_cost_mp)
    (2, '1/6', 2)
    """
    chart = chart or default_chart()
    if unit.type != "vehicle":
        raise QueryError(f"unit: a tca-change is for a vehicle with a turret, not {unit.type}")
    if attempt < 1:
        raise QueryError(f"attempt: expected 1 or more, got {attempt}")
    if phase not in ("MPh", "other"):
        raise QueryError(f"phase: expected \"MPh\" or \"other\", got {phase!r}")
    sentences: list[str] = []
    rules: list[str] = []
    ns: bool | None = None
    if tca_offset is not None:
        if not 0 <= tca_offset <= 5:
            raise QueryError(f"tca_offset: expected 0-5 hexspines, got {tca_offset}")
        ns, why = non_stopped_allowed(unit, tca_offset, chart)
        sentences.append(f"Non-Stopped on a Narrow Street: {'allowed' if ns else 'NA'}, {why} (P5.121).")
        rules.append("P5.121")
    minc = chart.param("tca_min_caliber")
    required = unit.turreted and unit.caliber >= minc.value
    if not required:
        why = "it has no turret" if not unit.turreted else f"its MA is under {fmt(minc.value)}mm"
        sentences.insert(0, f"No TCA-Change dr is needed: {why} (P5.122).")
        return TcaChange(False, True, (), Fraction(1), Fraction(0), ns, None, ("P5.122", *rules), tuple(sentences))
    items: list[Item] = []
    barrel_param = {"LL": "tca_drm_LL", "L": "tca_drm_L", "*": "tca_drm_star"}.get(unit.barrel)
    if barrel_param is not None:
        p = chart.param(barrel_param)
        items.append(Item(p.value, f"\"{unit.barrel}\" Barrel Length", p.rule))
    if unit.buttoned_up:
        p = chart.param("tca_drm_bu")
        items.append(Item(p.value, "Buttoned Up", p.rule))
    if unit.armor_leader:
        items.append(Item(Fraction(unit.armor_leader), "Armor Leader modifier", "P5.122"))
    target = chart.param("tca_change_target")
    drm = total(items)
    hits = sum(1 for roll in range(1, 7) if roll + drm <= target.value)
    prob = Fraction(hits, 6)
    maxa = chart.param("tca_change_max_attempts")
    allowed = attempt <= maxa.value
    fail = chart.param("tca_change_failure_mp")
    cost = Fraction(fail.value) if phase == "MPh" else Fraction(0)
    reason = None
    if not allowed:
        reason = f"at most {fmt(maxa.value)} TCA-Change dr per vehicle per phase (P5.122); this is attempt {attempt}"
        sentences.insert(0, f"A TCA-Change dr is not allowed: {reason}.")
    else:
        sentences.insert(0, f"A TCA change on a Narrow Street needs a Final TCA-Change dr of {fmt(target.value)} or "
                            f"less (P5.122): drm {fmt(drm)}, so {hits} of 6 rolls succeed. Attempt {attempt} of at "
                            f"most {fmt(maxa.value)} this phase; a failure costs {fmt(cost)} MP"
                            f"{' (in the MPh)' if phase == 'MPh' else ' (outside the MPh, digest §7.37)'}.")
    return TcaChange(True, allowed, tuple(items), prob, cost, ns, reason, ("P5.122", *rules), tuple(sentences))


# ============================================================================================ Rubble (P5.15)


@dataclass(frozen=True, slots=True)
class Removed:
    """A counter a ruling removes."""

    what: str
    at: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"what": self.what, "at": self.at}
        if self.detail:
            d["detail"] = self.detail
        return d


@dataclass(frozen=True, slots=True)
class RubblePlacement(Explained):
    """What placing a Rubble counter in a hex does along its Narrow Street hexsides (P5.15)."""

    at: str
    removed: tuple[Removed, ...]
    falling_rubble: tuple[str, ...]
    hit: tuple[dict[str, str], ...]
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]
    removed_counters: tuple[Counter, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return _json("place-rubble", {"at": self.at, "allowed": True, "removed": [r.to_json() for r in self.removed],
                                      "falling_rubble": list(self.falling_rubble), "hit": list(self.hit)},
                     (), self.rules(), self.sentences)


def place_rubble(m: Map, at: Hex, chart: Chart | None = None) -> RubblePlacement:
    """Placing a Rubble counter in ``at``: for each Narrow Street hexside of the hex, any roadblock across it is
    eliminated, every unit/Equipment in Bypass along it (in either hex) is hit as by falling rubble
    (B24.121), and the mines along it (in both hexes) are eliminated (P5.15).

    Notes
    -----
    "Eliminates all mines along that hexside (in both hexes)" reads ``judgment.rubble_removes_mines``
    (digest §7.33, [U]): ``"hexes"`` removes the minefields of both hexes, ``"effect"`` only ends their
    effect on that hexside. The falling-rubble attack itself (B24.121) is the caller's to resolve; the ruling
    lists the Bypass positions (and the vehicle/wreck counters there) it hits.
    """
    chart = chart or default_chart()
    name = m.name_of(at)
    ns = [t.hexside for t in m.hexsides_of(at) if t.narrow_street is not None]
    sentences: list[str] = []
    rules: list[str] = ["P5.15"]
    removed: list[Removed] = []
    removed_counters: list[Counter] = []
    falling: list[str] = []
    hit: list[dict[str, str]] = []
    if not ns:
        sentences.append(f"{name} has no Narrow Street hexside: P5.15 does not apply; the Rubble counter affects "
                         "the hex as B24 says (falling rubble, B24.121, is not modelled here).")
        return RubblePlacement(name, (), (), (), ("P5.15", "B24.121"), tuple(sentences))
    mode = chart.judgment("rubble_removes_mines")
    gone: set[int] = set()
    for hs in ns:
        hsn = m.name_of(hs)
        rb = m.roadblock(hs)
        if rb is not None:
            removed.append(Removed("roadblock", hsn))
            removed_counters.append(rb)
            sentences.append(f"The roadblock across {hsn} is eliminated (P5.15).")
        names = []
        for h in m.bypass_hexes(hs):
            names.append(m.name_of(Location(h, bypass=hs)))
            for c in m.counters_at(h):
                if c.at == h and c.type in ("vehicle", "wreck") and c.bypass == hs:
                    hit.append({"what": c.type, "at": names[-1]})
        falling += names
        sentences.append(f"Units and Equipment in Bypass along {hsn} ({', '.join(names)}) are affected as if hit "
                         "by falling rubble (P5.15, B24.121).")
        mines_here = [(h, c) for h in hs.hexes for c in m.mines(h)]
        where = ", ".join(sorted({m.name_of(h) for h, _ in mines_here}))
        if mode.value == "hexes":
            for h, c in mines_here:
                if id(c) not in gone:
                    gone.add(id(c))
                    removed.append(Removed("mines", m.name_of(h), f"{c.kind} {c.strength}"))
                    removed_counters.append(c)
            if mines_here:
                sentences.append(f"The mines along {hsn} are eliminated in both its hexes ({where}) (P5.15; "
                                 f"judgment rubble_removes_mines = hexes).")
        elif mines_here:
            sentences.append(f"The mines of {where} no longer attack along {hsn} (P5.15; judgment "
                             "rubble_removes_mines = effect).")
    sentences.append(f"Bypass along {_names(m, ns)} is NA while the Rubble counter stays (P5.126).")
    rules += ["B24.121", mode.rule, "P5.126"]
    return RubblePlacement(name, tuple(removed), tuple(falling), tuple(hit), tuple(rules), tuple(sentences),
                           tuple(removed_counters))


def apply_rubble(m: Map, placement: RubblePlacement) -> Map:
    """The map after ``placement`` (P5.15): a Rubble counter in its hex, the removed roadblocks and mines gone,
    so that Bypass along its Narrow Street hexsides is then NA (P5.126)."""
    h = m.parse_hex(placement.at)
    gone = {id(c) for c in placement.removed_counters}
    counters = tuple(c for c in m.counters if id(c) not in gone) + (Counter("rubble", at=h),)
    return m.with_counters(counters)


# ================================================================================ removal (P5.1411, P5.142, P5.126)


@dataclass(frozen=True, slots=True)
class RemovalRuling(Explained):
    """Whether an attempt to remove a Narrow Street roadblock (P5.1411), revealed mines (P5.142) or a wreck
    (P5.126) is allowed."""

    what: str
    method: str
    allowed: bool
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return _json("remove", {"what": self.what, "method": self.method, "allowed": self.allowed,
                                **({"reason": self.reason} if self.reason else {})}, (), self.rules(),
                     self.sentences)


REMOVAL_METHODS = {"roadblock": ("clearance", "dc", "direct-fire", "indirect-he"),
                   "mines": ("b28.53", "clearance"),
                   "wreck": ("d10.4",), "vehicle": ("d10.4",)}


def can_remove(m: Map, what: str, method: str, *, hexside: Hexside | None = None, at: Location | None = None,
               from_: Location | None = None, vertex: Vertex | None = None, firer: Location | None = None,
               vs: Location | None = None, chart: Chart | None = None,
               conditions: Conditions | None = None) -> RemovalRuling:
    """Whether this attempt to remove a Narrow Street roadblock (P5.1411), revealed Narrow Street mines
    (P5.142) or a wreck / Immobile vehicle on a Narrow Street (P5.126) is allowed.

    Roadblock on a Narrow Street hexside: Clearance only from the four ground-level Locations touching the
    hexside; a DC only by a unit in one of the three hexes of the vertex it is Placed/Thrown/Set against;
    Direct Fire ordnance only with a LOS to the entire hexside and the roadblock declared its sole target;
    Indirect Fire HE with the proper result vs either ground-level Location forming the hexside. A roadblock
    on any other hexside: B29.5 unchanged. Mines P5.142 forces revealed: B28.53 removal NA. A wreck or
    Immobile vehicle on a Narrow Street: D10.4 removal NA.

    :raises QueryError: for an unknown ``what``/``method`` or a missing key the method needs.
    """
    chart = chart or default_chart()
    if what not in REMOVAL_METHODS:
        raise QueryError(f"what: unknown {what!r}; expected one of {', '.join(REMOVAL_METHODS)}")
    if method not in REMOVAL_METHODS[what]:
        raise QueryError(f"method: {method!r} does not remove a {what}; expected one of "
                         f"{', '.join(REMOVAL_METHODS[what])}")

    def rule(allowed: bool, sentence: str, *rules: str) -> RemovalRuling:
        return RemovalRuling(what, method, allowed, None if allowed else sentence, rules, (sentence + ".",))

    if what == "roadblock":
        if hexside is None:
            raise QueryError("missing key 'hexside': the hexside the roadblock blocks or straddles")
        hsn = m.name_of(hexside)
        if m.hexside(hexside).narrow_street is None:
            return rule(True, f"{hsn} is not a Narrow Street hexside: B29.5 applies unchanged to its roadblock",
                        "B29.5")
        if method == "clearance":
            if from_ is None:
                raise QueryError("missing key 'from': the Location of the unit attempting Clearance")
            four = {*hexside.hexes, *(h for v in hexside.vertices() for h in v.hexes)}
            ok = is_ground_level(m, from_) and from_.hex in four
            where = ", ".join(m.name_of(h) for h in sorted(four))
            return rule(ok, f"Clearance of the Narrow Street roadblock on {hsn} is possible only from the four "
                            f"ground-level Locations touching it ({where}); {m.name_of(from_)} "
                            f"{'is one' if ok else 'is not'}", "P5.1411")
        if method == "dc":
            if from_ is None or vertex is None:
                raise QueryError("missing key 'from' or 'vertex': a DC attempt names the unit's Location and the "
                                 "vertex of the hexside it is Placed/Thrown/Set against")
            if vertex not in hexside.vertices():
                raise QueryError(f"vertex: {m.name_of(vertex)} is not a vertex of {hsn}")
            ok = from_.hex in vertex.hexes
            return rule(ok, f"A DC vs the Narrow Street roadblock on {hsn} is Placed/Thrown/Set vs vertex "
                            f"{m.name_of(vertex)} by a unit in one of its three hexes, and affects nothing but the "
                            f"roadblock; {m.name_of(from_)} {'is' if ok else 'is not'} in one of them", "P5.1411")
        if method == "direct-fire":
            if firer is None:
                raise QueryError("missing key 'firer': the Location of the Direct Fire ordnance")
            j = chart.judgment("roadblock_hexside_los")
            # each end vertex, seen as a point of either hex that forms the hexside (so neither hex's own
            # obstacle is looked through)
            ok = all(los(m, firer, Location(h, vertex=v), chart=chart, conditions=conditions or m.conditions).clear
                     for v in hexside.vertices() for h in hexside.hexes)
            return rule(ok, f"Direct Fire ordnance eliminates the Narrow Street roadblock on {hsn} only with a LOS "
                            f"to the entire hexside (both end vertices: judgment roadblock_hexside_los [{j.tag}]) "
                            "and the roadblock declared its sole target; the attack affects nothing else. "
                            f"{m.name_of(firer)} {'has' if ok else 'lacks'} that LOS", "P5.1411")
        if vs is None:
            raise QueryError("missing key 'vs': the Location the Indirect Fire HE resolves against")
        ok = is_ground_level(m, vs) and vs.hex in hexside.hexes
        return rule(ok, f"Indirect Fire HE eliminates the Narrow Street roadblock on {hsn} with the proper result vs "
                        f"either ground-level Location forming it ({_names(m, hexside.hexes)}); "
                        f"{m.name_of(vs)} {'is one' if ok else 'is not'}", "P5.1411")
    if what == "mines":
        if at is None:
            raise QueryError("missing key 'at': the hex of the mines")
        h = at.hex
        paved = [t.hexside for t in m.hexsides_of(h) if t.narrow_street == "paved"]
        if method == "clearance":
            return rule(True, "P5.142 forbids only B28.53 removal; other mine clearance is unchanged", "P5.142")
        if paved and mines_must_be_revealed(m, h, chart):
            return rule(False, f"mines in {m.name_of(h)} (paved Narrow Street hexside {_names(m, paved)}) were set "
                               "up revealed, and their removal as per B28.53 is NA", "P5.142", "B28.53")
        return rule(True, f"{m.name_of(h)} has no paved Narrow Street hexside forcing its mines revealed: B28.53 "
                          "applies unchanged", "B28.53", "P5.142")
    # wreck / Immobile vehicle
    if at is None:
        raise QueryError("missing key 'at': the Location (or Bypass position) of the wreck")
    hs = narrow_street_of(m, at)
    if hs is None:
        hs = next((c.bypass for c in m.counters_at(at.hex) if c.at == at.hex and c.type == what
                   and c.bypass is not None and m.hexside(c.bypass).narrow_street is not None), None)
    label = "wreck" if what == "wreck" else "Immobile vehicle"
    if hs is not None:
        return rule(False, f"no {label} on a Narrow Street ({m.name_of(hs)}) may be removed as per D10.4",
                    "P5.126", "D10.4")
    return rule(True, f"the {label} at {m.name_of(at)} is not on a Narrow Street: D10.4 applies unchanged",
                "D10.4", "P5.126")


# ============================================================================================ Street Fighting (P5.132)


@dataclass(frozen=True, slots=True)
class StreetFighting(Explained):
    """Street Fighting CC vs a vehicle on a Narrow Street (P5.132)."""

    applies: bool
    vehicle_cc_drm: Fraction
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return _json("street-fighting", {"applies": self.applies, "vehicle_cc_drm": num(self.vehicle_cc_drm),
                                         **({"reason": self.reason} if self.reason else {})},
                     (), self.rules(), self.sentences)


def street_fighting(m: Map, vehicle: Location, attacker: Location, chart: Chart | None = None) -> StreetFighting:
    """A vehicle on a Narrow Street attacked in CC is subject to Street Fighting (A11.8) when its attacker
    occupies the ground level of a building in one of the two hexes of that hexside; a vehicle in CC/Melee on
    a Narrow Street adds +1 to its CC CMG attacks (P5.132)."""
    chart = chart or default_chart()
    m.check_location(vehicle.base())
    m.check_location(attacker.base())
    hs = narrow_street_of(m, vehicle)
    if hs is None:
        return StreetFighting(False, Fraction(0), f"{m.name_of(vehicle)} is not in Bypass along a Narrow Street "
                                                  "hexside (P5.132 does not apply; A11.8 unchanged)",
                              ("P5.132", "A11.8"),
                              (f"{m.name_of(vehicle)} is not on a Narrow Street: P5.132 does not apply.",))
    p = chart.param("street_fighting_cc_drm")
    drm = Fraction(p.value)
    hsn = m.name_of(hs)
    building = m.terrain(attacker.hex).is_building
    ok = attacker.hex in hs.hexes and building and is_ground_level(m, attacker)
    if ok:
        s = (f"The attacker occupies the ground level of the building in {m.name_of(attacker.hex)}, a hex of Narrow "
             f"Street hexside {hsn}: Street Fighting CC applies (P5.132, A11.8).")
        reason = None
    else:
        why = (f"{m.name_of(attacker)} is not a hex of {hsn}" if attacker.hex not in hs.hexes else
               f"{m.name_of(attacker.hex)} is not a building" if not building else
               f"{m.name_of(attacker)} is not the building's ground level")
        reason = f"Street Fighting needs the attacker at the ground level of a building in a hex of {hsn}: {why}"
        s = reason + " (P5.132)."
    return StreetFighting(ok, drm, reason, ("P5.132", "A11.8"),
                          (s, f"The vehicle's own CC CMG attacks while in CC/Melee on the Narrow Street get "
                              f"+{fmt(drm)} ({p.rule})."))


# ============================================================================================ (un)loading, unhooking


@dataclass(frozen=True, slots=True)
class TransferRuling(Explained):
    """Loading, unloading or unhooking from a vehicle on a Narrow Street (P5.124, P5.125)."""

    kind: str
    allowed: bool
    eliminated: bool | None
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        values: dict[str, Any] = {"allowed": self.allowed}
        if self.eliminated is not None:
            values["eliminated"] = self.eliminated
        if self.reason:
            values["reason"] = self.reason
        return _json(self.kind, values, (), self.rules(), self.sentences)


def _transfer(m: Map, kind: str, vehicle: Location, other: Location, what: str) -> TransferRuling:
    """(Un)loading between a vehicle and a Location: from a vehicle in Bypass along a Narrow Street into/from
    either ground-level Location forming that hexside (P5.125), otherwise its own Location only."""
    m.check_location(vehicle.base())
    m.check_location(other.base())
    hs = narrow_street_of(m, vehicle)
    verb = {"unload": "unload into", "load": "load from"}[kind]
    thing = {"squad": "Passengers", "mortar": "A 76-107mm MTR of the Passengers"}.get(what, f"A {what}")
    if hs is None:
        ok = is_ground_level(m, other) and other.hex == vehicle.hex
        s = (f"{m.name_of(vehicle)} is not on a Narrow Street: P5.125 does not apply; {thing} may {verb} the vehicle's "
             f"own Location only (D6.4), and {m.name_of(other)} {'is' if ok else 'is not'} it.")
        return TransferRuling(kind, ok, None, None if ok else s, ("P5.125", "D6.4"), (s,))
    ok = is_ground_level(m, other) and other.hex in hs.hexes
    hooked = " (\"(un)hooked\")" if what == "mortar" else ""
    s = (f"{thing}{hooked} may {verb} either ground-level Location forming Narrow Street hexside {m.name_of(hs)} "
         f"({_names(m, hs.hexes)}); {m.name_of(other)} {'is one' if ok else 'is not'} (P5.125).")
    return TransferRuling(kind, ok, None, None if ok else s, ("P5.125",), (s,))


def can_unload(m: Map, vehicle: Location, to: Location, what: str = "squad") -> TransferRuling:
    """Passengers (and their 76-107mm MTR) may unload from a vehicle on a Narrow Street into either/both
    ground-level Locations forming that hexside (P5.125)."""
    return _transfer(m, "unload", vehicle, to, what)


def can_load(m: Map, vehicle: Location, from_: Location, what: str = "squad") -> TransferRuling:
    """Passengers (and their 76-107mm MTR) may load onto a vehicle on a Narrow Street from either ground-level
    Location forming that hexside (P5.125)."""
    return _transfer(m, "load", vehicle, from_, what)


def can_unhook(m: Map, vehicle: Location, what: str, by: str = "crew") -> TransferRuling:
    """A towed Gun cannot be unhooked while in Bypass along a Narrow Street during play; a trailer may be, only
    by the towing vehicle's crew, and is then eliminated (P5.124)."""
    m.check_location(vehicle.base())
    if what not in ("gun", "trailer"):
        raise QueryError(f"what: expected \"gun\" or \"trailer\", got {what!r}")
    if by not in ("crew", "other"):
        raise QueryError(f"by: expected \"crew\" or \"other\", got {by!r}")
    hs = narrow_street_of(m, vehicle)
    if hs is None:
        s = f"{m.name_of(vehicle)} is not in Bypass along a Narrow Street: P5.124 does not apply (unhooking as usual)."
        return TransferRuling("unhook", True, False if what == "trailer" else None, None, ("P5.124",), (s,))
    hsn = m.name_of(hs)
    if what == "gun":
        s = f"A Gun cannot be unhooked while its towing vehicle is in Bypass along Narrow Street {hsn} (P5.124)."
        return TransferRuling("unhook", False, None, s, ("P5.124",), (s,))
    if by != "crew":
        s = f"A trailer may be unhooked in Bypass along {hsn} only by the crew of the vehicle towing it (P5.124)."
        return TransferRuling("unhook", False, False, s, ("P5.124",), (s,))
    s = (f"The towing vehicle's crew may unhook the trailer in Bypass along {hsn}; the trailer is then eliminated "
         "for all purposes (P5.124).")
    return TransferRuling("unhook", True, True, None, ("P5.124",), (s,))


# ============================================================================================ P4.23 / P4.24


@dataclass(frozen=True, slots=True)
class SniperTarget(Explained):
    """Whether units in a Location are eligible Sniper targets (P4.24)."""

    eligible: bool
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return _json("sniper-target", {"eligible": self.eligible}, (), self.rules(), self.sentences)


def sniper_target(m: Map, at: Location) -> SniperTarget:
    """A unit IN a Stream Culvert is an ineligible Sniper target (P4.24, A14.22)."""
    m.check_location(at.base())
    if at.place == "culvert":
        return SniperTarget(False, ("P4.24", "A14.22"),
                            (f"A unit IN the Stream Culvert {m.name_of(at)} is an ineligible Sniper target (P4.24).",))
    return SniperTarget(True, ("P4.24", "A14.22"),
                        (f"{m.name_of(at)} is not a Stream Culvert: P4.24 does not make its units ineligible "
                         "Sniper targets (A14.22 otherwise applies).",))


@dataclass(frozen=True, slots=True)
class Check:
    """A unit due a Replacement/Disruption check (P4.23, B20.7)."""

    type: str
    at: str
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "at": self.at, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class EndOfPlayerTurn(Explained):
    """The units due a Replacement/Disruption check at the end of a Player Turn (P4.23, B20.7)."""

    checks: tuple[Check, ...]
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def rules(self) -> tuple[str, ...]:
        return distinct([*(c.rule for c in self.checks), *self.rule_refs])

    def to_json(self) -> dict[str, Any]:
        return _json("end-of-player-turn", {"checks": [c.to_json() for c in self.checks]}, (), self.rules(),
                     self.sentences)


def end_of_player_turn(m: Map, units: Sequence[tuple[str, Location]], conditions: Conditions | None = None,
                       chart: Chart | None = None) -> EndOfPlayerTurn:
    """Each Infantry unit IN a Stream Culvert at the end of a Player Turn is due a Replacement/Disruption check
    as if IN a frigid Water Obstacle (P4.23); with frigid conditions, Infantry IN frigid stream water too
    (B20.7).

    Notes
    -----
    ``judgment.culvert_frigid_always`` (digest §7.20, [U]): the culvert check applies whatever the weather.
    """
    chart = chart or default_chart()
    conditions = conditions or m.conditions
    always = chart.judgment("culvert_frigid_always").value
    frigid_depths = chart.param("frigid_water_depths").value
    checks: list[Check] = []
    sentences: list[str] = []
    for typ, loc in units:
        m.check_location(loc.base())
        name = m.name_of(loc)
        if typ != "infantry":
            sentences.append(f"{typ} at {name}: not Infantry, no check (P4.23).")
            continue
        t = m.terrain(loc.hex)
        if loc.place == "culvert" and (always or conditions.frigid):
            checks.append(Check(typ, name, "P4.23"))
            sentences.append(f"Infantry IN the Stream Culvert {name}: Replacement/Disruption check as if IN a frigid "
                             "Water Obstacle (P4.23).")
        elif (conditions.frigid and chart.judgment("frigid_in_stream").value
              and not loc.level and t.is_in_stream(loc.place) and t.stream in frigid_depths):
            checks.append(Check(typ, name, "B20.7"))
            sentences.append(f"Infantry IN frigid stream water at {name}: Replacement/Disruption check (B20.7).")
        else:
            sentences.append(f"Infantry at {name}: no check.")
    if not units:
        sentences.append("No units given.")
    return EndOfPlayerTurn(tuple(checks), ("P4.23",), tuple(sentences))


# ============================================================================================ rubble drm (P5.2, B24.11)


@dataclass(frozen=True, slots=True)
class RubbleDrm(Explained):
    """The drm a building Location adds to rubble determination (B24.11; none for stone in a Steeple, P5.2)."""

    items: tuple[Item, ...]
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    @property
    def drm(self) -> Fraction:
        return total(self.items)

    def rules(self) -> tuple[str, ...]:
        return distinct([*(i.rule for i in self.items), *self.rule_refs])

    def to_json(self) -> dict[str, Any]:
        return _json("rubble-drm", {"drm": num(self.drm), "items": [i.to_json("amount") for i in self.items]},
                     self.items, self.rules(), self.sentences)


def rubble_drm(m: Map, at: Location, building: str | None = None, chart: Chart | None = None) -> RubbleDrm:
    """The rubble-determination drm of a building Location: +1 for stone (B24.11), NA in a Steeple
    Location (P5.2).

    :raises QueryError: when ``at`` is not a building Location or ``building`` is not stone/wooden.
    """
    chart = chart or default_chart()
    m.check_location(at.base())
    t = m.terrain(at.hex)
    if not t.is_building or at.place or at.is_bypass:
        raise QueryError(f"at: {m.name_of(at)} is not a building Location (rubble determination is for buildings)")
    material = building or t.building or "stone"
    if material not in ("stone", "wooden"):
        raise QueryError(f"building: expected \"stone\" or \"wooden\", got {material!r}")
    name = m.name_of(at)
    steeple = t.steeple_level is not None and at.level == t.steeple_level
    p = chart.param("stone_rubble_drm")
    if material == "wooden":
        return RubbleDrm((), ("B24.11",), (f"{name} is a wooden building Location: no stone drm (B24.11).",))
    if steeple:
        return RubbleDrm((), ("P5.2", "B24.11"), (f"{name} is a Steeple Location: the +{fmt(p.value)} drm for stone "
                                                  "rubble determination is NA (P5.2).",))
    return RubbleDrm((Item(p.value, f"stone building Location {name}", p.rule),), (),
                     (f"{name} is a stone building Location: +{fmt(p.value)} drm for rubble determination "
                      f"({p.rule}).",))


def _names(m: Map, xs: Iterable[Hex | Hexside]) -> str:
    return ", ".join(m.name_of(x) for x in xs)
