"""KGP P2 slope effects: P2.41 slope TEM and P2.42 Fire-Lane slope DRM, with the P2.3 Height Advantage
statements and the A4.6 FFMO/FFNAM DRM they interact with.

Map: tests/maps/p2_slopes.toml, the reconstruction of the P2.3 illustration (rules digest §7 item 3). Squads:
A = H13, B = I14 (Up-Slope across I13-I14, I14-J13, H13-I14), E = K14 (Down-Slope across J14-K14, K13-K14,
K14-L13), F = L13, all level 3; G = H11, C = I11, D = L12 at level 2. Unless said, attacks are Small Arms.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.ask import answer_one
from asl_terrain.effects import has_slope_tem_hexsides, tem
from asl_terrain.model import Conditions, Location, Map
from asl_terrain.units import Unit

MAPS = Path(__file__).resolve().parent.parent / "maps"
A, B, E, F, G = "H13", "I14", "K14", "L13", "H11"


@pytest.fixture(scope="module")
def p2() -> Map:
    return Map.load(MAPS / "p2_slopes.toml")


def _p2(hexes: list[dict[str, Any]] | None = None, slopes: list[dict[str, Any]] | None = None) -> Map:
    """The P2.3 map with extra hex blocks, and (when given) K14's Down-Slope hexsides replaced."""
    data = tomllib.loads((MAPS / "p2_slopes.toml").read_text(encoding="utf-8"))
    data["hex"] = data.get("hex", []) + (hexes or [])
    if slopes is not None:
        data["hexside"] = [b for b in data["hexside"] if "J14-K14" not in b["at"]] + slopes
    return Map.from_data(data)


def _tem(m: Map, target: str, *firers: str, attack: str = "small-arms", **kw: Any) -> Any:
    return tem(m, m.parse_location(target), [m.parse_location(f) for f in firers], attack, **kw)


def _slope(r: Any) -> list[Any]:
    return [i for i in r.tem_items if i.rule == "P2.41"]


# ============================================================================================ P2.41


@pytest.mark.parametrize("firer", [B, "J12", "H14"], ids=["squad-B", "J12", "H14"])
def test_p2_41_squad_e_claims_slope_tem(p2: Map, firer: str) -> None:
    """P2.41 EX: squad E (K14) claims slope TEM if fired on by squad B, or from J12 or H14: each LOS crosses a
    Down-Slope hexside of K14 (or one of its end vertices)."""
    r = _tem(p2, E, firer)
    assert r.affected and r.tem == 1 and len(_slope(r)) == 1
    assert "P2.41" in r.rules() and not r.open_ground


@pytest.mark.parametrize("firer", [A, "H12", "I12"], ids=["squad-A", "H12", "I12"])
def test_p2_41_no_slope_tem_when_the_los_misses_the_down_slope_hexsides(p2: Map, firer: str) -> None:
    """P2.41 EX: no slope TEM if E is fired on by squad A, or from H12 or I12: the LOS enters K14 across J13-K14,
    which is not a Down-Slope hexside."""
    r = _tem(p2, E, firer)
    assert r.affected and r.tem == 0 and not _slope(r)
    assert "J13-K14" in r.explain()


def test_p2_41_adjacent_squad_f_fires_without_slope_tem(p2: Map) -> None:
    """P2.41 EX: squad F may fire on adjacent squad E with no slope TEM (the firer must not be adjacent)."""
    r = _tem(p2, E, F)
    assert r.tem == 0 and "adjacent" in r.explain()


@pytest.mark.parametrize("firer", [A, F], ids=["squad-A", "squad-F"])
def test_p2_41_ffmo_can_be_claimed_vs_e_from_a_or_f(p2: Map, firer: str) -> None:
    """P2.41 EX: if squad E is fired on (moving) by squad A or F, the -1 FFMO can be claimed."""
    r = _tem(p2, E, firer, moved_by="non-road")
    assert r.ffmo and r.ffnam and r.open_ground and r.total_drm == -2


def test_p2_41_slope_tem_cancels_ffmo(p2: Map) -> None:
    """Digest §7.10: when slope TEM applies (E fired on by B), FFMO does not; FFNAM still does."""
    r = _tem(p2, E, B, moved_by="non-road")
    assert r.tem == 1 and not r.ffmo and r.ffnam and r.total_drm == 0


