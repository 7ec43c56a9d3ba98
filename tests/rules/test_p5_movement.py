"""KGP P5 village terrain, movement: the P5.11 and P5.141 examples, P5.123, P5.124, P5.126 and rules-digest
§8 tests 40-42, 45, 47, 55 and 57, on tests/maps/st_village.toml (the P5.141 illustration)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.errors import QueryError
from asl_terrain.grid import Hexside
from asl_terrain.mapfile import read_map_document
from asl_terrain.model import Map, load_demo
from asl_terrain.movement import (
    bypass_hex,
    move_cost,
    narrow_street_bypass_blocked,
    path,
    reach,
    vca_change,
)

MAPS = Path(__file__).resolve().parent.parent / "maps"
F = Fraction


@pytest.fixture(scope="module")
def st() -> Map:
    return Map.load(MAPS / "st_village.toml")


def variant(hexes: list[dict[str, Any]] = (), hexsides: list[dict[str, Any]] = (),  # type: ignore[assignment]
            counters: list[dict[str, Any]] = ()) -> Map:  # type: ignore[assignment]
    """st_village.toml with extra blocks appended."""
    doc = read_map_document(MAPS / "st_village.toml")
    doc["hex"] = [*doc.get("hex", []), *hexes]
    doc["hexside"] = [*doc.get("hexside", []), *hexsides]
    doc["counter"] = [*doc.get("counter", []), *counters]
    return Map.from_data(doc, source="st_village variant")


# ---------------------------------------------------------------------------------------------- P5.11 (tests 40, 41)


def test_p5_11_squad_g_bypassing_n18_o18_still_pays_2_mf_for_building_o19(st: Map) -> None:
    """P5.11 EX: squad G Bypasses along Narrow Street N18-O18 and must still pay two MF to enter building O19."""
    r = path(st, "infantry", ["N17", {"bypass": "O18-N18", "in": "N18", "to_vertex": "N18-O18-O19"}, "O19"], 4)
    assert r.allowed and [s.cost for s in r.steps] == [1, 2]
    assert not r.steps[1].road_rate


def test_p5_11_no_obstacle_at_the_road_rate_from_along_a_narrow_street() -> None:
    """P5.11: even where a road hexside leads into the obstacle (a dirt road on N18-O19 here), a unit moving
    along a Narrow Street pays the building's 2 MF; from off the Narrow Street the road rate applies."""
    m = variant(hexsides=[{"at": ["N18-O19"], "road": "dirt"}])
    along = path(m, "infantry", ["N17", {"bypass": "O18-N18", "in": "N18", "to_vertex": "N18-O18-O19"}, "O19"], 4)
    assert along.steps[1].cost == 2 and not along.steps[1].road_rate
    forced = move_cost(m, "infantry", "N18@N18-O18", "O19", road_rate=True)
    assert not forced.allowed and forced.forbidden_by == "P5.11"
    inside = move_cost(m, "infantry", "N18", "O19")
    assert inside.cost == 1 and inside.road_rate


def test_p5_11_squad_g_from_n17_into_building_o17_pays_2_mf(st: Map) -> None:
    """P5.11 EX: moving from N17 across Narrow Street N17-O17 into building O17 costs 2 MF, not the road rate."""
    r = move_cost(st, "infantry", "N17", "O17")
    assert r.cost == 2 and not r.road_rate
    no = move_cost(st, "infantry", "N17", "O17", road_rate=True)
    assert not no.allowed and no.forbidden_by == "P5.11"


