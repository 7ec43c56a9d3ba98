"""A6 (and the Chapter B rules it leans on): the thread, obstacles, Half-Level obstacles, hills and Crest
Lines, Blind Hexes, Hindrances, Height Advantage, roads (B3.2). Rules digest §3 and §7 items 4-6.

Most cases use a plain map and a LOS straight down column C (C1 ... C12: through centre dots only, no
hexside or vertex on the thread), so only the terrain placed on it matters.
"""

from __future__ import annotations

from typing import Any

import pytest

from asl_terrain.grid import Hex, Hexside
from asl_terrain.los import los
from asl_terrain.model import Map


def mk(hexes: list[dict[str, Any]] = (), hexsides: list[dict[str, Any]] = (),  # type: ignore[assignment]
       counters: list[dict[str, Any]] = (), month: int = 6, rows: int = 12) -> Map:  # type: ignore[assignment]
    return Map.from_data({"format": "asl-terrain/1", "name": "t", "prefix": "", "columns": ["A", "J"],
                          "rows": [1, rows], "conditions": {"month": month}, "hex": list(hexes),
                          "hexside": list(hexsides), "counter": list(counters)})


def r(m: Map, a: str, b: str, **kw: Any) -> Any:
    return los(m, m.parse_location(a), m.parse_location(b), **kw)


def H(at: str | list[str], **kw: Any) -> dict[str, Any]:
    return {"at": [at] if isinstance(at, str) else at, **kw}


# ---------------------------------------------------------------------------------------- A6.1 thread


def test_a6_1_open_ground_is_clear_with_range_counted() -> None:
    """Centre dot to centre dot over Open Ground: clear, range 5 (the target's hex counted, not the firer's)."""
    x = r(mk(), "C1", "C6")
    assert x.clear and x.range == 5 and x.hindrance_drm == 0 and not x.borderline and x.blocked_by is None
    assert [h.name for h in x.trace.hexes] == ["C1", "C2", "C3", "C4", "C5", "C6"]


def test_a6_1_terrain_in_the_firers_and_targets_own_hexes_never_blocks() -> None:
    """Woods, a building and brush in the end hexes themselves do not affect the LOS (digest 3.1)."""
    m = mk([H("C1", terrain="woods"), H("C6", terrain="building"), H("C5", terrain="brush")])
    assert r(m, "C1", "C5").clear and r(m, "C1", "C5").hindrance_drm == 0
    assert r(m, "C1", "C6").clear


def test_a6_1_woods_between_block_same_level_los() -> None:
    m = mk([H("C3", terrain="woods")])
    x = r(m, "C1", "C6")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.hex == Hex.parse("C3")
    assert x.blocked_by.rule == "A6.2" and "woods" in x.blocked_by.terrain


def test_a6_1_along_a_hexside_a_depicted_obstacle_blocks_only_from_both_sides() -> None:
    """A2 → E2 runs along B1-B2 and D1-D2. Woods on one side only: clear, but borderline (a hair to that
    side it would be blocked). Woods on both sides: blocked (digest 3.1, 3.9)."""
    one = mk([H("B1", terrain="woods")])
    x = r(one, "A2", "E2")
    assert Hexside.parse("B1-B2") in [hs for _, _, hs in x.trace.along]
    assert x.clear and x.borderline
    both = mk([H(["B1", "B2"], terrain="woods")])
    assert not r(both, "A2", "E2").clear


@pytest.mark.parametrize("terrain, what", [("graveyard", "graveyard"), ("orchard", "orchard")])
def test_a6_1_inherent_terrain_counts_from_either_side_of_a_hexside(terrain: str, what: str) -> None:
    """Inherent terrain (B.6: orchard, graveyard) affects its whole hex, so a LOS along its hexside is
    hindered although only one flanking hex holds it."""
    m = mk([H("B1", terrain=terrain)])
    x = r(m, "A2", "E2")
    assert x.clear and x.hindrance_drm == 1 and what in x.hindrances[0].what
    assert x.hindrances[0].hex == Hex.parse("B1")


