"""Moves between levels and into Stream Culverts: the same upper level of an adjacent hex of one building
(B23.42), a change of Location inside one hex (stairwells B23.42, P5.2, P5.3; Crest status B20.91, P4.22),
and entering a Stream Culvert (P4.21).

Each rule is a function named for what it decides, citing its rule, put in its place in an ordered tuple:
the prohibitions return a :class:`Prohibition` or None (the first that answers forbids the move), the ways
of changing Location inside a hex return a ruling, a Prohibition or None (the first that answers decides).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

from ..errors import QueryError
from ..model import HexsideTerrain, HexTerrain, Location
from ..rulings import Item
from .common import blaze_prohibition, climb_items, first_prohibition
from .context import Context
from .rulings import MoveRuling, Prohibition
from .terrain import crest_status_problem, culvert_entry_problem


# ============================================================================================ a building's upper level


class _LevelEntry(NamedTuple):
    """What the rules of entering an adjacent hex's upper building level read."""

    c: Context
    frm: Location
    to: Location
    ta: HexTerrain
    tb: HexTerrain


def only_same_level_of_same_building(e: _LevelEntry) -> Prohibition | None:
    """Between hexes a unit moves at one upper level only within the same building; any other change of
    level goes by a stairwell inside one hex (B23.42)."""
    lv, ta, tb = e.frm.level, e.ta, e.tb
    same = (lv == e.to.level and lv >= 1 and ta.is_building and tb.is_building and ta.building_id is not None
            and ta.building_id == tb.building_id and lv <= tb.building_levels and lv <= ta.building_levels)
    if not same:
        return Prohibition("a unit changes building level only by a stairwell inside one hex, and moves between "
                           "hexes at one level only within the same building", "B23.42")
    return None


def no_upper_level_into_blaze(e: _LevelEntry) -> Prohibition | None:
    """Entering a Blaze Location is NA (B25; judgment blaze_entry_na)."""
    return blaze_prohibition(e.c, e.tb.hex)


def building_not_enterable(e: _LevelEntry) -> Prohibition | None:
    """A unit whose chart column prices no building entry (NA or ALL) may not enter its levels (the chart
    entry's rule)."""
    v, rule, _, _ = e.c.cost("building")
    if v == "NA" or v == "ALL":
        return Prohibition(f"{e.c.k.desc} may not enter a building", rule)
    return None


#: what forbids entering the same upper level of an adjacent hex, asked in order
BUILDING_LEVEL_PROHIBITIONS: tuple[Callable[[_LevelEntry], Prohibition | None], ...] = (
    only_same_level_of_same_building,
    no_upper_level_into_blaze,
    building_not_enterable,
)


def building_level_entry(c: Context, frm: Location, to: Location, hst: HexsideTerrain, ta: HexTerrain,
                         tb: HexTerrain) -> MoveRuling | Prohibition:
    """Moving between the same upper level of two hexes of one building: the building's COT, doubled going
    up across a Crest Line (B23.42, B10.4), unless one of :data:`BUILDING_LEVEL_PROHIBITIONS` forbids it."""
    no = first_prohibition(BUILDING_LEVEL_PROHIBITIONS, _LevelEntry(c, frm, to, ta, tb))
    if no is not None:
        return no
    v, rule, _, _ = c.cost("building")
    items = [Item(v, f"COT: enters level {frm.level} of building {c.n(tb.hex)}", rule)]
    up = tb.level - ta.level if (hst.crest and tb.level > ta.level) else 0
    climb_items(c, v, up, False, hst.hexside, items)
    return c.ok(frm, to, items)


# ============================================================================================ a Stream Culvert


class _CulvertEntry(NamedTuple):
    """What the rules of entering a Stream Culvert read."""

    c: Context
    frm: Location
    tb: HexTerrain


def culvert_not_entered_from_here(e: _CulvertEntry) -> Prohibition | None:
    """A Stream Culvert is entered only from IN an ADJACENT stream (or culvert) Location, never when the
    stream is flooded (P4.21; :func:`culvert_entry_problem`)."""
    return culvert_entry_problem(e.c.m, e.frm, e.tb.hex)


def culvert_only_for_infantry(e: _CulvertEntry) -> Prohibition | None:
    """Only Infantry enter a Stream Culvert: no 5/8-inch vehicle or Gun counter (P4.21; the chart's
    ``culvert`` entry)."""
    if e.c.cost("culvert")[0] == "NA":
        return Prohibition(f"{e.c.k.desc} may not enter a Stream Culvert (only Infantry; no 5/8-inch vehicle or Gun "
                           "counter)", "P4.21")
    return None


def culvert_stream_not_enterable(e: _CulvertEntry) -> Prohibition | None:
    """A culvert is entered as INTO its stream: a stream the unit may not enter closes its culvert (the
    chart's stream entry)."""
    sv, srule, _, sname = e.c.cost(f"stream-{e.tb.stream or 'shallow'}")
    if sv == "NA":
        return Prohibition(f"the stream in {e.c.n(e.tb.hex)} cannot be entered ({sname})", srule)
    return None


#: what forbids entering a Stream Culvert, asked in order
CULVERT_PROHIBITIONS: tuple[Callable[[_CulvertEntry], Prohibition | None], ...] = (
    culvert_not_entered_from_here,
    culvert_only_for_infantry,
    culvert_stream_not_enterable,
)


