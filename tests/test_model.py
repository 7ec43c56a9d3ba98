"""Locations (map-format.md "Locations in queries"; B23, P4.2, P5.2, P5.3) and their names."""

from __future__ import annotations

import pytest

from asl_terrain.errors import BadName, NotAdjacent, UnknownLocation
from asl_terrain.grid import Hex, Hexside
from asl_terrain.model import Map


@pytest.fixture(scope="module")
def village() -> Map:
    return Map.from_data({
        "format": "asl-terrain/1", "name": "village", "prefix": "St", "columns": ["A", "T"], "rows": [1, 20],
        "hex": [
            {"at": ["A1"], "terrain": "building", "building_type": "single-story-house"},
            {"at": ["B1"], "terrain": "building", "building_type": "two-story-house"},
            {"at": ["C1"], "terrain": "building", "building_type": "single-hex-two-story-house"},
            {"at": ["D1"], "terrain": "building", "upper_levels": 2},
            {"at": ["J19"], "terrain": "building", "upper_levels": 1, "steeple": True},
            {"at": ["F1"], "terrain": "building", "steeple": True},
            {"at": ["L6", "L7"], "stream": "shallow"},
            {"at": ["L7"], "culvert": True},
            {"at": ["M5"], "terrain": "pine-woods", "stream": "shallow"},
            {"at": ["P17"], "level": 1},
        ],
        "hexside": [{"at": ["O17-P17", "N17-O17"], "narrow_street": "paved"}],
    })


@pytest.mark.parametrize("hexname, expected", [
    ("A1", ["StA1"]),                                        # single-story house: ground only, no rooftop (B23.21)
    ("B1", ["StB1", "StB1/1", "StB1/rooftop"]),              # two-story house: ground and 1st (B23.22)
    ("C1", ["StC1", "StC1/1"]),                              # single-hex two-story house: no rooftop (P5.3)
    ("D1", ["StD1", "StD1/1", "StD1/2", "StD1/rooftop"]),    # multi-level: ground plus upper_levels
    ("J19", ["StJ19", "StJ19/1", "StJ19/2"]),                # steeple one above the 1st level, no rooftop (P5.2)
    ("F1", ["StF1", "StF1/1"]),                              # ChAA10-like: ground plus a 1st-level steeple (P5.2 EX)
    ("L7", ["StL7", "StL7/crest", "StL7/culvert"]),          # stream hex with a Stream Culvert (P4.2)
    ("M5", ["StM5", "StM5/crest"]),                          # stream-pine-woods: IN and Crest status (P4.1, B20.9)
    ("G5", ["StG5"]),
])
def test_locations_of_each_building_type(village: Map, hexname: str, expected: list[str]) -> None:
    assert [village.name_of(x) for x in village.locations(Hex.parse(hexname))] == expected


def test_steeple_stairwell_is_inherent(village: Map) -> None:
    """P5.2: an inherent stairwell leads to the steeple; P5.3: the single-hex two-story house has one too."""
    assert village.terrain(Hex.parse("J19")).has_stairwell
    assert village.terrain(Hex.parse("C1")).has_stairwell
    assert not village.terrain(Hex.parse("B1")).has_stairwell


@pytest.mark.parametrize("text, canonical", [
    ("N17", "StN17"), ("StN17", "StN17"), ("N17/0", "StN17"), ("J19/2", "StJ19/2"), ("StM5/crest", "StM5/crest"),
    ("L7/culvert", "StL7/culvert"), ("O17@O18-N17-O17", "StO17@N17-O17-O18"), ("N17@O17-N17", "StN17@N17-O17"),
])
def test_location_names_round_trip(village: Map, text: str, canonical: str) -> None:
    loc = village.parse_location(text)
    assert village.name_of(loc) == canonical
    assert village.parse_location(canonical) == loc


def test_bypass_on_a_crest_line_narrow_street_is_in_the_lower_hex(village: Map) -> None:
    """P5.11: naming the higher hex of a Crest-Line Narrow Street hexside places the unit in the lower hex."""
    assert village.name_of(village.parse_location("P17@O17-P17")) == "StO17@O17-P17"


@pytest.mark.parametrize("text, error, words", [
    ("A1/1", UnknownLocation, "has: StA1"),
    ("C1/rooftop", UnknownLocation, "does not exist"),
    ("J19/rooftop", UnknownLocation, "does not exist"),
    ("G5/crest", UnknownLocation, "does not exist"),
    ("ZZ9", UnknownLocation, "not on map"),
    ("LgA1", UnknownLocation, "prefix 'Lg'"),
    ("N17/basement", BadName, "'/basement'"),
    ("17N", BadName, "not a hex name"),
    ("N17@N17-P17", NotAdjacent, "not adjacent"),
    ("N17@O17-P17", UnknownLocation, "not a hexside of N17"),
])
def test_locations_that_do_not_exist(village: Map, text: str, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        village.parse_location(text)


def test_hexside_up_and_down_slope() -> None:
    m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "Z"], "rows": [1, 20],
                       "hexside": [{"at": ["G9-F8"], "slope": "G9"}]})
    hs = m.hexside(Hexside.parse("F8-G9"))
    assert hs.down_slope(Hex.parse("G9")) and hs.up_slope(Hex.parse("F8"))
    assert not hs.up_slope(Hex.parse("G9")) and not hs.down_slope(Hex.parse("F8"))


def test_one_letter_prefix_names_hexes() -> None:
    """A one-letter prefix ("Q") cannot be told from a column letter by the grammar; the map strips it
    (regression: every prefixed hex name was refused on such a map)."""
    m = Map.from_data({"format": "asl-terrain/1", "prefix": "Q", "columns": ["A", "H"], "rows": [1, 8]})
    assert m.parse_hex("QC1") == m.parse_hex("C1") == Hex.parse("C1")
    assert m.name_of(m.parse_location("QC1/0")) == "QC1"
