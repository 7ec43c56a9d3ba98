"""KGP P2.1-P2.31: slope hexsides and LOS, on the reconstruction of the P2.3 illustration
(tests/maps/p2_slopes.toml; rules digest §7 item 3 and §8 tests 17-18).

Squads: A = H13 (level 3), B = I14 (level 3, Up-Slope to the north and toward J13), E = K14, F = L13
(level 3), G = H11, C = I11, D = L12 (level 2).
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.grid import Hex, Hexside, trace
from asl_terrain.los import hexsides_entered, is_up_slope, location_elevation, los
from asl_terrain.model import Map

MAPS = Path(__file__).resolve().parent.parent / "maps"
SQUADS = {"A": "H13", "B": "I14", "E": "K14", "F": "L13", "G": "H11", "C": "I11", "D": "L12"}


def _data(name: str) -> dict[str, Any]:
    return tomllib.loads((MAPS / name).read_text(encoding="utf-8"))


def _variant(name: str = "p2_slopes.toml", *, hexes: list[dict[str, Any]] = (),  # type: ignore[assignment]
             hexsides: list[dict[str, Any]] = (), counters: list[dict[str, Any]] = ()) -> Map:  # type: ignore[assignment]
    d = _data(name)
    d.setdefault("hex", []).extend(hexes)
    d.setdefault("hexside", []).extend(hexsides)
    d.setdefault("counter", []).extend(counters)
    return Map.from_data(d)


@pytest.fixture(scope="module")
def p2() -> Map:
    return Map.load(MAPS / "p2_slopes.toml")


def sees(m: Map, a: str, b: str, **kw: Any) -> bool:
    return los(m, m.parse_location(SQUADS.get(a, a)), m.parse_location(SQUADS.get(b, b)), **kw).clear


def ruling(m: Map, a: str, b: str, **kw: Any) -> Any:
    return los(m, m.parse_location(SQUADS.get(a, a)), m.parse_location(SQUADS.get(b, b)), **kw)


# ------------------------------------------------------------------------------------ the P2.3 example


@pytest.mark.parametrize("target", ["B", "E", "F", "J13"])
def test_p2_3_squad_a_sees_b_e_f_and_j13(p2: Map, target: str) -> None:
    """A (level 3) has a LOS to B, E, F and hex J13, all on its plateau."""
    assert sees(p2, "A", target)


@pytest.mark.parametrize("target", ["G", "C", "D"])
def test_p2_3_squad_a_has_no_los_to_level_2_squads(p2: Map, target: str) -> None:
    """A is not Up-Slope toward the level-2 squads: the level-3 ground between (its own level, above
    theirs) blocks (A6.2, B10.2)."""
    r = ruling(p2, "A", target)
    assert not r.clear
    assert r.blocked_by is not None and r.blocked_by.rule == "B10.2"
    assert r.up_slope == (False, False)


@pytest.mark.parametrize("target", ["A", "C", "D", "E", "F", "G"])
def test_p2_3_squad_b_has_a_los_to_every_squad(p2: Map, target: str) -> None:
    """B is Up-Slope (¾ higher) on its LOS across I13-I14 / I14-J13 and sees every squad."""
    assert sees(p2, "B", target)


@pytest.mark.parametrize("target", ["G", "C", "D", "K11", "L10", "I12", "E"])
def test_p2_3_squad_b_is_up_slope_at_3_3_4_toward_the_north_and_e(p2: Map, target: str) -> None:
    """B counts as level 3¾ to LOS that cross one of its Up-Slope hexsides, vertices included."""
    r = ruling(p2, "B", target)
    assert r.up_slope[0] and r.elevations[0] == Fraction(15, 4)


@pytest.mark.parametrize("firer, expected", [("G", "from"), ("C", "from"), ("D", "from"), ("A", None),
                                             ("E", None), ("F", None)])
def test_p2_3_squad_b_has_height_advantage_only_vs_g_c_d(p2: Map, firer: str, expected: str | None) -> None:
    """Being Up-Slope grants no Height Advantage: B has it only vs the lower (level 2) firers (B10.31)."""
    assert ruling(p2, "B", firer).height_advantage == expected


@pytest.mark.parametrize("target", ["A", "B", "F"])
def test_p2_3_squad_e_sees_a_b_and_f(p2: Map, target: str) -> None:
    """E (K14) sees A, B and F."""
    assert sees(p2, "E", target)


@pytest.mark.parametrize("target, seen", [("A", True), ("B", True), ("D", True), ("E", True), ("C", False),
                                          ("G", False)])
def test_p2_3_squad_f_sees_a_b_d_e_but_not_c_or_g(p2: Map, target: str, seen: bool) -> None:
    """F (L13) is not Up-Slope along K13-L13, so the level-3 ground of K13 blocks its LOS to C and G;
    D, in the adjacent lower hex L12, is seen across the Crest Line leaving F's hex."""
    assert sees(p2, "F", target) is seen


