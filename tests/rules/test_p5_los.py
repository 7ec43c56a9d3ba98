"""KGP P5.141 (the Narrow Street roadblock segment), P5.2 (the steeple) and P5.3 (the single-hex two-story
house) as they bear on LOS, on the P5.141 illustration (tests/maps/st_village.toml; digest §8 tests 43-44,
§7 items 34-35).

Reading of the squads' positions (the illustration is not reproduced in the text): F stands on the P17
side of the roadblock (in P17); G on the N17 side, in N17 or in Bypass at vertex N17-O17-O18; neither is
in O17 or O18, the roadblock's own hexes. H is in O18. With whole-hex depiction the buildings O17/O18
fill their hexes, so the only thread from the P17 side to the N17 side that meets neither building is the
one along the Narrow Street hexside O17-O18 (whose road keeps the buildings off it, P5.1): it crosses
the roadblock segment at the hexside's midpoint. The P5.141 EX also lets a unit in Bypass at vertex
O17-O18-P17 fire at vertex O17-O18-N17 across the roadblock (with its TEM): B9.2's own-hex exception
applies to units in O17 or O18 (judgment.roadblock_los_own_hex).
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.chart import parse_chart
from asl_terrain.grid import Hex, Hexside
from asl_terrain.los import location_elevation, los, obstacle_height
from asl_terrain.model import Map

MAPS = Path(__file__).resolve().parent.parent / "maps"
ROADBLOCK = Hexside.parse("O17-O18")


@pytest.fixture(scope="module")
def st() -> Map:
    return Map.load(MAPS / "st_village.toml")


def _variant(drop_roadblock: bool = False, hexes: list[dict[str, Any]] = ()) -> Map:  # type: ignore[assignment]
    d = tomllib.loads((MAPS / "st_village.toml").read_text(encoding="utf-8"))
    if drop_roadblock:
        d["counter"] = [c for c in d.get("counter", []) if c["type"] != "roadblock"]
    d.setdefault("hex", []).extend(hexes)
    return Map.from_data(d)


def r(m: Map, a: str, b: str, **kw: Any) -> Any:
    return los(m, m.parse_location(a), m.parse_location(b), **kw)


@pytest.mark.parametrize("g", ["N17", "N17@N17-O17-O18"])
def test_p5_141_squads_f_and_g_have_no_los_across_the_roadblock(st: Map, g: str) -> None:
    """The roadblock extends from the centre dot of O17 to that of O18, so F and G have no LOS (B9.2)."""
    x = r(st, "P17", g)
    assert not x.clear
    assert x.blocked_by is not None and x.blocked_by.hexside == ROADBLOCK and x.blocked_by.rule == "P5.141"
    assert ROADBLOCK in x.roadblocks_crossed
    assert not r(st, g, "P17").clear


@pytest.mark.parametrize("g", ["N17", "N17@N17-O17-O18"])
def test_p5_141_without_the_roadblock_f_and_g_see_each_other_along_the_narrow_street(g: str) -> None:
    """The LOS runs along Narrow Street hexside O17-O18: the buildings on either side do not touch it."""
    m = _variant(drop_roadblock=True)
    x = r(m, "P17", g)
    assert x.clear and x.roadblocks_crossed == ()
    assert Hexside.parse("O17-O18") in [hs for _, _, hs in x.trace.along]


def test_p5_141_f_firing_at_h_in_o18_does_not_cross_the_roadblock(st: Map) -> None:
    """H (O18) fired on by F: the thread ends at O18's centre dot, the roadblock's end, without crossing it:
    a LOS, and no roadblock TEM (digest §8 test 43)."""
    x = r(st, "P17", "O18")
    assert x.clear and x.roadblocks_crossed == ()


def test_p5_141_snap_shot_from_bypass_at_the_p17_vertex_to_the_n17_vertex(st: Map) -> None:
    """A unit in Bypass at vertex O17-O18-P17 has a LOS to vertex O17-O18-N17 (where H crosses into O17)
    that crosses the roadblock: it exists (own-hex exception), and it crosses the segment (for TEM)."""
    x = r(st, "O17@O17-O18-P17", "O17@N17-O17-O18")
    assert x.clear and x.roadblocks_crossed == (ROADBLOCK,)
    y = r(st, "P17", "O17@N17-O17-O18")
    assert y.clear and y.roadblocks_crossed == (ROADBLOCK,)


def test_p5_141_the_roadblock_does_not_block_los_between_different_levels() -> None:
    """A Half-Level obstacle blocks only same-level LOS: from a level-1 P17 the LOS to N17 exists."""
    m = _variant(hexes=[{"at": ["P17"], "level": 1}])
    x = r(m, "P17", "N17")
    assert x.clear and ROADBLOCK in x.roadblocks_crossed


def test_p5_141_roadblock_blocks_only_where_the_segment_is_crossed(st: Map) -> None:
    """A LOS that does not reach the segment is unaffected: P17 to N16 (north of O17) meets nothing."""
    x = r(st, "P16", "N16")
    assert x.clear and x.roadblocks_crossed == ()


# --------------------------------------------------------------------------------------------- P5.2


def test_p5_2_steeple_is_an_observation_location_one_level_above_the_highest(st: Map) -> None:
    """StJ19: ground, 1st level, and a 2nd-level Steeple (level 2)."""
    assert location_elevation(st, st.parse_location("J19/2")) == 2
    assert location_elevation(st, st.parse_location("J19/1")) == 1


def test_p5_2_the_steeple_does_not_raise_the_buildings_obstacle_height(st: Map) -> None:
    """Digest §7.28 (building_height.steeple-raises-height = false): J19 stays a 1½-level obstacle (its top
    Location, level 1, + ½); a chart that says otherwise makes it 2½."""
    t = st.terrain(Hex.parse("J19"))
    assert obstacle_height(t) == Fraction(3, 2)
    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text(encoding="utf-8")
    other = parse_chart(text.replace('steeple-raises-height = { value = false', 'steeple-raises-height = { value = true'),
                        "test chart")
    assert obstacle_height(t, other) == Fraction(5, 2)


def test_p5_2_the_steeple_sees_over_what_its_lower_levels_cannot() -> None:
    """A church with a 1st level and a Steeple in C1, a two-story house (top 1½) in C3: the 1st level (1) is
    blocked, the Steeple (2) sees C5 (one Blind Hex, C4, behind the house)."""
    m = Map.from_data({"format": "asl-terrain/1", "name": "c", "prefix": "", "columns": ["A", "E"], "rows": [1, 8],
                       "hex": [{"at": ["C1"], "terrain": "building", "building_type": "multi-level",
                                "upper_levels": 1, "steeple": True},
                               {"at": ["C3"], "terrain": "building", "building_type": "two-story-house"}]})
    assert not r(m, "C1/1", "C5").clear
    assert r(m, "C1/2", "C5").clear
    assert r(m, "C1/2", "C4").blind


# --------------------------------------------------------------------------------------------- P5.3


def test_p5_3_single_hex_two_story_house_is_a_one_and_a_half_level_obstacle(st: Map) -> None:
    """StQ19 (P5.3): a 1½-level obstacle with ground and 1st-level Locations and no Rooftop."""
    t = st.terrain(Hex.parse("Q19"))
    assert obstacle_height(t) == Fraction(3, 2)
    assert [loc.text() for loc in st.locations(Hex.parse("Q19"))] == ["Q19", "Q19/1"]
    x = r(st, "Q19/1", "Q17")
    assert x.clear and x.elevations[0] == 1


def test_p5_3_level_one_viewers_do_not_see_over_it() -> None:
    m = Map.from_data({"format": "asl-terrain/1", "name": "h", "prefix": "", "columns": ["A", "E"], "rows": [1, 8],
                       "hex": [{"at": ["C1", "C5"], "level": 1},
                               {"at": ["C3"], "terrain": "building", "building_type": "single-hex-two-story-house"}]})
    x = r(m, "C1", "C5")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.hex == Hex.parse("C3")
    assert "P5.3" in x.rules()


def test_p5_141_a_los_along_the_segment_does_not_cross_it(st: Map) -> None:
    """Digest §7.35 (chart-research.md, roadblock_segment_crossing): O17 to O18 runs along the roadblock, centre dot to
    centre dot, and does not cross it."""
    x = r(st, "O17", "O18")
    assert x.clear and x.roadblocks_crossed == ()