def test_a6_1_a_thread_through_a_vertex_touches_the_third_hex() -> None:
    """C5 → B9 passes through vertex B6-C6-C7 without entering B6: B6's inherent graveyard hinders; its
    woods (a depiction, one side only) do not block, but the ruling is borderline."""
    x = r(mk([H("B6", terrain="graveyard")]), "C5", "B9")
    assert [v.name for _, v in x.trace.vertices][:1] == ["B6-C6-C7"]
    assert x.clear and x.hindrance_drm == 1
    w = r(mk([H("B6", terrain="woods")]), "C5", "B9")
    assert w.clear and w.borderline


def test_a6_1_a_thread_clear_of_every_vertex_is_not_borderline() -> None:
    assert not r(mk([H("B3", terrain="woods")]), "C1", "C6").borderline


# ------------------------------------------------------------------------------------------ A6.2


def test_a6_2_an_obstacle_level_with_both_ends_does_not_block() -> None:
    """Two level-1 units see each other across a level-0 woods hex (top 1): B23.2 / A6.2."""
    m = mk([H(["C1", "C5"], level=1), H("C3", terrain="woods")])
    assert r(m, "C1", "C5").clear


def test_a6_2_an_obstacle_level_with_the_higher_end_blocks() -> None:
    """Level 1 to level 0 across level-0 woods (top 1 = the higher end): blocked."""
    m = mk([H("C1", level=1), H("C3", terrain="woods")])
    x = r(m, "C1", "C6")
    assert not x.clear and not x.blind


def test_p1_2_pine_woods_are_a_two_level_obstacle() -> None:
    """Pine woods stand 2 levels: level-1 units no longer see over them."""
    m = mk([H(["C1", "C5"], level=1), H("C3", terrain="pine-woods")])
    assert not r(m, "C1", "C5").clear
    m2 = mk([H(["C1", "C5"], level=2), H("C3", terrain="pine-woods")])
    assert r(m2, "C1", "C5").clear


@pytest.mark.parametrize("building, ends, seen", [
    ({"building_type": "single-story-house"}, 1, True),       # top 1
    ({"building_type": "two-story-house"}, 1, False),         # top 1½
    ({"building_type": "multi-level", "upper_levels": 1}, 1, False),  # top 1½
    ({"building_type": "multi-level", "upper_levels": 2}, 2, False),  # top 2½
    ({"building_type": "two-story-house"}, 2, True),
])
def test_b23_2_building_obstacle_heights(building: dict[str, Any], ends: int, seen: bool) -> None:
    """Single story house 1 level, two story house 1½, multi-level building top Location + ½ (chart)."""
    m = mk([H(["C1", "C5"], level=ends), H("C3", terrain="building", **building)])
    assert r(m, "C1", "C5").clear is seen


def test_b23_2_upper_building_level_sees_over_a_lower_building() -> None:
    m = mk([H("C1", terrain="building", building_type="multi-level", upper_levels=2), H("C3", terrain="building")])
    assert not r(m, "C1", "C6").clear
    assert r(m, "C1/2", "C6").clear


# --------------------------------------------------------------------------------------- Blind Hexes


@pytest.mark.parametrize("target, blind", [("C4", True), ("C5", False), ("C6", False)])
def test_a6_4_an_obstacle_casts_one_blind_hex(target: str, blind: bool) -> None:
    """Level-2 viewer, level-0 woods (top 1) two hexes off: the hex behind it is blind, the next is not."""
    m = mk([H("C1", level=2), H("C3", terrain="woods")])
    x = r(m, "C1", target)
    assert x.blind is blind and x.clear is (not blind)
    if blind:
        assert x.blocked_by is not None and x.blocked_by.hex == Hex.parse("C3") and x.blocked_by.rule == "A6.4"


@pytest.mark.parametrize("target, blind", [("C8", True), ("C9", True), ("C10", False)])
def test_a6_41_one_more_blind_hex_per_five_hexes_to_the_obstacle(target: str, blind: bool) -> None:
    """The woods are 6 hexes from the viewer: two Blind Hexes behind them."""
    m = mk([H("C1", level=2), H("C7", terrain="woods")])
    assert r(m, "C1", target).blind is blind