def test_p2_41_fire_group_of_a_and_b_claims_slope_tem(p2: Map) -> None:
    """P2.41 EX: fired on by squads A and B as a Fire Group, squad E claims slope TEM (A.5: the LOS most
    favourable to the target)."""
    r = _tem(p2, E, A, B, moved_by="non-road")
    assert r.tem == 1 and len(_slope(r)) == 1 and not r.ffmo
    assert r.chosen == B and "A.5" in r.rules()
    assert [mb["tem"] for mb in r.members] == [0, 1]


def test_p2_41_fire_group_with_firers_in_j13_still_gets_slope_tem(p2: Map) -> None:
    """P2.41 EX / digest §8 test 21: A and B 'even in conjunction with other firers in J13/J14/K13' (adjacent)."""
    for third in ("J13", "J14", "K13"):
        r = _tem(p2, E, A, B, third)
        assert r.tem == 1 and r.chosen == B, third


def test_p2_41_no_slope_tem_vs_ft(p2: Map) -> None:
    """P2.41: slope TEM applies vs Direct Fire except FT."""
    r = _tem(p2, E, B, attack="ft")
    assert r.tem == 0 and "FT" in r.explain()


def test_p2_41_no_slope_tem_vs_indirect_fire(p2: Map) -> None:
    r = _tem(p2, E, attack="indirect")
    assert r.affected and r.tem == 0 and not _slope(r)


def test_p2_41_only_for_infantry(p2: Map) -> None:
    r = _tem(p2, E, B, unit=Unit.from_json("vehicle"))
    assert r.tem == 0


def test_p2_41_two_contiguous_down_slope_hexsides_give_no_tem() -> None:
    """Digest §8 test 23: K14 with only J14-K14 and K14-K15 (contiguous) Down-Slope: no slope TEM from any firer."""
    m = _p2(slopes=[{"at": ["J14-K14", "K14-K15"], "slope": "K14"}])
    assert not has_slope_tem_hexsides(m, m.parse_hex(E))
    for firer in (B, "J12", "H14"):
        r = _tem(m, E, firer)
        assert r.tem == 0 and "contiguous" in r.explain(), firer


def test_p2_41_two_non_contiguous_down_slope_hexsides_suffice() -> None:
    """Digest §8 test 23: two non-contiguous Down-Slope hexsides (J14-K14 and K13-K14) make slope TEM possible."""
    m = _p2(slopes=[{"at": ["J14-K14", "K13-K14"], "slope": "K14"}])
    assert has_slope_tem_hexsides(m, m.parse_hex(E))
    assert _tem(m, E, B).tem == 1


@pytest.mark.parametrize("level,tem_", [(4, 1), (5, 1), (6, 0)])
def test_p2_41_elevation_advantage_must_be_less_than_the_range(level: int, tem_: int) -> None:
    """P2.41: from H14 (range 3) raised to level 4 or 5 the advantage (1, 2) is less than the range: slope TEM;
    at level 6 the advantage equals the range: none (digest §7.7: raw elevations)."""
    m = _p2(hexes=[{"at": ["H14"], "level": level}])
    r = _tem(m, E, "H14")
    assert r.range == 3 and r.tem == tem_


def test_p2_41_not_cumulative_with_woods_tem() -> None:
    """Digest §8 test 24: a woods target that qualifies for slope TEM gets +1, not +2."""
    m = _p2(hexes=[{"at": [E], "terrain": "woods"}])
    r = _tem(m, E, B)
    assert r.tem == 1 and [i.rule for i in r.tem_items] == ["B13.3"]
    assert "not cumulative" in r.explain()


def test_p2_41_cumulative_with_mud_tem(p2: Map) -> None:
    """Digest §8 test 24 / P2.41 EXC: Mud TEM adds to the slope TEM (value from param.mud_tem, [U])."""
    r = _tem(p2, E, B, conditions=Conditions(weather="mud"))
    assert sorted(i.rule for i in r.tem_items) == ["E3.6", "P2.41"]
    assert r.tem == 2


def test_p2_41_up_slope_keeps_ffmo(p2: Map) -> None:
    """P2.41: being Up-Slope provides no TEM and does not negate FFMO/FFNAM: B (Up-Slope toward A) fired on by
    A while moving."""
    r = _tem(p2, B, A, moved_by="non-road")
    assert r.tem == 0 and r.ffmo and r.ffnam


# ============================================================================================ P2.3 Height Advantage