def test_p2_3_f_up_slope_along_k13_l13_would_see_c_g_and_i12() -> None:
    """"It could see squads C and G (and hex I12) as well if it were Up-Slope along K13-L13". The I12 part
    needs a half-level obstacle F's level-3 LOS meets (the fixture leaves it out, see its README): with a
    hedge on J12-K13, F does not see I12 at level 3 but does at 3¾."""
    hedge = [{"at": ["J12-K13"], "hedge": True}]
    plain = _variant(hexsides=hedge)
    up = _variant(hexsides=hedge + [{"at": ["K13-L13"], "slope": "K13"}])
    for target in ("C", "G", "I12"):
        assert not sees(plain, "F", target)
        r = ruling(up, "F", target)
        assert r.clear and r.up_slope[0], target


def test_p2_3_all_example_statements_are_reciprocal(p2: Map) -> None:
    """In all cases LOS reciprocity (A6.5) applies: every pair of squads, both ways."""
    for a in SQUADS:
        for b in SQUADS:
            if a != b:
                r1, r2 = ruling(p2, a, b), ruling(p2, b, a)
                assert r1.clear == r2.clear and r1.hindrance_drm == r2.hindrance_drm, (a, b)
                assert r1.up_slope == (r2.up_slope[1], r2.up_slope[0])


# ------------------------------------------------------------------------------ AFV / wreck Hindrances

J13_AFV = [{"type": "vehicle", "at": "J13"}]


@pytest.mark.parametrize("counter", ["vehicle", "wreck"])
def test_p2_3_afv_in_j13_hinders_a_to_e_but_not_b_to_e(counter: str) -> None:
    """An AFV/wreck in J13 Hinders A's LOS to E (+1, same level) but not B's: B is at 3¾, above it."""
    m = _variant(counters=[{"type": counter, "at": "J13"}])
    a_e, e_a = ruling(m, "A", "E"), ruling(m, "E", "A")
    assert a_e.clear and a_e.hindrance_drm == 1 and e_a.hindrance_drm == 1
    assert [h.hex for h in a_e.hindrances] == [Hex.parse("J13")]
    assert sum(i.amount for i in a_e.items) == a_e.hindrance_drm
    b_e = ruling(m, "B", "E")
    assert b_e.clear and b_e.hindrance_drm == 0 and b_e.up_slope == (True, False)
    assert ruling(m, "E", "B").hindrance_drm == 0


@pytest.mark.parametrize("firer", ["A", "B"])
def test_p2_3_afv_in_j13_does_not_hinder_a_or_b_to_f(firer: str) -> None:
    """F is Up-Slope across K14-L13 by that hexside's vertex K13-K14-L13 (P2.1), so neither A's nor B's
    LOS to it is same-level with the AFV."""
    m = _variant(counters=J13_AFV)
    r = ruling(m, firer, "F")
    assert r.clear and r.hindrance_drm == 0 and r.up_slope[1]
    assert ruling(m, "F", firer).hindrance_drm == 0


