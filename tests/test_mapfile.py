"""Loading map files (map-format.md): every key loads, defaults are derived, everything else is refused
with a message naming the file, the key or hex, and what was expected."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asl_terrain.errors import MapError
from asl_terrain.grid import Hex, Hexside
from asl_terrain.model import Map

MAPS = Path(__file__).parent / "maps"


def base(**extra: object) -> dict[str, object]:
    d: dict[str, object] = {"format": "asl-terrain/1", "name": "t", "prefix": "St", "columns": ["A", "T"],
                            "rows": [1, 20]}
    d.update(extra)
    return d


FULL_EXAMPLE = """
format  = "asl-terrain/1"
name    = "Crossroads village"
prefix  = "St"
columns = ["A", "T"]
rows    = [1, 20]

[conditions]
month = 10
weather = "mud"
frigid = true

[defaults]
terrain = "open"
level   = 0

[[hex]]
at = ["J11", "K12"]
level = 2
terrain = "building"
building = "stone"
building_type = "two-story-house"
building_id = "farm"
stairwell = false

[[hex]]
at = ["J19"]
terrain = "building"
building = "wooden"
upper_levels = 1
steeple = true

[[hex]]
at = ["M5"]
terrain = "pine-woods"
stream = "shallow"
culvert = false
ford = false

[[hex]]
at = ["L6", "L7"]
stream = "shallow"
culvert = true

[[hex]]
at = ["A1", "A2"]
offboard = true

[[hexside]]
at = ["M4-L3"]
road = "dirt"

[[hexside]]
at = ["N17-O17", "N17-O18"]
narrow_street = "paved"

[[hexside]]
at = ["G9-F8"]
slope = "G9"

[[hexside]]
at = ["H13-I14"]
fence = true

[[hexside]]
at = ["L6-L7"]
stream = true
culvert = true
crest = true

[[counter]]
type = "smoke"
at = "O18"
strength = 2

[[counter]]
type = "residual-fp"
at = "N17"
fp = 4

[[counter]]
type = "mines"
at = "N17"
kind = "A-P"
strength = 6
hidden = false

[[counter]]
type = "roadblock"
hexside = "O17-O18"
arrow = "O17-O18-P17"

[[counter]]
type = "wreck"
at = "N17"
bypass = "N17-O17"
burning = false

[[counter]]
type = "vehicle"
at = "O17"
immobile = true

[[counter]]
type = "rubble"
at = "C3"

[[counter]]
type = "blaze"
at = "C4"

