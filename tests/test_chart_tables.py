"""Issue 10 item 5 for the [terrain] and [hexside] tables: every value of every group (mf, mp, mp_buttoned_up,
los, tem) of the bundled chart is read, proven by changing it in a copy of the chart and finding some ruling on
a one-feature map that changes (a move into or across it, a LOS past it, the TEM of a unit in or behind it).
Values no ruling reads are listed in UNREAD with the reason (docs/chart-research.md); none are left."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from asl_terrain.chart import Chart, _bundled_document, default_chart, validate_chart_document
from asl_terrain.effects import tem
from asl_terrain.errors import UserError
from asl_terrain.grid import Hexside
from asl_terrain.los import los
from asl_terrain.model import Map
from asl_terrain.movement import move_cost

Ruling = Callable[[Chart], Any]
#: the P5.141 illustration (a Narrow Street roadblock on O17-O18)
VILLAGE = Map.load(Path(__file__).resolve().parent / "maps" / "st_village.toml")
META = ("rule", "tag", "note")
COST_GROUPS = ("mf", "mp", "mp_buttoned_up")
UNIT_COLUMNS = ("infantry", "cavalry", "wagon", "motorcycle", "armored-car", "fully-tracked", "half-track", "truck")

#: the map blocks of each [terrain] entry, in hex B2
HEX: dict[str, dict[str, Any]] = {
    "open": {}, "woods": {"terrain": "woods"}, "pine-woods": {"terrain": "pine-woods"},
    "brush": {"terrain": "brush"}, "orchard": {"terrain": "orchard"}, "grain": {"terrain": "grain"},
    "building": {"terrain": "building", "building": "stone"},
    "building-wooden": {"terrain": "building", "building": "wooden"},
    "rubble": {"terrain": "rubble", "building": "stone"}, "rubble-wooden": {"terrain": "rubble", "building": "wooden"},
    "graveyard": {"terrain": "graveyard"}, "marsh": {"terrain": "marsh"}, "shellholes": {"terrain": "shellholes"},
    "stream-shallow": {"stream": "shallow"}, "stream-dry": {"stream": "dry"}, "stream-deep": {"stream": "deep"},
    "stream-flooded": {"stream": "flooded"}, "ford": {"stream": "shallow", "ford": True},
    "culvert": {"stream": "shallow", "culvert": True}, "water": {"terrain": "water"},
    "bridge": {"stream": "shallow", "bridge": "stone"},
}
#: the map blocks of each [hexside] entry, on hexside B2-B3: (its hexside keys, counters, hexes around it)
BUILDINGS = [{"at": ["B2", "B3"], "terrain": "building", "building": "stone"}]
SIDE: dict[str, tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]] = {
    "road-paved": ({"road": "paved"}, [], []), "road-dirt": ({"road": "dirt"}, [], []),
    "wall": ({"wall": True}, [], []), "hedge": ({"hedge": True}, [], []), "bocage": ({"bocage": True}, [], []),
    "rowhouse-wall": ({"rowhouse_wall": True}, [], BUILDINGS),
    "cliff": ({"cliff": True}, [], [{"at": ["B3", "B4", "B5", "B6"], "level": 1}]),
    "fence": ({"fence": True}, [], []),
    "roadblock": ({"road": "paved"}, [{"type": "roadblock", "hexside": "B2-B3"}], []),
    "narrow-street-roadblock": ({"narrow_street": "paved"}, [{"type": "roadblock", "hexside": "B2-B3"}], BUILDINGS),
}

#: (table.entry.group.key): why no ruling reads it. Each is tested to change no ruling on these maps, and the
#: engines were read for other readers (docs/chart-research.md). Empty: the values nothing read were made
#: live or taken out of the chart (chart.RETIRED says why, and a user's chart giving one still loads).
UNREAD: dict[str, str] = {}


def M(hexes: list[dict[str, Any]] = [], hexsides: list[dict[str, Any]] = [],  # noqa: B006
      counters: list[dict[str, Any]] = []) -> Map:  # noqa: B006
    """A 5 x 6 map of open ground with the blocks given."""
    return Map.from_data({"format": "asl-terrain/1", "columns": ["A", "E"], "rows": [1, 6],
                          "hex": hexes, "hexside": hexsides, "counter": counters})


def _unit(column: str, buttoned_up: bool) -> dict[str, Any]:
    u: dict[str, Any] = ({"type": column} if column in ("infantry", "cavalry", "wagon", "motorcycle")
                         else {"type": "vehicle", "class": column})
    if buttoned_up:
        u["buttoned_up"] = True
    return u


def _moves(m: Map, frm: str, to: str, columns: tuple[str, ...], buttoned_up: bool = False,
           **kw: Any) -> list[Ruling]:
    return [lambda c, u=_unit(col, buttoned_up): move_cost(m, u, frm, to, chart=c, **kw).to_json()
            for col in columns]


def _sights(m: Map, pairs: list[tuple[str, str]]) -> list[Ruling]:
    return [lambda c, a=a, b=b: los(m, m.parse_location(a), m.parse_location(b), chart=c).to_json() for a, b in pairs]


def _tems(m: Map, target: str, firers: list[str], **kw: Any) -> list[Ruling]:
    out: list[Ruling] = []
    for attack in ("small-arms", "indirect", "air-burst", "residual-fp"):
        for f in ([None] if attack in ("indirect", "residual-fp") else firers):
            fl = [m.parse_location(f)] if f else []
            for extra in ({}, {"entrenched": True}):
                out.append(lambda c, a=attack, fl=fl, x=extra: tem(m, m.parse_location(target), fl, a, chart=c,
                                                                    **kw, **x).to_json())
    return out


def _hex_rulings(key: str, group: str, k: str) -> list[Ruling]:
    spec = {"at": ["B2"], **HEX[key]}
    to = "B2/culvert" if key == "culvert" else "B2"
    hexes = [{"at": ["B1", "B2", "B3"], "stream": "shallow"}, spec] if key == "culvert" else [spec]
    m = M(hexes)
    columns = (k,) if k in UNIT_COLUMNS else ("infantry", "fully-tracked", "truck", "half-track")
    if group in COST_GROUPS:
        return _moves(m, "B1", to, columns, protection=(k == "protection"))
    if group == "los":
        hills = [M([*hexes, {"at": ["B1", "B3"], "level": level}]) for level in (1, 2)]
        # P5.11: no road rate into a LOS obstacle across a Narrow Street (movement reads the role)
        street = M([{"at": ["B1"], "terrain": "building", "building": "stone"}, *hexes],
                   [{"at": ["B1-B2"], "narrow_street": "paved"}])
        high = M([*hexes, {"at": ["B1"], "level": 3}])
        return (_sights(m, [("B1", "B3"), ("A1", "C3"), ("B1", to), ("A2", "C2")]) + _sights(hills[0], [("B1", "B3")])
                + _sights(hills[1], [("B1", "B3")]) + _sights(high, [("B1", "B4"), ("B1", "B5")])
                + _moves(street, "B1", to, ("infantry",), road_rate=True))
    road = M(hexes, [{"at": ["B1-B2"], "road": "paved"}])
    return (_tems(m, to, ["B4", "B3"], moved_by="non-road")
            + _tems(road, to, ["B4", "A3"], moved_by="road-rate", entered_across=Hexside.parse("B1-B2"))
            + _moves(road, "B1", to, ("infantry",), road_rate=True))


def _narrow_street_roadblock(group: str, k: str) -> list[Ruling]:
    """The P5.141 illustration: Bypass along O17-O18 across the roadblock's segment, the LOS along its hexside
    between its vertices, the TEM of a unit in Bypass at vertex O17-O18-N17 fired on across the segment."""
    # a roadblocked Narrow Street B2-B3 between open hexes; the segment crossed at its midpoint by the level-1
    # LOS A3-C3 along the hexside
    street = M([{"at": ["A3", "C3"], "level": 1}], [{"at": ["B2-B3"], "narrow_street": "paved"}],
               [{"type": "roadblock", "hexside": "B2-B3"}])
    if group == "mf":
        return [lambda c: move_cost(VILLAGE, _unit(k, False), "N17", None, bypass="O17-O18", to_vertex="O17-O18-P17",
                                    chart=c).to_json()] + _moves(street, "B2", "B3", (k,))
    if group == "los":
        return _sights(street, [("A3", "C3")]) + _sights(VILLAGE, [("O17@O17-O18-P17", "O17@N17-O17-O18")])
    return _tems(VILLAGE, "O17@O17-O18-N17", ["P17", "O17@O17-O18-P17"])


def _side_rulings(key: str, group: str, k: str) -> list[Ruling]:
    if key == "narrow-street-roadblock":
        return _narrow_street_roadblock(group, k)
    side, counters, hexes = SIDE[key]
    m = M(hexes, [{"at": ["B2-B3"], **side}], counters)
    columns = (k,) if k in UNIT_COLUMNS else ("infantry", "fully-tracked")
    if group in COST_GROUPS:
        return _moves(m, "B2", "B3", columns, buttoned_up=(group == "mp_buttoned_up"),
                      road_rate=key.startswith("road-"))
    if group == "los":
        hills = M([*hexes, {"at": ["B1", "B4"], "level": 1}], [{"at": ["B2-B3"], **side}], counters)
        return _sights(m, [("B1", "B4"), ("B2", "B3"), ("B1", "B3")]) + _sights(hills, [("B1", "B4")])
    return _tems(m, "B3", ["B1", "B2"], moved_by="non-road")


def _changed(v: Any, key: str, has_height: bool = True) -> Any:
    """Another value of the same kind (the chart's validation must accept it: a role that stands at a height
    only where the entry has one)."""
    if key == "role":
        if not has_height:
            return "hindrance" if v != "hindrance" else "none"
        return "obstacle" if v != "obstacle" else "hindrance"
    if isinstance(v, bool):
        return not v
    if v in ("NA", "ALL"):
        return 2
    return v - 1 if key == "air_burst" else v + 1


def _corrections(v: Any, key: str, group: str, has_height: bool) -> list[Any]:
    """The corrections tried: another value of the same kind, and for a cost also NA (a rule may read only
    whether the unit may enter at all)."""
    out = [_changed(v, key, has_height)]
    if group in COST_GROUPS and key in UNIT_COLUMNS and v != "NA":
        out.append("NA")
    return out


def _live(case: str, v: Any) -> bool:
    table, key, group, k = case.split(".")
    rulings = _rulings(case)
    has_height = "height" in _bundled_document()[table][key][group]
    return any(_outcome(r, chart) != _base(case, i) for value in _corrections(v, k, group, has_height)
               for chart in (_chart_with(table, key, group, k, value),) for i, r in enumerate(rulings))


@lru_cache(maxsize=None)
def _base(case: str, i: int) -> Any:
    return _outcome(_rulings(case)[i], default_chart())


@lru_cache(maxsize=None)
def _rulings(case: str) -> list[Ruling]:
    table, key, group, k = case.split(".")
    return (_hex_rulings if table == "terrain" else _side_rulings)(key, group, k)


def _outcome(r: Ruling, chart: Chart) -> Any:
    try:
        return r(chart)
    except UserError as e:  # a refusal is a ruling too (a QueryError naming what is wrong); a crash is not
        return f"{type(e).__name__}: {e}"


def _chart_with(table: str, key: str, group: str, k: str, value: Any) -> Chart:
    base = _bundled_document()
    doc = dict(base)
    doc[table] = {**base[table], key: {**base[table][key], group: {**base[table][key][group], k: value}}}
    assert validate_chart_document(doc, base) == []
    return Chart(doc, f"test chart ({table}.{key}.{group}.{k} = {value})")


def _groups() -> list[tuple[str, str, str]]:
    doc = _bundled_document()
    return [(table, key, g) for table in ("terrain", "hexside") for key, e in doc[table].items()
            for g in ("mf", "mp", "mp_buttoned_up", "los", "tem") if g in e]


def test_every_entry_of_the_tables_has_a_map() -> None:
    doc = _bundled_document()
    assert sorted(doc["terrain"]) == sorted(HEX) and sorted(doc["hexside"]) == sorted(SIDE)


@pytest.mark.parametrize("table,key,group", _groups(), ids=[".".join(g) for g in _groups()])
def test_changing_each_value_of_the_group_changes_a_ruling(table: str, key: str, group: str) -> None:
    values = _bundled_document()[table][key][group]
    dead = []
    for k, v in values.items():
        case = f"{table}.{key}.{group}.{k}"
        if k in META or case in UNREAD:
            continue
        if not _live(case, v):
            dead.append(f"{k} = {v!r}")
    assert dead == []


def test_every_table_value_is_read() -> None:
    """The chart is the whole truth (issue 10): no bundled table value is left unread by the rules. A value
    that a rule stops reading must leave the chart (chart.RETIRED) rather than come back here."""
    assert not UNREAD, sorted(UNREAD)


#: the building of each [building_height] entry, in hex B2
BUILDING_OF: dict[str, dict[str, Any]] = {
    "single-story-house": {"building_type": "single-story-house"},
    "two-story-house": {"building_type": "two-story-house"},
    "single-hex-two-story-house": {"building_type": "single-hex-two-story-house"},
    "multi-level-extra": {"building_type": "multi-level", "upper_levels": 1},
    "steeple-raises-height": {"upper_levels": 1, "steeple": True},
}


@pytest.mark.parametrize("key", sorted(BUILDING_OF))
def test_changing_a_building_height_changes_a_ruling(key: str) -> None:
    """A LOS over the building between two hills, and the Blind Hexes it casts from a higher one (B23.2)."""
    base = _bundled_document()
    v = base["building_height"][key]["value"]
    doc = {**base, "building_height": {**base["building_height"], key: {**base["building_height"][key],
                                                                          "value": _changed(v, "value")}}}
    assert validate_chart_document(doc, base) == []
    chart = Chart(doc, f"test chart (building_height.{key})")
    spec = {"at": ["B2"], "terrain": "building", "building": "stone", **BUILDING_OF[key]}
    rulings = [r for level in (1, 2, 3) for r in _sights(M([spec, {"at": ["B1", "B3"], "level": level}]),
                                                           [("B1", "B3")])]
    rulings += [r for level in (3, 4) for r in _sights(M([spec, {"at": ["B1"], "level": level}]),
                                                         [("B1", "B3"), ("B1", "B4"), ("B1", "B5")])]
    assert any(_outcome(r, chart) != _outcome(r, default_chart()) for r in rulings)


def test_every_building_height_has_a_case() -> None:
    assert sorted(_bundled_document()["building_height"]) == sorted(BUILDING_OF)
