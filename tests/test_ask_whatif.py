"""What-if counters in the ask batch (ask.whatif, docs/map-format-extensions.md): a query's ``"counters"``
replaces the map's counters for that query alone; the map is never changed. And ``blocked_at``, where along
the thread a LOS is blocked."""

from __future__ import annotations

from typing import Any

import pytest

from asl_terrain.ask import answer_one
from asl_terrain.ask.whatif import counter_to_json, counters_from_json, what_if_map
from asl_terrain.model import Map, load_demo


@pytest.fixture(scope="module")
def demo() -> Map:
    return load_demo()


def test_smoke_placed_on_a_clear_los_hinders_it_a24_2(demo: Map) -> None:
    q: dict[str, Any] = {"kind": "los", "from": "W2", "to": "W6"}
    assert answer_one(demo, q)["hindrance_drm"] == 0
    a = answer_one(demo, {**q, "counters": [{"type": "smoke", "at": "W4", "strength": 3}]})
    assert a["clear"] and a["hindrance_drm"] == 3 and "A24.2" in a["rules"]
    assert answer_one(demo, q)["hindrance_drm"] == 0  # that query alone


def test_an_empty_list_takes_the_maps_counters_away(demo: Map) -> None:
    """The demo map's SMOKE in K11 adds +3 to an attack on K11 from M11 (the README's example); with
    ``"counters": []`` it is gone, and the next query has it again."""
    q: dict[str, Any] = {"kind": "tem", "target": "K11", "firer": "M11"}
    with_it = answer_one(demo, q)
    without = answer_one(demo, {**q, "counters": []})
    smoke = [i for i in with_it["items"] if "SMOKE" in i["why"]]
    assert smoke and smoke[0]["amount"] == 3
    assert not [i for i in without["items"] if "SMOKE" in i["why"]]
    assert with_it["total_drm"] == without["total_drm"] + 3
    assert answer_one(demo, q) == with_it


def test_the_maps_own_counters_round_trip_and_keep_the_map(demo: Map) -> None:
    data = [counter_to_json(demo, c) for c in demo.counters]
    assert counters_from_json(demo, data) == demo.counters
    assert what_if_map(demo, data) is demo  # the same situation: the warm map itself


def test_a_wreck_in_bypass_names_its_hexside(demo: Map) -> None:
    data = [{"type": "wreck", "at": "N17", "bypass": "N17-O17"}]
    [c] = counters_from_json(demo, data)
    assert c.type == "wreck" and c.bypass is not None and demo.name_of(c.bypass) == "HrN17-O17"
    assert counter_to_json(demo, c) == {"type": "wreck", "at": "HrN17", "bypass": "HrN17-O17", "burning": False}


@pytest.mark.parametrize("counters, words", [
    ({"type": "smoke"}, "counters: expected a list"),
    ([{"type": "smoke", "at": "W4"}], "counters[0].strength"),
    ([{"type": "smoke", "at": "W4", "strength": 9}], "counters[0].strength"),
    ([{"type": "fog", "at": "W4"}], "counters[0]"),
    ([{"type": "smoke", "at": "W44", "strength": 2}], "counters[0]: hex 'W44' is not on map"),
    ([{"type": "wreck", "at": "N17", "bypass": "P17-P18"}], "counters[0]: bypass 'P17-P18' is not a hexside of N17"),
])
def test_bad_counters_are_an_error_answer_naming_the_item(demo: Map, counters: Any, words: str) -> None:
    a = answer_one(demo, {"kind": "los", "from": "W2", "to": "W6", "counters": counters})
    assert "error" in a and a["error"].startswith(words.split(":")[0]) and words in a["error"], a


def test_blocked_at_is_where_the_thread_is_blocked(demo: Map) -> None:
    a = answer_one(demo, {"kind": "los", "from": "I14", "to": "K11"})
    assert a["blocked_by"]["hex"] == "HrJ12"
    assert 0 < a["blocked_at"] < 0.5  # J12 lies in the first half of the range-4 thread from I14
    assert answer_one(demo, {"kind": "los", "from": "W2", "to": "W6"})["blocked_at"] is None
