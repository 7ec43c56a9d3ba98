"""VCA changes: on a Narrow Street (P5.123) and elsewhere (D2.11, D2.33)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..chart import Chart, default_chart
from ..errors import QueryError
from ..model import Location, Map
from ..rulings import Item, fmt
from ..units import Unit
from .names import as_unit, parse_location
from .rulings import VcaRuling, _total
from .terrain import _in_vca_obstacle, bypass_ns, checked_location


def vca_change(m: Map, unit: Unit | str | Mapping[str, Any] | None, at: Location | str, hexspines: int, *,
               motion_attempt: bool = False, while_bypassing: bool = False,
               chart: Chart | None = None) -> VcaRuling:
    """The ruling on changing a vehicle's VCA by ``hexspines`` (1-3; 3 is 180 degrees) at ``at``.

    On a Narrow Street (a Bypass position along one) only a motorcycle (1/4 of its printed MP) or a
    very-small vehicle (1/2) may turn, and only 180 degrees (P5.123); any vehicle may as part of Bypass
    movement, at 1 MP per hexspine (MF for a Wagon) (D2.33, P5.11); none during a Motion attempt. Elsewhere
    the D2.11 cost applies: 1 MP per hexspine, 2 in a building, woods or rubble hex when not bypassing.

    Raises
    ------
    QueryError
        For a unit that has no VCA (Infantry, Cavalry) or a hexspine count outside 0-5.

    Examples
    --------
    >>> from asl_terrain.model import load_demo
    >>> r = vca_change(load_demo(), {"type": "motorcycle", "mp": 20}, "L11@K11-L11", 3)
    >>> r.allowed, r.cost
    (True, Fraction(5, 1))
    """
    u = as_unit(unit)
    _check_vca_query(u, hexspines)
    return _ruled_vca(m, u, parse_location(m, at, "at"), hexspines, motion_attempt, while_bypassing, chart)


def rule_vca_change(m: Map, unit: Unit, at: Location, hexspines: int, *, motion_attempt: bool = False,
                    while_bypassing: bool = False, chart: Chart | None = None) -> VcaRuling:
    """:func:`vca_change` for typed values only (``at`` is checked against the map and made canonical)."""
    _check_vca_query(unit, hexspines)
    return _ruled_vca(m, unit, checked_location(m, at, "at"), hexspines, motion_attempt, while_bypassing, chart)


def _check_vca_query(u: Unit, hexspines: int) -> None:
    """A VCA change is for vehicles and Wagons, by 0-5 hexspines."""
    if u.type not in ("vehicle", "motorcycle", "wagon"):
        raise QueryError(f"unit: a VCA change is for vehicles and Wagons, not {u.type}; expected a vehicle, "
                         "motorcycle or wagon")
    if isinstance(hexspines, bool) or not isinstance(hexspines, int) or not 0 <= hexspines <= 5:
        raise QueryError(f"hexspines: expected a whole number 0-5 (3 is a 180-degree turn), got {hexspines!r}")


def _ruled_vca(m: Map, u: Unit, loc: Location, hexspines: int, motion_attempt: bool, while_bypassing: bool,
               chart: Chart | None) -> VcaRuling:
    """The VCA change at checked Location ``loc``: none, on a Narrow Street (P5.123), or elsewhere (D2.11)."""
    ch = chart if chart is not None else default_chart()
    turn = min(hexspines, 6 - hexspines)
    units = "MP" if u.pays_mp else "MF"
    name = m.name_of(loc)

    def ruling(items: list[Item] | None = None, reason: str | None = None, rule: str | None = None) -> VcaRuling:
        if reason is not None:
            return VcaRuling(False, None, units, (), reason, rule, name, turn)
        its = tuple(items or ())
        return VcaRuling(True, _total(its), units, its, None, None, name, turn)

    if turn == 0:
        return ruling([Item(Fraction(0), "no hexspine is changed: the VCA stays as it is",
                            ch.param("vca_change_mp").rule)])
    if loc.is_bypass and bypass_ns(loc, m):
        return ruling(*_narrow_street_vca(u, turn, units, ch, motion_attempt, while_bypassing))
    return ruling(_vca_items(m, loc, turn, ch, while_bypassing))


def _narrow_street_vca(u: Unit, turn: int, units: str, ch: Chart, motion_attempt: bool,
                       while_bypassing: bool) -> tuple[list[Item] | None, str | None, str | None]:
    """A VCA change on a Narrow Street, as (items, reason, rule): none as part of a Motion attempt (P5.123);
    1 MP (MF for a Wagon) a hexspine as part of Bypass movement (D2.33, P5.11's EXC); otherwise only 180
    degrees, by a motorcycle for 1/4 of its printed MP or a very small vehicle for 1/2 (P5.123)."""
    p = ch.param
    s = "s" if turn > 1 else ""
    if motion_attempt:
        return None, "no vehicle may change its VCA as part of a Motion attempt on a Narrow Street", "P5.123"
    if while_bypassing:
        per = Fraction(p("vca_change_mp").value)
        return [Item(per * turn, f"VCA change of {turn} hexspine{s} during Bypass on a Narrow Street (still 1 "
                                 f"{units} each)", "P5.11")], None, None
    if turn != 3:
        return None, ("on a Narrow Street a vehicle may change its VCA only 180 degrees (a motorcycle or a very "
                      "small vehicle), or as part of Bypass movement"), "P5.123"
    if u.type == "motorcycle":
        f = Fraction(p("motorcycle_vca_180_fraction").value)
        return [Item(f * u.mp, f"a motorcycle turns 180 degrees on a Narrow Street for {fmt(f)} of its printed "
                               f"{u.mp} MP", "P5.123")], None, None
    if u.pays_mp and u.target_size == "very-small":
        f = Fraction(p("very_small_vca_180_fraction").value)
        return [Item(f * u.mp, f"a very small vehicle turns 180 degrees on a Narrow Street for {fmt(f)} of its "
                               f"printed {u.mp} MP", "P5.123")], None, None
    return None, ("on a Narrow Street only a motorcycle or a very small vehicle may change its VCA (other than in "
                  "Bypass movement, D2.33)"), "P5.123"


def _vca_items(m: Map, loc: Location, turn: int, ch: Chart, while_bypassing: bool) -> list[Item]:
    """A VCA change off a Narrow Street: 1 MP a hexspine (D2.11), also in Bypass (D2.33), 2 in a building,
    woods or rubble hex when not bypassing (D2.11)."""
    p = ch.param
    s = "s" if turn > 1 else ""
    per = Fraction(p("vca_change_mp").value)
    if loc.is_bypass and while_bypassing:
        return [Item(per * turn, f"VCA change of {turn} hexspine{s} in Bypass", "D2.33")]
    if not loc.is_bypass and _in_vca_obstacle(m, loc.hex, tuple(p("vca_obstacle_terrain").value)):
        per2 = Fraction(p("vca_change_in_obstacle_mp").value)
        return [Item(per2 * turn, f"VCA change of {turn} hexspine{s} in {m.terrain(loc.hex).terrain} "
                                  f"{m.name_of(loc)}", "D2.11")]
    return [Item(per * turn, f"VCA change of {turn} hexspine{s}", "D2.11")]
