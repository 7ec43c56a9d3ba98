"""B3 Roads, movement: the seed's examples and rules-digest §8 tests 4-9 and 11 (B3.1, B3.3, B3.4, B3.41,
B3.42, B3.43)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.chart import parse_chart
from asl_terrain.grid import Hex
from asl_terrain.model import Map
from asl_terrain.movement import (
    move_cost,
    path,
    reach,
    road_bonus_spoilers,
    road_hex_type,
)

MAPS = Path(__file__).resolve().parent.parent / "maps"
F = Fraction


@pytest.fixture(scope="module")
def roads() -> Map:
    return Map.load(MAPS / "b3_roads.toml")


@pytest.fixture(scope="module")
def i10() -> Map:
    return Map.load(MAPS / "b3_3i10.toml")


def small(hexes: list[dict[str, Any]] = (), hexsides: list[dict[str, Any]] = (),  # type: ignore[assignment]
          counters: list[dict[str, Any]] = (), **extra: Any) -> Map:  # type: ignore[assignment]
    """A 10 x 10 open level-0 map with a paved road down column B (B1-B2 ... B9-B10) plus what is given."""
    road = [f"B{r}-B{r + 1}" for r in range(1, 10)]
    return Map.from_data({"format": "asl-terrain/1", "name": "t", "columns": ["A", "J"], "rows": [1, 10],
                          "hex": list(hexes), "hexside": [{"at": road, "road": "paved"}, *hexsides],
                          "counter": list(counters), **extra})


def rules_of(r: Any) -> set[str]:
    return set(r.rules())


# ---------------------------------------------------------------------------------------------- B3.1


def test_b3_1_hex_with_paved_and_dirt_roads_is_a_paved_road_hex(roads: Map) -> None:
    """12M4 has paved (M3-M4, M4-M5) and dirt (L3-M4) road hexsides: it is a paved road hex; L3 is dirt."""
    assert road_hex_type(roads, Hex.parse("M4")) == "paved"
    assert road_hex_type(roads, Hex.parse("L3")) == "dirt"
    assert road_hex_type(roads, Hex.parse("H8")) is None


def test_b3_1_entry_across_the_dirt_hexside_is_per_dirt(roads: Map) -> None:
    """Entering paved road hex 12M4 through M4-L3 is per a dirt road hexside; through M3-M4 per paved."""
    dirt = move_cost(roads, "infantry", "L3", "M4")
    paved = move_cost(roads, "infantry", "M3", "M4")
    assert dirt.road_rate and paved.road_rate
    assert "dirt road hexside" in dirt.items[0].why and "paved road hexside" in paved.items[0].why


def test_b3_1_entry_cost_follows_the_hexside_type_when_the_chart_tells_them_apart(roads: Map) -> None:
    """With a chart whose dirt-road rate differs from the paved one, entering 12M4 costs the crossed
    hexside's rate, not the paved road hex's."""
    text = _bundled_chart_text()
    assert '[hexside.road-dirt]\nname = "Dirt road hexside"\nmf = { infantry = 1,' in text
    text = text.replace('[hexside.road-dirt]\nname = "Dirt road hexside"\nmf = { infantry = 1,',
                        '[hexside.road-dirt]\nname = "Dirt road hexside"\nmf = { infantry = 1.5,')
    chart = parse_chart(text, "test-chart")
    assert move_cost(roads, "infantry", "L3", "M4", road_rate=True, chart=chart).cost == F(3, 2)
    assert move_cost(roads, "infantry", "M3", "M4", road_rate=True, chart=chart).cost == 1


def _bundled_chart_text() -> str:
    from importlib.resources import files

    return (files("asl_terrain") / "data" / "terrain_chart.toml").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------- B3.4 (tests 4, 5)


def test_b3_4_infantry_cross_a_road_hexside_for_1_mf(roads: Map) -> None:
    """Digest test 4: OG to a level-0 road hex across a road hexside costs 1 MF."""
    r = move_cost(roads, "infantry", "M1", "M2")
    assert r.allowed and r.cost == 1 and r.road_rate and "B3.4" in rules_of(r)


def test_b3_4_road_hexside_up_a_level_costs_2_mf(roads: Map) -> None:
    """Digest test 4: the road hex one level higher (M10 -> M11) costs 2 MF (1 x 2)."""
    r = move_cost(roads, "infantry", "M10", "M11")
    assert r.cost == 2 and r.road_rate
    assert sum(i.amount for i in r.items) == r.cost


@pytest.mark.parametrize("frm, cost", [("H9", 2), ("I9", 2), ("J9", 2), ("H10", 4), ("J10", 4)])
def test_b3_4_example_3i10_from_each_neighbour(i10: Map, frm: str, cost: int) -> None:
    """B3.4 EX: 3I10 (a building) costs 2 MF from H9, I9, J9 and 4 MF from H10 or J10 (higher elevation)."""
    r = move_cost(i10, "infantry", frm, "I10")
    assert r.allowed and r.cost == cost and not r.road_rate and not r.ffmo_exposed


def test_b3_4_example_3i10_up_the_road_from_offboard_costs_2_and_is_ffmo_exposed(i10: Map) -> None:
    """B3.4 EX: the road from offboard I11 lets the unit enter for 2 MF instead of the building's 4, at the
    mover's option, leaving it to FFMO (B3.3); refusing the road rate costs the full 4 MF."""
    r = move_cost(i10, "infantry", "I11", "I10")
    assert r.cost == 2 and r.road_rate and r.ffmo_exposed
    assert r.to_json()["ffmo_exposed"] is True
    full = move_cost(i10, "infantry", "I11", "I10", road_rate=False)
    assert full.cost == 4 and not full.road_rate and not full.ffmo_exposed


