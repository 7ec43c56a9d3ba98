"""KGP P4 stream-hex terrain, movement: rules-digest §8 tests 29, 30, 34, 35, 37 and 39 (P4.11, P4.12, P4.21,
P4.22, P4.3) on tests/maps/streams.toml."""

from __future__ import annotations

from fractions import Fraction
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.chart import parse_chart
from asl_terrain.grid import Hex
from asl_terrain.mapfile import read_map_document
from asl_terrain.model import Location, Map
from asl_terrain.movement import (
    crest_status_problem,
    culvert_entry_problem,
    move_cost,
    path,
    reach,
)

MAPS = Path(__file__).resolve().parent.parent / "maps"
F = Fraction


@pytest.fixture(scope="module")
def streams() -> Map:
    return Map.load(MAPS / "streams.toml")


def variant(hexes: list[dict[str, Any]]) -> Map:
    doc = read_map_document(MAPS / "streams.toml")
    doc["hex"] = [*doc["hex"], *hexes]
    return Map.from_data(doc, source="streams variant")


# ---------------------------------------------------------------------------------------------- P4.11 (test 29)


@pytest.mark.parametrize("frm, to, cost", [
    ("MM4", "MM5", 3),   # stream pine-woods across the stream hexside
    ("MM5", "MM6", 3),   # stream-woods across the stream hexside
    ("MM10", "MM11", 3), # stream-brush across the stream hexside (from the ford)
    ("LL13", "LL14", 3), # stream-orchard across the stream hexside
], ids=["P4.11-pine-stream", "P4.11-woods-stream", "P4.11-brush-stream", "P4.11-orchard-stream"])
def test_p4_11_across_a_stream_hexside_costs_the_stream(streams: Map, frm: str, to: str, cost: int) -> None:
    """Digest test 29: entering a shallow stream-woods/brush/orchard hex across a stream hexside costs the
    normal stream cost: 3 MF. P4.11 decided that nothing is added, so the answer names it (issue 9)."""
    r = move_cost(streams, "infantry", frm, to)
    assert r.cost == cost and "P4.11" in r.rules() and not [i for i in r.items if i.rule == "P4.11"]


@pytest.mark.parametrize("frm, to, cost", [
    ("NN6", "MM6", F(5)),       # woods: 3 + 2
    ("NN11", "MM11", F(5)),     # brush: 3 + 2
    ("NN5", "MM5", F(9, 2)),    # pine woods: 3 + 1½
    ("KK14", "LL14", F(4)),     # orchard: 3 + 1
], ids=["P4.11-woods-5", "P4.11-brush-5", "P4.11-pine-4.5", "P4.11-orchard-4"])
def test_p4_11_across_a_non_stream_hexside_costs_are_cumulative(streams: Map, frm: str, to: str,
                                                                 cost: Fraction) -> None:
    """P4.11 EX / digest test 29: across a non-stream hexside: five MF for stream woods or brush, 4½ for
    stream pine woods, four for stream orchard."""
    r = move_cost(streams, "infantry", frm, to)
    assert r.cost == cost and "P4.11" in r.rules()
    assert sum(i.amount for i in r.items) == cost


# ---------------------------------------------------------------------------------------------- P4.12 (test 30)


@pytest.mark.parametrize("frm, to, cost", [
    ("NN6", "MM6/crest", F(3)),      # stream-woods
    ("NN11", "MM11/crest", F(3)),    # stream-brush
    ("NN5", "MM5/crest", F(5, 2)),   # stream pine-woods
    ("KK14", "LL14/crest", F(2)),    # stream-orchard
], ids=["P4.12-woods-3", "P4.12-brush-3", "P4.12-pine-2.5", "P4.12-orchard-2"])
def test_p4_12_good_order_infantry_gain_crest_status_cheaply(streams: Map, frm: str, to: str,
                                                             cost: Fraction) -> None:
    """P4.12 / digest test 30: Good Order Infantry crossing a non-stream hexside may gain Crest status
    along it for 3 MF (woods, brush), 2½ (pine woods) or 2 (orchard)."""
    r = move_cost(streams, "infantry", frm, to)
    assert r.cost == cost and r.rules() == ("P4.12",)


