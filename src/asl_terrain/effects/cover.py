"""The cover a target's own Location gives one attack: the TEM of its terrain (B13.3 Air Burst, B23.3 building
levels vs Indirect Fire, B15.3 grain out of season), IN a stream (B20.3, P4.13), with Crest status (B20.91),
on a bridge (B6), in a culvert or on a Rooftop; walls, hedges and roadblocks on its hexsides (B9.3, B29.3),
the Narrow Street roadblock (P5.141), and B3.3's road-rate exposure (A4.132).

Imports: chart, grid, los, model, rulings, units, and effects.common.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..chart import Chart, Entry
from ..grid import Hex, Hexside, Point, Trace, trace
from ..los import hexsides_entered, location_point
from ..model import Conditions, Location, Map, material_key, seasonal_terrain
from ..rulings import Item, fmt
from ..units import Unit
from .common import AIR_BURST_ATTACKS, SLOPE_TEM_ATTACKS, name_list, tem_column


def _tem_key(m: Map, h: Hex) -> str:
    """The chart entry whose TEM hex ``h``'s terrain gives: rubble, as terrain or a Rubble counter, by its
    material (B24.1, B24.3: the counter makes the hex rubble, as movement and LOS read it too); otherwise the
    hex's own terrain (a building or rubble hex by its material)."""
    t = m.terrain(h)
    return material_key("rubble", t.building) if m.is_rubble(h) else t.chart_key


def _hex_is_open_ground(m: Map, h: Hex, chart: Chart, cond: Conditions) -> bool:
    """Open Ground for B3.3's "other non-Open Ground terrain": the chart's open_ground flag of the hex's
    terrain (grain out of season is Open Ground, B15.3)."""
    t = m.terrain(h)
    if seasonal_terrain(t.terrain, cond.grain_in_season(chart)) == "open":
        return True
    entry = chart.entry(_tem_key(m, h))
    if entry.tem is None:
        return True
    return bool(entry.tem.get("open_ground", not entry.tem.get("direct", 0)))  # a positive TEM is not (A4.6)


@dataclass
class Cover:
    """The target's own TEM for one attack, before the non-cumulative choice."""

    items: list[Item] = field(default_factory=list)       # the hex's own TEM (may be 0 or negative)
    open_ground: bool = True
    sentences: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)


def location_cover(m: Map, target: Location, attack: str, thread: Trace | None, firer: Location | None,
                   chart: Chart, conditions: Conditions, entrenched: bool, snap_shot: Hexside | None,
                   unit: Unit) -> Cover:
    """The TEM the target's Location gives vs this attack (B3.2, B13.3, B20.3, B23.3, P4.2, P4.13, A4.34,
    A9.221)."""
    c = Cover()
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
        og = _open_ground_tem(e, attack, chart, f"the Stream Culvert of {m.name_of(h)}", c)
        c.sentences.append(f"A unit IN the Stream Culvert of {m.name_of(h)} is {og} ({_tem_rule(e)}); "
                           "no attack can affect the culvert itself (P4.24).")
        c.rules.append(_tem_rule(e))
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
        return bridge_tem(m, target, chart, c, attack)
    if t.is_stream:
        return _stream_tem(m, target, attack, thread, firer, chart, conditions, c, entrenched, unit)
    _terrain_tem(m, target, attack, chart, conditions, c, entrenched)
    return c


def bridge_tem(m: Map, target: Location, chart: Chart, c: Cover, attack: str = "small-arms") -> Cover:
    """B6: a unit on a bridge (the base Location of a bridge hex) is in Open Ground on its deck, whatever
    the stream below (chart ``[terrain.bridge]``)."""
    e = chart.entry("bridge")
    deck = f"the {m.terrain(target.hex).bridge} bridge in {m.name_of(target.hex)}"
    og = _open_ground_tem(e, attack, chart, deck, c)
    c.sentences.append(f"A unit on {deck} is {og} ({_tem_rule(e)}).")
    c.rules.append(_tem_rule(e))
    return c


def _open_ground_tem(e: Entry, attack: str, chart: Chart, where: str, c: Cover) -> str:
    """The TEM of terrain whose units the chart rules in Open Ground (a stream, a culvert, a bridge's deck:
    TEM 0, open_ground true): a TEM the chart gives is added (vs this attack's column), and open_ground false
    ends Open Ground. Returns the words for the unit's state."""
    if e.tem is None:
        return "in Open Ground"
    amount = Fraction(e.tem.get(tem_column(attack, chart), e.tem.get("direct", 0)))
    if amount:
        c.items.append(Item(amount, where, e.tem.rule))
    c.open_ground = bool(e.tem.get("open_ground", amount == 0))
    return "in Open Ground" if c.open_ground else "not in Open Ground"


def _tem_rule(e: Entry) -> str:
    return e.tem.rule if e.tem is not None else "B"