[[counter]]
type = "entrenchment"
at = "C5"
"""


def test_every_key_of_the_format_loads(tmp_path: Path) -> None:
    """Every key map-format.md shows, in one file, loads with the values given."""
    p = tmp_path / "full.toml"
    p.write_text(FULL_EXAMPLE)
    m = Map.load(p)
    assert m.name == "Crossroads village" and m.prefix == "St"
    assert (m.conditions.month, m.conditions.weather, m.conditions.frigid) == (10, "mud", True)
    t = m.terrain(Hex.parse("K12"))
    assert (t.level, t.terrain, t.building, t.building_type, t.building_id) == (2, "building", "stone",
                                                                               "two-story-house", "farm")
    j19 = m.terrain(Hex.parse("J19"))
    assert j19.building_type == "multi-level" and j19.steeple and j19.steeple_level == 2
    assert m.terrain(Hex.parse("M5")).stream == "shallow"
    assert m.terrain(Hex.parse("A2")).offboard
    assert m.hexside(Hexside.parse("M4-L3")).road == "dirt"
    assert m.hexside(Hexside.parse("O17-N17")).narrow_street == "paved"
    assert m.hexside(Hexside.parse("F8-G9")).slope == Hex.parse("G9")
    assert m.hexside(Hexside.parse("H13-I14")).fence
    assert len(m.counters) == 9
    assert m.smoke(Hex.parse("O18")) == 2 and m.residual_fp(Hex.parse("N17")) == 4
    rb = m.roadblock(Hexside.parse("O18-O17"))
    assert rb is not None and rb.arrow is not None and m.name_of(rb.arrow) == "StO17-O18-P17"


def test_json_with_the_same_structure_loads(tmp_path: Path) -> None:
    import tomllib

    p = tmp_path / "full.json"
    p.write_text(json.dumps(tomllib.loads(FULL_EXAMPLE)))
    assert Map.load(p).terrain(Hex.parse("K12")).level == 2


def test_crest_line_derived_from_base_levels() -> None:
    """A hexside between different Base Levels is a Crest Line unless the file says otherwise."""
    m = Map.from_data(base(hex=[{"at": ["C3"], "level": 1}], hexside=[{"at": ["C3-D3"], "crest": False}]))
    assert m.is_crest_line(Hexside.parse("C3-C4"))
    assert not m.is_crest_line(Hexside.parse("C3-D3"))
    assert not m.is_crest_line(Hexside.parse("D3-D4"))


def test_stream_and_culvert_hexsides_derived() -> None:
    """Between two stream hexes the hexside carries the stream; between two culvert hexes the culvert;
    `stream = false` says otherwise where the stream bends."""
    m = Map.from_data(base(hex=[{"at": ["L6", "L7", "L8"], "stream": "shallow"}, {"at": ["L6", "L7"], "culvert": True}],
                           hexside=[{"at": ["L7-L8"], "stream": False}]))
    assert m.hexside(Hexside.parse("L6-L7")).stream and m.hexside(Hexside.parse("L6-L7")).culvert
    assert not m.hexside(Hexside.parse("L7-L8")).stream
    assert not m.hexside(Hexside.parse("L7-M7")).stream


def test_later_blocks_override_earlier_ones() -> None:
    m = Map.from_data(base(defaults={"terrain": "grain", "level": 1},
                           hex=[{"at": ["C3", "C4"], "terrain": "woods"}, {"at": ["C4"], "level": 3}]))
    assert m.terrain(Hex.parse("A1")).terrain == "grain" and m.terrain(Hex.parse("A1")).level == 1
    assert m.terrain(Hex.parse("C3")).terrain == "woods" and m.terrain(Hex.parse("C3")).level == 1
    assert m.terrain(Hex.parse("C4")).terrain == "woods" and m.terrain(Hex.parse("C4")).level == 3


def test_a_wire_counter_lies_in_its_hex() -> None:
    """docs/map-format-extensions.md: ``[[counter]]`` of type ``wire`` with ``at`` (B26), an additive type."""
    m = Map.from_data(base(counter=[{"type": "wire", "at": "C3"}, {"type": "smoke", "at": "C3", "strength": 2}]))
    assert m.has_counter(Hex.parse("C3"), "wire") and not m.has_counter(Hex.parse("C4"), "wire")
    assert [c.type for c in m.counters_at(Hex.parse("C3"))] == ["wire", "smoke"]
    with pytest.raises(MapError, match="expected one of .*entrenchment, wire"):
        Map.from_data(base(counter=[{"type": "wires", "at": "C3"}]))


@pytest.mark.parametrize("data, expected", [
    (base(colour="red"), "colour: unknown key"),
    (base(hex=[{"at": ["B2"], "terrain": "forest"}]), "hex[0].terrain (at B2)"),
    (base(hex=[{"at": ["Z99"]}]), "hex 'Z99' is off the map (columns A..T, rows 1..20)"),
    (base(hexside=[{"at": ["A1-C1"], "wall": True}]), "A1 and C1 are not adjacent"),
    (base(hexside=[{"at": ["G9-F8"], "slope": "H9"}]), "'H9' is not one of the hexes of hexside 'G9-F8'"),
    (base(hex=[{"at": ["C3"], "steeple": True}]), "hex StC3: 'steeple' is set but the hex is 'open'"),
    (base(hex=[{"at": ["C3"], "culvert": True}]), "hex StC3: a Stream Culvert needs a stream hex"),
    (base(counter=[{"type": "smoke", "at": "Z1", "strength": 2}]), "counter[0].at: hex 'Z1' is off the map"),
    (base(counter=[{"type": "smoke", "strength": 2}]), "counter[0].at: required key is missing"),
    (base(counter=[{"type": "foo", "at": "A1"}]), "unknown counter type 'foo'"),
    (base(counter=[{"type": "wire"}]), "counter[0].at: required key is missing"),
    (base(counter=[{"type": "wire", "at": "Z1"}]), "counter[0].at: hex 'Z1' is off the map"),
    (base(counter=[{"type": "wire", "at": "C3", "strength": 1}]), "counter[0].wire.strength (at C3): unknown key"),
    (base(counter=[{"type": "roadblock", "hexside": "O17-O18", "arrow": "N16-N17-O17"}]),
     "is not a vertex of hexside"),
    (base(hexside=[{"at": ["N17-O17"], "culvert": True}]), "is not a stream hex"),
    (base(format="asl-terrain/2"), "format: expected 'asl-terrain/1'"),
    (base(columns=["T", "A"]), "comes after last column"),
    (base(columns=["A", "AB"]), "columns:"),
    (base(prefix="st"), "prefix"),
    (base(hex=[{"at": ["LgC3"]}]), "has prefix 'Lg', but this map's prefix is 'St'"),
    (base(hex=[{"at": ["C3"], "terrain": "open", "upper_levels": 2}]), "'upper_levels' is set"),
])
def test_bad_maps_are_refused_with_a_message_naming_the_problem(data: dict[str, object], expected: str) -> None:
    with pytest.raises(MapError) as err:
        Map.from_data(data, source="bad.toml")
    assert str(err.value).startswith("bad.toml:")
    assert expected in str(err.value)


def test_all_problems_reported_at_once() -> None:
    with pytest.raises(MapError) as err:
        Map.from_data(base(hex=[{"at": ["Z99"]}], hexside=[{"at": ["A1-C1"], "wall": True}]))
    assert len(err.value.problems) == 2


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(MapError, match="cannot read"):
        Map.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("format = ")
    with pytest.raises(MapError, match="not valid TOML"):
        Map.load(bad)
    badj = tmp_path / "bad.json"
    badj.write_text("{")
    with pytest.raises(MapError, match="not valid JSON"):
        Map.load(badj)


def test_a_200_by_200_map_loads_quickly() -> None:
    """Issue 2: map files of up to 200 x 200 hexes load in under a second (generous bound, not a benchmark)."""
    blocks = [{"at": [f"{c}{r}" for r in range(1, 201, 3)], "terrain": "woods", "level": 1}
              for c in ["C", "F", "K", "AA", "QQ", "ZZ"]]
    sides = [{"at": [f"C{r}-C{r+1}" for r in range(1, 200)], "wall": True}]
    t0 = time.perf_counter()
    m = Map.from_data(base(columns=["A", "RRRRRRRR"], rows=[1, 200],
                           hex=blocks, hexside=sides))
    elapsed = time.perf_counter() - t0
    assert len(m) >= 200 * 200
    assert elapsed < 5.0


_terrains = st.sampled_from(["open", "woods", "pine-woods", "brush", "orchard", "grain", "building", "rubble",
                             "graveyard", "marsh", "shellholes", "forest", 3])
_hexnames = st.builds(lambda c, r: f"{c}{r}", st.sampled_from(["A", "B", "C", "D", "Z", "AA"]), st.integers(-1, 12))


@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({
    "hex": st.lists(st.fixed_dictionaries({"at": st.lists(_hexnames, min_size=1, max_size=3)},
                                          optional={"terrain": _terrains, "level": st.integers(-2, 4),
                                                    "steeple": st.booleans(), "stream": st.sampled_from(["shallow", "x"]),
                                                    "culvert": st.booleans()}), max_size=4),
    "hexside": st.lists(st.fixed_dictionaries({"at": st.lists(st.builds(lambda a, b: f"{a}-{b}", _hexnames, _hexnames),
                                                                min_size=1, max_size=2)},
                                              optional={"wall": st.booleans(), "slope": _hexnames}), max_size=3),
}))
def test_random_map_documents_load_or_raise_map_error(doc: dict[str, object]) -> None:
    """Random documents either load or raise MapError: nothing else escapes."""
    try:
        Map.from_data(base(columns=["A", "D"], rows=[1, 10], **doc))
    except MapError as e:
        assert str(e)