def test_p4_12_a_broken_unit_does_not_get_the_crest_exception(streams: Map) -> None:
    """Digest test 30: a broken unit may not use P4.12's costs; B20.91 applies (here the IN entry cost plus
    the [U] Crest-status MF)."""
    r = move_cost(streams, {"type": "infantry", "good_order": False}, "NN6", "MM6/crest")
    assert r.allowed and "P4.12" not in r.rules() and "B20.91" in r.rules()
    assert r.cost is not None and r.cost > 3


def test_p4_12_crest_status_for_vehicles_is_an_error_not_a_ruling(streams: Map) -> None:
    """Vehicle Crest status (B20.92) is outside the engine: a clear error, not a made-up ruling."""
    from asl_terrain.errors import QueryError

    with pytest.raises(QueryError, match="Crest status"):
        move_cost(streams, "vehicle", "NN6", "MM6/crest")


# ---------------------------------------------------------------------------------------------- P4.21 (tests 34, 35)


def test_p4_21_culvert_entry_from_in_an_adjacent_stream_costs_3(streams: Map) -> None:
    """Digest test 35: from IN ADJACENT shallow stream hex LL6 (or LL8) into the culvert of LL7: 3 MF, as
    INTO another hex of that stream."""
    for frm in ("LL6", "LL8"):
        r = move_cost(streams, "infantry", frm, "LL7/culvert")
        assert r.allowed and r.cost == 3 and r.rules() == ("P4.21",)


@pytest.mark.parametrize("frm", ["LL7", "LL7/crest", "KK7", "LL6/crest"])
def test_p4_21_culvert_entry_only_from_in_an_adjacent_stream(streams: Map, frm: str) -> None:
    """Digest test 35: not from the culvert hex's own surface Locations, nor from a non-stream hex, nor
    from Crest status in an adjacent stream hex."""
    r = move_cost(streams, "infantry", frm, "LL7/culvert")
    assert not r.allowed and r.forbidden_by == "P4.21"


def test_p4_21_no_culvert_entry_when_the_stream_is_flooded() -> None:
    """Digest test 35: with the stream flooded, culvert entry is NA."""
    m = variant([{"at": ["LL7", "LL6"], "stream": "flooded"}])
    r = move_cost(m, "infantry", "LL6", "LL7/culvert")
    assert not r.allowed and r.forbidden_by == "P4.21"
    assert culvert_entry_problem(m, Location(Hex.parse("LL6")), Hex.parse("LL7")) is not None


@pytest.mark.parametrize("unit", ["vehicle", "motorcycle", "cavalry", "wagon"])
def test_p4_21_no_vehicle_or_gun_counter_enters_the_culvert(streams: Map, unit: str) -> None:
    """Digest test 34 / P4.21: no 5/8-inch vehicle or Gun counter enters a Stream Culvert; only Infantry
    enter it."""
    r = move_cost(streams, unit, "LL6", "LL7/culvert")
    assert not r.allowed and r.forbidden_by == "P4.21"


def test_p4_21_the_culvert_is_left_only_into_an_adjacent_stream(streams: Map) -> None:
    """A unit IN the culvert leaves it INTO LL6 or LL8 (3 MF), not onto dry ground or its own hex."""
    assert move_cost(streams, "infantry", "LL7/culvert", "LL8").cost == 3
    assert not move_cost(streams, "infantry", "LL7/culvert", "KK7").allowed
    assert not move_cost(streams, "infantry", "LL7/culvert", "LL7").allowed


def test_p4_21_reach_goes_through_the_culvert(streams: Map) -> None:
    """The search honours P4.21: from KK7 the culvert is reached through IN LL6 (3 + 3 MF), never directly."""
    r = reach(streams, "infantry", "KK7", 6)
    assert r.cost_of("StLL7/culvert") == 6
    assert r.paths["StLL7/culvert"][-2] in ("StLL6", "StLL8")


