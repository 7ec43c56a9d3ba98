"""Set-up legality and stacking (asl_terrain.setup): B3.5, P4.21, P5.14, P5.142, P5.2, P5.21, A5.1, P4.2."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from asl_terrain.ask import answer_one
from asl_terrain.chart import default_chart
from asl_terrain.errors import BadName, NotAdjacent, QueryError, UnknownLocation
from asl_terrain.model import Map
from asl_terrain.setup import (
    SETUP_ITEMS,
    can_set_up,
    is_paved_road_hex,
    mines_must_be_revealed,
    stacking_limit,
)

MAPS = Path(__file__).parent / "maps"


@pytest.fixture(scope="module")
def village() -> Map:
    return Map.load(MAPS / "st_village.toml")


@pytest.fixture(scope="module")
def roads() -> Map:
    return Map.load(MAPS / "b3_roads.toml")


@pytest.fixture(scope="module")
def streams() -> Map:
    return Map.load(MAPS / "streams.toml")


def _map(**extra: object) -> Map:
    data: dict[str, object] = {"format": "asl-terrain/1", "columns": ["A", "F"], "rows": [1, 6]}
    data.update(extra)
    return Map.from_data(data)


# ------------------------------------------------------------------------------------------- B3.5 / P5.14


def test_b3_5_m4_is_a_paved_road_hex(roads: Map) -> None:
    """12M4 has paved and dirt road hexsides: a paved road hex (B3.1); an off-road hex is not."""
    assert is_paved_road_hex(roads, roads.parse_hex("M4"))
    assert not is_paved_road_hex(roads, roads.parse_hex("H8"))


def test_b3_5_foxhole_in_paved_road_hex_is_illegal(roads: Map) -> None:
    """Digest §8 test 12: an entrenchment may not be placed in a paved road hex (B3.5)."""
    r = can_set_up(roads, "entrenchment", roads.parse_location("M4"))
    assert not r.allowed and "B3.5" in r.rules() and "paved road hex" in (r.reason or "")
    assert can_set_up(roads, "entrenchment", roads.parse_location("H8")).allowed


def test_b3_5_hidden_mines_in_paved_road_hex_are_illegal(roads: Map) -> None:
    """Digest §8 test 12: HIP mines in a paved road hex are illegal (B3.5); non-hidden A-T mines may be set up
    there (B28.53), non-hidden A-P mines may not (B28.1)."""
    m4 = roads.parse_location("M4")
    assert not can_set_up(roads, "mines", m4, mine_kind="A-P", hidden=True).allowed
    assert not can_set_up(roads, "mines", m4, mine_kind="A-T", hidden=True).allowed
    at = can_set_up(roads, "mines", m4, mine_kind="A-T", hidden=False)
    assert at.allowed and "B28.53" in at.rules()
    assert not can_set_up(roads, "mines", m4, mine_kind="A-P", hidden=False).allowed


def test_b3_5_dirt_road_hex_allows_hidden_mines_and_foxholes(roads: Map) -> None:
    """L3 has only dirt road hexsides: B3.5 speaks of paved road hexes only."""
    l3 = roads.parse_location("L3")
    assert can_set_up(roads, "mines", l3, mine_kind="A-P", hidden=True).allowed
    assert can_set_up(roads, "entrenchment", l3).allowed


def test_p5_14_foxhole_beside_paved_narrow_street_is_legal(village: Map) -> None:
    """Digest §8 test 12: N17's only roads are paved Narrow Street hexsides: a foxhole is legal there (P5.14)."""
    r = can_set_up(village, "entrenchment", village.parse_location("N17"))
    assert r.allowed and "P5.14" in r.rules()


def test_p5_14_other_terrain_still_prohibits(village: Map) -> None:
    """P5.14 'unless prohibited by other terrain in the hex': no entrenchment in building O17."""
    r = can_set_up(village, "entrenchment", village.parse_location("O17"))
    assert not r.allowed and "building" in (r.reason or "")


def test_p5_14_does_not_cancel_a_real_paved_road_through_the_hex() -> None:
    """Issue 9 (last rulings): P5.14 lifts B3.5 only where the hex's only paved road is a Narrow Street
    hexside (digest §7.36). A hex with a real paved road hexside keeps B3.5's prohibition of entrenchments
    and B28.1's of A-P minefields even when it also has a paved Narrow Street hexside, and the explanation
    names the road. (This test asserted the opposite before issue 9 demanded the change.)"""
    m = _map(hexside=[{"at": ["C3-C4"], "road": "paved"}, {"at": ["C3-D3"], "narrow_street": "paved"}])
    r = can_set_up(m, "entrenchment", m.parse_location("C3"))
    assert not r.allowed and "B3.5" in r.rules() and "C3-C4" in (r.reason or "")
    assert not can_set_up(m, "entrenchment", m.parse_location("C4")).allowed
    ap = can_set_up(m, "mines", m.parse_location("C3"), hidden=False, mine_kind="A-P")
    assert not ap.allowed and "B28.1" in ap.rules() and "C3-C4" in (ap.reason or "")
    at = can_set_up(m, "mines", m.parse_location("C3"), hidden=False, mine_kind="A-T")
    assert at.allowed and "B28.53" in at.rules()
    # with only the Narrow Street, P5.14 still lets the foxhole in
    ns = _map(hexside=[{"at": ["C3-D3"], "narrow_street": "paved"}])
    assert can_set_up(ns, "entrenchment", ns.parse_location("C3")).allowed