# ---------------------------------------------------------------------------------------------- B3.4 road bonus (test 6)


def test_b3_4_road_bonus_carries_4_mf_infantry_five_road_hexes(roads: Map) -> None:
    """Digest test 6: 4 MF Infantry crossing only road hexsides, with nothing in the road hexes, move five
    hexes: the road bonus raises the allowance to 5."""
    r = path(roads, "infantry", ["M1", "M2", "M3", "M4", "M5", "M6"], 4)
    assert r.allowed and r.cost == 5 and r.road_bonus and r.allowance == 5
    rr = reach(roads, "infantry", "M1", 4)
    assert rr.cost_of("12M6") == 5
    assert "12M6" in rr.to_json()["road_bonus"]


def test_b3_4_smoke_in_the_third_hex_spoils_the_bonus(roads: Map) -> None:
    """Digest test 6: the same run from M5 meets SMOKE in M8 (its third hex): +1 MF COT and no road bonus,
    so the fifth hex (M10) is out of reach."""
    r = path(roads, "infantry", ["M5", "M6", "M7", "M8", "M9", "M10"], 4)
    assert not r.allowed and not r.road_bonus and r.cost == 6
    smoke = r.steps[2]
    assert smoke.cost == 2 and "B.2" in smoke.rules() and not smoke.keeps_road_bonus
    assert reach(roads, "infantry", "M5", 4).cost_of("12M10") is None


@pytest.mark.parametrize("counter, what", [
    ({"type": "mines", "at": "B4", "kind": "A-P", "strength": 6}, "mines"),
    ({"type": "wreck", "at": "B4", "burning": True}, "burning wreck"),
    ({"type": "roadblock", "hexside": "B4-B5"}, "roadblock"),
    ({"type": "rubble", "at": "B4"}, "rubble"),
    ({"type": "wire", "at": "B4"}, "Wire"),
])
def test_b3_4_road_bonus_lost_to_what_is_met_in_the_road_hexes(counter: dict[str, Any], what: str) -> None:
    """B3.4: mines, burning wrecks, Wire, rubble and roadblocks met in the road hexes deny the bonus (a
    roadblock is met where the move crosses its hexside)."""
    m = small(counters=[counter])
    if what != "roadblock":
        assert any(what in s for s in road_bonus_spoilers(m, Hex.parse("B4")))
    r = path(m, "infantry", ["B1", "B2", "B3", "B4", "B5"], 5)
    assert r.cost is not None and not r.road_bonus
    clean = path(small(), "infantry", ["B1", "B2", "B3", "B4", "B5"], 4)
    assert clean.road_bonus


def test_b3_4_no_road_bonus_while_pushing_a_gun_or_in_mud() -> None:
    """B3.4: no bonus while pushing a Gun (C10.3), nor in mud; vehicles never get it."""
    m = small()
    steps = ["B1", "B2", "B3", "B4", "B5", "B6"]
    assert path(m, "infantry", steps, 4).allowed
    assert not path(m, {"type": "infantry", "pushing_gun": True}, steps, 4).road_bonus
    assert not path(m, "infantry", steps, 4, conditions={"weather": "mud"}).road_bonus
    assert path(m, "cavalry", steps, 4).road_bonus and path(m, "wagon", steps, 4).road_bonus
    assert not path(m, "vehicle", steps, 2).road_bonus