def test_p2_3_b_claims_height_advantage_only_vs_level_2_firers(p2: Map) -> None:
    """P2.3 EX / digest §8 test 26: B may claim Height Advantage only if fired on by G (or C/D, level 2), not by
    level-3 firers: being Up-Slope itself never grants it."""
    r = _tem(p2, B, G)
    assert r.tem == 1 and [i.rule for i in r.tem_items] == ["B10.31"]
    for firer in (A, E):
        r = _tem(p2, B, firer)
        assert r.affected and all(i.rule != "B10.31" for i in r.tem_items), firer


def test_b10_31_height_advantage_cancels_ffmo(p2: Map) -> None:
    r = _tem(p2, B, G, moved_by="non-road")
    assert not r.ffmo and r.ffnam


# ============================================================================================ P2.42


@pytest.mark.parametrize("target", ["I13", "I14", "J13", "K13", "K14", "L13"])
def test_p2_42_squad_a_fire_lane_gets_no_slope_drm(p2: Map, target: str) -> None:
    """P2.42 EX: a Fire Lane placed by squad A toward L13 attacks moving Infantry in I13, J13, K13 (or I14, K14)
    and L13 with no slope DRM: A is not Up-Slope from any of them."""
    r = _tem(p2, target, A, attack="fire-lane")
    assert r.affected and r.drm == 0


@pytest.mark.parametrize("target", ["J13", "J14"])
def test_p2_42_squad_b_fire_lane_no_drm_in_adjacent_hexes(p2: Map, target: str) -> None:
    """P2.42 EX: B's Fire Lane into K14 attacks J13 (or J14) with no slope DRM: adjacent to the firer."""
    assert _tem(p2, target, B, attack="fire-lane").drm == 0


def test_p2_42_moving_infantry_in_k14_gets_slope_tem_and_slope_drm(p2: Map) -> None:
    """P2.42 EX: moving Infantry in K14 attacked by B's Fire Lane claims both the slope TEM and the slope DRM."""
    r = _tem(p2, E, B, attack="fire-lane", moved_by="non-road")
    assert r.tem == 1 and r.drm == 1 and [i.rule for i in r.drm_items] == ["P2.42"]
    assert r.total_drm == r.tem + r.drm - 1  # FFNAM only


@pytest.mark.parametrize("target", ["L13", "L14"])
def test_p2_42_beyond_k14_no_drm_in_l13_or_l14(p2: Map, target: str) -> None:
    """P2.42 EX: extended beyond K14 (to M14), B's Fire Lane attacks L13 (or L14) with no slope DRM: I14 is not
    Up-Slope from them on B's LOS to each."""
    assert _tem(p2, target, B, attack="fire-lane").drm == 0


def test_p2_42_no_drm_for_a_snap_shot_at_l13_l14(p2: Map) -> None:
    """P2.42 EX: nor does the DRM apply to a Fire Lane Snap Shot at hexside L13-L14."""
    r = _tem(p2, "L13", B, attack="fire-lane", snap_shot=p2.parse_hexside("L13-L14"))
    assert r.drm == 0 and "both hexes" in r.explain()


def test_p2_42_snap_shot_needs_the_conditions_in_both_hexes(p2: Map) -> None:
    """Digest §8 test 28: at K14-L14 the conditions hold for K14 only: no DRM; at I12-J12 they hold for both."""
    assert _tem(p2, E, B, attack="fire-lane", snap_shot=p2.parse_hexside("K14-L14")).drm == 0
    assert _tem(p2, "I12", B, attack="fire-lane", snap_shot=p2.parse_hexside("I12-J12")).drm == 1


def test_p2_42_fire_lane_toward_i12(p2: Map) -> None:
    """P2.42 EX: B's Fire Lane toward I12 attacks I12 and I13; those in I12 receive the slope DRM, those in the
    adjacent I13 do not."""
    assert _tem(p2, "I12", B, attack="fire-lane").drm == 1
    assert _tem(p2, "I13", B, attack="fire-lane").drm == 0


def test_p2_42_up_slope_fire_lane_cannot_affect_another_base_level(p2: Map) -> None:
    """P2.42 / digest §8 test 27: an Up-Slope attacker's Fire Lane cannot affect a target at a different Base
    Level (B toward G in level-2 H11): a ruling, affected false."""
    r = _tem(p2, G, B, attack="fire-lane")
    assert not r.affected and "P2.42" in (r.reason or "") and r.total_drm == 0
    assert _tem(p2, G, B).affected  # ordinary fire is not limited


def test_p2_42_fire_lane_drm_is_for_infantry(p2: Map) -> None:
    assert _tem(p2, "I12", B, attack="fire-lane", unit=Unit.from_json("cavalry")).drm == 0


# ============================================================================================ items add up


