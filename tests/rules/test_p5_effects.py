"""KGP P5 (village terrain) effects: P5.121-.126, P5.131-.132, P5.141-.142, P5.1411, P5.15, P5.2.

Map: tests/maps/st_village.toml (the P5.141 illustration) and st_village_mines.toml (the P5.142 example).
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from asl_terrain.ask import answer_one
from asl_terrain.chart import parse_chart
from asl_terrain.effects import (
    apply_rubble,
    bypass_effects,
    can_load,
    can_remove,
    can_unhook,
    can_unload,
    non_stopped_allowed,
    place_rubble,
    rubble_drm,
    street_fighting,
    tca_change,
)
from asl_terrain.errors import QueryError
from asl_terrain.model import Map
from asl_terrain.units import Unit

MAPS = Path(__file__).resolve().parent.parent / "maps"


def _village(*counters: dict[str, Any], mines: bool = False, hexes: list[dict[str, Any]] | None = None) -> Map:
    """The P5.141 illustration with extra counters (and hex blocks)."""
    name = "st_village_mines.toml" if mines else "st_village.toml"
    data = tomllib.loads((MAPS / name).read_text(encoding="utf-8"))
    data.setdefault("counter", []).extend(counters)
    if hexes:
        data.setdefault("hex", []).extend(hexes)
    return Map.from_data(data, source=name)


def _chart(old: str, new: str) -> Any:
    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text(encoding="utf-8")
    assert old in text
    return parse_chart(text.replace(old, new), "test chart")


@pytest.fixture(scope="module")
def village() -> Map:
    return Map.load(MAPS / "st_village.toml")


@pytest.fixture(scope="module")
def mined() -> Map:
    return Map.load(MAPS / "st_village_mines.toml")


def _crest_street(**counters_at: Any) -> Map:
    """A paved Narrow Street hexside C3-D3 that is also a Crest Line: C3 level 1, D3 level 0 (lower)."""
    return Map.from_data({"format": "asl-terrain/1", "columns": ["A", "F"], "rows": [1, 6],
                          "hex": [{"at": ["C3"], "level": 1}],
                          "hexside": [{"at": ["C3-D3"], "narrow_street": "paved"}],
                          "counter": list(counters_at.get("counters", []))})


# ============================================================================================ P5.142 mines


@pytest.mark.parametrize("in_hex", [None, "N17", "O17"])
def test_p5_142_bypass_along_n17_o17_attacked_by_the_six_fp_n17_minefield(mined: Map, in_hex: str | None) -> None:
    """P5.142 EX: any unit Bypassing along N17-O17, whichever hex it occupies, is attacked by N17's 6-FP mines."""
    r = bypass_effects(mined, mined.parse_hexside("N17-O17"), mined.parse_hex(in_hex) if in_hex else None)
    assert [(t.kind, t.strength, t.hex) for t in r.mines] == [("A-P", 6, "StN17")]
    assert "P5.142" in r.rules()


def test_p5_142_bypass_along_n17_o18_undergoes_the_eight_fp_o18_attack(mined: Map) -> None:
    """P5.142 EX: along N17-O18 (six in N17, eight in O18, same type) only the higher, O18's 8 FP, attacks."""
    r = bypass_effects(mined, mined.parse_hexside("N17-O18"))
    assert [(t.kind, t.strength, t.hex) for t in r.mines] == [("A-P", 8, "StO18")]


def test_p5_142_ap_and_at_mines_both_attack() -> None:
    """Digest §8 test 50: A-P 6 in N17 and A-T in O17: a bypasser along N17-O17 can be attacked by both."""
    m = _village({"type": "mines", "at": "N17", "kind": "A-P", "strength": 6},
                 {"type": "mines", "at": "O17", "kind": "A-T", "strength": 4})
    r = bypass_effects(m, m.parse_hexside("N17-O17"))
    assert sorted((t.kind, t.strength, t.hex) for t in r.mines) == [("A-P", 6, "StN17"), ("A-T", 4, "StO17")]


def test_p5_142_crest_line_only_the_lower_hex_mines() -> None:
    """P5.142 EXC: on a Crest-Line Narrow Street hexside only the lower-Base-Level hex's mines are used."""
    m = _crest_street(counters=[{"type": "mines", "at": "C3", "kind": "A-P", "strength": 12},
                                {"type": "mines", "at": "D3", "kind": "A-P", "strength": 6}])
    r = bypass_effects(m, m.parse_hexside("C3-D3"), m.parse_hex("C3"))
    assert [(t.strength, t.hex) for t in r.mines] == [(6, "D3")]
    assert r.in_hex == "D3"  # P5.11: in the lower hex, whatever `in` says