@pytest.mark.parametrize("target, blind", [("C8", True), ("C9", False)])
def test_a6_42_one_fewer_per_level_the_viewer_stands_above_the_obstacle_beyond_the_first(target: str,
                                                                                      blind: bool) -> None:
    """A level-4 viewer is 3 levels above the woods' top: two fewer, but never fewer than one."""
    m = mk([H("C1", level=4), H("C7", terrain="woods")])
    assert r(m, "C1", target).blind is blind


@pytest.mark.parametrize("target, blind", [("C4", True), ("C5", True), ("C6", False)])
def test_a6_4_one_more_blind_hex_per_extra_level_above_the_target(target: str, blind: bool) -> None:
    """Pine woods (top 2) stand two levels above the level-0 target: two Blind Hexes for a level-3 viewer."""
    m = mk([H("C1", level=3), H("C3", terrain="pine-woods")])
    assert r(m, "C1", target).blind is blind


def test_b10_23_a_crest_line_casts_one_blind_hex_fewer() -> None:
    """A level-2 viewer over a level-1 hill sees the level-0 hex right behind it (crest variant: none);
    the same height of woods would make it blind."""
    m = mk([H("C1", level=2), H(["C2", "C3"], level=1)])
    assert r(m, "C1", "C4").clear
    m2 = mk([H("C1", level=2), H("C3", terrain="woods")])
    assert r(m2, "C1", "C4").blind


def test_b10_2_a_lower_unit_sees_only_into_the_first_crest_hex() -> None:
    m = mk([H(["C3", "C4", "C5", "C6"], level=1)])
    assert r(m, "C1", "C3").clear
    x = r(m, "C1", "C4")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.hex == Hex.parse("C3")
    assert x.blocked_by.rule == "B10.2"


def test_b10_2_a_higher_unit_sees_down_only_across_a_crest_leaving_its_hex() -> None:
    m = mk([H(["C1", "C2", "C3"], level=1)])
    assert not r(m, "C1", "C5").clear       # C2's level-1 ground is level with the viewer
    assert r(m, "C3", "C6").clear           # C3 leaves its hex across the Crest Line
    assert r(m, "C1", "C3").clear           # same level on the hill


# ------------------------------------------------------------------------------------- Hindrances A6.7


def test_a6_7_hindrances_add_up_and_items_sum_to_the_drm() -> None:
    m = mk([H("C2", terrain="brush"), H("C4", terrain="brush"), H("C3", terrain="marsh")])
    x = r(m, "C1", "C6")
    assert x.clear and x.hindrance_drm == 3
    assert [h.hex.name for h in x.hindrances] == ["C2", "C3", "C4"]
    assert sum(i.amount for i in x.items) == x.hindrance_drm


def test_a6_7_a_hindrance_total_of_six_blocks_where_it_is_reached() -> None:
    m = mk([H(["C2", "C3", "C4", "C5", "C6", "C7"], terrain="brush")])
    assert r(m, "C1", "C7").clear and r(m, "C1", "C7").hindrance_drm == 5
    x = r(m, "C1", "C8")
    assert not x.clear and x.hindrance_drm == 6
    assert x.blocked_by is not None and x.blocked_by.hex == Hex.parse("C7") and x.blocked_by.rule == "A6.7"


def test_b12_2_brush_hinders_same_level_los_only() -> None:
    m = mk([H("C3", terrain="brush"), H("C1", level=1)])
    assert r(m, "C2", "C5").hindrance_drm == 1
    x = r(m, "C1", "C5")
    assert x.clear and x.hindrance_drm == 0


@pytest.mark.parametrize("month, drm", [(4, 0), (6, 1), (9, 1), (10, 0)])
def test_b15_2_grain_hinders_only_in_its_season(month: int, drm: int) -> None:
    """Grain is a Hindrance in the months of param.grain_hindrance_season (June to September)."""
    assert r(mk([H("C3", terrain="grain")], month=month), "C1", "C5").hindrance_drm == drm