def test_p2_31_fire_lane_same_level_means_same_base_level() -> None:
    """For a Fire Lane across a slope, "same-level" reads Same-Base-Level: B's Fire Lane to E is Hindered
    by the AFV in J13 even though B is Up-Slope, because B and E share Base Level 3."""
    m = _variant(counters=J13_AFV)
    r = ruling(m, "B", "E", fire_lane=True)
    assert r.clear and r.hindrance_drm == 1 and "P2.31" in r.rules()
    assert ruling(m, "B", "E").hindrance_drm == 0


@pytest.mark.parametrize("hexes", ["H12", "I13"])
def test_p2_3_afv_in_h12_or_i13_does_not_hinder_b_to_g(hexes: str) -> None:
    """An AFV/wreck in H12 or I13 does not Hinder B's LOS to G (§8 test 17)."""
    m = _variant(counters=[{"type": "wreck", "at": hexes}])
    r = ruling(m, "B", "G")
    assert r.clear and r.hindrance_drm == 0


@pytest.mark.parametrize("feature", ["wall", "hedge", "slope"])
@pytest.mark.parametrize("hexside", ["H11-H12", "H12-I13"])
def test_p2_3_wall_hedge_or_slope_on_h11_h12_or_h12_i13_does_not_hinder_b_to_g(feature: str, hexside: str) -> None:
    """Neither a wall/hedge (Half-Level, 3½ < 3¾) nor a slope (never an obstacle) on those hexsides
    affects B's LOS to G."""
    spec: dict[str, Any] = {"at": [hexside], feature: hexside.split("-")[0] if feature == "slope" else True}
    m = _variant(hexsides=[spec])
    r = ruling(m, "B", "G")
    assert r.clear and r.hindrance_drm == 0
    assert ruling(m, "G", "B").clear


def test_p2_3_b_to_g_crosses_the_hexsides_of_the_example(p2: Map) -> None:
    """§8 test 17: B→G runs I14, across I13-I14, I13, across H12-I13, H12, across H11-H12, H11."""
    r = ruling(p2, "B", "G")
    assert [h.name for h in r.trace.hexes] == ["I14", "I13", "H12", "H11"]
    assert [hs.name for _, hs in r.trace.crossed] == ["I13-I14", "H12-I13", "H11-H12"]


# ------------------------------------------------------------------------------ Blind Hexes and slopes


def test_p2_3_two_story_house_makes_k11_blind_to_b_but_not_l10() -> None:
    """With a two-hex Two Story House in J11-K12 (top 2 + 1½ = 3½), K11 is a Blind Hex to B but L10 is
    not: the count ignores the slope (B counts as level 3, A6.42 gives no reduction), so one hex."""
    m = Map.load(MAPS / "p2_slopes_house.toml")
    k11 = ruling(m, "B", "K11")
    assert not k11.clear and k11.blind
    assert k11.blocked_by is not None and k11.blocked_by.hex in (Hex.parse("J11"), Hex.parse("K12"))
    assert k11.blocked_by.rule == "A6.4"
    assert ruling(m, "K11", "B").blind
    l10 = ruling(m, "B", "L10")
    assert l10.clear and not l10.blind and l10.up_slope[0]


def test_p2_3_without_the_slope_b_would_not_see_over_the_house() -> None:
    """The same house against a level-3 viewer that is not Up-Slope: 3½ is above it, so A6.2 blocks."""
    m = Map.load(MAPS / "p2_slopes_house.toml")
    r = ruling(m, "A", "L10")
    assert not r.clear and not r.blind


def test_p2_3_up_slope_does_not_change_base_level(p2: Map) -> None:
    """The slope changes neither the Location's elevation nor its Base Level; only the LOS elevation."""
    assert location_elevation(p2, p2.parse_location("I14")) == 3
    assert p2.terrain(Hex.parse("I14")).base_level == 3