def _terrain_tem(m: Map, target: Location, attack: str, chart: Chart, conditions: Conditions, c: Cover,
                 entrenched: bool, rule: str | None = None) -> None:
    """Add the TEM of the terrain of ``target``'s hex vs this attack to ``c``: the chart's Direct or Indirect
    Fire value (B13.3 woods, B23.3 buildings, B12.3 brush, B14.3 orchard, B15.3 grain out of season is Open
    Ground ...), Air Burst instead of the TEM vs Indirect Fire in terrain that has one (B13.3), and +1 per
    building Location above the target's vs Indirect Fire (the chart note on building TEM). ``rule`` names
    the item's rule instead of the chart's (P4.13 for stream-woods/brush/orchard)."""
    h = target.hex
    t = m.terrain(h)
    name = m.name_of(target.base())
    col = tem_column(attack, chart)
    key = _tem_key(m, h)
    if key != seasonal_terrain(key, conditions.grain_in_season(chart)):
        key = "open"
        c.sentences.append(f"Grain in {m.name_of(h)} is out of season: Open Ground (B15.3).")
    e = chart.entry(key)
    if e.tem is None:
        return
    air_burst = e.tem.get("air_burst")
    if air_burst is not None and attack in AIR_BURST_ATTACKS and not entrenched:
        c.items.append(Item(Fraction(air_burst), f"Air Burst in the {e.name.lower()} of {m.name_of(h)} "
                                                 f"(instead of its TEM)", rule or e.tem.rule))
        c.open_ground = False
        return
    amount = Fraction(e.tem.get(col, e.tem.get("direct", 0)))
    og = bool(e.tem.get("open_ground", amount == 0))
    c.open_ground = og
    why = f"{e.name.lower()} in {name}"
    if t.is_building and col == "indirect" and target.place == "" and not m.is_rubble(h):
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
                      c: Cover) -> None:
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
    if not unit.is_infantry or attack not in SLOPE_TEM_ATTACKS + ("ft",) or firer is None:
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
                chart: Chart, conditions: Conditions, c: Cover, entrenched: bool, unit: Unit) -> Cover:
    """A stream hex: IN a plain stream is Open Ground (B20.3); Crest status gives its entrenchment-like TEM
    (B20.91); IN stream-woods/brush/orchard is Open Ground to a LOS from within the hex or within the stream
    depiction as it enters, else the terrain's TEM, and Air Burst applies IN stream-woods (P4.13)."""
    h = target.hex
    t = m.terrain(h)
    if t.terrain == "open":
        e = chart.entry(f"stream-{t.stream}")
        where = "with Crest status in" if target.place == "crest" else "IN"
        og = "in Open Ground"
        if target.place != "crest":  # Crest status: its own TEM (B20.91), below
            og = _open_ground_tem(e, attack, chart, f"{e.name.lower()} {m.name_of(h)}", c)
        c.sentences.append(f"A unit {where} stream hex {m.name_of(h)} with no other terrain is {og} "
                           f"({_tem_rule(e)}).")
        c.rules.append(_tem_rule(e))
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
    if attack in AIR_BURST_ATTACKS and not entrenched and _air_burst_terrain(m, h, chart):
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
                           f"hexside {name_list(m, sorted(entered))}; judgment stream_depiction_entry [{j.tag}])")
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
    e = chart.entry(_tem_key(m, h))
    return e.tem is not None and e.tem.get("air_burst") is not None


def _crosses_segment(p: Point, q: Point, a: Point, b: Point) -> bool:
    """The thread p→q crosses the segment a→b strictly inside both (exact integer orientation tests)."""

    def orient(o: Point, u: Point, v: Point) -> int:
        return (u[0] - o[0]) * (v[1] - o[1]) - (u[1] - o[1]) * (v[0] - o[0])

    d1, d2 = orient(a, b, p), orient(a, b, q)
    d3, d4 = orient(p, q, a), orient(p, q, b)
    return d1 * d2 < 0 and d3 * d4 < 0


def narrow_street_roadblock_items(m: Map, target: Location, target_point: Point, firer_point: Point | None,
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
        key = "residual_fp" if attack == "residual-fp" else tem_column(attack, chart)
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


def hexside_tem_items(m: Map, target: Location, thread: Trace, attack: str, chart: Chart) -> list[Item]:
    """Wall, hedge and (B29) roadblock TEM of a hexside of the target's hex the LOS crosses (B9.3, B29.3)."""
    if target.level or target.place or target.is_bypass:
        return []
    col = tem_column(attack, chart)
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


def road_rate_exposed(m: Map, target: Location, firer: Location, thread: Trace, entered_across: Hexside | None,
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
                      f"({name_list(m, sorted(entered))}) and crosses no other non-Open Ground terrain")
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
           f"{name_list(m, sorted(entered)) or 'no hexside'}, not along the road)")
    return False, f"the LOS is traced through other non-Open Ground terrain: {why}"