# ------------------------------------------------------------------------------------------- P5.142


def test_p5_142_mines_in_n17_and_o18_must_be_revealed(village: Map) -> None:
    """P5.142 EX: the minefields in N17 and O18 have to have been set up revealed (paved Narrow Streets)."""
    for hexname in ("N17", "O18"):
        at = village.parse_location(hexname)
        hidden = can_set_up(village, "mines", at, mine_kind="A-P", hidden=True)
        assert not hidden.allowed and hidden.must_be_revealed and "P5.142" in hidden.rules()
        shown = can_set_up(village, "mines", at, mine_kind="A-P", hidden=False)
        assert shown.allowed and shown.must_be_revealed


def test_p5_142_n18_may_use_hip(village: Map) -> None:
    """P5.142 EX: mines set up in N18 could use HIP, since its sole Narrow Street hexside is unpaved."""
    r = can_set_up(village, "mines", village.parse_location("N18"), mine_kind="A-P", hidden=True)
    assert r.allowed and not r.must_be_revealed
    assert not mines_must_be_revealed(village, village.parse_hex("N18"))


def test_p5_142_crest_line_exemption() -> None:
    """P5.142 EXC: a hex whose Narrow Street hexsides are all Crest Lines toward lower hexes need not reveal its
    mines (digest §7.30); the lower hex of that hexside must."""
    m = _map(hex=[{"at": ["C3"], "level": 1}], hexside=[{"at": ["C3-D3"], "narrow_street": "paved"}])
    assert not mines_must_be_revealed(m, m.parse_hex("C3"))
    assert can_set_up(m, "mines", m.parse_location("C3"), mine_kind="A-P", hidden=True).allowed
    assert mines_must_be_revealed(m, m.parse_hex("D3"))
    assert not can_set_up(m, "mines", m.parse_location("D3"), mine_kind="A-P", hidden=True).allowed


def test_p5_142_exemption_judgment_can_count_unpaved_hexsides() -> None:
    """With judgment mines_revealed_exemption = all-crest-lower, an unpaved non-Crest Narrow Street hexside
    spoils the exemption."""
    from importlib.resources import files

    from asl_terrain.chart import parse_chart

    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text(encoding="utf-8")
    chart = parse_chart(text.replace('value = "paved-crest-lower"', 'value = "all-crest-lower"'), "test")
    m = _map(hex=[{"at": ["C3", "C2"], "level": 1}],
             hexside=[{"at": ["C3-D3"], "narrow_street": "paved"}, {"at": ["C3-C2"], "narrow_street": "unpaved"}])
    h = m.parse_hex("C3")
    assert not mines_must_be_revealed(m, h)
    assert mines_must_be_revealed(m, h, chart)


# ------------------------------------------------------------------------------------------- P4.21, P5.2, P5.21


@pytest.mark.parametrize("item", [i for i in SETUP_ITEMS if i not in ("roadblock",)])
def test_p4_21_nothing_set_up_in_a_stream_culvert(streams: Map, item: str) -> None:
    """Digest §8 test 34: no unit, Equipment or Fortification may be set up IN a Stream Culvert (P4.21)."""
    r = can_set_up(streams, item, streams.parse_location("LL7/culvert"), mine_kind="A-P")
    assert not r.allowed and r.rules() == ("P4.21",)


def test_p4_21_the_culvert_hex_surface_is_not_the_culvert(streams: Map) -> None:
    """Only IN the culvert is forbidden: a squad may set up IN the stream of hex LL7."""
    assert can_set_up(streams, "squad", streams.parse_location("LL7")).allowed


def test_p5_21_no_gun_in_steeple(village: Map) -> None:
    """Digest §8 test 59: a Gun set up in the Steeple J19/2 is illegal (P5.21); on J19's ground level it is not."""
    r = can_set_up(village, "gun", village.parse_location("J19/2"))
    assert not r.allowed and "P5.21" in r.rules()
    assert can_set_up(village, "gun", village.parse_location("J19")).allowed