def test_p2_3_entrenched_up_slope_unit_keeps_the_wall_restriction() -> None:
    """P2.3 keeps B9.21: an entrenched B behind a wall on its Up-Slope hexside I13-I14 cannot see the
    non-adjacent lower G across it, although Up-Slope; not entrenched, its own wall never blocks (B9.2)."""
    m = _variant(hexsides=[{"at": ["I13-I14"], "wall": True}])
    b, g = m.parse_location("I14"), m.parse_location("H11")
    assert los(m, b, g).clear
    r = los(m, b, g, entrenched=(True, False))
    assert not r.clear and r.blocked_by is not None and r.blocked_by.rule == "B9.21"
    assert not los(m, g, b, entrenched=(False, True)).clear


# --------------------------------------------------------------------- is_up_slope / hexsides_entered


def test_p2_1_slope_vertex_counts_a_to_f_enters_l13_by_the_k13_k14_l13_vertex(p2: Map) -> None:
    """P2.1: the slope hexside includes its vertices. A's thread to L13 enters by vertex K13-K14-L13, an
    end of L13's Up-Slope hexside K14-L13, so F is Up-Slope to A."""
    a, f = p2.parse_location("H13"), p2.parse_location("L13")
    t = trace(a.hex.centre(), f.hex.centre())
    assert Hexside.parse("K14-L13") in hexsides_entered(p2, t, f.hex)
    assert is_up_slope(p2, f, t, at_start=False)
    assert not is_up_slope(p2, a, t, at_start=True)


def test_p2_3_slope_ignored_when_the_los_runs_along_its_hexside() -> None:
    """A unit in Bypass whose thread runs along its own Up-Slope hexside is not Up-Slope on that LOS."""
    m = _variant()
    # I14 is Up-Slope across I14-J13; a thread from vertex I13-I14-J13 along I14-J13 to vertex I14-J13-J14
    loc = m.parse_location("I14@I13-I14-J13")
    far = m.parse_location("J14@I14-J13-J14")
    t = trace(loc.vertex.point(), far.vertex.point())  # type: ignore[union-attr]
    assert t.along and t.along[0][2] == Hexside.parse("I14-J13")
    assert not is_up_slope(m, loc, t, at_start=True)


@pytest.mark.parametrize("firer, entered", [
    ("I14", {"J13-K14", "J14-K14"}),   # by the J13/J14/K14 vertex of J14-K14
    ("J12", {"J13-K14", "K13-K14"}),   # by the J13/K13/K14 vertex of K13-K14
    ("H13", {"J13-K14"}),
    ("H14", {"J14-K14"}),
])
def test_p2_41_hexsides_entered_into_k14(p2: Map, firer: str, entered: set[str]) -> None:
    """§8 test 20's geometry: the hexsides of K14 each firer's thread enters across or by an end vertex."""
    t = trace(Hex.parse(firer).centre(), Hex.parse("K14").centre())
    assert {hs.name for hs in hexsides_entered(p2, t, Hex.parse("K14"))} == entered


def test_p2_3_in_a_stream_is_never_up_slope() -> None:
    """Digest §7.1 (judgment.up_slope_locations): a Location IN a stream does not get the ¾."""
    m = Map.from_data({"format": "asl-terrain/1", "name": "s", "prefix": "", "columns": ["A", "E"], "rows": [1, 5],
                       "hex": [{"at": ["C3"], "stream": "shallow"}],
                       "hexside": [{"at": ["C2-C3"], "slope": "C2"}]})
    t = trace(Hex.parse("C3").centre(), Hex.parse("C1").centre())
    assert not is_up_slope(m, m.parse_location("C3"), t, True)
    assert is_up_slope(m, m.parse_location("C3/crest"), t, True)
