"""Slope TEM (P2.41) and the Fire Lane slope DRM (P2.42).

Imports: chart, grid, los, model, rulings, units, and effects.common.
"""

from __future__ import annotations

from ..chart import Chart, default_chart
from ..grid import Hex, Hexside, Trace
from ..los import hexsides_entered, location_elevation, los
from ..model import Conditions, Location, Map
from ..rulings import fmt
from ..units import Unit
from .common import SLOPE_TEM_ATTACKS, name_list


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
    if attack not in SLOPE_TEM_ATTACKS:
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
                       f"({name_list(m, downs)}); it enters across {name_list(m, sorted(entered)) or 'none'}")
    return True, f"the LOS crosses Down-Slope hexside {name_list(m, crossed)} of {m.name_of(h)}"


def fire_lane_slope_drm(m: Map, firer: Location, target: Location, chart: Chart | None = None,
                        conditions: Conditions | None = None) -> tuple[bool, str]:
    """Whether a Fire Lane gets the +1 slope DRM vs Infantry in ``target`` (P2.42), and why: the firer is
    Up-Slope from the target on its LOS to it, ¾ level higher, and not adjacent.

    Notes
    -----
    "Up-Slope from" is relative (``judgment.up_slope_relative``, digest §7.3(ii)/§7.9, [U]): the firer
    gets the +¾ on that LOS and the target does not, so both stand on one Base Level. Read otherwise
    (``false``), the firer is Up-Slope whatever the target is, and is measured against the target's own
    elevation (the target's +¾ not counted).
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
    # here the target is not Up-Slope on the LOS, or the judgment is not relative: its own +¾ is not counted
    diff = (location_elevation(m, firer) + rise) - location_elevation(m, target)
    if diff != rise:
        return False, f"the firer is {fmt(diff)} level(s) above {name}, not ¾"
    return True, f"the firer is Up-Slope from {name}, ¾ level higher and not adjacent"