def test_p5_2_steeple_cannot_be_fortified(village: Map) -> None:
    """Digest §8 test 59: Fortifying the Steeple is illegal (P5.2); J19/1 below it is a normal Location."""
    r = can_set_up(village, "fortified-building", village.parse_location("J19/2"))
    assert not r.allowed and "P5.2" in r.rules()
    assert can_set_up(village, "fortified-building", village.parse_location("J19/1")).allowed
    assert not can_set_up(village, "fortified-building", village.parse_location("N17")).allowed


def test_p5_21_squad_overstacks_steeple_half_squad_does_not(village: Map) -> None:
    """Digest §8 test 59: one HS may set up in the Steeple; a full squad overstacks it (P5.21)."""
    j19 = village.parse_location("J19/2")
    assert can_set_up(village, "half-squad", j19).allowed
    r = can_set_up(village, "squad", j19)
    assert not r.allowed and "P5.21" in r.rules()


# ------------------------------------------------------------------------------------------- roadblocks


def test_p5_141_roadblock_may_straddle_a_narrow_street(village: Map) -> None:
    """P5.141: a roadblock straddles a Narrow Street hexside, its arrow to one of that hexside's vertices."""
    hs = village.parse_hexside("O17-O18")
    assert can_set_up(village, "roadblock", None, hexside=hs, arrow=village.parse_vertex("O17-O18-P17")).allowed
    bad = can_set_up(village, "roadblock", None, hexside=hs, arrow=village.parse_vertex("N17-O17-N16"))
    assert not bad.allowed and "P5.141" in bad.rules()


def test_b29_1_roadblock_needs_a_road_hexside(village: Map, roads: Map) -> None:
    """A roadblock blocks a road (B29.1) or straddles a Narrow Street (P5.141); not an open hexside."""
    assert not can_set_up(village, "roadblock", None, hexside=village.parse_hexside("P17-P18")).allowed
    assert can_set_up(roads, "roadblock", roads.parse_location("M4"), hexside=roads.parse_hexside("M4-M5")).allowed


# ------------------------------------------------------------------------------------------- stacking


def test_a5_1_normal_stacking_limit(village: Map) -> None:
    r = stacking_limit(village, village.parse_location("N17"))
    assert r.squad_equivalents == 3 and r.guns_allowed and r.rules() == ("A5.1",)


def test_p4_2_culvert_holds_one_squad_equivalent(streams: Map) -> None:
    """Digest §8 test 34: two HS IN the culvert are legal; a squad plus a HS overstack it (P4.2)."""
    at = streams.parse_location("LL7/culvert")
    r = stacking_limit(streams, at)
    assert r.squad_equivalents == 1 and not r.guns_allowed and r.limit == "one squad equivalent"
    assert stacking_limit(streams, at, ["half-squad", "half-squad"]).overstacked is False
    assert stacking_limit(streams, at, ["squad", "half-squad"]).overstacked is True
    assert stacking_limit(streams, at, ["gun"]).overstacked is True


def test_p5_21_steeple_holds_one_half_squad_equivalent(village: Map) -> None:
    """Digest §8 test 59: one HS in the Steeple is fine, a squad overstacks; SMC keep their allowance (§7.27)."""
    at = village.parse_location("J19/2")
    r = stacking_limit(village, at)
    assert r.squad_equivalents == Fraction(1, 2) and not r.guns_allowed and r.limit == "one half-squad equivalent"
    assert stacking_limit(village, at, ["half-squad", "leader"]).overstacked is False
    assert stacking_limit(village, at, ["squad"]).overstacked is True
    assert stacking_limit(village, village.parse_location("J19/1")).squad_equivalents == 3


@given(st.lists(st.sampled_from(["squad", "half-squad", "crew"]), max_size=8))
def test_overstacked_iff_more_squad_equivalents_than_the_limit(units: list[str]) -> None:
    """Property: the ruling counts squad = 1, HS/crew = ½ and overstacks exactly above the limit."""
    m = Map.load(MAPS / "st_village.toml")
    want = sum(Fraction(1) if u == "squad" else Fraction(1, 2) for u in units)
    for loc in ("N17", "J19/2"):
        r = stacking_limit(m, m.parse_location(loc), units)
        assert r.counted == want
        assert r.overstacked == (want > r.squad_equivalents)


# ------------------------------------------------------------------------------------------- errors and ask


def test_unknown_item_is_a_query_error(village: Map) -> None:
    with pytest.raises(QueryError, match="unknown set-up item 'trench'"):
        can_set_up(village, "trench", village.parse_location("N17"))


def test_unknown_location_is_an_error(village: Map) -> None:
    with pytest.raises(UnknownLocation):
        village.parse_location("N17/3")
    ans = answer_one(village, {"kind": "setup", "item": "gun", "at": "A1"})
    assert "error" in ans and "at" in ans["error"]
    ans = answer_one(village, {"kind": "stacking", "at": "N17/culvert"})
    assert "error" in ans