def test_p5_142_b28_53_removal_of_revealed_narrow_street_mines_is_na(mined: Map) -> None:
    """Digest §8 test 50: revealed Narrow Street mines (N17) cannot be removed as per B28.53; N18's can."""
    r = can_remove(mined, "mines", "b28.53", at=mined.parse_location("N17"))
    assert not r.allowed and "P5.142" in r.rules()
    assert can_remove(mined, "mines", "b28.53", at=mined.parse_location("N18")).allowed


# ======================================================================================= P5.131 SMOKE / Residual FP


def test_p5_131_only_the_higher_smoke_and_residual_fp_apply() -> None:
    """P5.131: SMOKE/Residual FP in either Location reach the bypasser; when they differ, only the higher."""
    m = _village({"type": "smoke", "at": "N17", "strength": 2}, {"type": "smoke", "at": "O17", "strength": 3},
                 {"type": "residual-fp", "at": "N17", "fp": 4}, {"type": "residual-fp", "at": "O17", "fp": 2})
    r = bypass_effects(m, m.parse_hexside("N17-O17"))
    assert (r.smoke, r.residual_fp) == (3, 4)
    assert r.smoke_extra_cost == 1 and "P5.131" in r.rules()


def test_p5_131_smoke_of_either_location_alone_applies() -> None:
    m = _village({"type": "residual-fp", "at": "O17", "fp": 6})
    r = bypass_effects(m, m.parse_hexside("N17-O17"))
    assert (r.smoke, r.residual_fp, r.smoke_extra_cost) == (0, 6, 0)


def test_p5_131_crest_line_uses_the_lower_hex() -> None:
    """P5.131 EXC: on a Crest-Line hexside the lower hex's SMOKE/Residual FP applies, even when weaker."""
    m = _crest_street(counters=[{"type": "smoke", "at": "C3", "strength": 3},
                                {"type": "residual-fp", "at": "C3", "fp": 8},
                                {"type": "residual-fp", "at": "D3", "fp": 2}])
    r = bypass_effects(m, m.parse_hexside("C3-D3"))
    assert (r.smoke, r.residual_fp, r.in_hex) == (0, 2, "D3")


def test_bypass_effects_of_a_non_narrow_street_hexside_is_an_error(village: Map) -> None:
    with pytest.raises(QueryError, match="not a Narrow Street"):
        bypass_effects(village, village.parse_hexside("P17-P18"))
    ans = answer_one(village, {"kind": "bypass-effects", "hexside": "P17-P18"})
    assert "Narrow Street" in ans["error"]
    with pytest.raises(QueryError, match="in"):
        bypass_effects(village, village.parse_hexside("N17-O17"), village.parse_hex("O18"))


# ===================================================================================== P5.126 / P5.141 Bypass allowed


def test_p5_126_bypass_allowed_on_a_clear_narrow_street(village: Map) -> None:
    r = bypass_effects(village, village.parse_hexside("N17-O17"))
    assert r.bypass_allowed and r.vbm_allowed and r.reason is None


@pytest.mark.parametrize("counter", [
    {"type": "wreck", "at": "O17", "bypass": "N17-O17"},
    {"type": "vehicle", "at": "N17", "bypass": "N17-O17"},
    {"type": "blaze", "at": "N17"},
    {"type": "rubble", "at": "O17"},
    {"type": "wreck", "at": "N17", "burning": True},
], ids=["wreck-in-bypass", "vehicle-in-bypass", "blaze", "rubble", "burning-wreck-in-hex"])
def test_p5_126_bypass_along_n17_o17_is_na(counter: dict[str, Any]) -> None:
    """Digest §8 test 47: another vehicle/wreck in Bypass along the hexside, a Blaze, or Rubble in either hex
    makes all Bypass along N17-O17 NA."""
    m = _village(counter)
    r = bypass_effects(m, m.parse_hexside("N17-O17"))
    assert not r.bypass_allowed and not r.vbm_allowed and "P5.126" in (r.reason or "")


def test_p5_126_burning_wreck_along_another_hexside_is_no_blaze() -> None:
    """P5.126 EXC: a burning wreck in Bypass along another hexside (N17-O18) does not block N17-O17."""
    m = _village({"type": "wreck", "at": "N17", "bypass": "N17-O18", "burning": True})
    assert bypass_effects(m, m.parse_hexside("N17-O17")).bypass_allowed
    assert not bypass_effects(m, m.parse_hexside("N17-O18")).bypass_allowed