def test_items_add_up_on_the_p2_map(p2: Map) -> None:
    """Every ruling's items add up to total_drm = tem + hindrance + drm - ffmo - ffnam (queries.md)."""
    hexes = [h for h in p2.hexes() if h.distance(p2.parse_hex(E)) <= 3]
    for target in (E, B, "I12"):
        for h in hexes:
            for attack in ("small-arms", "fire-lane"):
                r = tem(p2, p2.parse_location(target), [Location(h)], attack, moved_by="non-road")
                assert r.total_drm == sum((i.amount for i in r.items), Fraction(0))
                assert r.total_drm == r.tem + r.hindrance_drm + r.drm - int(r.ffmo) - int(r.ffnam)
                if not r.affected:
                    assert r.items == () and r.reason


def test_ask_tem_keys(p2: Map) -> None:
    ans = answer_one(p2, {"kind": "tem", "target": E, "firer": B, "attack": "fire-lane", "moved_by": "non-road"})
    for k in ("tem", "items", "hindrance_drm", "ffmo", "ffnam", "drm", "total_drm", "open_ground", "affected",
              "rules", "explain"):
        assert k in ans
    assert (ans["tem"], ans["drm"], ans["ffmo"], ans["ffnam"], ans["total_drm"]) == (1, 1, False, True, 1)
    assert {i["rule"] for i in ans["items"]} == {"P2.41", "P2.42", "A4.6"}
    assert all(set(i) == {"amount", "why", "rule"} for i in ans["items"])


# ============================================================================================ review additions


@pytest.mark.parametrize("wall_advantage,tem_", [(True, 2), (False, 0)], ids=["E-holds-WA", "F-holds-WA"])
def test_p2_41_adjacent_f_fires_on_e_with_no_slope_tem_whichever_unit_has_wall_advantage(
        wall_advantage: bool, tem_: int) -> None:
    """P2.41 EX: squad F fires on adjacent squad E with no slope TEM regardless of which unit has Wall
    Advantage. With a wall on K14-L13, E holding Wall Advantage gets the wall's +2 (B9.3), F holding it leaves
    E with no TEM at all (B9.32); slope TEM never, F being adjacent. P2.41: being Up-Slope (F, across K14-L13)
    does not affect the Wall Advantage rules."""
    data = tomllib.loads((MAPS / "p2_slopes.toml").read_text(encoding="utf-8"))
    data["hexside"] = data["hexside"] + [{"at": ["K14-L13"], "wall": True}]
    m = Map.from_data(data)
    r = _tem(m, E, F, wall_advantage=wall_advantage)
    assert r.affected and r.tem == tem_ and not _slope(r)
    assert "adjacent" in r.explain()
    if not wall_advantage:
        assert "B9.32" in r.rules()


def test_p2_41_woods_target_with_slope_tem_and_mud() -> None:
    """Digest §8 test 24: a woods target that qualifies for slope TEM gets +1 (woods or slope, not both), and
    with Mud the Mud TEM adds to it (P2.41 EXC; param.mud_tem [U])."""
    m = _p2(hexes=[{"at": [E], "terrain": "woods"}])
    r = _tem(m, E, B, conditions=Conditions(weather="mud"))
    assert sorted(i.rule for i in r.tem_items) == ["B13.3", "E3.6"] and r.tem == 2


def test_p2_42_fire_group_member_that_cannot_affect_spoils_the_fire_group(p2: Map) -> None:
    """A Fire Lane FG whose Up-Slope member (B) cannot affect G at another Base Level (P2.42) cannot attack
    G as a FG; the ruling says why (not 'no LOS')."""
    r = _tem(p2, G, B, "I12", attack="fire-lane")
    assert not r.affected and "P2.42" in (r.reason or "") and "needs a LOS" not in r.explain()


def test_p2_41_no_slope_tem_for_a_snap_shot_target_on_the_hexside(p2: Map) -> None:
    """P2.41 gives slope TEM to Infantry in the hex; a Snap Shot target is on the hexside it crosses, where
    neither hex's TEM applies (judgment snap_shot_open_ground): B's Snap Shot at K14-L14 finds no slope TEM, though
    fire at K14 itself would (and no slope DRM either, P2.42)."""
    r = _tem(p2, E, B, attack="fire-lane", snap_shot=p2.parse_hexside("K14-L14"))
    assert r.tem == 0 and r.drm == 0 and "Snap Shot" in r.explain()
    assert _tem(p2, E, B, attack="fire-lane").tem == 1
