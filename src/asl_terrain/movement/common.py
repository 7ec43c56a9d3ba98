"""The cost items and the prohibition every kind of entry shares (into an adjacent hex, into Bypass, up a
level of a building): the hexside extras, the climb, SMOKE, vehicles in the hex entered, P2.54's weather flag,
what spoils the B3.4 road bonus, and no entry into a Blaze."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from ..grid import Hex, Hexside
from ..model import HexsideTerrain, HexTerrain
from ..rulings import Item
from .context import Context
from .rulings import ZERO, Prohibition
from .terrain import road_bonus_spoilers

P2_54_NOTE = ("P2.54: in rain or snow, E3.54/E3.723 would apply to this change of elevation; the E3 weather rules "
              "are not modelled.")


_T = TypeVar("_T")
_R = TypeVar("_R", bound=Callable[..., Any])


def answers_only_if(applies: Callable[[Context], bool]) -> Callable[[_R], _R]:
    """Mark a rule that can answer only in a context where ``applies(c)`` holds (a Narrow Street rule on a map
    with none, a Dash rule outside a Dash): :func:`rulebook` leaves it out of the rules asked elsewhere,
    where it would answer nothing."""

    def mark(rule: _R) -> _R:
        setattr(rule, "applies", applies)
        return rule

    return mark


def rulebook(c: Context, rules: tuple[_R, ...]) -> tuple[_R, ...]:
    """The rules of ``rules`` that can answer in context ``c`` (:func:`answers_only_if`), in their order;
    made once per context."""
    got = c._rulebooks.get(rules)
    if got is None:
        got = c._rulebooks[rules] = tuple(r for r in rules if _applies(r, c))
    return got


def _applies(rule: Callable[..., Any], c: Context) -> bool:
    """Whether ``rule`` can answer in ``c`` (unmarked rules always can)."""
    applies = getattr(rule, "applies", None)
    return applies is None or bool(applies(c))


def can_meet_blaze(c: Context) -> bool:
    """Whether :func:`blaze_prohibition` can forbid anything in ``c``: the judgment in force and a Blaze on the
    map."""
    return bool(c.judgment_calls.blaze_entry_na.value) and c.has_counters("blaze")


def first_prohibition(rules: Sequence[Callable[[_T], Prohibition | None]], x: _T) -> Prohibition | None:
    """The first prohibition of ``rules`` (asked in order) that forbids ``x``, or None."""
    for rule in rules:
        p = rule(x)
        if p is not None:
            return p
    return None


def blaze_prohibition(c: Context, h: Hex) -> Prohibition | None:
    """Entering a Blaze Location is NA (B25; judgment blaze_entry_na): shared by every kind of entry."""
    if c.judgment_calls.blaze_entry_na.value and c.m.has_counter(h, "blaze"):
        return Prohibition(f"{c.n(h)} holds a Blaze", "B25")
    return None


def hexside_items(c: Context, a: Hex, hs: Hexside, hst: HexsideTerrain, items: list[Item]) -> None:
    """Hexside extras added to (not doubled with) the COT (P2.51 EX): wall, hedge, fence (+1 & COT for
    Infantry, B9.4, P3.2), a B29 roadblock (as a wall, B29.4), Up-Slope (+½ MF, P2.51; +1 MP, P2.52)
    and the skis bonus for crossing Down-Slope (-½ MF, P2.51)."""
    for key, present in (("wall", hst.wall), ("hedge", hst.hedge), ("bocage", hst.bocage),
                         ("fence", hst.fence)):
        if present:
            v, rule, _, name = c.cost(key)
            if isinstance(v, Fraction) and v:
                items.append(Item(v, f"crosses {name.lower()} hexside {c.n(hs)}", rule))
    if hst.narrow_street is None and c.m.roadblock(hs) is not None:
        v, rule, _, name = c.cost("roadblock")
        if isinstance(v, Fraction) and v:
            items.append(Item(v, f"crosses the roadblock on {c.n(hs)} (as a wall)", rule))
    if hst.slope is None:
        return
    if hst.slope == a:
        items.append(Item(c.up_slope, f"moves Up-Slope across slope hexside {c.n(hs)}",
                          "P2.52" if c.k.pays_mp else "P2.51"))
    elif c.k.inf and c.unit.skis:
        items.append(Item(-c.parameters.skis_down_slope_bonus_mf.value,
                          f"skis: bonus for crossing slope hexside {c.n(hs)} Down-Slope", "P2.51"))


def climb_items(c: Context, cot: Fraction, levels: int, road: bool, hs: Hexside, items: list[Item]) -> None:
    """Going up across a Crest Line: Infantry/Cavalry pay the COT twice (B10.4; the road rate 1 x 2,
    B3.4); a vehicle pays +4 MP per level, halved to +2 across a road hexside at the road rate (B3.41)."""
    if levels <= 0:
        return
    if not c.k.pays_mp:
        extra = cot * (c.parameters.cot_doubled_up.value - 1) if c.doubles_cot else ZERO
        if extra:
            items.append(Item(extra, f"COT doubled: climbs across Crest Line {c.n(hs)}",
                              "B3.4" if road else "B10.4"))
    else:
        per = c.parameters.vehicle_up_level_road_mp.value if road else c.parameters.vehicle_up_level_mp.value
        items.append(Item(per * levels, f"climbs {levels} level{'s' if levels > 1 else ''} across Crest "
                                        f"Line {c.n(hs)}" + (" at the road rate" if road else ""),
                          "B3.41" if road else "B10.4"))


def smoke_item(c: Context, h: Hex) -> Item:
    """SMOKE in the Location entered: artificial terrain, +1 to the COT (B.2)."""
    return Item(c.parameters.smoke_cot.value, f"SMOKE in {c.n(h)} (part of the COT)", "B.2")


def vehicle_items(c: Context, h: Hex, road: bool) -> list[Item]:
    """The penalty for entering a hex that holds vehicles/wrecks: +1 MP each (D2.14), +2 each across a
    road hexside at the road rate (B3.42); none for units that pay MF."""
    if not c.k.pays_mp:
        return []
    nv = len(c.m.vehicles(h))
    if not nv:
        return []
    per = c.parameters.vehicle_in_hex_road_mp.value if road else c.parameters.vehicle_in_hex_mp.value
    return [Item(per * nv, f"{nv} vehicle/wreck{'s' if nv > 1 else ''} in {c.n(h)}"
                 + (" entered at the road rate" if road else ""), "B3.42" if road else "D2.14")]


def weather_flag(c: Context, hst: HexsideTerrain, ta: HexTerrain, tb: HexTerrain) -> bool:
    """Whether P2.54 flags this crossing: rain or snow (E3.54/E3.723, the chart's
    ``elevation_change_weather``) with a slope hexside crossed or a change of elevation across a Crest
    Line."""
    return c.elevation_change_weather and (hst.slope is not None or (hst.crest and tb.level != ta.level))


def keeps_bonus(c: Context, hexes: Sequence[Hex], hst: HexsideTerrain | None) -> bool:
    """Whether a road move into ``hexes`` leaves the B3.4 road bonus possible: nothing in them spoils it,
    no roadblock is met on the hexside crossed, and no fence is crossed (judgment
    fence_denies_road_bonus: the fence is the Wire B3.4 names); a slope does not cost it (P2.51)."""
    return c.bonus_unit and not bonus_spoilers(c, hexes, hst)


def bonus_spoilers(c: Context, hexes: Sequence[Hex], hst: HexsideTerrain | None) -> list[str]:
    """What a road move into ``hexes`` across ``hst`` meets that spoils the B3.4 road bonus, named: the
    fence (judgment fence_denies_road_bonus), a roadblock on the hexside, and :func:`road_bonus_spoilers`."""
    out: list[str] = []
    if hst is not None and c.judgment_calls.fence_denies_road_bonus.value and hst.fence:
        tag = c.chart.judgment("fence_denies_road_bonus").tag
        out.append(f"the barbed-wire fence on {c.n(hst.hexside)} (judgment fence_denies_road_bonus [{tag}])")
    if hst is not None and c.m.roadblock(hst.hexside) is not None:
        out.append(f"the roadblock on {c.n(hst.hexside)}")
    for h in hexes:
        if h in c.m:
            out += road_bonus_spoilers(c.m, h)
    return out