def test_p5_126_vehicle_along_another_hexside_does_not_block() -> None:
    m = _village({"type": "vehicle", "at": "N17", "bypass": "N17-O18"})
    assert bypass_effects(m, m.parse_hexside("N17-O17")).bypass_allowed


def test_p5_141_roadblock_prohibits_vbm_but_not_infantry_bypass(village: Map) -> None:
    """P5.141 / digest §8 test 42: no VBM along the straddled hexside O17-O18; Infantry may still Bypass."""
    r = bypass_effects(village, village.parse_hexside("O17-O18"))
    assert r.bypass_allowed and not r.vbm_allowed and "P5.141" in r.rules()


def test_p5_126_no_wreck_on_a_narrow_street_removed_per_d10_4() -> None:
    """P5.126: no wreck (or Immobile vehicle) on a Narrow Street may be removed as per D10.4."""
    m = _village({"type": "wreck", "at": "N17", "bypass": "N17-O17"},
                 {"type": "vehicle", "at": "O18", "bypass": "N18-O18", "immobile": True},
                 {"type": "wreck", "at": "P18"})
    r = can_remove(m, "wreck", "d10.4", at=m.parse_location("N17@N17-O17"))
    assert not r.allowed and r.rules() == ("P5.126", "D10.4")
    assert not can_remove(m, "wreck", "d10.4", at=m.parse_location("N17")).allowed
    assert not can_remove(m, "vehicle", "d10.4", at=m.parse_location("O18@N18-O18")).allowed
    assert can_remove(m, "wreck", "d10.4", at=m.parse_location("P18")).allowed


# ============================================================================================ P5.1411 roadblock removal


@pytest.mark.parametrize("frm,ok", [("P17", True), ("N17", True), ("O17", True), ("O18", True), ("N16", False),
                                    ("P18", False), ("O17@N17-O17", False)])
def test_p5_1411_clearance_only_from_the_four_ground_level_locations(village: Map, frm: str, ok: bool) -> None:
    """P5.1411: Clearance vs the O17-O18 roadblock only from the four ground-level Locations touching it."""
    r = can_remove(village, "roadblock", "clearance", hexside=village.parse_hexside("O17-O18"),
                   from_=village.parse_location(frm))
    assert r.allowed is ok and r.rules() == ("P5.1411",)


def test_p5_1411_dc_from_one_of_the_vertex_hexes(village: Map) -> None:
    """P5.1411: a DC vs the roadblock is Placed/Thrown/Set vs a vertex of the hexside by a unit in one of that
    vertex's three hexes."""
    hs = village.parse_hexside("O17-O18")
    v = village.parse_vertex("O17-O18-P17")
    assert can_remove(village, "roadblock", "dc", hexside=hs, vertex=v, from_=village.parse_location("P17")).allowed
    assert not can_remove(village, "roadblock", "dc", hexside=hs, vertex=v,
                          from_=village.parse_location("N17")).allowed
    with pytest.raises(QueryError, match="not a vertex"):
        can_remove(village, "roadblock", "dc", hexside=hs, vertex=village.parse_vertex("O17-P17-P16"),
                   from_=village.parse_location("P17"))


def test_p5_1411_indirect_fire_he_vs_either_forming_location(village: Map) -> None:
    hs = village.parse_hexside("O17-O18")
    assert can_remove(village, "roadblock", "indirect-he", hexside=hs, vs=village.parse_location("O18")).allowed
    assert not can_remove(village, "roadblock", "indirect-he", hexside=hs, vs=village.parse_location("P17")).allowed


def test_p5_1411_other_roadblocks_follow_b29_5() -> None:
    m = Map.load(MAPS / "b3_roads.toml")
    r = can_remove(m, "roadblock", "clearance", hexside=m.parse_hexside("M4-M5"), from_=m.parse_location("H1"))
    assert r.allowed and r.rules() == ("B29.5",)


def test_remove_bad_requests_are_errors(village: Map) -> None:
    with pytest.raises(QueryError, match="method"):
        can_remove(village, "roadblock", "b28.53", hexside=village.parse_hexside("O17-O18"))
    with pytest.raises(QueryError, match="what"):
        can_remove(village, "bridge", "dc")
    with pytest.raises(QueryError, match="from"):
        can_remove(village, "roadblock", "clearance", hexside=village.parse_hexside("O17-O18"))


