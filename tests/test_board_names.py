"""Board-named hexes on layouts (issue 12): a layout of boards prints every hex, hexside, vertex and
Location by its board and the name printed on that board (``2K5``, ``2K5-2K6``, ``2K5/1``); the merged
half hexes of A2.2 are named by the board that comes first in the layout; every printed name parses
back; a flipped board keeps its printed names. No VASL data is needed: movement, TEM and naming work on
a layout's grid without the archives (only LOS reads the artwork).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from asl_terrain import movement
from asl_terrain.grid import Hex, Naming
from asl_terrain.model import BoardNaming, BoardPlacement, Location, Map
from asl_terrain.units import Unit


def _layout(*boards: dict[str, Any], columns: str = "MMM", rows: int = 20, **extra: Any) -> Map:
    d: dict[str, Any] = {"format": "asl-terrain/1", "name": "layout", "columns": ["A", columns], "rows": [0, rows],
                         "depiction": {"kind": "vasl", "board": list(boards)}}
    d.update(extra)
    return Map.from_data(d)


def _two_by_two() -> Map:
    return _layout({"archive": "bd01", "prefix": "1", "column": 0, "row": 0},
                   {"archive": "bd02", "prefix": "2", "column": 32, "row": 0},
                   {"archive": "bd03", "prefix": "3", "column": 0, "row": 10},
                   {"archive": "bd04", "prefix": "4", "column": 32, "row": 10})


def test_layout_prints_board_names_and_merged_half_hexes_by_the_first_board() -> None:
    m = _two_by_two()
    assert isinstance(m.names, BoardNaming)
    assert m.name_of(Hex.parse("K5")) == "1K5"
    assert m.name_of(Hex.parse("II3")) == "2C3"
    assert m.name_of(Hex.parse("A11")) == "3A1"
    # A2.2: board 1's GG5 and board 2's A5 are one hex, named by board 1 (first in the layout)
    assert m.name_of(Hex.parse("GG5")) == "1GG5" and m.parse_hex("2A5") == Hex.parse("GG5")
    # board 1's B10 is board 3's B0: named by the upper board
    assert m.name_of(Hex.parse("B10")) == "1B10" and m.parse_hex("3B0") == Hex.parse("B10")
    # the corner where all four boards meet: board 1's GG10
    assert m.name_of(Hex.parse("GG10")) == "1GG10"
    assert m.name_of(m.parse_hexside("1K5-1K6")) == "1K5-1K6"
    assert m.name_of(m.parse_hexside("1K10-3K1")) == "1K10-3K1"
    assert m.name_of(m.parse_location("2C3@2C3-2C4-2D3")) == "2C3@2C3-2C4-2D3"


def test_every_printed_name_on_a_layout_parses_back() -> None:
    """Every hex of the layout, each of its hexsides and vertices, and its Locations print a name that
    parses back to the same thing."""
    m = _two_by_two()
    for h in m.hexes():
        name = m.name_of(h)
        assert m.parse_hex(name) == h, name
        for hs in h.hexsides():
            if all(x in m for x in hs.hexes):
                assert m.parse_hexside(m.name_of(hs)) == hs
        for v in h.vertices():
            if all(x in m for x in v.hexes):
                assert m.parse_vertex(m.name_of(v)) == v
        for loc in m.locations(h):
            assert m.parse_location(m.name_of(loc)) == loc


def test_single_board_keeps_its_prefix_once() -> None:
    m = _layout({"archive": "bd01", "prefix": "1"}, columns="GG", rows=10, prefix="1")
    assert type(m.names) is Naming
    assert m.name_of(Hex.parse("Y10")) == "1Y10"
    assert m.name_of(m.parse_hexside("Y10-Y9")) == "1Y9-Y10"


def test_flipped_board_keeps_its_printed_names() -> None:
    """A board turned 180° (VASL's r-prefixed board): its A1 lies at the lower right of its place, its
    GG10 at the upper left, and a hex's neighbours are the same hexes as on the unturned board."""
    b = BoardPlacement("bd02", "2", 0, 0, 33, 10, flipped=True)
    assert b.to_map(Hex.parse("A1")) == Hex.parse("GG10")
    assert b.to_map(Hex.parse("GG10")) == Hex.parse("A1")
    assert b.to_map(Hex.parse("B0")) == Hex.parse("FF10")
    assert b.to_map(Hex.parse("B10")) == Hex.parse("FF0")
    plain = BoardPlacement("bd02", "2")
    for c in range(33):
        for r in range(11):
            local = Hex(c, r)
            if not b.contains(local):
                continue
            assert b.from_map(b.to_map(local)) == local
            turned_neighbours = {b.from_map(n) for n in b.to_map(local).neighbours()}
            assert turned_neighbours == {plain.from_map(n) for n in local.neighbours()}
            assert b.to_map(local).distance(b.to_map(Hex(16, 5))) == local.distance(Hex(16, 5))
    m = _layout({"archive": "bd02", "prefix": "2", "flipped": True},
                {"archive": "bd03", "prefix": "3", "column": 0, "row": 10}, columns="GG")
    assert m.parse_hex("2A1") == Hex.parse("GG10") and m.name_of(Hex.parse("GG10")) == "2A1"
    # the flipped board's A1 (its lower right) is merged with nothing: 3GG1 is below it
    assert m.name_of(Hex.parse("GG11")) == "3GG1"


def test_rulings_on_a_layout_name_hexes_by_board() -> None:
    """A move and a reach on a layout answer in board names, in the explanation and the JSON alike."""
    m = _two_by_two()
    inf = Unit.from_json("infantry")
    r = movement.move_cost(m, inf, m.parse_location("2C3"), m.parse_location("2C4"))
    assert r.to_json()["from"] == "2C3" and r.to_json()["to"] == "2C4"
    assert "2C3" in r.explain() and "II3" not in r.explain()
    reach = movement.reach(m, inf, m.parse_location("1GG5"), Fraction(1))
    names = set(reach.costs)
    assert {"1GG5", "2B5", "1FF5"} <= names
    assert all(m.parse_location(n) is not None for n in names)


def test_counters_on_a_layout_name_their_hex_by_board() -> None:
    """A map file's counters may name their hex by board on a layout; the map places them there."""
    m = _two_by_two().__class__.from_data({
        "format": "asl-terrain/1", "name": "layout", "columns": ["A", "MMM"], "rows": [0, 20],
        "depiction": {"kind": "vasl", "board": [
            {"archive": "bd01", "prefix": "1"}, {"archive": "bd02", "prefix": "2", "column": 32, "flipped": True}]},
        "counter": [{"type": "smoke", "at": "2C3", "strength": 2},
                    {"type": "vehicle", "at": "1K5", "bypass": "1K5-1K6"}]})
    flipped_c3 = BoardPlacement("bd02", "2", 32, 0, flipped=True).to_map(Hex.parse("C3"))
    assert m.smoke(flipped_c3) == 2 and m.name_of(flipped_c3) == "2C3"
    (v,) = m.vehicles(Hex.parse("K5"))
    assert v.bypass is not None and m.name_of(v.bypass) == "1K5-1K6"


def test_bad_board_names_in_counters_are_refused() -> None:
    from asl_terrain.errors import MapError

    base: dict[str, Any] = {"format": "asl-terrain/1", "name": "layout", "columns": ["A", "MMM"], "rows": [0, 20],
                            "depiction": {"kind": "vasl", "board": [{"archive": "bd01", "prefix": "1"}]}}
    with pytest.raises(MapError, match="not on board 1"):
        Map.from_data({**base, "counter": [{"type": "smoke", "at": "1HH5", "strength": 1}]})
    with pytest.raises(MapError, match="board prefixes: 1"):
        Map.from_data({**base, "counter": [{"type": "smoke", "at": "7A5", "strength": 1}]})
    with pytest.raises(MapError, match="not a hexside of"):
        Map.from_data({**base, "counter": [{"type": "vehicle", "at": "1K5", "bypass": "1K7-1K8"}]})


def test_location_text_accepts_a_prefix_or_a_naming() -> None:
    loc = Location(Hex.parse("K5"), 1)
    assert loc.text("Hr") == loc.text(Naming("Hr")) == "HrK5/1"

