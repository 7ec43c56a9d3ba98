"""Removing a Narrow Street roadblock (P5.1411), revealed Narrow Street mines (P5.142) or a wreck on a Narrow
Street (P5.126), as a rulebook (queries.md ``remove``).

Imports: chart, errors, grid, los, model, rulings, setup, and effects.common.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..chart import Chart, default_chart
from ..errors import QueryError
from ..grid import Hexside, Vertex
from ..los import los
from ..model import Conditions, Location, Map
from ..rulings import Explained
from ..setup import mines_must_be_revealed
from .common import is_ground_level, name_list, narrow_street_of, ruling_json


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
        return ruling_json("remove", {"what": self.what, "method": self.method, "allowed": self.allowed,
                                      **({"reason": self.reason} if self.reason else {})}, (), self.rules(),
                           self.sentences)


#: what a ``remove`` query removes, and how (the engine's typed choices; ``ask`` parses the names)
Removable = Literal["roadblock", "mines", "wreck", "vehicle"]
RemovalMethod = Literal["clearance", "dc", "direct-fire", "indirect-he", "b28.53", "d10.4"]
REMOVAL_METHODS: dict[Removable, tuple[RemovalMethod, ...]] = {
    "roadblock": ("clearance", "dc", "direct-fire", "indirect-he"), "mines": ("b28.53", "clearance"),
    "wreck": ("d10.4",), "vehicle": ("d10.4",)}


def can_remove(m: Map, what: Removable, method: RemovalMethod, *, hexside: Hexside | None = None, at: Location | None = None,
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
    c = _Attempt(m, chart, conditions or m.conditions, what, method, hexside, at, from_, vertex, firer, vs)
    for rule in _REMOVAL_RULES[what]:
        ruling = rule(c)
        if ruling is not None:
            return ruling
    raise AssertionError(f"no removal rule decided {what!r} by {method!r}")  # each tuple ends with one that decides


# ------------------------------------------------------------------------------- removal as a rulebook
#
# The rules of the thing removed are asked in order and the first that answers decides; a rule for another
# method answers None. A new restriction is one function, put in its place in ``_REMOVAL_RULES``.


@dataclass(frozen=True, slots=True)
class _Attempt:
    """What the removal rules read: the attempt as asked."""

    m: Map
    chart: Chart
    conditions: Conditions
    what: str
    method: str
    hexside: Hexside | None
    at: Location | None
    from_: Location | None
    vertex: Vertex | None
    firer: Location | None
    vs: Location | None

    def rule(self, allowed: bool, sentence: str, *rules: str) -> RemovalRuling:
        return RemovalRuling(self.what, self.method, allowed, None if allowed else sentence, rules, (sentence + ".",))

    def side(self) -> Hexside:
        if self.hexside is None:
            raise QueryError("missing key 'hexside': the hexside the roadblock blocks or straddles")
        return self.hexside

    def place(self, of: str) -> Location:
        if self.at is None:
            raise QueryError(f"missing key 'at': {of}")
        return self.at


def roadblock_off_a_narrow_street(c: _Attempt) -> RemovalRuling | None:
    """B29.5: a roadblock on a hexside that is no Narrow Street is removed as B29.5 says."""
    hs = c.side()
    if c.m.hexside(hs).narrow_street is None:
        return c.rule(True, f"{c.m.name_of(hs)} is not a Narrow Street hexside: B29.5 applies unchanged to its "
                            "roadblock", "B29.5")
    return None


def clearance_from_the_four_locations(c: _Attempt) -> RemovalRuling | None:
    """P5.1411: Clearance of a Narrow Street roadblock only from the four ground-level Locations touching it."""
    if c.method != "clearance":
        return None
    m, hs = c.m, c.side()
    if c.from_ is None:
        raise QueryError("missing key 'from': the Location of the unit attempting Clearance")
    four = {*hs.hexes, *(h for v in hs.vertices() for h in v.hexes)}
    ok = is_ground_level(m, c.from_) and c.from_.hex in four
    where = ", ".join(m.name_of(h) for h in sorted(four))
    return c.rule(ok, f"Clearance of the Narrow Street roadblock on {m.name_of(hs)} is possible only from the four "
                      f"ground-level Locations touching it ({where}); {m.name_of(c.from_)} "
                      f"{'is one' if ok else 'is not'}", "P5.1411")


def dc_against_a_vertex(c: _Attempt) -> RemovalRuling | None:
    """P5.1411: a DC vs a Narrow Street roadblock is Placed/Thrown/Set vs a vertex of its hexside by a unit in
    one of that vertex's three hexes."""
    if c.method != "dc":
        return None
    m, hs, frm, v = c.m, c.side(), c.from_, c.vertex
    if frm is None or v is None:
        raise QueryError("missing key 'from' or 'vertex': a DC attempt names the unit's Location and the "
                         "vertex of the hexside it is Placed/Thrown/Set against")
    if v not in hs.vertices():
        raise QueryError(f"vertex: {m.name_of(v)} is not a vertex of {m.name_of(hs)}")
    ok = frm.hex in v.hexes
    return c.rule(ok, f"A DC vs the Narrow Street roadblock on {m.name_of(hs)} is Placed/Thrown/Set vs vertex "
                      f"{m.name_of(v)} by a unit in one of its three hexes, and affects nothing but the "
                      f"roadblock; {m.name_of(frm)} {'is' if ok else 'is not'} in one of them", "P5.1411")