def test_b14_2_orchard_in_season_hinders_same_level_and_blocks_from_higher() -> None:
    """In season (April-October) an orchard is a +1 Hindrance to same-level LOS and a 1-level obstacle to
    LOS to/from a higher elevation."""
    m = mk([H("C3", terrain="orchard"), H("C1", level=1)])
    same = r(m, "C2", "C5")
    assert same.clear and same.hindrance_drm == 1
    assert not r(m, "C1", "C6").clear


def test_b14_2_orchard_out_of_season_is_a_hindrance_only() -> None:
    """Out of season an orchard never blocks: +1 to same-level LOS, and +1 to LOS from one level above its
    base (B14.21 EX: level 1 of J8 to H9 through an out-of-season orchard, +1). From level 2 only an
    orchard adjacent to the lower end hinders (judgment.orchard_out_of_season_los): C3 is two hexes from
    C5 (none), but adjacent to C4 (+1)."""
    m = mk([H("C3", terrain="orchard"), H("C1", level=1)], month=12)
    assert r(m, "C2", "C5").hindrance_drm == 1
    up = r(m, "C1", "C6")
    assert up.clear and up.hindrance_drm == 1 and up.hindrances[0].hex.name == "C3"
    two = mk([H("C3", terrain="orchard"), H("C1", level=2)], month=12)
    assert r(two, "C1", "C5").clear and r(two, "C1", "C5").hindrance_drm == 0
    near = r(two, "C1", "C4")
    assert near.clear and near.hindrance_drm == 1 and near.hindrances[0].rule == "B14.2"
    # the same from the lower end: the LOS is reciprocal (A6.5)
    assert r(two, "C4", "C1").hindrance_drm == 1 and r(two, "C5", "C1").hindrance_drm == 0


def test_b14_2_orchard_season_follows_the_query_conditions() -> None:
    m = mk([H("C3", terrain="orchard"), H("C1", level=1)], month=6)
    assert not r(m, "C1", "C6").clear
    assert r(m, "C1", "C6", conditions=m.conditions_for({"month": 1})).clear


def test_a24_smoke_hinders_by_strength_from_any_height_and_in_the_own_hex() -> None:
    m = mk([H("C1", level=2)], counters=[{"type": "smoke", "at": "C3", "strength": 3},
                                         {"type": "smoke", "at": "C6", "strength": 2}])
    x = r(m, "C1", "C5")
    assert x.clear and x.hindrance_drm == 3
    own = r(m, "C1", "C6")
    assert own.hindrance_drm == 5 and {h.hex.name for h in own.hindrances} == {"C3", "C6"}


@pytest.mark.parametrize("kind", ["vehicle", "wreck"])
def test_a6_8_vehicles_and_wrecks_hinder_same_level_los(kind: str) -> None:
    m = mk([H("C1", level=1)], counters=[{"type": kind, "at": "C3"}, {"type": kind, "at": "C4"}])
    assert r(m, "C2", "C6").hindrance_drm == 2
    assert r(m, "C1", "C6").hindrance_drm == 0


# ------------------------------------------------------------------------------- Half-Level obstacles


@pytest.mark.parametrize("feature", ["wall", "hedge"])
def test_b9_2_a_wall_or_hedge_blocks_same_level_los(feature: str) -> None:
    m = mk(hexsides=[{"at": ["C3-C4"], feature: True}])
    x = r(m, "C1", "C6")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.hexside == Hexside.parse("C3-C4")
    assert x.blocked_by.rule == "B9.2"


def test_b9_2_a_wall_of_the_firers_or_targets_own_hex_never_blocks() -> None:
    m = mk(hexsides=[{"at": ["C3-C4"], "wall": True}])
    assert r(m, "C3", "C6").clear and r(m, "C1", "C4").clear and r(m, "C4", "C1").clear