def test_p5_11_bypass_along_a_narrow_street_costs_normal_bypass_mf_and_keeps_the_road_bonus(st: Map) -> None:
    """Digest test 41: Infantry Bypass one Narrow Street hexside for 1 MF and can still earn the road bonus
    when every hexside of the move is a road or Narrow Street hexside with nothing spoiling it."""
    r = move_cost(st, "infantry", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert r.cost == 1 and r.keeps_road_bonus and r.bypass == Hexside.parse("N17-O17")
    p = path(st, "infantry", ["N17", "N17@N17-O17-O18", "N17@N17-N18-O18", "N18@N18-O18-O19"], 2)
    assert p.road_bonus and p.allowance == 3 and p.cost == 3 and p.allowed


def test_p5_11_smoke_beside_a_narrow_street_adds_1() -> None:
    """P5.11: SMOKE in either ground-level Location of a Narrow Street hexside adds 1 to Bypass along it."""
    m = variant(counters=[{"type": "smoke", "at": "O17", "strength": 2}])
    r = move_cost(m, "infantry", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert r.cost == 2 and "P5.11" in r.rules() and not r.keeps_road_bonus


def test_p5_11_on_a_crest_line_only_the_lower_hexs_smoke_counts_and_the_unit_is_in_the_lower_hex() -> None:
    """P5.11: a Bypasser along a Crest-Line Narrow Street is in the lower hex, and only that hex's SMOKE adds
    to the cost."""
    high = variant(hexes=[{"at": ["N17"], "level": 1}], counters=[{"type": "smoke", "at": "N17", "strength": 2}])
    hs = Hexside.parse("N17-O17")
    assert bypass_hex(high, hs).name == "O17"  # type: ignore[union-attr]
    r = move_cost(high, "infantry", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert r.to is not None and r.to.hex.name == "O17"
    assert "P5.11" not in [i.rule for i in r.items if "SMOKE" in i.why]
    low = variant(hexes=[{"at": ["N17"], "level": 1}], counters=[{"type": "smoke", "at": "O17", "strength": 2}])
    r2 = move_cost(low, "infantry", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert any(i.rule == "P5.11" and "SMOKE" in i.why for i in r2.items)


# ---------------------------------------------------------------------------------------------- P5.141 (test 42)


def test_p5_141_squad_g_bypassing_to_o17_o18_p17_pays_1_plus_1(st: Map) -> None:
    """P5.141 EX / digest test 42: G Bypassing along O17-O18 directly to vertex O17-O18-P17 crosses the
    roadblock's segment: 1 MF Bypass + 1 MF roadblock = 2 MF."""
    r = move_cost(st, "infantry", "N17", None, bypass="O17-O18", to_vertex="O17-O18-P17")
    assert r.cost == 2
    assert sorted(i.rule for i in r.items) == ["A4.3", "P5.141"]


@pytest.mark.parametrize("unit", ["vehicle", "motorcycle", {"type": "vehicle", "class": "armored-car"}, "wagon"])
def test_p5_141_no_vbm_along_the_roadblocked_narrow_street(st: Map, unit: Any) -> None:
    """Digest test 42: the roadblock prohibits VBM along O17-O18."""
    r = move_cost(st, unit, "N17", None, bypass="O17-O18", to_vertex="O17-O18-P17")
    assert not r.allowed and r.forbidden_by == "P5.141"


def test_p5_141_squad_h_enters_o17_without_paying_for_the_roadblock(st: Map) -> None:
    """P5.141 EX: squad H (O18) enters O17, directly or Bypassing along O17-N17, with no roadblock cost; a
    unit crossing the straddled hexside is told to declare a vertex."""
    direct = move_cost(st, "infantry", "O18", "O17", declared_vertex="O17-O18-N17")
    assert direct.cost == 2 and "P5.141" not in [i.rule for i in direct.items]
    assert "N17-O17-O18" in direct.explain() and "P5.141" in direct.explain()
    by = move_cost(st, "infantry", "O18", None, bypass="N17-O17", in_hex="O17", to_vertex="N16-N17-O17")
    assert by.allowed and by.cost == 1


def test_p5_141_roadblock_is_still_a_roadblock_to_vehicles_crossing(st: Map) -> None:
    """B29.4 (P5.141: otherwise unchanged): no vehicle crosses the roadblocked hexside."""
    r = move_cost(st, "vehicle", "O18", "O17")
    assert not r.allowed


# ---------------------------------------------------------------------------------------------- P5.11 VBM, P5.124 (tests 45, 55)


def test_p5_11_vbm_along_a_narrow_street_costs_half(st: Map) -> None:
    """Digest test 45: VBM along a Narrow Street needs no clearance and costs half the normal Bypass MP: a
    fully-tracked vehicle pays 1 MP (half of 2) per hexside; a truck 4 (half of 8)."""
    r = move_cost(st, "vehicle", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert r.allowed and r.cost == 1 and r.rules() == ("P5.11",)
    t = move_cost(st, {"type": "vehicle", "class": "truck"}, "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert t.cost == 4


def test_p5_11_vca_change_during_narrow_street_bypass_costs_1(st: Map) -> None:
    """Digest test 45: each VCA change during that Bypass costs 1 MP (D2.33), 1 MF for a Wagon."""
    r = vca_change(st, "vehicle", "N17@N17-O17", 1, while_bypassing=True)
    assert r.allowed and r.cost == 1 and r.units == "MP"
    w = vca_change(st, "wagon", "N17@N17-O17", 1, while_bypassing=True)
    assert w.cost == 1 and w.units == "MF"


def test_p5_124_a_vehicle_towing_a_gun_may_vbm_along_a_narrow_street(st: Map) -> None:
    """Digest test 55 / P5.124: towing a Gun or trailer does not forbid VBM along a Narrow Street."""
    for towing in ("gun", "trailer"):
        r = move_cost(st, {"type": "vehicle", "towing": towing}, "N17", None, bypass="N17-O18",
                      to_vertex="N17-N18-O18")
        assert r.allowed and r.cost == 1


# ---------------------------------------------------------------------------------------------- P5.126 (test 47)


@pytest.mark.parametrize("counter, blocked", [
    ({"type": "wreck", "at": "O17", "bypass": "N17-O17"}, True),
    ({"type": "vehicle", "at": "N17", "bypass": "N17-O17"}, True),
    ({"type": "blaze", "at": "N17"}, True),
    ({"type": "rubble", "at": "O17"}, True),
    ({"type": "wreck", "at": "N17", "bypass": "N17-N18", "burning": True}, False),
    ({"type": "wreck", "at": "O17"}, False),
], ids=["wreck-in-bypass", "vehicle-in-bypass", "blaze", "rubble", "burning-wreck-other-hexside",
        "wreck-not-in-bypass"])
def test_p5_126_bypass_along_n17_o17_na(counter: dict[str, Any], blocked: bool) -> None:
    """Digest test 47: all Bypass along N17-O17 is NA with another vehicle/wreck in Bypass along it (either
    hex), a Blaze (but not a burning wreck in Bypass along another hexside), or Rubble in either hex."""
    m = variant(counters=[counter])
    assert (narrow_street_bypass_blocked(m, Hexside.parse("N17-O17")) is not None) == blocked
    for unit in ("infantry", "vehicle"):
        r = move_cost(m, unit, "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
        assert r.allowed != blocked
        if blocked:
            assert r.forbidden_by == "P5.126"


# ---------------------------------------------------------------------------------------------- P5.11 Dash, rout (test 57)


def test_p5_11_no_dash_across_or_along_a_narrow_street(st: Map) -> None:
    """Digest test 57: Dashing across or along a Narrow Street is NA."""
    r = move_cost(st, "infantry", "N17", "O17", dash=True)
    assert not r.allowed and r.forbidden_by == "P5.11"
    a = move_cost(st, "infantry", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18", dash=True)
    assert not a.allowed and a.forbidden_by == "P5.11"


def test_p5_11_no_rout_along_a_narrow_street_but_across_it(st: Map) -> None:
    """Digest test 57: routing along a Narrow Street (in Bypass) is NA; routing straight across one is left
    allowed (judgment rout_across_narrow_street)."""
    r = move_cost(st, "infantry", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18", rout=True)
    assert not r.allowed and r.forbidden_by == "P5.11"
    assert move_cost(st, "infantry", "N17", "O17", rout=True).allowed
    assert all(not loc.is_bypass or st.hexside(loc.bypass).narrow_street is None  # type: ignore[arg-type]
               for loc in (x.location for x in reach(st, "infantry", "N17", 4, rout=True).reached))


# ---------------------------------------------------------------------------------------------- P5.123


def test_p5_123_motorcycle_turns_180_for_a_quarter_of_its_printed_mp(st: Map) -> None:
    """P5.123: a motorcycle on a Narrow Street may spend ¼ of its printed MP to turn 180 degrees."""
    r = vca_change(st, {"type": "motorcycle", "mp": 20}, "N17@N17-O17", 3)
    assert r.allowed and r.cost == 5 and r.rules() == ("P5.123",)


def test_p5_123_very_small_vehicle_turns_180_for_half(st: Map) -> None:
    """P5.123: a very small Target Size vehicle may spend ½ of its printed MP to turn 180 degrees."""
    r = vca_change(st, {"type": "vehicle", "target_size": "very-small", "mp": 13}, "N17@N17-O17", 3)
    assert r.allowed and r.cost == F(13, 2)


def test_p5_123_no_other_vehicle_may_change_its_vca_on_a_narrow_street(st: Map) -> None:
    """P5.123: no other vehicle may change VCA on a Narrow Street (except in Bypass movement, D2.33); no
    turn other than 180 degrees; none at all as part of a Motion attempt."""
    assert vca_change(st, "vehicle", "N17@N17-O17", 3).forbidden_by == "P5.123"
    assert vca_change(st, {"type": "motorcycle", "mp": 20}, "N17@N17-O17", 1).forbidden_by == "P5.123"
    m = vca_change(st, {"type": "motorcycle", "mp": 20}, "N17@N17-O17", 3, motion_attempt=True)
    assert not m.allowed and m.forbidden_by == "P5.123"
    assert not vca_change(st, "vehicle", "N17@N17-O17", 1, while_bypassing=True, motion_attempt=True).allowed


def test_p5_123_off_a_narrow_street_the_d2_11_cost_applies(st: Map) -> None:
    """Off a Narrow Street: 1 MP per hexspine (D2.11)."""
    r = vca_change(st, "vehicle", "P17", 2)
    assert r.allowed and r.cost == 2 and r.rules() == ("D2.11",)


def test_p5_123_infantry_have_no_vca(st: Map) -> None:
    """A vca-change for Infantry does not fit: an error naming the unit, not a ruling."""
    with pytest.raises(QueryError, match="unit"):
        vca_change(st, "infantry", "N17@N17-O17", 3)


# ---------------------------------------------------------------------------------------------- the demo map


def test_p5_126_demo_wreck_in_bypass_along_k12_l12_blocks_that_street() -> None:
    """The demo map's wreck in Bypass along K12-L12 makes all other Bypass along it NA."""
    m = load_demo()
    assert narrow_street_bypass_blocked(m, Hexside.parse("K12-L12")) is not None
    r = move_cost(m, "infantry", "L11", None, bypass="K12-L12", in_hex="L12", to_vertex="K12-K13-L12")
    assert not r.allowed and r.forbidden_by == "P5.126"


def test_b29_demo_roadblock_on_the_main_road(st: Map) -> None:
    """B29.4: the demo's roadblock on M6-M7: no vehicle may cross; Infantry cross it like a wall (+1 MF)."""
    m = load_demo()
    assert move_cost(m, "vehicle", "M7", "M6").forbidden_by == "B29.4"
    r = move_cost(m, "infantry", "M7", "M6")
    assert r.cost == 2 and "B29.4" in r.rules() and not r.keeps_road_bonus