def test_b3_4_the_first_hexside_must_be_a_road_hexside_too() -> None:
    """road_bonus_first_hexside (chart-research.md): a move that starts off the road (A2 -> B2) gets no bonus."""
    m = small()
    assert not path(m, "infantry", ["A2", "B2", "B3", "B4", "B5"], 4).road_bonus


# ---------------------------------------------------------------------------------------------- B3.43 (tests 7, 8)


def test_b3_43_paying_for_woods_protection_denies_the_bonus(roads: Map) -> None:
    """Digest test 7: the dirt road through woods-road hex J3: at the road rate five hexes fit in 4 MF (road
    bonus); paying the woods cost for protection there costs 2 MF and no road bonus that MPh."""
    on_road = path(roads, "infantry", ["L3", "K3", "J3", "I3", "H3", "G3"], 4)
    assert on_road.allowed and on_road.road_bonus and on_road.cost == 5
    prot = path(roads, "infantry", ["L3", "K3", {"to": "J3", "protection": True}, "I3", "H3", "G3"], 4)
    assert not prot.allowed and not prot.road_bonus
    assert prot.steps[1].cost == 2 and not prot.steps[1].road_rate


def test_b3_43_rubble_negates_the_road(roads: Map) -> None:
    """Digest test 8: a Rubble counter in road hex 12O6: no ½-MP road rate for vehicles, no road bonus, no
    Dash."""
    r = move_cost(roads, "vehicle", "N6", "O6", road_rate=True)
    assert not r.allowed and r.forbidden_by == "B3.43"
    v = move_cost(roads, "vehicle", "N6", "O6")
    assert not v.road_rate and (v.cost is None or v.cost > F(1, 2))
    assert not path(roads, "infantry", ["M6", "N6", "O6"], 4).road_bonus
    d = move_cost(roads, "infantry", "N6", "O6", dash=True)
    assert not d.allowed and d.forbidden_by == "B3.43"


# ---------------------------------------------------------------------------------------------- B3.41, B3.42 (test 9)


def test_b3_41_vehicle_crosses_a_road_hexside_for_half_mp(roads: Map) -> None:
    """Digest test 9: a fully-tracked vehicle crosses a road hexside into a same-level road hex for ½ MP."""
    r = move_cost(roads, "vehicle", "M1", "M2")
    assert r.cost == F(1, 2) and r.road_rate and "B3.41" in rules_of(r)


def test_b3_41_climb_surcharge_halved_across_a_road_hexside(roads: Map) -> None:
    """Digest test 9: up a level along the road (M10 -> M11): ½ + 2 = 2½ MP; into an OG hex one level up
    off the road (L10 -> L11): 1 + 4 = 5 MP."""
    assert move_cost(roads, "vehicle", "M10", "M11").cost == F(5, 2)
    off = move_cost(roads, "vehicle", "L10", "L11")
    assert off.cost == 5 and not off.road_rate and "B10.4" in rules_of(off)


def test_b3_41_buttoned_up_vehicles_pay_1_mp_on_the_road(roads: Map) -> None:
    """B3.41 EXC (BU, D5.2): the chart's '½ [BU: 1]' for fully-tracked vehicles."""
    r = move_cost(roads, {"type": "vehicle", "buttoned_up": True}, "M1", "M2")
    assert r.cost == 1 and r.road_rate


def test_b3_42_wreck_penalty_doubled_at_the_road_rate() -> None:
    """B3.42: the +1 MP for a vehicle/wreck in the hex entered is +2 per vehicle/wreck across a road hexside
    at the road rate (½ + 2 = 2½); off the road it stays +1 (1 + 1 = 2), so the engine takes that and says
    so."""
    m = small(counters=[{"type": "wreck", "at": "B3"}])
    road = move_cost(m, "vehicle", "B2", "B3", road_rate=True)
    assert road.cost == F(5, 2) and "B3.42" in rules_of(road)
    cheaper = move_cost(m, "vehicle", "B2", "B3")
    assert cheaper.cost == 2 and not cheaper.road_rate


