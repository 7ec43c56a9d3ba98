"""B3 road effects: B3.2/B3.3 (a road hex's TEM; Interdiction/FFMO for a road-rate entrant; the A4.132 target
points) and B3.5 (set-up in a paved road hex).

Maps: tests/maps/b3_3i10.toml (the B3.4 example: building 3I10 on a level-1 hill entered by a dirt road from
offboard I11) and b3_roads.toml (woods-road hexes I3, J3 on the dirt road G3 ... L3-M4; paved road M1-M12).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from asl_terrain.effects import tem
from asl_terrain.model import Map
from asl_terrain.setup import can_set_up
from asl_terrain.units import Unit

MAPS = Path(__file__).resolve().parent.parent / "maps"


@pytest.fixture(scope="module")
def i10() -> Map:
    return Map.load(MAPS / "b3_3i10.toml")


@pytest.fixture(scope="module")
def roads() -> Map:
    return Map.load(MAPS / "b3_roads.toml")


def _tem(m: Map, target: str, firer: str, **kw: Any) -> Any:
    if isinstance(kw.get("entered_across"), str):
        kw["entered_across"] = m.parse_hexside(kw["entered_across"])
    return tem(m, m.parse_location(target), [m.parse_location(firer)], "small-arms", **kw)


# ============================================================================================ B3.3


def test_b3_3_road_hex_tem_is_its_other_terrain(roads: Map) -> None:
    """B3.3: the other terrain of a road hex decides its TEM: woods-road J3 gives +1 to a unit that did not
    enter at the road rate, fired on along the road."""
    r = _tem(roads, "J3", "L1", moved_by="non-road")
    assert r.tem == 1 and [i.rule for i in r.tem_items] == ["B13.3"] and not r.ffmo


def test_b3_2_road_hex_devoid_of_other_terrain_is_open_ground(roads: Map) -> None:
    """B3.2: a road hex with nothing else is Open Ground: a moving unit in M5 gets FFMO."""
    r = _tem(roads, "M5", "M2", moved_by="non-road")
    assert r.tem == 0 and r.open_ground and r.ffmo and "B3.3" in r.rules()


def test_b3_3_road_rate_entrant_fired_on_along_the_road_gets_ffmo(roads: Map) -> None:
    """B3.3: a unit that entered woods-road J3 at the road rate is subject to FFMO instead of the woods TEM when
    the LOS (from L1, entering J3 across its road hexside J3-K3) crosses no other non-Open Ground terrain."""
    r = _tem(roads, "J3", "L1", moved_by="road-rate")
    assert r.tem == 0 and r.open_ground and r.ffmo and r.total_drm == -2
    assert "B3.3" in r.rules() and "instead of the TEM" in r.explain()


def test_b3_3_los_through_the_woods_keeps_the_tem(roads: Map) -> None:
    """B3.3: fired on from I4 (the LOS comes through the woods of J3), the road-rate entrant keeps its +1."""
    for across in (None, "J3-K3"):
        r = _tem(roads, "J3", "I4", moved_by="road-rate", entered_across=across)
        assert r.tem == 1 and not r.ffmo and "keeps the TEM" in r.explain()


def test_b3_3_a4_132_road_point_at_the_hexside_entered(roads: Map) -> None:
    """B3.3 / A4.132: the target points are increased: from L3 the LOS to J3's centre dot enters through a vertex
    beside the road, but the road where it crosses the hexside entered (J3-K3) can be targeted in the open."""
    assert _tem(roads, "J3", "L3", moved_by="road-rate").tem == 1
    r = _tem(roads, "J3", "L3", moved_by="road-rate", entered_across="J3-K3")
    assert r.tem == 0 and r.ffmo and "A4.132" in r.explain()


def test_b3_4_example_i10_road_entry_exposed_to_ffmo_from_the_road_side(i10: Map) -> None:
    """B3.4 EX (3I10): entering the building at the road rate from offboard I11 leaves the unit to FFMO from
    Defensive First Fire traced to the road depiction crossing hexside I10-I11 (here from same-level J9)."""
    r = _tem(i10, "I10", "J9", moved_by="road-rate", entered_across="I10-I11")
    assert r.tem == 0 and r.ffmo and r.ffnam


def test_b3_4_example_i10_fire_through_the_building_keeps_its_tem(i10: Map) -> None:
    """From I9 the LOS reaches I10 (and its road point) only through the building: +3 stone building TEM."""
    r = _tem(i10, "I10", "I9", moved_by="road-rate", entered_across="I10-I11")
    assert r.tem == 3 and not r.ffmo and not r.open_ground


def test_b3_3_paying_the_building_cost_keeps_the_tem(i10: Map) -> None:
    """A unit that paid the full building cost (non-road) keeps the building TEM vs the same fire."""
    assert _tem(i10, "I10", "J9", moved_by="non-road", entered_across="I10-I11").tem == 3


def test_b3_3_exposed_unit_on_a_hill_keeps_height_advantage(i10: Map) -> None:
    """Fired on from lower I11, the exposed road-rate entrant has no TEM left, so Height Advantage (B10.31)
    applies, and FFMO does not."""
    r = _tem(i10, "I10", "I11", moved_by="road-rate", entered_across="I10-I11")
    assert [i.rule for i in r.tem_items] == ["B10.31"] and not r.ffmo


def test_b3_3_ffmo_is_for_infantry(roads: Map) -> None:
    """B3.3: Interdiction/FFMO 'in the case of Infantry'; a vehicle loses the TEM but gets no FFMO."""
    r = _tem(roads, "J3", "L1", moved_by="road-rate", unit=Unit.from_json("vehicle"))
    assert r.tem == 0 and not r.ffmo and not r.ffnam


# ============================================================================================ B3.5


def test_b3_5_no_entrenchment_or_hidden_mines_in_paved_road_hex_m5(roads: Map) -> None:
    """B3.5: M5 is a paved road hex: no entrenchment, no hidden mines."""
    m5 = roads.parse_location("M5")
    assert not can_set_up(roads, "entrenchment", m5).allowed
    assert not can_set_up(roads, "mines", m5, mine_kind="A-P", hidden=True).allowed


def test_b3_5_dirt_road_hex_is_not_concerned(roads: Map) -> None:
    l3 = roads.parse_location("L3")
    assert can_set_up(roads, "entrenchment", l3).allowed
    assert can_set_up(roads, "mines", l3, mine_kind="A-P", hidden=True).allowed