def direct_fire_with_los_to_the_hexside(c: _Attempt) -> RemovalRuling | None:
    """P5.1411: Direct Fire ordnance eliminates a Narrow Street roadblock only with a LOS to the entire hexside
    (judgment roadblock_hexside_los: both end vertices)."""
    if c.method != "direct-fire":
        return None
    m, hs, firer = c.m, c.side(), c.firer
    if firer is None:
        raise QueryError("missing key 'firer': the Location of the Direct Fire ordnance")
    j = c.chart.judgment("roadblock_hexside_los")
    # each end vertex, seen as a point of either hex that forms the hexside (so neither hex's own
    # obstacle is looked through)
    ok = all(los(m, firer, Location(h, vertex=v), chart=c.chart, conditions=c.conditions).clear
             for v in hs.vertices() for h in hs.hexes)
    return c.rule(ok, f"Direct Fire ordnance eliminates the Narrow Street roadblock on {m.name_of(hs)} only with a "
                      f"LOS to the entire hexside (both end vertices: judgment roadblock_hexside_los [{j.tag}]) "
                      "and the roadblock declared its sole target; the attack affects nothing else. "
                      f"{m.name_of(firer)} {'has' if ok else 'lacks'} that LOS", "P5.1411")


def indirect_he_vs_a_forming_location(c: _Attempt) -> RemovalRuling | None:
    """P5.1411: Indirect Fire HE eliminates a Narrow Street roadblock with the proper result vs either
    ground-level Location forming its hexside."""
    if c.method != "indirect-he":
        return None
    m, hs, vs = c.m, c.side(), c.vs
    if vs is None:
        raise QueryError("missing key 'vs': the Location the Indirect Fire HE resolves against")
    ok = is_ground_level(m, vs) and vs.hex in hs.hexes
    return c.rule(ok, f"Indirect Fire HE eliminates the Narrow Street roadblock on {m.name_of(hs)} with the proper "
                      f"result vs either ground-level Location forming it ({name_list(m, hs.hexes)}); "
                      f"{m.name_of(vs)} {'is one' if ok else 'is not'}", "P5.1411")


def mine_clearance_unchanged(c: _Attempt) -> RemovalRuling | None:
    """P5.142 forbids only B28.53 removal: other mine clearance is unchanged."""
    c.place("the hex of the mines")
    if c.method == "clearance":
        return c.rule(True, "P5.142 forbids only B28.53 removal; other mine clearance is unchanged", "P5.142")
    return None


def revealed_mines_not_removed_per_b28_53(c: _Attempt) -> RemovalRuling:
    """P5.142: mines set up revealed beside a paved Narrow Street cannot be removed as per B28.53."""
    m, h = c.m, c.place("the hex of the mines").hex
    paved = [t.hexside for t in m.hexsides_of(h) if t.narrow_street == "paved"]
    if paved and mines_must_be_revealed(m, h, c.chart):
        return c.rule(False, f"mines in {m.name_of(h)} (paved Narrow Street hexside {name_list(m, paved)}) were set "
                             "up revealed, and their removal as per B28.53 is NA", "P5.142", "B28.53")
    return c.rule(True, f"{m.name_of(h)} has no paved Narrow Street hexside forcing its mines revealed: B28.53 "
                        "applies unchanged", "B28.53", "P5.142")


def no_d10_4_removal_on_a_narrow_street(c: _Attempt) -> RemovalRuling:
    """P5.126: no wreck (or Immobile vehicle) on a Narrow Street may be removed as per D10.4: one at a Bypass
    position along it, or one the map places in Bypass along a Narrow Street hexside of its hex."""
    m, at = c.m, c.place("the Location (or Bypass position) of the wreck")
    hs = narrow_street_of(m, at)
    if hs is None:
        hs = next((x.bypass for x in m.counters_at(at.hex) if x.at == at.hex and x.type == c.what
                   and x.bypass is not None and m.hexside(x.bypass).narrow_street is not None), None)
    label = "wreck" if c.what == "wreck" else "Immobile vehicle"
    if hs is not None:
        return c.rule(False, f"no {label} on a Narrow Street ({m.name_of(hs)}) may be removed as per D10.4",
                      "P5.126", "D10.4")
    return c.rule(True, f"the {label} at {m.name_of(at)} is not on a Narrow Street: D10.4 applies unchanged",
                  "D10.4", "P5.126")


_Rule = Callable[[_Attempt], "RemovalRuling | None"]
#: the rules of each thing removed, in order; the last of each always decides
_REMOVAL_RULES: dict[str, tuple[_Rule, ...]] = {
    "roadblock": (roadblock_off_a_narrow_street, clearance_from_the_four_locations, dc_against_a_vertex,
                  direct_fire_with_los_to_the_hexside, indirect_he_vs_a_forming_location),
    "mines": (mine_clearance_unchanged, revealed_mines_not_removed_per_b28_53),
    "wreck": (no_d10_4_removal_on_a_narrow_street,),
    "vehicle": (no_d10_4_removal_on_a_narrow_street,),
}