# ============================================================================================ P5.15 rubble


def test_p5_15_rubble_in_o17_removes_roadblock_and_mines_and_hits_bypassers() -> None:
    """Digest §8 test 51: Rubble placed in O17 eliminates the O17-O18 roadblock, hits units/Equipment in Bypass
    along N17-O17 and O17-O18 (either hex) as falling rubble, and eliminates the mines along them."""
    m = _village({"type": "vehicle", "at": "N17", "bypass": "N17-O17"},
                 {"type": "wreck", "at": "N18", "bypass": "N18-O18"}, mines=True)
    r = place_rubble(m, m.parse_hex("O17"))
    assert {(x.what, x.at) for x in r.removed} == {("roadblock", "StO17-O18"), ("mines", "StN17"),
                                                   ("mines", "StO18")}
    assert set(r.falling_rubble) == {"StN17@N17-O17", "StO17@N17-O17", "StO17@O17-O18", "StO18@O17-O18"}
    assert r.hit == ({"what": "vehicle", "at": "StN17@N17-O17"},)
    assert "P5.15" in r.rules() and "B24.121" in r.rules()


def test_p5_15_rubble_removes_n18_mines_only_via_its_narrow_street(mined: Map) -> None:
    """Rubble in O19 (no Narrow Street) changes nothing of P5.15; in N18 it removes N18's and O18's mines."""
    assert place_rubble(mined, mined.parse_hex("O19")).removed == ()
    r = place_rubble(mined, mined.parse_hex("N18"))
    assert {x.at for x in r.removed if x.what == "mines"} == {"StN18", "StO18"}
    assert all(x.what != "roadblock" for x in r.removed)


def test_p5_15_apply_rubble_then_bypass_is_na(mined: Map) -> None:
    """After the Rubble is placed, the removed counters are gone and Bypass along N17-O17 is NA (P5.126)."""
    after = apply_rubble(mined, place_rubble(mined, mined.parse_hex("O17")))
    assert after.roadblock(after.parse_hexside("O17-O18")) is None
    assert after.mines(after.parse_hex("N17")) == () and after.mines(after.parse_hex("N18")) != ()
    assert not bypass_effects(after, after.parse_hexside("N17-O17")).bypass_allowed
    assert bypass_effects(mined, mined.parse_hexside("N17-O17")).bypass_allowed


def test_p5_15_judgment_effect_keeps_the_minefields(mined: Map) -> None:
    """digest §7.33 alternative: with rubble_removes_mines = effect no minefield is removed."""
    chart = _chart('rubble_removes_mines = { value = "hexes"', 'rubble_removes_mines = { value = "effect"')
    r = place_rubble(mined, mined.parse_hex("O17"), chart)
    assert [x.what for x in r.removed] == ["roadblock"]


def test_p5_15_crest_line_bypass_only_in_the_lower_hex() -> None:
    m = _crest_street()
    assert place_rubble(m, m.parse_hex("C3")).falling_rubble == ("D3@C3-D3",)


# ============================================================================================ P5.132 Street Fighting


def test_p5_132_street_fighting_from_a_building_ground_level() -> None:
    """Digest §8 test 58: a squad on the ground level of building O17 attacks an AFV in Bypass along N17-O17 in
    CC: Street Fighting (A11.8) applies; the AFV's own CC CMG attacks get +1."""
    m = Map.load(MAPS / "st_village.toml")
    r = street_fighting(m, m.parse_location("N17@N17-O17"), m.parse_location("O17"))
    assert r.applies and r.vehicle_cc_drm == 1 and r.rules() == ("P5.132", "A11.8")


@pytest.mark.parametrize("attacker", ["N17", "O18", "O17@N17-O17"])
def test_p5_132_no_street_fighting_otherwise(village: Map, attacker: str) -> None:
    """N17 is not a building; O18 is not a hex of N17-O17; a unit in Bypass is not in the building."""
    r = street_fighting(village, village.parse_location("O17@N17-O17"), village.parse_location(attacker))
    assert not r.applies and r.vehicle_cc_drm == 1


def test_p5_132_vehicle_not_on_a_narrow_street(village: Map) -> None:
    r = street_fighting(village, village.parse_location("P17"), village.parse_location("O17"))
    assert not r.applies and r.vehicle_cc_drm == 0


def test_p5_132_vertex_form_names_the_street(village: Map) -> None:
    """N17@N17-O17-N16: the only Narrow Street hexside of N17 ending at that vertex is N17-O17."""
    r = street_fighting(village, village.parse_location("N17@N17-O17-N16"), village.parse_location("O17"))
    assert r.applies