def test_b9_2_a_wall_does_not_block_los_between_different_levels() -> None:
    m = mk([H("C1", level=1)], hexsides=[{"at": ["C3-C4"], "wall": True}])
    assert r(m, "C1", "C6").clear


def test_b9_21_an_entrenched_unit_cannot_see_over_its_wall_to_a_non_adjacent_target() -> None:
    m = mk(hexsides=[{"at": ["C3-C4"], "wall": True}])
    x = r(m, "C4", "C1", entrenched=(True, False))
    assert not x.clear and x.blocked_by is not None and x.blocked_by.rule == "B9.21"
    assert not r(m, "C1", "C4", entrenched=(False, True)).clear
    assert r(m, "C4", "C3", entrenched=(True, False)).clear  # adjacent


def test_b29_2_a_roadblock_on_a_road_hexside_is_a_half_level_obstacle() -> None:
    m = mk(hexsides=[{"at": ["C3-C4"], "road": "dirt"}], counters=[{"type": "roadblock", "hexside": "C3-C4"}])
    x = r(m, "C1", "C6")
    assert not x.clear and x.blocked_by is not None and "roadblock" in x.blocked_by.terrain


def test_b24_rubble_is_a_half_level_obstacle() -> None:
    m = mk([H("C3", terrain="rubble")])
    assert not r(m, "C1", "C5").clear
    m2 = mk([H("C3", terrain="building")], counters=[{"type": "rubble", "at": "C3"}])
    assert not r(m2, "C1", "C5").clear
    m3 = mk([H("C1", level=1), H("C3", terrain="rubble")])
    assert r(m3, "C1", "C5").clear


# ----------------------------------------------------------------------------------- B3.2 roads, HA


def test_b3_2_roads_are_neither_obstacles_nor_hindrances() -> None:
    m = mk(hexsides=[{"at": ["C2-C3", "C3-C4", "C4-C5"], "road": "paved"}])
    x = r(m, "C1", "C6")
    assert x.clear and x.hindrance_drm == 0


def test_b3_2_other_terrain_in_a_road_hex_still_counts() -> None:
    m = mk([H("C3", terrain="woods"), H("C4", terrain="brush")],
           hexsides=[{"at": ["C2-C3", "C3-C4", "C4-C5"], "road": "dirt"}])
    assert not r(m, "C1", "C6").clear
    assert r(m, "C3", "C6").hindrance_drm == 1


def test_b10_31_height_advantage_goes_to_the_hill_unit_fired_on_from_below() -> None:
    m = mk([H("C1", level=1), H("C6", terrain="building", building_type="two-story-house")])
    assert r(m, "C1", "C4").height_advantage == "from"
    assert r(m, "C4", "C1").height_advantage == "to"
    assert r(m, "C6/1", "C1").height_advantage is None   # same elevation
    assert r(m, "C2", "C4").height_advantage is None


def test_b9_2_a_wall_run_along_lengthwise_counts_unless_it_touches_an_end_hex() -> None:
    """A2 → I2 runs along B1-B2, D1-D2, F1-F2 and H1-H2. A wall on D1-D2 (touching neither A2 nor I2)
    blocks this same-level LOS; one on B1-B2 touches A2 (vertex A2-B1-B2) and does not. Both are borderline
    (a hair to either side, the thread would not meet the wall lengthwise)."""
    mid = mk(hexsides=[{"at": ["D1-D2"], "wall": True}])
    x = r(mid, "A2", "I2")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.hexside == Hexside.parse("D1-D2")
    assert x.borderline
    end = mk(hexsides=[{"at": ["B1-B2"], "wall": True}])
    assert r(end, "A2", "I2").clear


# ------------------------------------------------- B9.2 / A6.1: walls at a vertex the thread passes through
# C5 -> B9 passes through vertex B6-C6-C7, from C6 into C7, only touching B6: the hexside C6-C7 lies on one
# side of the thread, B6-C6 and B6-C7 on the other (judgment.wall_vertex_both_sides).