def test_b3_3_ffmo_exposed_only_when_the_road_rate_skips_non_open_ground(roads: Map) -> None:
    """B3.3: a road-rate entry into woods-road hex J3 exposes Infantry to FFMO; into an open road hex the
    flag stays off (the hex is Open Ground anyway); vehicles are never flagged."""
    assert move_cost(roads, "infantry", "K3", "J3").ffmo_exposed
    assert not move_cost(roads, "infantry", "L3", "K3").ffmo_exposed
    assert not move_cost(roads, "vehicle", "K3", "J3").ffmo_exposed


def test_b3_2_a_road_hex_entered_off_the_road_costs_its_other_terrain(roads: Map) -> None:
    """B3.2: the road counts only for movement across its road hexsides: woods-road hex I3 entered from
    woods I2 (no road hexside) costs the woods' 2 MF; open road hex M5 entered from L5 costs 1 MF (Open
    Ground), without the road rate and without the road bonus."""
    w = move_cost(roads, "infantry", "I2", "I3")
    assert w.cost == 2 and not w.road_rate and not w.keeps_road_bonus
    o = move_cost(roads, "infantry", "L5", "M5")
    assert o.cost == 1 and not o.road_rate and not o.keeps_road_bonus


# ---------------------------------------------------------------------------------------------- B3.43 (review additions)


def test_b3_43_shellhole_protection_costs_2_mf_and_denies_the_bonus() -> None:
    """B3.43: Infantry that pay the extra MF for a shellhole's protection (2 MF, not the road's 1) claim no
    road bonus that MPh; taking the road through the same hex keeps it."""
    m = small(hexes=[{"at": ["B4"], "terrain": "shellholes"}])
    road = path(m, "infantry", ["B1", "B2", "B3", "B4", "B5", "B6"], 4)
    assert road.allowed and road.road_bonus and road.cost == 5
    paid = path(m, "infantry", ["B1", "B2", "B3", {"to": "B4", "protection": True}, "B5", "B6"], 4)
    assert paid.steps[2].cost == 2 and not paid.steps[2].road_rate and not paid.steps[2].keeps_road_bonus
    assert not paid.road_bonus and not paid.allowed and paid.cost == 6


def test_b3_43_orchard_cover_instead_of_the_road_denies_the_bonus() -> None:
    """B3.43: choosing an orchard's non-Open-Ground cover over the road's Open Ground (same 1 MF) costs the
    road bonus; at the road rate the orchard-road hex keeps it and leaves Infantry to FFMO (B3.3)."""
    m = small(hexes=[{"at": ["B3"], "terrain": "orchard"}])
    on_road = move_cost(m, "infantry", "B2", "B3")
    assert on_road.cost == 1 and on_road.road_rate and on_road.keeps_road_bonus and on_road.ffmo_exposed
    cover = move_cost(m, "infantry", "B2", "B3", protection=True)
    assert cover.cost == 1 and not cover.road_rate and not cover.keeps_road_bonus and not cover.ffmo_exposed
    assert not path(m, "infantry", ["B1", "B2", {"to": "B3", "protection": True}, "B4"], 4).road_bonus


def test_b3_43_protection_and_the_road_rate_exclude_each_other(roads: Map) -> None:
    """B3.43: asking for the road rate while paying for woods protection is forbidden, not a cost."""
    r = move_cost(roads, "infantry", "K3", "J3", road_rate=True, protection=True)
    assert not r.allowed and r.forbidden_by == "B3.43"


def test_b3_43_rubble_road_is_no_road_for_infantry_either(roads: Map) -> None:
    """B3.43: a road covered by rubble does not exist: Infantry entering rubbled road hex 12O6 pay the rubble
    COT (3 MF for stone rubble, [U]) and cannot ask for the road rate."""
    r = move_cost(roads, "infantry", "N6", "O6")
    assert r.cost == 3 and not r.road_rate and r.rules() == ("B24.4",)
    forced = move_cost(roads, "infantry", "N6", "O6", road_rate=True)
    assert not forced.allowed and forced.forbidden_by == "B3.43"


# ---------------------------------------------------------------------------------------------- B3.4 (review additions)