# ============================================================================================ P5.124 / P5.125


@pytest.mark.parametrize("to,ok", [("N17", True), ("O17", True), ("O18", False), ("O17@N17-O17", False)])
def test_p5_125_unload_into_either_ground_level_location(village: Map, to: str, ok: bool) -> None:
    """Digest §8 test 56: PRC unload from a vehicle on Narrow Street N17-O17 into N17 or O17 only."""
    veh = village.parse_location("N17@N17-O17")
    assert can_unload(village, veh, village.parse_location(to)).allowed is ok
    assert can_load(village, veh, village.parse_location(to)).allowed is ok


def test_p5_125_mortar_may_be_unhooked_there(village: Map) -> None:
    r = can_unload(village, village.parse_location("N17@N17-O17"), village.parse_location("O17"), "mortar")
    assert r.allowed and "MTR" in r.explain() and r.rules() == ("P5.125",)


def test_p5_124_towed_gun_cannot_be_unhooked_in_bypass(village: Map) -> None:
    """Digest §8 test 55: a towed Gun cannot be unhooked in Bypass on a Narrow Street; a trailer may be, by the
    towing vehicle's crew only, and is then eliminated."""
    veh = village.parse_location("N17@N17-O17")
    assert not can_unhook(village, veh, "gun").allowed
    r = can_unhook(village, veh, "trailer", "crew")
    assert r.allowed and r.eliminated is True
    assert not can_unhook(village, veh, "trailer", "other").allowed
    assert can_unhook(village, village.parse_location("P17"), "gun").allowed


# ============================================================================================ P5.121 / P5.122 TCA


_AFV = Unit.from_json({"type": "vehicle", "caliber": 75, "barrel": "L"})


@pytest.mark.parametrize("offset,ok", [(0, True), (1, False), (2, False), (3, True), (4, False), (5, False)])
def test_p5_121_non_stopped_only_with_tca_on_vca_or_rear_vca(offset: int, ok: bool) -> None:
    """Digest §8 test 52: a 75L turreted AFV with its TCA off its VCA/rear VCA may not be Non-Stopped."""
    assert non_stopped_allowed(_AFV, offset)[0] is ok


@pytest.mark.parametrize("unit", [{"type": "vehicle", "caliber": 37, "barrel": "L"},
                                  {"type": "vehicle", "caliber": 75, "barrel": "*"},
                                  {"type": "vehicle", "caliber": 75, "turreted": False}],
                         ids=["37mm", "star-barrel", "no-turret"])
def test_p5_121_does_not_limit_small_short_or_unturreted_guns(unit: dict[str, Any]) -> None:
    assert non_stopped_allowed(Unit.from_json(unit), 1)[0]


def test_p5_122_tca_change_drm_and_chance() -> None:
    """P5.122: LL +2, BU +1, Armor Leader -1: drm +2, so only a 1 succeeds (dr <= 3)."""
    u = Unit.from_json({"type": "vehicle", "caliber": 88, "barrel": "LL", "buttoned_up": True, "armor_leader": -1})
    r = tca_change(u)
    assert r.required and r.allowed and r.drm == 2 and r.success_probability == Fraction(1, 6)
    assert sum(i.amount for i in r.items) == r.drm
    assert r.failure_cost_mp == 2
    assert tca_change(u, phase="other").failure_cost_mp == 0


def test_p5_122_star_barrel_minus_one() -> None:
    r = tca_change(Unit.from_json({"type": "vehicle", "caliber": 75, "barrel": "*"}))
    assert r.drm == -1 and r.success_probability == Fraction(4, 6)


def test_p5_122_at_most_two_attempts_per_phase() -> None:
    assert tca_change(_AFV, attempt=2).allowed
    r = tca_change(_AFV, attempt=3)
    assert not r.allowed and "P5.122" in (r.reason or "")


def test_p5_122_small_guns_need_no_dr() -> None:
    r = tca_change(Unit.from_json({"type": "vehicle", "caliber": 37}))
    assert not r.required and r.allowed and r.success_probability == 1 and r.failure_cost_mp == 0


def test_p5_122_infantry_has_no_tca() -> None:
    with pytest.raises(QueryError, match="vehicle"):
        tca_change(Unit())