@pytest.mark.parametrize("walls, clear", [
    (["C6-C7"], True), (["B6-C6"], True), (["B6-C7"], True),       # one wall, touched only at its end
    (["B6-C6", "B6-C7"], True),                                    # two walls, both on B6's side
    (["C6-C7", "B6-C6"], False), (["C6-C7", "B6-C7"], False),      # a wall on each side: they join across it
    (["C6-C7", "B6-C6", "B6-C7"], False),
])
def test_b9_2_walls_at_a_vertex_block_only_from_both_sides_of_the_thread(walls: list[str], clear: bool) -> None:
    """A6.1: an obstacle blocks a thread it crosses, visible on both sides of it; B9.1: a wall's hexside
    includes its vertices. Walls meeting at the vertex on both sides of the thread join across its path and
    block it, whichever of the vertex's hexsides they are, and a hair either way it would still cross one
    (not borderline). Walls on one side only are touched at their end: clear, but borderline."""
    m = mk(hexsides=[H(walls, wall=True)])
    for a, b in (("C5", "B9"), ("B9", "C5")):
        x = r(m, a, b)
        assert x.clear is clear
        assert x.borderline is clear
        if not clear:
            assert x.blocked_by is not None and x.blocked_by.rule == "B9.2"
            assert x.blocked_by.hexside is not None and x.blocked_by.hexside.name in walls


def test_b9_2_example_walls_on_y8_y9_and_y8_z8_block_without_the_hedge_on_the_hexspine() -> None:
    """B9.2 EX geometry, 6Z9 -> X6, which runs along Y9-Z8 and through vertex Y8-Y9-Z8 into Y8. With the
    EX's walls X7-Y7 and Y8-Z8 the LOS exists; with walls on both Y8-Y9 and Y8-Z8 (no hedge on the Y9-Z8
    hexspine) the thread enters Y8 where the two walls join, one on each side of it: blocked."""
    def m(sides: list[str]) -> Map:
        return Map.from_data({"format": "asl-terrain/1", "name": "t", "prefix": "6", "columns": ["V", "AA"],
                              "rows": [1, 12], "hexside": [H(sides, wall=True)]})
    assert r(m(["X7-Y7", "Y8-Z8"]), "6Z9", "6X6").clear
    x = r(m(["X7-Y7", "Y8-Z8", "Y8-Y9"]), "6Z9", "6X6")
    assert not x.clear and not x.borderline and x.blocked_by is not None
    assert x.blocked_by.hexside is not None and x.blocked_by.hexside.name in ("Y8-Y9", "Y8-Z8")


def test_b9_2_walls_of_the_firers_hex_at_the_vertex_it_leaves_by_never_block() -> None:
    """A2 -> E2 leaves A2 through vertex A2-B1-B2 and runs along B1-B2: walls on A2-B1 and A2-B2 lie on
    both sides of the thread there, but they are A2's own hexsides (B9.2): clear, either way."""
    m = mk(hexsides=[H(["A2-B1", "A2-B2"], wall=True)])
    assert r(m, "A2", "E2").clear and r(m, "E2", "A2").clear


def test_b9_2_a_wall_run_along_on_the_firers_own_hexside_never_blocks() -> None:
    """A unit Bypassing C3 at vertex C3-D2-D3 traces toward B5 along C3-D3, its own hex's hexside, then
    through C4 and along B4-C5. A wall on C3-D3, even closed at its far vertex by walls on C4-D3 and C3-C4,
    is a wall of the firer's own hex and never blocks (B9.2); a wall on B4-C5, touching neither C3 nor B5
    at its far vertex (B4-B5-C5 has B5), does not count either; on C4-C5 (crossed by no thread) nothing."""
    m = mk(hexsides=[H(["C3-D3", "C4-D3", "C3-C4"], wall=True)])
    x = r(m, "C3@C3-D2-D3", "B5")
    assert [hs.name for _, _, hs in x.trace.along] == ["C3-D3", "B4-C5"]
    assert x.clear and r(m, "B5", "C3@C3-D2-D3").clear
    assert r(mk(hexsides=[H("B4-C5", wall=True)]), "C3@C3-D2-D3", "B5").clear