def culvert_entry(c: Context, frm: Location, to: Location, tb: HexTerrain) -> MoveRuling | Prohibition:
    """Entering a Stream Culvert as if INTO another hex of that stream: the stream's depth cost (P4.21),
    unless one of :data:`CULVERT_PROHIBITIONS` forbids it."""
    no = first_prohibition(CULVERT_PROHIBITIONS, _CulvertEntry(c, frm, tb))
    if no is not None:
        return no
    depth = tb.stream or "shallow"
    sv = c.cost(f"stream-{depth}")[0]
    if sv == "ALL":
        return c.all_ruling(frm, to, f"the Stream Culvert of {c.n(tb.hex)}", "P4.21", False)
    items = [Item(sv, f"enters the Stream Culvert of {c.n(tb.hex)} as INTO the {depth} stream", "P4.21")]
    return c.ok(frm, to, items)


# ============================================================================================ inside one hex


class _LevelChange(NamedTuple):
    """What the rules of a change of Location inside one hex read."""

    c: Context
    frm: Location
    to: Location
    t: HexTerrain


def no_culvert_from_its_own_hex(x: _LevelChange) -> Prohibition | None:
    """A Stream Culvert is entered and left only through an ADJACENT stream or culvert Location (P4.21)."""
    if "culvert" in (x.frm.place, x.to.place):
        return Prohibition("a Stream Culvert is entered and left only through an ADJACENT stream or culvert "
                           "Location", "P4.21")
    return None


def crest_status_change(x: _LevelChange) -> MoveRuling | Prohibition | None:
    """IN a stream to Crest status and back (B20.91; P4.22 and B20.44 may forbid gaining it). Crest status
    for vehicles and Wagons (B20.92) is not modelled: asking for it is a bad query."""
    c, frm, to = x.c, x.frm, x.to
    if {frm.place, to.place} != {"", "crest"}:
        return None
    if not (c.k.inf or c.k.cav):
        raise QueryError("to: Crest status for vehicles and Wagons (B20.92) is not modelled by this engine; "
                         "expected an Infantry or Cavalry unit")
    h = frm.hex
    if to.place == "crest":
        no = crest_status_problem(c.m, h, None)
        if no:
            return no
        why = f"gains Crest status in {c.n(h)} from IN the stream"
    else:
        why = f"leaves Crest status for IN the stream in {c.n(h)}"
    return c.ok(frm, to, [Item(c.parameters.crest_status_mf.value, why, "B20.91")])


def building_levels_only_for_infantry(x: _LevelChange) -> Prohibition | None:
    """Only Infantry enter building levels (B23.41)."""
    return None if x.c.k.inf else Prohibition(f"{x.c.k.desc} may not enter building levels", "B23.41")


def no_stairwell(x: _LevelChange) -> Prohibition | None:
    """A building's levels are linked only where it has a stairwell, mapped or inherent (B23.42)."""
    if not x.t.has_stairwell:
        return Prohibition(f"{x.c.n(x.frm.hex)} has no stairwell: its levels are not linked there", "B23.42")
    return None


#: what forbids climbing or descending a stairwell, asked in order
STAIRWELL_PROHIBITIONS: tuple[Callable[[_LevelChange], Prohibition | None], ...] = (
    building_levels_only_for_infantry,
    no_stairwell,
)


def stairwell_climb(x: _LevelChange) -> MoveRuling | Prohibition | None:
    """Building levels by stairwell, 1 MF a level (B23.42), the stairwell mapped or inherent in a steeple hex
    (P5.2) or a single-hex two-story house (P5.3), unless one of :data:`STAIRWELL_PROHIBITIONS` forbids it."""
    c, frm, to, t = x
    if not (frm.place == "" and to.place == "" and t.is_building):
        return None
    no = first_prohibition(STAIRWELL_PROHIBITIONS, x)
    if no is not None:
        return no
    d = abs(to.level - frm.level)
    way = "climbs" if to.level > frm.level else "descends"
    # the stairwell's source is named; the cost stays B23.42's
    stair = ("stairwell" if t.stairwell else "steeple's inherent stairwell (P5.2)" if t.steeple
             else "inherent stairwell of a single-hex two-story house (P5.3)")
    inherent = () if t.stairwell else ("P5.2",) if t.steeple else ("P5.3",)
    r = c.ok(frm, to, [Item(c.parameters.stairwell_mf.value * d, f"{way} {d} level{'s' if d > 1 else ''} by the "
                                                  f"{stair} of {c.n(frm.hex)}", "B23.42")])
    return replace(r, note_rules=inherent) if inherent else r


def no_other_link(x: _LevelChange) -> Prohibition:
    """No other move links two Locations of one hex (B23.42): always decides."""
    return Prohibition(f"no move links {x.c.n(x.frm)} and {x.c.n(x.to)}", "B23.42")


#: the ways of changing Location inside one hex, asked in order; the last always decides
LEVEL_CHANGES: tuple[Callable[[_LevelChange], MoveRuling | Prohibition | None], ...] = (
    no_culvert_from_its_own_hex,
    crest_status_change,
    stairwell_climb,
    no_other_link,
)


def level_change(c: Context, frm: Location, to: Location) -> MoveRuling:
    """A change of Location inside one hex: the first of :data:`LEVEL_CHANGES` that answers."""
    x = _LevelChange(c, frm, to, c.m.terrain(frm.hex))
    for rule in LEVEL_CHANGES:
        r = rule(x)
        if r is not None:
            return c.na(frm, to, r) if isinstance(r, Prohibition) else r
    raise AssertionError("no level change rule decided")  # the last one always decides
