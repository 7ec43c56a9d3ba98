"""The TEM of one attack as a rulebook (queries.md ``tem``): the decisions that say an attack cannot
affect the target (P4.24, A6.1, P2.42), then the TEM/DRM rules in the order of ``_TEM_RULES``, each citing its
rule, then the Fire Group choice (A7.5, A.5).

Imports: chart, errors, grid, los, model, rulings, units, and effects.common/cover/slope.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..chart import Chart, default_chart
from ..errors import QueryError
from ..grid import Hexside, Trace, Vertex, example_vertex
from ..los import LosRuling, location_elevation, location_point, los
from ..model import Conditions, Location, Map
from ..rulings import Item, distinct, fmt, num, total
from ..units import Unit
from .common import ATTACKS, INDIRECT_ATTACKS, NO_FIRER, Attack, MovedBy, ruling_json, tem_column
from .cover import hexside_tem_items, location_cover, narrow_street_roadblock_items, road_rate_exposed
from .slope import down_slope_hexsides, fire_lane_slope_drm, has_slope_tem_hexsides, slope_tem_applies


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
        return ruling_json("tem", values, (), self.rules(), [self.explain()])


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
    if c.target.place == "culvert" and (c.attack in INDIRECT_ATTACKS or c.attack == "aerial"):
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
    cover = location_cover(c.m, c.target, c.attack, c.thread, c.firer, c.chart, c.conditions, c.entrenched,
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
    exposed, why = road_rate_exposed(m, target, c.firer, c.thread, c.entered_across, c.chart, c.conditions)
    if exposed:
        return t.said(f"The unit entered at the road rate and {why}: it is subject to Interdiction/FFMO instead "
                      "of the TEM of the other terrain (B3.3).", "B3.3", own=(), open_ground=True)
    return t.said(f"The unit entered at the road rate, but {why}: it keeps the TEM (B3.3).", "B3.3")


def entrenchment_tem(c: _Attack, t: _Tally) -> _Tally:
    """B27.1: an entrenched target's TEM (its own value vs Indirect Fire)."""
    if not c.entrenched:
        return t
    indirect = tem_column(c.attack, c.chart) == "indirect"
    p = c.chart.param("entrenchment_indirect_tem" if indirect else "entrenchment_tem")
    return replace(t, entrenchment=Item(p.value, "entrenchment" + (" vs Indirect Fire" if indirect else ""), p.rule))


def wall_and_hedge_tem(c: _Attack, t: _Tally) -> _Tally:
    """B9.3, B9.32, B29.3: walls, hedges and roadblocks on the LOS give TEM to a target holding Wall Advantage."""
    if c.thread is None or c.attack == "residual-fp":
        return t
    walls = hexside_tem_items(c.m, c.target, c.thread, c.attack, c.chart)
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
    items, sentences, rules = narrow_street_roadblock_items(c.m, c.target, location_point(c.aim), fp, c.attack,
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


def tem(m: Map, target: Location, firers: Sequence[Location] = (), attack: Attack = "small-arms", *,
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
    firers = tuple(firers)
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
