"""Bridges in LOS (B6.2), from the rule's own text and examples, on a small hand-made map
(tests/maps/b6_bridge_levels.toml: a ground-level bridge in E3 as 13CC5, a level-one bridge carrying a
raised road in E6 as 13K6).

B6.2: a bridge blocks LOS only between a unit on it and a unit beneath it in its hex; otherwise a
non-pontoon bridge Hinders (+1) a LOS drawn through it unless that LOS is traced only through its road
depiction or is between Locations all beneath or all above the bridge; a non-pontoon bridge stands at the
level of the road it connects to. EX: the bridge at 13CC5 is at ground level and BB5 fires through it to
FF3 with a +1 Hindrance; the bridge at 13K6 is at level one and J4 fires beneath it to L7 with none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from asl_terrain.effects import tem
from asl_terrain.errors import MapError
from asl_terrain.los import location_elevation, los
from asl_terrain.model import Map

MAP = Path(__file__).parent / "maps" / "b6_bridge_levels.toml"


@pytest.fixture(scope="module")
def m() -> Map:
    return Map.load(MAP)


def ruling(m: Map, a: str, b: str):  # type: ignore[no-untyped-def]
    return los(m, m.parse_location(a), m.parse_location(b))


def bridge_drm(r) -> int:  # type: ignore[no-untyped-def]
    return sum(h.drm for h in r.hindrances if h.rule == "B6.2")


def test_the_deck_stands_at_the_level_of_its_road(m: Map) -> None:
    """B6.2: the ground-level bridge's deck is at the Crest level, the level-one bridge's at level 1; the
    Location beneath either is IN the stream (one below the Crest level)."""
    assert location_elevation(m, m.parse_location("E3")) == 0
    assert location_elevation(m, m.parse_location("E6")) == 1
    assert location_elevation(m, m.parse_location("E6/under")) == -1
    assert location_elevation(m, m.parse_location("E5")) == -1  # no bridge: IN the stream


def test_a_ground_level_bridge_hinders_a_lof_drawn_through_it(m: Map) -> None:
    """EX 13CC5: across the ground-level bridge, off its road, +1 Hindrance; the same ends both ways."""
    for a, b in (("D3", "F2"), ("F2", "D3"), ("C3", "G2"), ("B3", "H3")):
        r = ruling(m, a, b)
        assert r.clear and bridge_drm(r) == 1, (a, b)
        assert any(h.hex == m.parse_hex("E3") for h in r.hindrances if h.rule == "B6.2")


def test_along_the_road_depiction_the_bridge_does_not_hinder(m: Map) -> None:
    """Traced only through the road depiction (in and out across the bridge's road hexsides, not at a
    vertex): no Hindrance, at ground level (D2-E3-F3) and on the level-one road (D5-E6-F6)."""
    for a, b in (("D2", "F3"), ("D5", "F6"), ("F6", "D5")):
        r = ruling(m, a, b)
        assert r.clear and bridge_drm(r) == 0 and r.hindrance_drm == 0, (a, b)
    # the level-one deck's level, off its road: the bridge hinders (Locations at the bridge's level)
    r = ruling(m, "D6", "F5")
    assert r.clear and bridge_drm(r) == 1


def test_beneath_a_raised_bridge_no_hindrance(m: Map) -> None:
    """EX 13K6: Locations all beneath the level-one bridge see under it with no bridge Hindrance, and so do
    Locations IN the stream passing under either bridge."""
    r = ruling(m, "D7", "F4")  # both at level 0, under the level-1 deck in E6
    assert r.clear and bridge_drm(r) == 0
    for a, b in (("E5", "E7"), ("E2", "E4"), ("E4", "E8")):
        r = ruling(m, a, b)
        assert r.clear and bridge_drm(r) == 0, (a, b)


def test_the_bridge_blocks_between_on_it_and_beneath_it(m: Map) -> None:
    """B6.2: a unit on the bridge and one beneath it in the same hex have no LOS to each other."""
    for h in ("E3", "E6"):
        for a, b in ((h, f"{h}/under"), (f"{h}/under", h)):
            r = ruling(m, a, b)
            assert not r.clear and r.blocked_by is not None and r.blocked_by.rule == "B6.2", (a, b)
    assert ruling(m, "E6/crest", "E6").clear  # Crest status is not beneath the bridge


def test_the_deck_is_still_open_ground(m: Map) -> None:
    t = tem(m, m.parse_location("E6"), [m.parse_location("D5")])
    assert t.tem == 0


def test_bridge_level_is_checked() -> None:
    base = {"format": "asl-terrain/1", "columns": ["A", "C"], "rows": [1, 3]}
    with pytest.raises(MapError, match="bridge_level needs a bridge"):
        Map.from_data({**base, "hex": [{"at": ["B2"], "stream": "shallow", "bridge_level": 1}]})
    with pytest.raises(MapError, match="below the hex's Crest level"):
        Map.from_data({**base, "hex": [{"at": ["B2"], "level": 1, "stream": "shallow", "bridge": "stone",
                                        "bridge_level": 0}]})


# ------------------------------------------------------------------ cliffs: fire down a cliff (B11.31)


@pytest.fixture(scope="module")
def cliff() -> Map:
    # B2, B3 a level-1 hill; C3 at level 0 across the cliff hexside B3-C3; C2 at level 0 across a plain
    # Crest Line B2-C2
    return Map.from_data({"format": "asl-terrain/1", "columns": ["A", "E"], "rows": [1, 5],
                          "hex": [{"at": ["B2", "B3"], "level": 1}],
                          "hexside": [{"at": ["B3-C3"], "cliff": True}]})


def test_b11_31_no_ordnance_down_a_cliff_to_the_adjacent_lower_hex(cliff: Map) -> None:
    """B11.31: ordnance may not fire through a cliff hexside to an adjacent lower hex; Small Arms may, and so
    may ordnance across a plain Crest Line, from below, or at a hex that is not adjacent."""
    loc = cliff.parse_location
    down = tem(cliff, loc("C3"), [loc("B3")], "ordnance")
    assert not down.affected and "B11.31" in down.rules()
    assert tem(cliff, loc("C3"), [loc("B3")], "small-arms").affected
    assert tem(cliff, loc("C2"), [loc("B2")], "ordnance").affected  # B2-C2 is no cliff
    assert tem(cliff, loc("B3"), [loc("C3")], "ordnance").affected  # fire up the cliff: B11.31 says nothing
    r = tem(cliff, loc("D3"), [loc("B3")], "ordnance")
    assert "B11.31" not in r.rules()  # not adjacent


# ------------------------------------------------------------------ vehicles on and off a bridge (B6.1)


def test_b6_1_a_vehicle_drives_onto_and_off_the_deck_only_by_its_road(m: Map) -> None:
    """B6.1: a bridge usable by vehicles connects to the road it extends: a vehicle enters or leaves the deck
    only across the bridge's road hexsides (E3: D2-E3 and E3-F3), at the road rate; Infantry may step onto
    it from any side; IN the stream beneath it the stream's own rules apply."""
    from asl_terrain.movement import move_cost

    on = move_cost(m, "vehicle", "D2", "E3")
    assert on.allowed and "B6.1" not in [i.rule for i in on.items]
    assert move_cost(m, "vehicle", "E3", "F3").allowed
    for frm, to in (("D3", "E3"), ("E3", "D3"), ("F2", "E3"), ("E3", "E2")):
        r = move_cost(m, "vehicle", frm, to)
        assert not r.allowed and r.forbidden_by == "B6.1", (frm, to, r)
    assert move_cost(m, "infantry", "D3", "E3").allowed  # Infantry: from any side
