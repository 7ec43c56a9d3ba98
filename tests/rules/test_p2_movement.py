"""KGP P2 slopes, movement: the P2.51 example and rules-digest §8 tests 13, 15 and 16 (P2.5, P2.51, P2.52,
P2.53, P2.54)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.grid import Hex, Hexside
from asl_terrain.mapfile import read_map_document
from asl_terrain.model import Map
from asl_terrain.movement import is_crest_line_slope, move_cost, moves_up_slope, path

MAPS = Path(__file__).resolve().parent.parent / "maps"
F = Fraction


@pytest.fixture(scope="module")
def p2() -> Map:
    return Map.load(MAPS / "p2_slopes.toml")


@pytest.fixture(scope="module")
def crest() -> Map:
    return Map.load(MAPS / "crest_slope.toml")


def with_blocks(name: str, hexes: list[dict[str, Any]] = (), hexsides: list[dict[str, Any]] = ()) -> Map:  # type: ignore[assignment]
    """A fixture map with extra [[hex]] / [[hexside]] blocks appended (later blocks win)."""
    doc = read_map_document(MAPS / name)
    doc["hex"] = [*doc.get("hex", []), *hexes]
    doc["hexside"] = [*doc.get("hexside", []), *hexsides]
    return Map.from_data(doc, source=name)


# ---------------------------------------------------------------------------------------------- P2.51 example


def test_p2_51_squad_a_into_i14_costs_2_5(p2: Map) -> None:
    """P2.51 EX: squad A (H13) pays 1 COT + 1 for the barbed-wire fence + ½ Up-Slope = 2½ MF to enter I14."""
    r = move_cost(p2, "infantry", "H13", "I14")
    assert r.allowed and r.cost == F(5, 2)
    assert [(i.amount, i.rule) for i in r.items] == [(1, "B1"), (1, "P3.2"), (F(1, 2), "P2.51")]


def test_p2_51_squad_a_into_i14_across_a_crest_line_costs_3_5() -> None:
    """P2.51 EX: were A also crossing a Crest Line to level 4, the COT doubles but not the fence or the
    slope: (1 x 2) + 1 + ½ = 3½ MF."""
    m = with_blocks("p2_slopes.toml", hexes=[{"at": ["I14"], "level": 4}])
    r = move_cost(m, "infantry", "H13", "I14")
    assert r.cost == F(7, 2)
    assert sorted((i.amount, i.rule) for i in r.items) == sorted(
        [(1, "B1"), (1, "B10.4"), (1, "P3.2"), (F(1, 2), "P2.51")])


def test_p2_51_squad_a_into_graveyard_h14_costs_2_5(p2: Map) -> None:
    """P2.51 EX: A pays 2½ MF to enter graveyard H14 (1 + 1 fence + ½ Up-Slope)."""
    r = move_cost(p2, "infantry", "H13", "H14")
    assert r.cost == F(5, 2) and "P2.51" in r.rules()


def test_p2_51_squad_b_down_slope_into_j13_costs_1(p2: Map) -> None:
    """P2.51 EX: squad B (I14) pays 1 MF to enter J13: moving Down-Slope costs nothing extra."""
    r = move_cost(p2, "infantry", "I14", "J13")
    assert r.cost == 1 and "P2.51" not in r.rules()
    assert moves_up_slope(p2, Hex.parse("I14"), Hexside.parse("I14-J13")) is False


# ---------------------------------------------------------------------------------------------- P2.5, P2.51, P2.52 (tests 13, 15)


def test_p2_5_up_slope_costs_half_mf_down_slope_nothing(crest: Map) -> None:
    """Digest test 13 on StG9-F8 (marks in G9): G9 -> F8 is Up-Slope, 1½ MF; F8 -> G9 is Down-Slope, 1 MF."""
    assert moves_up_slope(crest, Hex.parse("G9"), Hexside.parse("G9-F8")) is True
    assert move_cost(crest, "infantry", "G9", "F8").cost == F(3, 2)
    assert move_cost(crest, "infantry", "F8", "G9").cost == 1
    assert move_cost(crest, "cavalry", "G9", "F8").cost == F(3, 2)
    assert move_cost(crest, "wagon", "G9", "F8").cost == F(3, 2)


def test_p2_52_vehicle_up_slope_costs_1_mp_plus_cot(crest: Map) -> None:
    """Digest test 15: a fully-tracked vehicle G9 -> F8 pays 1 + 1 = 2 MP; Down-Slope 1 MP."""
    r = move_cost(crest, "vehicle", "G9", "F8")
    assert r.cost == 2 and "P2.52" in r.rules()
    assert move_cost(crest, "vehicle", "F8", "G9").cost == 1


def test_p2_51_skis_gain_half_mf_down_slope(crest: Map) -> None:
    """P2.51: Infantry on skis get a ½-MF bonus for each Down-Slope hexside crossed: an item of -½."""
    r = move_cost(crest, {"type": "infantry", "skis": True}, "F8", "G9")
    assert r.cost == F(1, 2)
    assert any(i.amount == F(-1, 2) and i.rule == "P2.51" for i in r.items)
    assert sum(i.amount for i in r.items) == r.cost


# ---------------------------------------------------------------------------------------------- P2.53 (test 15)


@pytest.mark.parametrize("frm, to", [("J6", "K6"), ("K6", "J6")])
def test_p2_53_no_vehicle_across_a_crest_line_slope_hexside(crest: Map, frm: str, to: str) -> None:
    """P2.53 EX StJ6-K6: no vehicle, nor charging Cavalry, may cross it, either way; Infantry and
    non-charging Cavalry may."""
    assert is_crest_line_slope(crest, Hexside.parse("J6-K6"))
    for unit in ("vehicle", "motorcycle", {"type": "vehicle", "class": "truck"}, "wagon",
                 {"type": "cavalry", "charging": True}):
        r = move_cost(crest, unit, frm, to)
        assert not r.allowed and r.forbidden_by == "P2.53"
    assert move_cost(crest, "infantry", frm, to).allowed
    assert move_cost(crest, "cavalry", frm, to).allowed


def test_p2_53_infantry_up_a_crest_line_slope_pays_double_cot_and_half(crest: Map) -> None:
    """K6 -> J6 (marks in K6, J6 a level up): (1 x 2) + ½ = 2½ MF."""
    assert move_cost(crest, "infantry", "K6", "J6").cost == F(5, 2)


def test_p2_53_a_plain_crest_line_is_open_to_vehicles(crest: Map) -> None:
    """J5-K6 is a Crest Line without a slope: a vehicle may climb it for 1 + 4 MP."""
    r = move_cost(crest, "vehicle", "K6", "J5")
    assert r.allowed and r.cost == 5


# ---------------------------------------------------------------------------------------------- P2.51 + B3.4 (test 16)


def test_p2_51_slope_on_the_road_keeps_the_road_bonus() -> None:
    """Digest test 16: 4 MF Infantry along a road whose 2nd hexside is Up-Slope: that hexside costs 1½ and
    the road bonus still applies (5 MF available), so four road hexes cost 4½ and fit."""
    m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "C"], "rows": [1, 8],
                       "hexside": [{"at": ["B1-B2", "B2-B3", "B3-B4", "B4-B5"], "road": "dirt"},
                                   {"at": ["B2-B3"], "slope": "B2"}]})
    r = path(m, "infantry", ["B1", "B2", "B3", "B4", "B5"], 4)
    assert r.steps[1].cost == F(3, 2) and r.steps[1].keeps_road_bonus
    assert r.cost == F(9, 2) and r.road_bonus and r.allowance == 5 and r.allowed


# ---------------------------------------------------------------------------------------------- P2.54


def test_p2_54_rain_or_snow_flags_the_slope_as_an_elevation_change(crest: Map) -> None:
    """P2.54: in rain or snow, crossing a slope hexside counts as an elevation change for E3.54/E3.723; the
    engine models no E3 effect and says so with a flag, leaving the cost unchanged."""
    wet = move_cost(crest, "infantry", "G9", "F8", conditions={"weather": "rain"})
    dry = move_cost(crest, "infantry", "G9", "F8")
    assert wet.weather_elevation and wet.to_json()["weather_elevation"] is True and "P2.54" in wet.explain()
    assert not dry.weather_elevation and "weather_elevation" not in dry.to_json()
    assert wet.cost == dry.cost
    flat = move_cost(crest, "infantry", "E9", "E10", conditions={"weather": "snow"})
    assert not flat.weather_elevation


# ---------------------------------------------------------------------------------------------- review additions


def test_p2_52_vehicle_up_slope_on_a_road_pays_half_plus_1() -> None:
    """P2.52 with B3.41: a vehicle at the road rate crossing an Up-Slope road hexside pays ½ (road COT) + 1
    (Up-Slope) = 1½ MP; Down-Slope the road rate alone, ½ MP."""
    m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "C"], "rows": [1, 4],
                       "hexside": [{"at": ["B1-B2", "B2-B3"], "road": "paved"}, {"at": ["B1-B2"], "slope": "B1"}]})
    up = move_cost(m, "vehicle", "B1", "B2")
    assert up.cost == F(3, 2) and up.road_rate and sorted(i.rule for i in up.items) == ["B3.41", "P2.52"]
    assert move_cost(m, "vehicle", "B2", "B1").cost == F(1, 2)


def test_p2_51_slope_and_crest_line_items_are_not_doubled_for_a_wagon(crest: Map) -> None:
    """P2.51 covers Wagons: ½ MF + COT Up-Slope; a Wagon climbing a plain Crest Line pays COT x 2 (judgment
    wagon_cot_doubled_up) but may not cross the Crest-Line-slope J6-K6 (P2.53)."""
    assert move_cost(crest, "wagon", "K6", "J5").cost == 2
    r = move_cost(crest, "wagon", "K6", "J6")
    assert not r.allowed and r.forbidden_by == "P2.53"


def test_p2_53_no_vbm_entry_across_a_crest_line_slope() -> None:
    """P2.53: a vehicle may not cross J6-K6 to enter Bypass of K6 either (the entry crosses the hexside): here
    K6 made woods, Bypassed along J6-K6 from J6 to either end; Infantry may (Down-Slope, 1 MF)."""
    m = with_blocks("crest_slope.toml", hexes=[{"at": ["K6"], "terrain": "woods"}])
    for to_vertex in ("J5-J6-K6", "J6-K6-K7"):
        r = move_cost(m, "vehicle", "J6", None, bypass="J6-K6", in_hex="K6", to_vertex=to_vertex)
        assert not r.allowed and r.forbidden_by == "P2.53"
        inf = move_cost(m, "infantry", "J6", None, bypass="J6-K6", in_hex="K6", to_vertex=to_vertex)
        assert inf.allowed and inf.cost == 1 and inf.rules() == ("A4.3",)


def test_p2_54_entering_bypass_across_a_slope_in_snow_is_flagged(crest: Map) -> None:
    """P2.54: a Bypass step that enters its hex across a slope hexside is flagged in snow like any other
    crossing of a slope."""
    m = with_blocks("crest_slope.toml", hexes=[{"at": ["F8"], "terrain": "woods"}])
    r = move_cost(m, "infantry", "G9", None, bypass="F8-G9", in_hex="F8", to_vertex="F8-G8-G9",
                  conditions={"weather": "snow"})
    assert r.allowed and r.weather_elevation and "P2.51" in r.rules()