# ---------------------------------------------------------------------------------------------- P4.22 (test 37)


def test_p4_22_no_crest_status_in_the_culvert_hex(streams: Map) -> None:
    """Digest test 37: Crest status cannot be gained in Stream Culvert hex LL7, entering or from IN it."""
    for frm in ("KK7", "LL7"):
        r = move_cost(streams, "infantry", frm, "LL7/crest")
        assert not r.allowed and r.forbidden_by == "P4.22"


def test_p4_22_no_crest_status_along_a_stream_and_culvert_hexside(streams: Map) -> None:
    """Digest test 37: no Crest status in LL6 along LL6-LL7 (stream and culvert hexside); along its
    non-stream hexside LL6-KK6 it can be gained."""
    r = move_cost(streams, "infantry", "LL7", "LL6/crest")
    assert not r.allowed and r.forbidden_by == "P4.22"
    assert move_cost(streams, "infantry", "KK6", "LL6/crest").allowed
    assert crest_status_problem(streams, Hex.parse("LL6"), None) is None


# ---------------------------------------------------------------------------------------------- P4.3 (test 39)


def test_p4_3_printed_ford_costs_as_a_ford_counter(streams: Map) -> None:
    """Digest test 39: printed ford StMM10 is entered as a ford counter (B20.8): with a chart whose ford
    cost differs from the shallow stream's, entering MM10 costs the ford's."""
    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text(encoding="utf-8")
    old = 'name = "Ford"\nmf = { infantry = 3,'
    assert old in text
    chart = parse_chart(text.replace(old, 'name = "Ford"\nmf = { infantry = 2,'), "ford-chart")
    r = move_cost(streams, "infantry", "MM9", "MM10", chart=chart)
    assert r.cost == 2 and "B20.8" in r.rules() and "P4.3" in r.items[0].why


def test_p4_stream_path_costs_add_up(streams: Map) -> None:
    """A walk down the stream, IN it, costs 3 MF a hex; a path's cost is the sum of its steps."""
    r = path(streams, "infantry", ["MM3", "MM4", "MM5"], 6)
    assert r.allowed and r.cost == 6 and [s.cost for s in r.steps] == [3, 3]


# ---------------------------------------------------------------------------------------------- review additions


def test_p4_12_crest_status_across_a_stream_hexside_is_the_b20_91_cost(streams: Map) -> None:
    """P4.12's exception is for the non-stream hexside crossed: gaining Crest status in stream pine-woods MM5
    from IN MM4 across the stream hexside costs the stream's 3 MF plus the B20.91 Crest MF, not 2½."""
    r = move_cost(streams, "infantry", "MM4", "MM5/crest")
    assert r.cost == 4 and r.rules() == ("B20.42", "B20.91", "P4.11")  # P4.11: no woods cost (issue 9)


def test_p4_12_cavalry_pay_the_cumulative_cost_and_the_crest_mf(streams: Map) -> None:
    """P4.12's costs are for Good Order Infantry: Cavalry entering stream-woods MM6 with Crest status across a
    non-stream hexside pay the stream, the woods (4 MF for Cavalry, P4.11) and the Crest MF."""
    r = move_cost(streams, "cavalry", "NN6", "MM6/crest")
    assert r.cost == 8 and "P4.12" not in r.rules() and {"P4.11", "B20.91"} <= set(r.rules())


def test_p4_21_a_vehicle_never_reaches_the_culvert(streams: Map) -> None:
    """P4.21: no 5/8-inch vehicle enters a Stream Culvert, so reach never lists one for a vehicle; Infantry IN
    LL6 reach it for 3 MF, and never Crest status in the culvert hex (P4.22)."""
    assert not [k for k in reach(streams, "vehicle", "KK7", 16).costs if k.endswith("/culvert")]
    r = reach(streams, "infantry", "LL6", 3)
    assert r.cost_of("StLL7/culvert") == 3 and r.cost_of("StLL7/crest") is None
