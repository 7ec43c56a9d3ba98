"""KGP P4 (stream-hex terrain) effects: P4.13 TEM and Air Burst, P4.23 end-of-Player-Turn checks, P4.24 attacks
vs a Stream Culvert and Sniper targets.

Map: tests/maps/streams.toml (MM5 stream pine-woods, MM6 stream-woods, LL7 Stream Culvert, MM11 stream-brush,
LL14 stream-orchard, all at level 0 on one shallow stream).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.ask import answer_one
from asl_terrain.effects import end_of_player_turn, sniper_target, tem
from asl_terrain.model import Conditions, Map
from asl_terrain.rulings import total

MAPS = Path(__file__).resolve().parent.parent / "maps"


@pytest.fixture(scope="module")
def streams() -> Map:
    return Map.load(MAPS / "streams.toml")


def _streams(**extra: Any) -> Map:
    data = tomllib.loads((MAPS / "streams.toml").read_text(encoding="utf-8"))
    for k, v in extra.items():
        data.setdefault(k, []).extend(v)
    return Map.from_data(data)


# ============================================================================================ P4.24


@pytest.mark.parametrize("attack", ["indirect", "aerial"])
def test_p4_24_nothing_in_a_culvert_is_affected_by_indirect_fire_or_aerial_attack(streams: Map,
                                                                                 attack: str) -> None:
    """Digest §8 test 38: Indirect Fire or an Aerial attack on the culvert hex leaves units IN the culvert
    unaffected: a ruling (affected false) with its reason, not an error."""
    r = tem(streams, streams.parse_location("LL7/culvert"), (), attack)
    assert not r.affected and "P4.24" in (r.reason or "") and r.rules() == ("P4.24",)
    assert r.total_drm == 0 and r.items == ()


def test_p4_24_indirect_fire_affects_the_stream_location_of_the_culvert_hex(streams: Map) -> None:
    """Only the units IN the culvert are immune: IN the stream of LL7 is Open Ground to Indirect Fire."""
    r = tem(streams, streams.parse_location("LL7"), (), "indirect")
    assert r.affected and r.tem == 0 and r.open_ground


def test_p4_24_residual_fp_still_reaches_the_culvert(streams: Map) -> None:
    """P4.24 names Indirect Fire and Aerial attacks; Residual FP in the culvert attacks a unit there in Open
    Ground (P4.2), with FFMO/FFNAM when it moves."""
    r = tem(streams, streams.parse_location("LL7/culvert"), (), "residual-fp", moved_by="non-road")
    assert r.affected and r.open_ground and r.ffmo and r.ffnam and r.total_drm == -2


def test_p4_24_culvert_units_are_ineligible_sniper_targets(streams: Map) -> None:
    """Digest §8 test 38: a Sniper may not select units IN the culvert (A14.22)."""
    r = sniper_target(streams, streams.parse_location("LL7/culvert"))
    assert not r.eligible and "P4.24" in r.rules()
    assert sniper_target(streams, streams.parse_location("LL7")).eligible


# ============================================================================================ P4.23


def test_p4_23_infantry_in_the_culvert_checks_at_end_of_player_turn(streams: Map) -> None:
    """Digest §8 test 38: every Infantry unit IN the culvert at the end of a Player Turn is due a
    Replacement/Disruption check as if IN frigid water; others are not (clear weather, not frigid)."""
    units = [("infantry", streams.parse_location("LL7/culvert")), ("infantry", streams.parse_location("LL6")),
             ("vehicle", streams.parse_location("KK3")), ("infantry", streams.parse_location("LL7/culvert"))]
    r = end_of_player_turn(streams, units)
    assert [(c.type, c.at, c.rule) for c in r.checks] == [("infantry", "StLL7/culvert", "P4.23")] * 2


def test_p4_23_frigid_conditions_add_the_b20_7_stream_check(streams: Map) -> None:
    """With frigid water (B20.7) Infantry IN the stream LL6 checks too; a unit with Crest status does not."""
    units = [("infantry", streams.parse_location("LL6")), ("infantry", streams.parse_location("LL6/crest"))]
    r = end_of_player_turn(streams, units, Conditions(frigid=True))
    assert [(c.at, c.rule) for c in r.checks] == [("StLL6", "B20.7")]


def test_p4_23_ask(streams: Map) -> None:
    ans = answer_one(streams, {"kind": "end-of-player-turn", "units": [{"type": "infantry", "at": "LL7/culvert"}]})
    assert ans["checks"] == [{"type": "infantry", "at": "StLL7/culvert", "rule": "P4.23"}]
    ans = answer_one(streams, {"kind": "end-of-player-turn", "units": [{"type": "infantry", "at": "LL6"}],
                               "conditions": {"frigid": True}})
    assert ans["checks"][0]["rule"] == "B20.7"
    assert "units[0]" in answer_one(streams, {"kind": "end-of-player-turn", "units": [{"at": "ZZ1"}]})["error"]
    ans = answer_one(streams, {"kind": "sniper-target", "at": "LL7/culvert"})
    assert ans["eligible"] is False and ans["rules"][0] == "P4.24"


# ============================================================================================ P4.13 Air Burst


def test_p4_13_air_burst_applies_in_stream_woods(streams: Map) -> None:
    """Digest §8 test 32: a unit IN stream-woods MM6 hit by mortar Indirect Fire gets the Air Burst -1."""
    r = tem(streams, streams.parse_location("MM6"), (), "indirect")
    assert r.tem == -1 and [i.rule for i in r.tem_items] == ["P4.13"]
    assert total(r.items) == r.total_drm


def test_p4_13_air_burst_in_stream_pine_woods_too(streams: Map) -> None:
    r = tem(streams, streams.parse_location("MM5"), (), "indirect")
    assert r.tem == -1


def test_p4_13_no_air_burst_in_stream_brush(streams: Map) -> None:
    r = tem(streams, streams.parse_location("MM11"), (), "indirect")
    assert r.tem == 0 and not r.open_ground


# ============================================================================================ P4.13 TEM


def _tem(m: Map, target: str, firer: str, **kw: Any) -> Any:
    return tem(m, m.parse_location(target), [m.parse_location(firer)], "small-arms", **kw)


@pytest.mark.parametrize("firer", ["MM5", "LL6", "MM4"], ids=["IN-MM5", "IN-LL6", "IN-MM4"])
def test_p4_13_in_stream_woods_is_open_ground_to_a_los_along_the_stream(streams: Map, firer: str) -> None:
    """Digest §8 test 32: a unit IN stream-woods MM6 fired on by a unit IN the same stream, the LOS lying within
    the stream depiction as it enters MM6: Open Ground, TEM 0, FFMO possible."""
    r = _tem(streams, "MM6", firer, moved_by="non-road")
    assert r.affected and r.tem == 0 and r.open_ground and r.ffmo
    assert "P4.13" in r.rules()


def test_p4_13_los_from_within_the_hex_is_open_ground(streams: Map) -> None:
    """P4.13: a LOS emanating from within MM6 (a unit with Crest status there) finds the unit IN it in Open
    Ground."""
    r = _tem(streams, "MM6", "MM6/crest")
    assert r.tem == 0 and r.open_ground and "within the hex" in r.explain()


@pytest.mark.parametrize("firer", ["NN6", "NN5", "LL5"])
def test_p4_13_from_outside_the_depiction_the_woods_tem_applies(streams: Map, firer: str) -> None:
    """Digest §8 test 32: fired on from a non-stream hex outside the depiction, the unit IN MM6 claims the
    woods +1 and is not in Open Ground."""
    r = _tem(streams, "MM6", firer, moved_by="non-road")
    assert r.tem == 1 and [i.rule for i in r.tem_items] == ["P4.13"] and not r.open_ground and not r.ffmo


def test_p4_13_crest_status_in_stream_orchard_is_not_open_ground(streams: Map) -> None:
    """Digest §8 test 33: a unit with Crest status in stream-orchard LL14, fired on from outside: not Open
    Ground, orchard TEM 0, no FFMO."""
    r = _tem(streams, "LL14/crest", "KK14", moved_by="non-road")
    assert r.tem == 0 and not r.open_ground and not r.ffmo and r.ffnam


def test_p4_13_in_stream_orchard_along_the_stream_is_open_ground(streams: Map) -> None:
    assert _tem(streams, "LL14", "LL13", moved_by="non-road").ffmo
    assert not _tem(streams, "LL14", "MM14", moved_by="non-road").ffmo


def test_p4_2_culvert_unit_is_in_open_ground(streams: Map) -> None:
    """P4.2: a unit IN a Stream Culvert is in Open Ground (seen from IN the ADJACENT stream hex LL6)."""
    r = _tem(streams, "LL7/culvert", "LL6", moved_by="non-road")
    assert r.affected and r.tem == 0 and r.open_ground and r.ffmo


def test_p4_2_no_los_into_the_culvert_from_outside_the_stream(streams: Map) -> None:
    """P4.2: a unit IN a culvert has a LOS only to ADJACENT stream Locations: a firer in KK7 has none, which
    is a ruling (affected false) with its reason."""
    r = _tem(streams, "LL7/culvert", "KK7")
    assert not r.affected and "no LOS" in (r.reason or "") and r.total_drm == 0


# ============================================================================================ review additions


def test_p4_24_air_burst_is_indirect_fire_and_cannot_reach_the_culvert(streams: Map) -> None:
    """P4.24: nothing IN a Stream Culvert can be affected by Indirect Fire; an Air Burst attack is Indirect Fire
    (B13.3), so it cannot affect a unit IN culvert LL7 either (a ruling, not an error)."""
    r = tem(streams, streams.parse_location("LL7/culvert"), [streams.parse_location("LL6")], "air-burst")
    assert not r.affected and "P4.24" in (r.reason or "") and r.items == ()


def _crest_chart(value: int) -> Any:
    from importlib.resources import files

    from asl_terrain.chart import parse_chart

    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text(encoding="utf-8")
    old = 'crest_status_tem = { value = 0,'
    assert old in text
    return parse_chart(text.replace(old, f'crest_status_tem = {{ value = {value},'), "test chart")


def test_b20_91_crest_status_tem_defaults_to_none(streams: Map) -> None:
    """B20.91 / P4.13: the Crest-status TEM is param.crest_status_tem [U], 0 by default: a unit with Crest status
    in plain stream hex MM4 fired on from KK4 is in Open Ground, and the explanation says the value is 0."""
    r = _tem(streams, "MM4/crest", "KK4", moved_by="non-road")
    assert r.tem == 0 and r.open_ground and r.ffmo and "crest_status_tem" in r.explain()


def test_b20_91_crest_status_tem_from_the_chart_vs_fire_from_outside(streams: Map) -> None:
    """With the chart's crest_status_tem set to 2, Infantry with Crest status in MM4 claim +2 vs Direct Fire from
    KK4 (outside the depression) and are not in Open Ground (no FFMO); vs a firer IN the stream (MM3) they do
    not; a vehicle never does."""
    chart = _crest_chart(2)
    r = _tem(streams, "MM4/crest", "KK4", moved_by="non-road", chart=chart)
    assert r.tem == 2 and [i.rule for i in r.tem_items] == ["B20.91"] and not r.open_ground and not r.ffmo
    r = _tem(streams, "MM4/crest", "MM3", chart=chart)
    assert r.tem == 0 and "within the depression" in r.explain()
    from asl_terrain.units import Unit

    assert _tem(streams, "MM4/crest", "KK4", chart=chart, unit=Unit.from_json("vehicle")).tem == 0


def test_p4_13_crest_status_in_stream_orchard_takes_the_better_tem(streams: Map) -> None:
    """P4.13: with Crest status in stream-orchard LL14 the unit claims the orchard TEM (0) 'or entrenchment, if
    applicable' (B20.91): with crest_status_tem 2 the better, +2, applies, once."""
    r = _tem(streams, "LL14/crest", "KK14", chart=_crest_chart(2))
    assert r.tem == 2 and not r.open_ground