@given(st.sampled_from(["", "*", "L", "LL"]), st.booleans(), st.integers(-3, 2))
def test_p5_122_success_probability_property(barrel: str, bu: bool, leader: int) -> None:
    """Property: items add up to the drm, and the chance is the share of d6 rolls with roll + drm <= 3."""
    u = Unit.from_json({"type": "vehicle", "caliber": 75, "barrel": barrel, "buttoned_up": bu,
                        "armor_leader": leader})
    r = tca_change(u)
    assert r.drm == sum((i.amount for i in r.items), Fraction(0))
    assert r.success_probability == Fraction(max(0, min(6, 3 - int(r.drm))), 6)


# ============================================================================================ P5.2 rubble drm


def test_p5_2_no_stone_drm_for_the_steeple(village: Map) -> None:
    """Digest §8 test 59: rubble determination for the Steeple J19/2 gets no +1 stone drm (P5.2); J19/1 does."""
    assert rubble_drm(village, village.parse_location("J19/2")).drm == 0
    r = rubble_drm(village, village.parse_location("J19/1"))
    assert r.drm == 1 and r.rules() == ("B24.11",)
    assert rubble_drm(village, village.parse_location("O18")).drm == 0  # wooden
    with pytest.raises(QueryError):
        rubble_drm(village, village.parse_location("N17"))


# ============================================================================================ ask


@pytest.mark.parametrize("query,key,value", [
    ({"kind": "bypass-effects", "hexside": "N17-O17"}, "mines", [{"kind": "A-P", "strength": 6, "hex": "StN17"}]),
    ({"kind": "place-rubble", "at": "O19"}, "removed", []),
    ({"kind": "remove", "what": "roadblock", "hexside": "O17-O18", "method": "clearance", "from": "P17"},
     "allowed", True),
    ({"kind": "remove", "what": "mines", "at": "N17", "method": "b28.53"}, "allowed", False),
    ({"kind": "street-fighting", "vehicle": "N17@N17-O17", "attacker": "O17"}, "applies", True),
    ({"kind": "unload", "vehicle": "N17@N17-O17", "to": "O17", "what": "squad"}, "allowed", True),
    ({"kind": "load", "vehicle": "N17@N17-O17", "from": "O18", "what": "squad"}, "allowed", False),
    ({"kind": "unhook", "vehicle": "N17@N17-O17", "what": "trailer", "by": "crew"}, "eliminated", True),
    ({"kind": "tca-change", "unit": {"type": "vehicle", "caliber": 75, "barrel": "L", "buttoned_up": True}},
     "drm", 2),
    ({"kind": "tca-change", "unit": "vehicle", "tca_offset": 1}, "non_stopped_allowed", False),
    ({"kind": "rubble-drm", "at": "J19/2", "building": "stone"}, "drm", 0),
], ids=lambda x: x if isinstance(x, str) else None)
def test_ask_answers_p5_kinds(mined: Map, query: dict[str, Any], key: str, value: Any) -> None:
    ans = answer_one(mined, query)
    assert "error" not in ans, ans
    assert ans[key] == value
    assert ans["kind"] == query["kind"] and ans["rules"] and ans["explain"]


def test_ask_tca_change_keys() -> None:
    m = Map.load(MAPS / "st_village.toml")
    ans = answer_one(m, {"kind": "tca-change", "unit": {"type": "vehicle", "caliber": 75, "barrel": "L",
                                                        "buttoned_up": True}, "attempt": 3, "phase": "other"})
    for k in ("required", "allowed", "drm", "success_probability", "failure_cost_mp"):
        assert k in ans
    assert ans["allowed"] is False and ans["failure_cost_mp"] == 0
    assert "vehicle" in answer_one(m, {"kind": "tca-change", "unit": "infantry"})["error"]
    assert "unit" in answer_one(m, {"kind": "tca-change"})["error"]


# ============================================================================================ P5.141 roadblock TEM


def _tem(m: Map, target: str, firer: str | None, attack: str = "small-arms", **kw: Any) -> Any:
    from asl_terrain.effects import tem

    for key, parse in (("snap_shot", m.parse_hexside), ("declared_vertex", m.parse_vertex)):
        if isinstance(kw.get(key), str):
            kw[key] = parse(kw[key])
    return tem(m, m.parse_location(target), [m.parse_location(firer)] if firer else [], attack, **kw)


def _roadblock_items(r: Any) -> list[Any]:
    return [i for i in r.tem_items if "roadblock" in i.why]