def test_b3_4_barbed_wire_fence_on_the_road_costs_the_bonus() -> None:
    """B3.4 lists Wire among what denies the bonus; the judgment fence_denies_road_bonus takes a barbed-wire
    fence (P3) crossed on the road as that Wire: +1 MF and no road bonus."""
    m = small(hexsides=[{"at": ["B3-B4"], "fence": True}])
    r = path(m, "infantry", ["B1", "B2", "B3", "B4", "B5"], 4)
    assert r.steps[2].cost == 2 and "P3.2" in r.steps[2].rules() and not r.steps[2].keeps_road_bonus
    assert not r.road_bonus and r.cost == 5 and not r.allowed


def test_b3_4_deep_snow_denies_the_bonus_and_vehicles_never_get_it() -> None:
    """B3.4: no road bonus in Deep Snow (nor mud); only Infantry, Cavalry and horse-drawn units earn it."""
    m = small()
    steps = ["B1", "B2", "B3", "B4", "B5", "B6"]
    snow = path(m, "infantry", steps, 4, conditions={"weather": "deep-snow"})
    assert not snow.road_bonus and not snow.allowed and "deep snow" in (snow.reason or "")
    for unit in ("vehicle", "motorcycle"):
        r = path(m, unit, steps, 2)
        assert r.cost == F(5, 2) and not r.road_bonus and not r.allowed


def test_b3_4_reach_honours_the_bonus_state_per_location() -> None:
    """B3.4: reach searches (Location, bonus kept): from B1 with 4 MF the fifth road hex B6 is reached only
    along the road (5 MF with the bonus), its path never leaves the road, and nothing off the road at the
    same distance (A6) is reached."""
    m = small()
    r = reach(m, "infantry", "B1", 4)
    assert r.cost_of("B6") == 5 and r.paths["B6"] == ["B1", "B2", "B3", "B4", "B5", "B6"]
    assert r.cost_of("B7") is None and r.cost_of("A6") is None
    assert "B6" in r.to_json()["road_bonus"] and "B5" not in r.to_json()["road_bonus"]


# ---------------------------------------------------------------------------------------------- B3.41, B3.42 (review additions)


def test_b3_41_vehicle_on_a_woods_road_pays_half_mp_and_no_bog(roads: Map) -> None:
    """B3.41: a vehicle following the dirt road into woods-road hex J3 pays ½ MP and makes no Bog check;
    leaving the road into woods I2 costs ALL its MP and a Bog check (B13.41)."""
    r = move_cost(roads, "vehicle", "K3", "J3")
    assert r.cost == F(1, 2) and r.road_rate and not r.bog and not r.all_mf
    off = move_cost(roads, "vehicle", "J3", "J2")
    assert off.all_mf and off.bog and off.cost == 16


def test_b3_42_two_wrecks_cost_plus_4_at_the_road_rate() -> None:
    """B3.42: +2 MP per vehicle/wreck at the road rate, so two wrecks cost ½ + 4; the engine takes the
    cheaper off-road entry (1 + 2) unless the road rate is asked for."""
    m = small(counters=[{"type": "wreck", "at": "B3"}, {"type": "vehicle", "at": "B3"}])
    assert move_cost(m, "vehicle", "B2", "B3", road_rate=True).cost == F(9, 2)
    cheap = move_cost(m, "vehicle", "B2", "B3")
    assert cheap.cost == 3 and not cheap.road_rate and "D2.14" in cheap.rules()


def test_b3_41_an_all_cost_does_not_hide_the_road_rate_at_allowance_0_bug(roads: Map) -> None:
    """Regression: with an allowance of 0 the woods' ALL cost is not allowed, and that used to forbid the
    whole move; a vehicle following the road into woods-road hex J3 still costs ½ MP at the road rate
    (B3.41), and refusing the road rate gives the ALL ruling's reason."""
    r = move_cost(roads, "vehicle", "K3", "J3", allowance=0)
    assert r.allowed and r.cost == F(1, 2) and r.road_rate
    off = move_cost(roads, "vehicle", "K3", "J3", allowance=0, road_rate=False)
    assert not off.allowed and "ALL" in (off.reason or "")


def test_b3_4_path_says_which_step_lost_the_road_bonus_and_why() -> None:
    """Regression: a path over road hexsides whose bonus SMOKE spoiled said "not every step stayed on
    roads"; it now names the step and what it meets there (B3.4)."""
    from asl_terrain.model import load_demo

    m = load_demo()
    r = path(m, "infantry", ["HrM18", "HrM17", "HrM16", "HrM15", "HrM14"])
    assert not r.allowed and not r.road_bonus
    assert "step 2 into HrM16 meets SMOKE in HrM16" in (r.reason or "")
