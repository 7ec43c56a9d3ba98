"""KGP P4.1, P4.13 and P4.2 as they bear on LOS: stream-woods/brush/orchard rise from the Crest level,
Locations IN a stream are one level down and see out only as a depression allows (A6.3, B20.2), and a
Stream Culvert sees only ADJACENT stream and culvert Locations (digest §7 items 17-18).

tests/maps/streams.toml: a shallow stream MM3 MM4 MM5 MM6 LL6 LL7 LL8 MM9 ... LL16, all at level 0;
MM5 stream pine woods, MM6 stream woods, MM11 stream brush, LL14 stream orchard, LL7 the culvert.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.grid import Hex, Hexside, trace
from asl_terrain.los import hexsides_entered, location_elevation, los
from asl_terrain.model import Map

MAPS = Path(__file__).resolve().parent.parent / "maps"


@pytest.fixture(scope="module")
def st() -> Map:
    return Map.load(MAPS / "streams.toml")


def r(m: Map, a: str, b: str, **kw: Any) -> Any:
    return los(m, m.parse_location(a), m.parse_location(b), **kw)


def test_p4_1_in_a_stream_is_one_level_down_and_crest_status_at_the_crest(st: Map) -> None:
    assert location_elevation(st, st.parse_location("MM3")) == -1
    assert location_elevation(st, st.parse_location("MM3/crest")) == 0
    assert location_elevation(st, st.parse_location("LL7/culvert")) == -1


def test_p4_1_stream_woods_block_ground_level_los_rising_from_the_crest(st: Map) -> None:
    """StMM5's pine woods stand 2 levels above the Crest level: ground-level LOS across them is blocked, and so
    is LOS between Crest-status units on either side."""
    x = r(st, "KK5", "NN5")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.hex == Hex.parse("MM5")
    assert x.blocked_by.rule == "A6.2"
    assert not r(st, "MM4/crest", "MM6/crest").clear


def test_p4_1_stream_woods_rise_from_the_crest_not_from_in() -> None:
    """A level-1 viewer looking down across stream-woods at a level-0 target: the woods' top is Crest level + 1
    = 1, level with the viewer, so they block (had they risen from IN, their top would be 0)."""
    m = Map.from_data({"format": "asl-terrain/1", "name": "s", "prefix": "", "columns": ["A", "E"], "rows": [1, 8],
                       "hex": [{"at": ["C1"], "level": 1},
                               {"at": ["B3", "C3", "D3"], "stream": "shallow"},
                               {"at": ["C3"], "terrain": "woods"}]})
    x = r(m, "C1", "C5")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.hex == Hex.parse("C3")
    assert x.blocked_by.rule == "A6.2" and "P4.1" in x.rules()


def test_p4_13_in_stream_los_lying_within_the_depiction_ignores_the_stream_woods(st: Map) -> None:
    """IN MM3 to IN MM6 straight down the stream: the LOS stays within the stream depiction, so the pine woods
    of MM5 (on the banks) do not block it (digest §7.17, B20.2)."""
    x = r(st, "MM3", "MM6")
    assert x.clear and x.hindrance_drm == 0 and "B20.2" in x.rules()
    t = trace(Hex.parse("MM3").centre(), Hex.parse("MM6").centre())
    assert all(st.hexside(hs).stream for hs in hexsides_entered(st, t, Hex.parse("MM6")))
    assert r(st, "LL13", "LL15").clear  # through the stream orchard of LL14


def test_a6_3_in_a_stream_sees_out_only_where_the_elevation_difference_reaches_the_range(st: Map) -> None:
    """IN MM3 (level -1) sees the adjacent level-0 ground but not level-0 ground two hexes off across the bank
    (digest §3.6)."""
    assert r(st, "MM3", "NN3").clear
    x = r(st, "MM3", "NN4")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.rule == "A6.3"
    assert not r(st, "NN4", "MM3").clear


@pytest.mark.parametrize("hill, row, seen", [(1, 3, True), (1, 4, False), (2, 4, True), (0, 2, True), (0, 3, False)])
def test_a6_3_a_hill_looks_into_the_stream(hill: int, row: int, seen: bool) -> None:
    """A viewer on a hill in C1 and a unit IN the stream hex C<row>: seen when the elevation difference
    (hill + 1) reaches the range (digest §3.6)."""
    m = Map.from_data({"format": "asl-terrain/1", "name": "s", "prefix": "", "columns": ["A", "E"], "rows": [1, 8],
                       "hex": [{"at": ["C1"], "level": hill},
                               {"at": [f"B{row}", f"C{row}", f"D{row}"], "stream": "shallow"}]})
    assert r(m, "C1", f"C{row}").clear is seen
    assert r(m, f"C{row}", "C1").clear is seen


def test_a6_3_adjacent_ground_sees_into_the_stream(st: Map) -> None:
    assert r(st, "NN3", "MM3").clear and r(st, "MM3", "NN3").clear


def test_b20_2_units_in_a_stream_see_each_other_only_within_the_depiction(st: Map) -> None:
    """MM3 to MM9 straight down column MM leaves the stream at MM7 (the stream bends through LL6-LL8):
    blocked; MM4 to LL8 stays over stream hexes and stream hexsides: clear."""
    x = r(st, "MM3", "MM9")
    assert not x.clear and x.blocked_by is not None and x.blocked_by.rule == "B20.2"
    assert r(st, "MM4", "LL8").clear


@pytest.mark.parametrize("other, seen", [
    ("LL6", True), ("LL8", True),               # IN the ADJACENT stream hexes, across stream hexsides
    ("LL6/crest", False), ("LL8/crest", False),  # Crest status is not IN the stream (§7.18)
    ("LL7", False),                              # IN the stream of its own hex: not ADJACENT
    ("MM7", False), ("KK7", False),              # adjacent ground
    ("MM9", False), ("MM6", False),              # stream hexes, not adjacent
])
def test_p4_2_a_culvert_sees_only_adjacent_stream_and_culvert_locations(st: Map, other: str, seen: bool) -> None:
    """A unit IN the Stream Culvert LL7 has a LOS only to ADJACENT stream (and culvert) Locations, and only
    they see it (reciprocity)."""
    x = r(st, "LL7/culvert", other)
    assert x.clear is seen
    assert r(st, other, "LL7/culvert").clear is seen
    if not seen:
        assert x.blocked_by is not None and x.blocked_by.rule == "P4.2"


def test_p4_2_culvert_to_culvert_across_a_culvert_hexside() -> None:
    m = Map.from_data({"format": "asl-terrain/1", "name": "c", "prefix": "", "columns": ["A", "D"], "rows": [1, 6],
                       "hex": [{"at": ["B2", "B3", "B4"], "stream": "shallow"}, {"at": ["B2", "B3"], "culvert": True}]})
    assert m.hexside(Hexside.parse("B2-B3")).culvert
    assert r(m, "B2/culvert", "B3/culvert").clear
    assert not r(m, "B2/culvert", "B4").clear


def test_p4_13_stream_brush_is_not_a_hindrance_inside_the_depiction(st: Map) -> None:
    """IN MM10 to IN MM12 through IN-stream MM11 (stream brush): within the depiction, no Hindrance; across the
    same hex from ground level (Crest status), the brush hinders."""
    assert r(st, "MM10", "MM12").hindrance_drm == 0
    assert r(st, "MM10/crest", "MM12/crest").hindrance_drm == 1


def test_p4_1_elevation_is_a_fraction(st: Map) -> None:
    assert isinstance(location_elevation(st, st.parse_location("MM6")), Fraction)


@pytest.mark.parametrize("wall_elsewhere", [False, True])
def test_b20_2_in_stream_hexes_across_a_non_stream_hexside_do_not_see_each_other(wall_elsewhere: bool) -> None:
    """B20.2 (digest §3.6): IN-stream B3 and C3 are adjacent, but the stream does not cross B3-C3, so the
    thread between them leaves the depiction: no LOS. Regression: the engine left crossed hexsides out of
    its walk on maps without any wall, hedge or roadblock, so this ruling changed with a wall far away."""
    sides: list[dict[str, Any]] = [{"at": ["B3-C3"], "stream": False}]
    if wall_elsewhere:
        sides.append({"at": ["E7-E8"], "wall": True})
    m = Map.from_data({"format": "asl-terrain/1", "name": "t", "prefix": "", "columns": ["A", "F"],
                       "rows": [1, 8], "hex": [{"at": ["B3", "C3", "C4"], "stream": "shallow"}],
                       "hexside": sides})
    for a, b in (("B3", "C3"), ("C3", "B3")):
        x = r(m, a, b)
        assert not x.clear and x.blocked_by is not None and x.blocked_by.rule == "B20.2"
    assert r(m, "C3", "C4").clear      # across the stream hexside C3-C4


def test_b20_2_blocked_by_the_banks_names_the_hex_where_the_thread_leaves_the_depiction() -> None:
    """Regression (found by the ask fuzz): two Locations IN the demo stream, D3 and E11, whose thread leaves the
    stream depiction, answered a blocked_by with neither "hex" nor "hexside" (queries.md requires one)."""
    from asl_terrain.ask import answer_one
    from asl_terrain.model import load_demo

    m = load_demo()
    a = answer_one(m, {"kind": "los", "from": "D3", "to": "E11"})
    assert a["clear"] is False and a["blocked_by"]["rule"] == "B20.2"
    assert a["blocked_by"]["hex"] == "HrD4"