@pytest.mark.parametrize("firer", ["P17", "Q17"])
def test_p5_141_squad_h_in_o18_gets_no_roadblock_tem_vs_squad_f(village: Map, firer: str) -> None:
    """P5.141 EX / digest §8 test 43: squad H in O18 fired on by squad F on the P17 side claims no roadblock TEM
    (F's LOS ends at O18's centre dot, the segment's end, without crossing it) and no Wall Advantage; only its
    building's TEM."""
    r = _tem(village, "O18", firer)
    assert r.affected and not _roadblock_items(r) and r.tem == 2
    assert "Wall Advantage" in r.explain()


def test_p5_141_snap_shot_vs_h_declared_on_the_n17_side(village: Map) -> None:
    """P5.141 EX / digest §8 test 44: H crosses O17-O18 declaring vertex O17-O18-N17; F's Snap Shot (its LOS to
    that vertex first crosses the roadblock) is subject to the roadblock's +2 TEM."""
    r = _tem(village, "O17", "P17", snap_shot="O17-O18", declared_vertex="N17-O17-O18", moved_by="non-road")
    assert [i.amount for i in _roadblock_items(r)] == [2] and r.tem == 2 and "P5.141" in r.rules()
    assert not r.ffmo and r.ffnam


def test_p5_141_snap_shot_from_a_bypasser_at_the_p17_vertex(village: Map) -> None:
    """P5.141 EX: likewise a unit in Bypass at vertex O17-O18-P17, whose LOS to vertex O17-O18-N17 runs along the
    hexside and crosses the segment."""
    r = _tem(village, "O17", "O17@O17-O18-P17", snap_shot="O17-O18", declared_vertex="O17-O18-N17")
    assert r.tem == 2 and _roadblock_items(r)


def test_p5_141_declared_on_the_p17_side_no_roadblock_tem(village: Map) -> None:
    """Had H declared the O17-O18-P17 side, F's Snap Shot would not cross the roadblock: no roadblock TEM, and
    on the hexside the unit is in Open Ground (FFMO)."""
    r = _tem(village, "O17", "P17", snap_shot="O17-O18", declared_vertex="O17-O18-P17", moved_by="non-road")
    assert r.tem == 0 and not _roadblock_items(r) and r.ffmo


def test_p5_141_bypassing_h_at_the_n17_vertex_gets_roadblock_tem(village: Map) -> None:
    """P5.141 EX: H entering O17 by Bypassing along O17-N17: each attack vs it at vertex O17-O18-N17 by a unit
    whose LOS to that vertex first crosses the roadblock is subject to the roadblock TEM."""
    for firer in ("P17", "O17@O17-O18-P17"):
        r = _tem(village, "O17@O17-O18-N17", firer)
        assert r.tem == 2 and _roadblock_items(r), firer


@pytest.mark.parametrize("attack", ["indirect", "residual-fp"])
def test_p5_141_no_roadblock_tem_vs_indirect_fire_or_residual_fp(village: Map, attack: str) -> None:
    """P5.141 / digest §8 test 44: the same attack as Indirect Fire or Residual FP gets no roadblock TEM."""
    r = _tem(village, "O17@O17-O18-N17", None, attack)
    assert r.affected and r.tem == 0 and "no TEM vs" in r.explain()


def test_p5_141_crossing_a_roadblock_hexside_needs_a_declared_vertex(village: Map) -> None:
    with pytest.raises(QueryError, match="declared_vertex"):
        _tem(village, "O17", "P17", snap_shot="O17-O18")
    with pytest.raises(QueryError, match="declared_vertex"):
        _tem(village, "O17", "P17", snap_shot="O17-O18", declared_vertex="O17-P17-P16")


def test_p5_141_ask_tem_with_declared_vertex(village: Map) -> None:
    ans = answer_one(village, {"kind": "tem", "target": "O17", "firer": "P17", "snap_shot": "O17-O18",
                               "declared_vertex": "O17-O18-N17"})
    assert ans["tem"] == 2 and ans["items"][0]["rule"] == "P5.141"


@pytest.mark.parametrize("firer,ok", [("P17", True), ("N17", True), ("Q17", False), ("N16", False),
                                      ("O19", False)])
def test_p5_1411_direct_fire_ordnance_needs_los_to_the_entire_hexside(village: Map, firer: str, ok: bool) -> None:
    """P5.1411: Direct Fire ordnance eliminates the roadblock only with a LOS to the entire straddled hexside
    (judged at both end vertices, seen past neither building, judgment roadblock_hexside_los)."""
    r = can_remove(village, "roadblock", "direct-fire", hexside=village.parse_hexside("O17-O18"),
                   firer=village.parse_location(firer))
    assert r.allowed is ok and "sole target" in r.explain()


