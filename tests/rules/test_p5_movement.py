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


# ---------------------------------------------------------------------------------------------- review additions


@pytest.mark.parametrize("unit, cost", [("infantry", 2), ("cavalry", 2), ("vehicle", 2), ("wagon", 2),
                                        ({"type": "vehicle", "class": "truck"}, 5)],
                         ids=["infantry", "cavalry", "fully-tracked", "wagon", "truck"])
def test_p5_11_smoke_beside_a_narrow_street_adds_1_mf_or_mp(unit: Any, cost: int) -> None:
    """P5.11: SMOKE in either ground-level Location of the Narrow Street adds one MF/MP to Bypass along it:
    Infantry/Cavalry 1 + 1, a fully-tracked vehicle or a Wagon half VBM (1) + 1, a truck half of 8 + 1."""
    m = variant(counters=[{"type": "smoke", "at": "O17", "strength": 2}])
    r = move_cost(m, unit, "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert r.cost == cost and any(i.rule == "P5.11" and "SMOKE" in i.why for i in r.items)
    assert sum(i.amount for i in r.items) == r.cost


def test_p5_11_smoke_in_both_hexes_still_adds_only_1() -> None:
    """P5.11 (judgment narrow_street_smoke_replaces_cot, digest §7.24): SMOKE in both hexes of the Narrow
    Street adds one MF in all, not one per hex."""
    m = variant(counters=[{"type": "smoke", "at": "O17", "strength": 2}, {"type": "smoke", "at": "N17",
                                                                          "strength": 1}])
    r = move_cost(m, "infantry", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert r.cost == 2 and [i.rule for i in r.items] == ["A4.3", "P5.11"]


@pytest.mark.parametrize("unit", ["cavalry", "wagon"])
def test_p5_11_cavalry_and_wagons_bypassing_a_narrow_street_keep_the_road_bonus(st: Map, unit: str) -> None:
    """P5.11: Cavalry (at the normal Bypass MF) and a Wagon (half VBM, judgment wagon_half_bypass) along
    Narrow Streets may still earn the road bonus: three hexsides for 3 MF with an allowance of 2."""
    p = path(st, unit, ["N17", "N17@N17-O17-O18", "N17@N17-N18-O18", "N18@N18-O18-O19"], 2)
    assert p.allowed and p.road_bonus and p.cost == 3 and p.allowance == 3


def test_p5_11_smoke_beside_the_street_spoils_the_bonus_along_it() -> None:
    """B3.4 with P5.11: SMOKE in either hex of a Narrow Street the unit Bypasses along is SMOKE met in those
    road hexes: the bonus is gone (digest §7.12), and each step along a hexside of O18 pays +1 (1 + 2 + 2)."""
    m = variant(counters=[{"type": "smoke", "at": "O18", "strength": 2}])
    p = path(m, "infantry", ["N17", "N17@N17-O17-O18", "N17@N17-N18-O18", "N18@N18-O18-O19"], 2)
    assert [s.cost for s in p.steps] == [1, 2, 2]
    assert p.steps[0].keeps_road_bonus and not p.steps[1].keeps_road_bonus
    assert not p.road_bonus and not p.allowed and p.cost == 5


def test_p5_11_in_must_name_a_hex_of_the_bypassed_hexside(st: Map) -> None:
    """A Bypass step "in" a hex that is not one of the hexside's two hexes is a bad request naming the key
    (it used to escape as an unrelated 'not adjacent' message)."""
    from asl_terrain.ask import answer_one

    with pytest.raises(QueryError, match="^in: "):
        move_cost(st, "infantry", "N17", None, bypass="N17-O17", in_hex="P17", to_vertex="N17-O17-O18")
    ans = answer_one(st, {"kind": "move", "unit": "infantry", "from": "N17", "bypass": "N17-O17", "in": "P17",
                          "to_vertex": "N17-O17-O18"})
    assert set(ans) == {"kind", "error"} and ans["error"].startswith("in: ")


def test_p5_141_no_vehicle_crosses_a_roadblocked_narrow_street_hexside() -> None:
    """P5.141 / B29.4: with O17 and O18 open, a vehicle (or Wagon) may not cross the roadblocked hexside
    O17-O18, the roadblock lying along the line between their centre dots; Infantry cross it with no extra
    MF, but lose the road bonus (a roadblock met, B3.4) and are told to declare a vertex."""
    m = Map.from_data({"format": "asl-terrain/1", "prefix": "St", "columns": ["M", "Q"], "rows": [15, 20],
                       "hexside": [{"at": ["N17-O17", "N17-O18", "O17-O18"], "narrow_street": "paved"}],
                       "counter": [{"type": "roadblock", "hexside": "O17-O18", "arrow": "O17-O18-P17"}]})
    for unit in ("vehicle", "wagon", "motorcycle"):
        r = move_cost(m, unit, "O18", "O17")
        assert not r.allowed and r.forbidden_by == "B29.4"
    inf = move_cost(m, "infantry", "O18", "O17")
    assert inf.cost == 1 and not inf.keeps_road_bonus and "declare a vertex" in inf.explain()


@pytest.mark.parametrize("counter, blocked", [
    ({"type": "vehicle", "at": "N17", "bypass": "N17-N18"}, False),
    ({"type": "wreck", "at": "O17", "burning": True}, True),
    ({"type": "smoke", "at": "O17", "strength": 2}, False),
], ids=["vehicle-along-another-hexside", "burning-wreck-in-the-hex", "smoke-is-no-blaze"])
def test_p5_126_what_does_and_does_not_block_bypass(counter: dict[str, Any], blocked: bool) -> None:
    """P5.126: only another vehicle/wreck in Bypass along that same hexside blocks it; a burning wreck in the
    hex itself (not in Bypass along another hexside) is a Blaze and does; SMOKE does not."""
    m = variant(counters=[counter])
    assert (narrow_street_bypass_blocked(m, Hexside.parse("N17-O17")) is not None) == blocked
    r = move_cost(m, "vehicle", "N17", None, bypass="N17-O17", to_vertex="N17-O17-O18")
    assert r.allowed != blocked


def test_p5_123_a_wagon_or_a_very_small_vehicle_turning_less_than_180_is_na(st: Map) -> None:
    """P5.123: a Wagon may not change its VCA on a Narrow Street (outside Bypass movement), and a very small
    vehicle may only turn 180 degrees, not 120."""
    w = vca_change(st, "wagon", "N17@N17-O17", 3)
    assert not w.allowed and w.forbidden_by == "P5.123" and w.units == "MF"
    vs = vca_change(st, {"type": "vehicle", "target_size": "very-small", "mp": 12}, "N17@N17-O17", 2)
    assert not vs.allowed and vs.forbidden_by == "P5.123"


def test_p5_123_no_turn_is_no_change_even_in_a_motion_attempt(st: Map) -> None:
    """P5.123 forbids changing the VCA in a Motion attempt; turning 0 hexspines changes nothing and costs 0."""
    r = vca_change(st, "vehicle", "N17@N17-O17", 0, motion_attempt=True)
    assert r.allowed and r.cost == 0


def test_p5_3_single_hex_two_story_house_has_an_inherent_stairwell(st: Map) -> None:
    """P5.3: single-hex two-story house Q19 has ground and 1st-level Locations linked by an inherent
    stairwell: 1 MF up (B23.42), and no 2nd level or rooftop to reach."""
    r = move_cost(st, "infantry", "Q19", "Q19/1")
    assert r.cost == 1 and r.rules() == ("B23.42", "P5.3")  # P5.3 gives the stairwell (issue 9)
    rr = reach(st, "infantry", "Q19", 4)
    assert rr.cost_of("StQ19/1") == 1 and not [k for k in rr.costs if k.startswith("StQ19/") and k != "StQ19/1"]


def test_p5_2_chaa10_first_level_steeple_by_its_inherent_stairwell() -> None:
    """P5.2 EX: ChAA10 has a 1st-level Steeple reached by the inherent stairwell from its ground level: 1 MF
    (here a single-story stone church with a steeple)."""
    m = Map.from_data({"format": "asl-terrain/1", "prefix": "Ch", "columns": ["Z", "BB"], "rows": [9, 11],
                       "hex": [{"at": ["AA10"], "terrain": "building", "building": "stone", "steeple": True}]})
    r = move_cost(m, "infantry", "AA10", "AA10/1")
    assert r.cost == 1 and r.rules() == ("B23.42", "P5.2")  # P5.2 gives the stairwell (issue 9)
    assert reach(m, "infantry", "Z10", 4).cost_of("ChAA10/1") == 3