# ---------------------------------------------------- B14.2: orchards out of season, along a hexside


@pytest.mark.parametrize("viewer, drm", [(0, 2), (1, 2), (2, 1)])
def test_b14_2_out_of_season_orchards_flanking_a_hexside_next_to_the_target(viewer: int, drm: int) -> None:
    """A2 -> E2 runs along D1-D2, whose hexes are both adjacent to E2; both are orchards, out of season.
    Same level: each orchard hex hinders a LOS along its hexside (A6.1 EXC, B14.21): +2. From level 1
    (one level above the orchards' base): +1 per orchard hex, +2. From level 2: one +1 in all, from the
    orchards next to the target (B14.2, judgment.orchard_out_of_season_los)."""
    m = mk([H("A2", level=viewer), H(["D1", "D2"], terrain="orchard")], month=12)
    for a, b in (("A2", "E2"), ("E2", "A2")):
        x = r(m, a, b)
        assert x.clear and x.hindrance_drm == drm
        assert sum(i.amount for i in x.items) == drm
        assert {h.hex.name for h in x.hindrances} <= {"D1", "D2"}


def test_b14_2_out_of_season_orchards_never_block_from_above() -> None:
    """In season the level-0 orchard in C3 blocks the level-1 viewer's LOS to C6 (A6.2) and puts C4 in a
    Blind Hex from level 2 (A6.4); out of season neither: it hinders (+1) instead."""
    for level, target in ((1, "C6"), (2, "C4")):
        m = mk([H("C1", level=level), H("C3", terrain="orchard")], month=6)
        assert not r(m, "C1", target).clear
        x = r(m, "C1", target, conditions=m.conditions_for({"month": 1}))
        assert x.clear and x.hindrance_drm == 1 and not x.blind


@pytest.mark.parametrize("reading, drm", [("adjacent-once", 1), ("each", 2), ("same-level", 0)])
def test_b14_2_out_of_season_reading_is_the_charts_judgment(reading: str, drm: int) -> None:
    """judgment.orchard_out_of_season_los decides the level-2 viewer's LOS through two out-of-season
    orchards, C3 and C5, to C6 (C5 adjacent to it): the default one +1; "each" +1 per orchard hex;
    "same-level" none. A value outside the three is a ChartError naming the key."""
    from importlib.resources import files

    from asl_terrain.chart import parse_chart
    from asl_terrain.errors import ChartError

    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text(encoding="utf-8")
    old = 'orchard_out_of_season_los = { value = "adjacent-once",'
    assert old in text
    chart = parse_chart(text.replace(old, f'orchard_out_of_season_los = {{ value = "{reading}",'), "mine.toml")
    m = mk([H("C1", level=2), H(["C3", "C5"], terrain="orchard")], month=12)
    x = r(m, "C1", "C6", chart=chart)
    assert x.clear and x.hindrance_drm == drm
    with pytest.raises(ChartError, match="orchard_out_of_season_los"):  # refused when the chart is read
        parse_chart(text.replace(old, 'orchard_out_of_season_los = { value = "never",'), "mine.toml")


def test_b9_2_the_vertex_reading_is_the_charts_judgment() -> None:
    """judgment.wall_vertex_both_sides false reads B9.1's "hexside inclusive of vertices" strictly: a lone
    wall touched only at its end vertex blocks, on either side of the thread (C5 -> B9 past B6-C6)."""
    from importlib.resources import files

    from asl_terrain.chart import parse_chart

    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text(encoding="utf-8")
    old = "wall_vertex_both_sides = { value = true,"
    assert old in text
    strict = parse_chart(text.replace(old, "wall_vertex_both_sides = { value = false,"), "mine.toml")
    for wall in ("C6-C7", "B6-C6", "B6-C7"):
        m = mk(hexsides=[H(wall, wall=True)])
        assert r(m, "C5", "B9").clear
        x = r(m, "C5", "B9", chart=strict)
        assert not x.clear and x.blocked_by is not None and x.blocked_by.hexside == Hexside.parse(wall)