def test_ask_setup_matches_the_api(village: Map) -> None:
    q = {"kind": "setup", "item": "mines", "at": "N17", "hidden": True, "mine_kind": "A-P"}
    ans = answer_one(village, q)
    api = can_set_up(village, "mines", village.parse_location("N17"), mine_kind="A-P", hidden=True)
    assert ans == api.to_json()
    assert ans["allowed"] is False and ans["must_be_revealed"] is True and ans["rules"] == ["P5.142"]


def test_ask_setup_errors(village: Map, roads: Map) -> None:
    # queries.md's own example leaves mine_kind out: answered where A-P and A-T get the same ruling ...
    assert "error" not in answer_one(village, {"kind": "setup", "item": "mines", "at": "N17", "hidden": True})
    # ... and an error asking for it where they differ (a paved road hex: revealed A-T only, B28.1/B28.53)
    ans = answer_one(roads, {"kind": "setup", "item": "mines", "at": "M4"})
    assert "mine_kind" in ans["error"] and "unknown" not in ans["error"]
    assert "item" in answer_one(village, {"kind": "setup", "item": "bunker", "at": "N17"})["error"]
    assert "hexside" in answer_one(village, {"kind": "setup", "item": "roadblock"})["error"]
    err = answer_one(village, {"kind": "setup", "item": "roadblock", "hexside": "N17-P19"})["error"]
    assert "adjacent" in err


def test_ask_stacking_keys(village: Map) -> None:
    ans = answer_one(village, {"kind": "stacking", "at": "J19/2"})
    assert ans["squad_equivalents"] == 0.5 and ans["limit"] == "one half-squad equivalent"
    assert ans["guns_allowed"] is False and ans["rules"] == ["P5.21"] and ans["explain"]


def test_chart_numbers_drive_the_limits(village: Map) -> None:
    """The limits come from the chart (param.stacking_squads etc.), not from code."""
    c = default_chart()
    assert stacking_limit(village, village.parse_location("N17")).squad_equivalents == c.param("stacking_squads").value


def test_bad_names_are_errors(village: Map) -> None:
    with pytest.raises(BadName):
        village.parse_location("N17/garden")
    with pytest.raises(NotAdjacent):
        village.parse_hexside("N17-P19")


# ------------------------------------------------------------------------------------------- P5.2 / P5.3 buildings


def test_p5_2_steeple_has_no_rooftop(village: Map) -> None:
    """P5.2: a Steeple hex has no Rooftop Location, so nothing can be set up on one."""
    with pytest.raises(UnknownLocation):
        village.parse_location("J19/rooftop")
    ans = answer_one(village, {"kind": "setup", "item": "squad", "at": "J19/rooftop"})
    assert "error" in ans and "J19" in ans["error"]


def test_p5_2_first_level_steeple_like_chaa10() -> None:
    """P5.2 EX ChAA10: a 1st-level Steeple above a ground-level building Location: that Location holds one HS,
    takes no Gun and cannot be Fortified; the ground level below is normal."""
    m = _map(hex=[{"at": ["C3"], "terrain": "building", "building": "stone", "steeple": True}])
    steeple, ground = m.parse_location("C3/1"), m.parse_location("C3")
    assert stacking_limit(m, steeple).squad_equivalents == Fraction(1, 2)
    assert not can_set_up(m, "gun", steeple).allowed
    assert not can_set_up(m, "fortified-building", steeple).allowed
    assert stacking_limit(m, ground).squad_equivalents == 3
    assert can_set_up(m, "fortified-building", ground).allowed


def test_p5_3_single_hex_two_story_house_is_a_normal_building(village: Map) -> None:
    """P5.3: the single-hex two-story house Q19 is a normal building in all other respects: its ground and 1st
    level take normal stacking, Guns and Fortification; it has no Rooftop Location."""
    for name in ("Q19", "Q19/1"):
        loc = village.parse_location(name)
        assert stacking_limit(village, loc).squad_equivalents == 3
        assert can_set_up(village, "gun", loc).allowed
        assert can_set_up(village, "fortified-building", loc).allowed
    with pytest.raises(UnknownLocation):
        village.parse_location("Q19/rooftop")


def test_a5_1_squad_equivalents_come_from_the_chart() -> None:
    """A5.1: a squad counts one squad equivalent, a half-squad or crew param.half_squad_equivalents (½), SMC and
    Guns none; the stacking ruling counts with them."""
    from asl_terrain.setup import squad_equivalents

    assert [squad_equivalents(u) for u in ("squad", "half-squad", "crew", "leader", "gun")] == \
        [1, Fraction(1, 2), Fraction(1, 2), 0, 0]
    assert default_chart().param("half_squad_equivalents").value == Fraction(1, 2)