def test_a4_34_bypasser_is_in_open_ground_unless_the_los_passes_through_its_obstacle(village: Map) -> None:
    """Digest §7.23 (judgment bypass_tem_through_obstacle): a unit in Bypass in O17 at vertex O17-O18-P17 is in
    Open Ground to P17 next to it, but fired on from N16 through building O17 it takes the building's +3 (the
    better of it and the +2 roadblock TEM its LOS also crosses)."""
    r = _tem(village, "O17@O17-O18-P17", "P17", moved_by="non-road")
    assert r.tem == 0 and r.open_ground and r.ffmo
    r = _tem(village, "O17@O17-O18-P17", "N16")
    assert r.tem == 3 and [i.rule for i in r.tem_items] == ["B23.3"] and "not cumulative" in r.explain()


# ============================================================================================ review additions


def test_p5_2_steeple_counts_as_a_building_level_above_vs_indirect_fire(village: Map) -> None:
    """P5.2 (a Steeple is a normal building Location) and the chart note on building TEM: vs Indirect Fire a
    building Location gets +1 for each building level above it. StJ19 (stone, ground + 1st + 2nd-level Steeple):
    ground +3 +2 = 5, 1st level +3 +1 = 4, the Steeple +3; vs Direct Fire always +3."""
    for loc, want in (("J19", 5), ("J19/1", 4), ("J19/2", 3)):
        r = _tem(village, loc, None, "indirect")
        assert r.tem == want and [i.rule for i in r.tem_items] == ["B23.3"], loc
    assert _tem(village, "J19", "J17").tem == 3


def test_p5_141_roadblock_tem_does_not_depend_on_wall_advantage(village: Map) -> None:
    """P5.141: a Narrow Street roadblock cannot convey Wall Advantage, so its TEM goes with the LOS alone: H
    Bypassing at vertex O17-O18-N17, fired on across the roadblock, gets +2 whether or not it holds Wall
    Advantage."""
    for wa in (True, False):
        r = _tem(village, "O17@O17-O18-N17", "P17", wall_advantage=wa)
        assert r.tem == 2 and _roadblock_items(r), wa


def test_p5_124_a_trailer_answer_always_says_whether_it_is_eliminated(village: Map) -> None:
    """queries.md: unhook answers 'eliminated' for a trailer: true when the crew unhooks it in Bypass on a Narrow
    Street (P5.124), false when another unit may not, false off a Narrow Street."""
    veh = village.parse_location("N17@N17-O17")
    assert can_unhook(village, veh, "trailer", "other").eliminated is False
    assert can_unhook(village, village.parse_location("P17"), "trailer").eliminated is False
    assert answer_one(village, {"kind": "unhook", "vehicle": "N17@N17-O17", "what": "trailer", "by": "other"}
                      )["eliminated"] is False
    assert "eliminated" not in answer_one(village, {"kind": "unhook", "vehicle": "N17@N17-O17", "what": "gun"})


def test_p5_1411_ground_level_locations_exclude_in_a_stream_and_building_levels() -> None:
    """P5.1411 / P5.125: 'ground-level Location' is the hex's base Location but not IN a stream (Crest status is
    ground level there), not a building level, not a Bypass position (digest §1.5). A roadblock straddling
    Narrow Street C3-D3 with stream hex D2 at one of its vertices: Clearance from D2/crest, not from IN D2;
    not from D3/1."""
    from asl_terrain.effects import is_ground_level

    m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "F"], "rows": [1, 6],
                       "hex": [{"at": ["D2"], "stream": "shallow"},
                               {"at": ["D3"], "terrain": "building", "building_type": "two-story-house"}],
                       "hexside": [{"at": ["C3-D3"], "narrow_street": "paved"}],
                       "counter": [{"type": "roadblock", "hexside": "C3-D3", "arrow": "C3-D2-D3"}]})
    hs = m.parse_hexside("C3-D3")
    assert m.parse_hex("D2") in {h for v in hs.vertices() for h in v.hexes}
    assert not is_ground_level(m, m.parse_location("D2")) and is_ground_level(m, m.parse_location("D2/crest"))
    for frm, ok in (("D2/crest", True), ("D2", False), ("D3", True), ("D3/1", False), ("C3", True)):
        assert can_remove(m, "roadblock", "clearance", hexside=hs, from_=m.parse_location(frm)).allowed is ok, frm
    assert not can_unload(m, m.parse_location("C3@C3-D3"), m.parse_location("D3/1")).allowed
