"""The movement engine as a whole: the API's rulings, the ``ask`` contract (queries.md move, path, reach,
vca-change), bad requests, building levels, the CLI, and hypothesis properties on random maps (costs never
negative but for bonus items, items add up, a path costs the sum of its steps, reach grows with the
allowance, reach's cost equals path() of its path, random maps never crash)."""

from __future__ import annotations

import contextlib
import importlib
import json
import subprocess
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import clirun
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asl_terrain.ask import answer_one
from asl_terrain.errors import NotAdjacent, QueryError
from asl_terrain.grid import Hex, Hexside, column_label
from asl_terrain.model import Location, Map, load_demo
from asl_terrain.movement import MoveRuling, Step, move_cost, path, reach, vca_change
from asl_terrain.units import Unit

MAPS = Path(__file__).parent / "maps"
F = Fraction


@pytest.fixture(scope="module")
def demo() -> Map:
    return load_demo()


@pytest.fixture(scope="module")
def st_village() -> Map:
    return Map.load(MAPS / "st_village.toml")


# ---------------------------------------------------------------------------------------------- rulings


def test_move_ruling_items_add_up_and_cite_rules(demo: Map) -> None:
    """A ruling is a value: items with amounts, reasons and rules that add up to the cost."""
    r = move_cost(demo, "infantry", "M15", "M16")
    assert r.allowed and r.cost == 2  # road rate 1 + SMOKE 1 (B.2)
    assert sum(i.amount for i in r.items) == r.cost
    assert r.rules() == ("B3.4", "B.2")
    assert "B3.4" in r.explain() and "B.2" in r.explain()
    assert not r.keeps_road_bonus


def test_forbidden_moves_are_rulings_not_exceptions(demo: Map) -> None:
    """A move the rules forbid (a vehicle into a building, B23.41) is allowed=False with reason and rule."""
    r = move_cost(demo, "vehicle", "N12", "N11")
    assert not r.allowed and r.cost is None and r.reason and r.forbidden_by
    j = r.to_json()
    assert j["allowed"] is False and j["cost"] is None and j["reason"] and j["rules"]


def test_all_costs_take_the_whole_allowance(demo: Map) -> None:
    """Woods off the road: a vehicle spends ALL its MP (B13.41) and must check for Bog."""
    r = move_cost(demo, "vehicle", "I5", "I6")
    assert r.allowed and r.all_mf and r.bog and r.cost == 16
    assert move_cost(demo, "vehicle", "I5", "I6", allowance=10).cost == 10
    assert path(demo, "vehicle", ["I5", "I6", "I7"], 16).allowed is False


def test_stairwell_levels_cost_1_mf_each(st_village: Map) -> None:
    """B23.42 / P5.2: church StJ19 has ground, 1st and a 2nd-level Steeple linked by an inherent stairwell:
    1 MF a level, not doubled; a vehicle may not climb it; reach finds the steeple."""
    assert move_cost(st_village, "infantry", "J19", "J19/1").cost == 1
    assert move_cost(st_village, "infantry", "J19/1", "J19/2").cost == 1
    assert move_cost(st_village, "infantry", "J19/2", "J19/1").cost == 1
    assert not move_cost(st_village, "infantry", "J19/1", "K19").allowed  # leave the level by the stairwell
    r = reach(st_village, "infantry", "K19", 4)
    assert r.cost_of("StJ19/2") == 4


def test_building_levels_between_hexes_of_one_building() -> None:
    """B23.42: Infantry move from an upper level to the same level of an adjacent hex of the same building
    at the building cost; not into another building's upper level."""
    m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "D"], "rows": [1, 4], "hex": [
        {"at": ["B2", "B3"], "terrain": "building", "upper_levels": 1, "building_id": "x", "stairwell": True},
        {"at": ["C2"], "terrain": "building", "upper_levels": 1, "building_id": "y"}]})
    assert move_cost(m, "infantry", "B2/1", "B3/1").cost == 2
    assert not move_cost(m, "infantry", "B2/1", "C2/1").allowed
    assert not move_cost(m, "infantry", "B2", "B3/1").allowed


def test_vca_given_is_charged_d2_11(demo: Map) -> None:
    """queries.md: with a "vca" the vehicle's VCA change to face the hex entered is charged, 1 MP a hexspine
    (D2.11); without one nothing is. A path tracks the VCA from step to step."""
    plain = move_cost(demo, "vehicle", "M9", "M10")
    turned = move_cost(demo, "vehicle", "M9", "M10", vca=0)  # facing N, moving S: 3 hexspines
    assert plain.cost == F(1, 2) and turned.cost == F(7, 2) and "D2.11" in turned.rules()
    assert move_cost(demo, "vehicle", "M9", "M10", vca=3).cost == F(1, 2)
    p = path(demo, "vehicle", ["M9", "M10", "M11", "N11"], 16, vca=0)
    assert [s.cost for s in p.steps][:2] == [F(7, 2), F(1, 2)]
    with pytest.raises(QueryError, match="vca"):
        move_cost(demo, "infantry", "M9", "M10", vca=0)
    ans = answer_one(demo, {"kind": "move", "unit": "vehicle", "from": "M9", "to": "M10", "vca": 0})
    assert ans["cost"] == 3.5


# ---------------------------------------------------------------------------------------------- ask


def test_ask_move_answer_is_the_rulings_json(demo: Map) -> None:
    """`ask` returns the API's ruling, serialised, with every queries.md key."""
    ans = answer_one(demo, {"kind": "move", "unit": "infantry", "from": "M15", "to": "M16"})
    assert ans == move_cost(demo, "infantry", "M15", "M16").to_json()
    for key in ("kind", "allowed", "cost", "units", "items", "road_rate", "ffmo_exposed", "rules", "explain"):
        assert key in ans
    assert ans["items"][0].keys() == {"cost", "why", "rule"}


def test_ask_move_bypass_and_crest_forms(st_village: Map) -> None:
    """queries.md: a Bypass step from N17 along N17-O17 to vertex N17-O17-O18; `from` a Bypass position."""
    a = answer_one(st_village, {"kind": "move", "unit": "vehicle", "from": "N17", "bypass": "N17-O17",
                                "to_vertex": "N17-O17-O18"})
    assert a["allowed"] and a["cost"] == 1 and a["units"] == "MP" and a["bypass"] == "StN17-O17"
    b = answer_one(st_village, {"kind": "move", "unit": "infantry", "from": "N18@N18-O18", "to": "O19"})
    assert b["cost"] == 2


def test_ask_path_answer(demo: Map) -> None:
    ans = answer_one(demo, {"kind": "path", "unit": "infantry", "hexes": ["M8", "M9", "M10", "M11", "M12", "M13"],
                            "allowance": 4})
    assert ans["allowed"] is True and ans["cost"] == 5 and ans["road_bonus"] is True and ans["allowance"] == 5
    assert len(ans["steps"]) == 5 and all(s["kind"] == "move" for s in ans["steps"])
    step = answer_one(demo, {"kind": "path", "unit": "infantry",
                             "hexes": ["K9", {"to": "L9", "road_rate": False}], "allowance": 4})
    assert step["steps"][0]["road_rate"] is False


def test_ask_reach_answer(demo: Map) -> None:
    ans = answer_one(demo, {"kind": "reach", "unit": "infantry", "from": "M8", "allowance": 4})
    assert ans["costs"]["HrM8"] == 0 and ans["costs"]["HrM13"] == 5
    assert ans["paths"]["HrM13"] == ["HrM8", "HrM9", "HrM10", "HrM11", "HrM12", "HrM13"]
    assert set(ans["costs"]) == set(ans["paths"])


def test_ask_vca_change_answer(demo: Map) -> None:
    ans = answer_one(demo, {"kind": "vca-change", "unit": {"type": "motorcycle", "mp": 20}, "at": "L11@K11-L11",
                            "hexspines": 3, "motion_attempt": False})
    assert ans["allowed"] is True and ans["cost"] == 5 and ans["units"] == "MP" and ans["rules"] == ["P5.123"]


@pytest.mark.parametrize("query, words", [
    ({"kind": "move", "unit": "infantry", "from": "M8", "to": "M12"}, "adjacent"),
    ({"kind": "move", "unit": "tank", "from": "M8", "to": "M9"}, "unknown unit"),
    ({"kind": "move", "unit": "infantry", "from": "M8"}, "to"),
    ({"kind": "move", "unit": "infantry", "from": "M8", "to": "M9", "road-rate": True}, "unknown key"),
    ({"kind": "move", "unit": "infantry", "from": "ZZ99", "to": "M9"}, "from"),
    ({"kind": "reach", "unit": "infantry", "from": "M8", "allowance": -1}, "allowance"),
    ({"kind": "path", "unit": "infantry", "hexes": "M8 M9"}, "hexes"),
    ({"kind": "path", "unit": "infantry", "hexes": ["M8", "M10"]}, "adjacent"),
    ({"kind": "vca-change", "unit": "infantry", "at": "L11@K11-L11", "hexspines": 3}, "unit"),
    ({"kind": "move", "unit": "vehicle", "from": "N17", "to": "M8", "dash": True}, "Dash"),
    ({"kind": "move", "unit": "infantry", "from": "L11", "bypass": "K11-L11"}, "to_vertex"),
], ids=["not-adjacent", "unknown-unit", "missing-to", "unknown-key", "unknown-hex", "negative-allowance",
        "hexes-not-a-list", "path-not-adjacent", "vca-for-infantry", "vehicle-dash", "ambiguous-bypass"])
def test_bad_requests_give_a_clear_error_answer(demo: Map, query: dict[str, Any], words: str) -> None:
    """Bad requests give {"kind", "error"} naming what is wrong, never a traceback or an internal error."""
    ans = answer_one(demo, query)
    assert set(ans) == {"kind", "error"}, ans
    assert words.lower() in ans["error"].lower() and "internal" not in ans["error"]


def test_not_adjacent_raises_not_adjacent(demo: Map) -> None:
    with pytest.raises(NotAdjacent):
        move_cost(demo, "infantry", "A1", "C3")
    with pytest.raises(QueryError):
        move_cost(demo, "infantry", "M8", "M8")


# ---------------------------------------------------------------------------------------------- CLI


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return clirun.run(*args)


def test_cli_move_and_path() -> None:
    r = _run("move", str(MAPS / "b3_3i10.toml"), "I11", "I10")
    assert r.returncode == 0, r.stderr
    assert "ffmo_exposed: yes" in r.stdout and "B3.4" in r.stdout
    p = _run("path", "M8", "M9", "M10", "M11", "M12", "M13", "--mf", "4")
    assert p.returncode == 0 and "road_bonus: yes" in p.stdout


def test_cli_reach_draws_each_reachable_hex_with_its_cost(tmp_path: Path) -> None:
    """`asl-terrain reach MAP HEX --unit infantry --mf 4 -o reach.svg --paths`: the map with each reachable
    hex tinted and labelled with its least cost, and the cheapest paths drawn."""
    out = tmp_path / "reach.svg"
    r = _run("reach", str(MAPS / "b3_roads.toml"), "M1", "--unit", "infantry", "--mf", "4", "-o", str(out),
             "--paths")
    assert r.returncode == 0, r.stderr
    svg = out.read_text()
    assert 'id="layer-fills"' in svg and 'id="layer-labels"' in svg and 'id="layer-paths"' in svg
    assert ">5<" in svg  # M6, five road hexes away, reached with the road bonus
    assert "reach from 12M1" in r.stdout and "B3.4" in r.stdout


def test_cli_bad_input_is_one_line_exit_2() -> None:
    r = _run("move", "M8", "M12")
    assert r.returncode == 2 and "adjacent" in r.stderr and "Traceback" not in r.stderr
    v = _run("vca-change", "L11@K11-L11", "--unit", "infantry")
    assert v.returncode == 2 and "Traceback" not in v.stderr


# ---------------------------------------------------------------------------------------------- properties

TERRAIN = ["open", "open", "woods", "pine-woods", "brush", "orchard", "grain", "building", "rubble", "graveyard",
           "marsh", "shellholes"]
UNITS: list[Any] = ["infantry", "cavalry", "wagon", "vehicle", "motorcycle",
                    {"type": "vehicle", "class": "truck"}, {"type": "vehicle", "class": "half-track",
                                                            "buttoned_up": True},
                    {"type": "infantry", "skis": True}, {"type": "infantry", "good_order": False},
                    {"type": "cavalry", "charging": True}]


@st.composite
def random_maps(draw: Any) -> Map:
    cols = draw(st.integers(3, 6))
    rows = draw(st.integers(3, 5))
    hexes = []
    stream_hexes = set()
    for c in range(cols):
        for r in range(1, rows + 1):
            name = f"{column_label(c)}{r}"
            t = draw(st.sampled_from(TERRAIN))
            block: dict[str, Any] = {"at": [name], "terrain": t, "level": draw(st.sampled_from([0, 0, 0, 1, 2]))}
            if t == "building" and draw(st.booleans()):
                block["upper_levels"] = draw(st.integers(1, 2))
                block["stairwell"] = draw(st.booleans())
                block["building_id"] = "b"
            if t in ("open", "woods", "pine-woods", "brush", "orchard") and draw(st.integers(0, 4)) == 0:
                block["stream"] = draw(st.sampled_from(["shallow", "shallow", "dry", "deep", "flooded"]))
                stream_hexes.add(name)
                if draw(st.booleans()):
                    block["culvert"] = True
                if draw(st.integers(0, 3)) == 0:
                    block["ford"] = True
            hexes.append(block)
    sides = []
    for c in range(cols):
        for r in range(1, rows + 1):
            h = Hex(c, r)
            for k in (1, 2, 3):
                n = h.neighbour(k)
                if not (0 <= n.col < cols and 1 <= n.row <= rows):
                    continue
                feat = draw(st.sampled_from(["", "", "", "", "road", "ns", "slope", "wall", "hedge", "fence"]))
                if not feat:
                    continue
                b: dict[str, Any] = {"at": [f"{h.name}-{n.name}"]}
                if feat == "road":
                    b["road"] = draw(st.sampled_from(["paved", "dirt"]))
                elif feat == "ns":
                    b["narrow_street"] = draw(st.sampled_from(["paved", "unpaved"]))
                elif feat == "slope":
                    b["slope"] = draw(st.sampled_from([h.name, n.name]))
                else:
                    b[feat] = True
                sides.append(b)
    # a continuous road (sometimes a Narrow Street) winding through the map, so that the road rate and the
    # B3.4 road bonus are exercised, not only isolated road hexsides
    if draw(st.integers(0, 2)):
        h = Hex(draw(st.integers(0, cols - 1)), draw(st.integers(1, rows)))
        kind = draw(st.sampled_from(["paved", "dirt", "paved", "ns"]))
        for _ in range(draw(st.integers(3, 8))):
            n = h.neighbour(draw(st.integers(0, 5)))
            if not (0 <= n.col < cols and 1 <= n.row <= rows):
                continue
            sides.append({"at": [f"{h.name}-{n.name}"], **({"narrow_street": "paved"} if kind == "ns" else
                                                           {"road": kind})})
            h = n
    counters = []
    all_names = [f"{column_label(c)}{r}" for c in range(cols) for r in range(1, rows + 1)]
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["smoke", "wreck", "vehicle", "rubble", "blaze", "mines", "roadblock", "wire"]))
        at = draw(st.sampled_from(all_names))
        if kind == "smoke":
            counters.append({"type": "smoke", "at": at, "strength": 2})
        elif kind == "mines":
            counters.append({"type": "mines", "at": at, "kind": "A-P", "strength": 6})
        elif kind == "roadblock":
            h = Hex.parse(at)
            n = h.neighbour(draw(st.integers(0, 5)))
            if 0 <= n.col < cols and 1 <= n.row <= rows:
                counters.append({"type": "roadblock", "hexside": f"{h.name}-{n.name}"})
        elif kind in ("wreck", "vehicle"):
            c2: dict[str, Any] = {"type": kind, "at": at}
            h = Hex.parse(at)
            n = h.neighbour(draw(st.integers(0, 5)))
            if draw(st.booleans()) and 0 <= n.col < cols and 1 <= n.row <= rows:
                c2["bypass"] = f"{h.name}-{n.name}"
            if kind == "wreck":
                c2["burning"] = draw(st.booleans())
            counters.append(c2)
        else:
            counters.append({"type": kind, "at": at})
    weather = draw(st.sampled_from(["clear", "clear", "rain", "mud"]))
    return Map.from_data({"format": "asl-terrain/1", "name": "random", "columns": ["A", column_label(cols - 1)],
                          "rows": [1, rows], "conditions": {"weather": weather, "month": draw(st.integers(1, 12))},
                          "hex": hexes, "hexside": sides, "counter": counters})


def _road_hexes(m: Map) -> list[Hex]:
    """The hexes of the map's road and Narrow Street hexsides, in map order."""
    return [h for h in m.hexes() if any(t.is_road for t in m.hexsides_of(h))]


def _check_ruling(r: MoveRuling) -> None:
    if not r.allowed:
        assert r.cost is None and r.reason and r.forbidden_by
        return
    assert r.cost is not None and r.cost >= 0
    assert sum((i.amount for i in r.items), F(0)) == r.cost
    for i in r.items:
        assert i.amount >= 0 or (i.rule == "P2.51" and "skis" in i.why), i
        assert i.rule and i.why


PROP = settings(max_examples=int(__import__("os").environ.get("MOVE_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROP
@given(random_maps(), st.sampled_from(UNITS), st.data())
def test_property_every_move_ruling_is_well_formed(m: Map, unit: Any, data: Any) -> None:
    """On random maps every move between neighbouring Locations gives a ruling (or a QueryError for a move
    the unit type does not fit): costs never negative except explicit bonus items, items add up."""
    hexes = list(m.hexes())
    for _ in range(12):
        h = data.draw(st.sampled_from(hexes))
        frm = data.draw(st.sampled_from(m.locations(h)))
        b = data.draw(st.sampled_from([h, *m.neighbours(h)]))
        to = data.draw(st.sampled_from(m.locations(b)))
        if frm.place == "rooftop" or to.place == "rooftop" or to == frm:
            continue
        try:
            r = move_cost(m, unit, frm, to, road_rate=data.draw(st.sampled_from([None, True, False])),
                          protection=data.draw(st.booleans()))
        except QueryError:
            continue
        _check_ruling(r)


@PROP
@given(random_maps(), st.sampled_from(UNITS), st.data())
def test_property_reach_costs_equal_path_of_the_returned_path(m: Map, unit: Any, data: Any) -> None:
    """For every Location reach returns, path() of its cheapest path costs exactly what reach says, each
    step's ruling is well formed, and the path is allowed (after any road bonus). Half the starts are on a
    road, so the road bonus is exercised."""
    on_road = _road_hexes(m)
    start = Location(data.draw(st.sampled_from(on_road if on_road and data.draw(st.booleans()) else list(m.hexes()))))
    allowance = data.draw(st.sampled_from([2, 4, 6, 16]))
    r = reach(m, unit, start, allowance)
    assert r.cost_of(start) == 0
    for x in r.reached:
        p = path(m, unit, list(x.path), allowance)
        assert p.cost == x.cost, (x.path, [s.explain() for s in p.steps])
        assert p.allowed
        for s in p.steps:
            _check_ruling(s)
        assert p.cost == sum((s.cost for s in p.steps if s.cost is not None), F(0))


@PROP
@given(random_maps(), st.sampled_from(UNITS), st.data())
def test_property_reach_grows_with_the_allowance(m: Map, unit: Any, data: Any) -> None:
    """More MF never reaches less, nor dearer: every Location reached with an allowance is reached with a
    larger one, at no greater cost (but for a Location entered by an ALL move, which costs the whole
    allowance, whatever it is)."""
    start = Location(data.draw(st.sampled_from(list(m.hexes()))))
    a = data.draw(st.integers(0, 6))
    b = a + data.draw(st.integers(1, 4))
    small = reach(m, unit, start, a)
    big = reach(m, unit, start, b)
    big_costs = big.costs
    all_small = {x.location.text(m.prefix) for x in small.reached if x.all_mf}
    for name, c in small.costs.items():
        assert name in big_costs
        assert big_costs[name] <= (b if name in all_small else c)


def test_vca_change_validates_hexspines(demo: Map) -> None:
    with pytest.raises(QueryError, match="hexspines"):
        vca_change(demo, "vehicle", "M8", 7)


def test_json_numbers_at_the_edge(demo: Map) -> None:
    """Fractions inside, JSON numbers at the edge: ½ is 0.5."""
    r = move_cost(demo, "vehicle", "M9", "M10")
    assert r.cost == F(1, 2) and json.loads(json.dumps(r.to_json()))["cost"] == 0.5


# ---------------------------------------------------------------------------------------------- base costs (digest §2)


def one_hex(terrain: str = "open", hexsides: list[dict[str, Any]] | None = None, month: int = 6,
            **hex_keys: Any) -> Map:
    """A 6 x 6 open level-0 map whose hex C3 holds ``terrain`` (entered from C2 in the tests)."""
    return Map.from_data({"format": "asl-terrain/1", "columns": ["A", "F"], "rows": [1, 6],
                          "conditions": {"month": month},
                          "hex": [{"at": ["C3"], "terrain": terrain, **hex_keys}], "hexside": hexsides or []})


#: digest §2.1 / §2.6 (the Chapter B Terrain Chart, [V]; rubble [U]): the cost to enter from Open Ground
BASE_COSTS = [
    ("open", {"infantry": 1, "cavalry": 1, "wagon": 1, "vehicle": 1, "truck": 4, "motorcycle": 3}),
    ("woods", {"infantry": 2, "cavalry": 4, "vehicle": "ALL", "truck": "ALL", "motorcycle": "NA"}),
    ("pine-woods", {"infantry": F(3, 2), "cavalry": 3, "vehicle": "ALL"}),
    ("brush", {"infantry": 2, "cavalry": 2, "wagon": 2, "vehicle": 2, "truck": 6, "motorcycle": 4}),
    ("orchard", {"infantry": 1, "cavalry": 1, "vehicle": 1, "truck": 4, "motorcycle": 3}),
    ("grain", {"infantry": F(3, 2), "cavalry": F(3, 2), "vehicle": 1, "truck": 5, "motorcycle": 4}),
    ("building", {"infantry": 2, "cavalry": "NA", "wagon": "NA", "truck": "NA"}),
    ("rubble", {"infantry": 3}),
    ("graveyard", {"infantry": 1, "cavalry": 2}),
    ("marsh", {"infantry": "ALL", "cavalry": "ALL"}),
    ("shellholes", {"infantry": 1}),
]
UNIT_OF = {"infantry": "infantry", "cavalry": "cavalry", "wagon": "wagon", "vehicle": "vehicle",
           "truck": {"type": "vehicle", "class": "truck"}, "motorcycle": "motorcycle"}


@pytest.mark.parametrize("terrain, costs", BASE_COSTS, ids=[t for t, _ in BASE_COSTS])
def test_every_terrain_of_the_map_format_costs_what_the_chart_says(terrain: str, costs: dict[str, Any]) -> None:
    """Digest §2.1/§2.6: entering each terrain of map-format.md from Open Ground at the same level costs the
    Terrain Chart's MF/MP (ALL: the whole allowance, with a Bog check for vehicles in woods, B13.41)."""
    m = one_hex(terrain)
    for who, want in costs.items():
        r = move_cost(m, UNIT_OF[who], "C2", "C3", allowance=16)
        if want == "NA":
            assert not r.allowed and r.forbidden_by, (who, r.explain())
        elif want == "ALL":
            assert r.allowed and r.all_mf and r.cost == 16, (who, r.explain())
            assert r.bog == (r.units == "MP")
        else:
            assert r.allowed and r.cost == want and not r.all_mf, (who, r.explain())
        if r.allowed:
            assert sum(i.amount for i in r.items) == r.cost


def test_grain_costs_open_ground_out_of_season() -> None:
    """B15.4: grain costs 1½ MF in season (April-September, the chart's grain_season) and as Open Ground
    otherwise."""
    assert move_cost(one_hex("grain", month=6), "infantry", "C2", "C3").cost == F(3, 2)
    assert move_cost(one_hex("grain", month=11), "infantry", "C2", "C3").cost == 1


@pytest.mark.parametrize("feature, costs", [
    ("wall", {"infantry": 2, "cavalry": 2, "wagon": "NA", "vehicle": 2, "armored-car": "NA", "half-track": "NA"}),
    ("hedge", {"infantry": 2, "cavalry": 2, "wagon": "NA", "vehicle": 2, "armored-car": 6, "half-track": 3}),
    ("fence", {"infantry": 2, "cavalry": 3, "wagon": 1, "vehicle": 1}),
], ids=["wall", "hedge", "fence"])
def test_hexside_features_cost_plus_and_cot(feature: str, costs: dict[str, Any]) -> None:
    """B9.4, P3.2: a wall or hedge costs Infantry +1 MF and COT (a fully-tracked vehicle 1 MP & COT; an
    armored car may not cross a wall, pays 3 & COT at a hedge); a barbed-wire fence +1 MF for Infantry, +2
    for Cavalry, nothing for a Wagon or a vehicle."""
    m = one_hex(hexsides=[{"at": ["C2-C3"], feature: True}])
    units = {**UNIT_OF, "armored-car": {"type": "vehicle", "class": "armored-car"},
             "half-track": {"type": "vehicle", "class": "half-track"}}
    for who, want in costs.items():
        r = move_cost(m, units[who], "C2", "C3")
        if want == "NA":
            assert not r.allowed and r.forbidden_by == "B9.4", (who, r.explain())
        else:
            assert r.cost == want, (who, r.explain())


def test_smoke_is_cot_and_doubles_going_up() -> None:
    """B.2 and B10.4: SMOKE adds 1 to the COT, and climbing a Crest Line doubles the whole COT for Infantry:
    (1 + 1) x 2 = 4 MF; a vehicle pays 1 + 1 + 4 = 6 MP."""
    m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "F"], "rows": [1, 6],
                       "hex": [{"at": ["C3"], "level": 1}], "counter": [{"type": "smoke", "at": "C3", "strength": 2}]})
    r = move_cost(m, "infantry", "C2", "C3")
    assert r.cost == 4 and [i.rule for i in r.items] == ["B1", "B.2", "B10.4"]
    assert move_cost(m, "vehicle", "C2", "C3").cost == 6


@pytest.mark.parametrize("unit, cost, rule", [("infantry", 1, "A4.3"), ("cavalry", 1, "A4.3"), ("vehicle", 2, "D2.3"),
                                              ({"type": "vehicle", "class": "truck"}, 8, "D2.3")],
                         ids=["infantry", "cavalry", "fully-tracked", "truck"])
def test_bypass_of_a_woods_hex(unit: Any, cost: int, rule: str) -> None:
    """A4.3 / D2.3: Bypass along a hexside of woods hex C3 entered from C2 costs Infantry/Cavalry 1 MF, a
    vehicle VBM at twice its Open Ground cost ([U]); SMOKE in C3 adds 1; an open hex is not bypassed."""
    m = one_hex("woods")
    r = move_cost(m, unit, "C2", None, bypass="C3-D2", to_vertex="C3-D2-D3")
    assert r.allowed and r.cost == cost and r.rules() == (rule,)
    smoky = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "F"], "rows": [1, 6],
                           "hex": [{"at": ["C3"], "terrain": "woods"}],
                           "counter": [{"type": "smoke", "at": "C3", "strength": 2}]})
    assert move_cost(smoky, unit, "C2", None, bypass="C3-D2", to_vertex="C3-D2-D3").cost == cost + 1
    bare = move_cost(one_hex("brush"), unit, "C2", None, bypass="C3-D2", to_vertex="C3-D2-D3")
    assert not bare.allowed and bare.forbidden_by == rule


@pytest.mark.parametrize("terrain", ["open", "brush", "woods"])
def test_entering_a_wire_location_costs_infantry_only_its_cot(terrain: str) -> None:
    """B26.4: Wire in C3 adds nothing to Infantry's cost of entering (the COT of the hex alone), and the
    ruling says the unit is placed on top of the Wire and that getting beneath costs a dr in MF."""
    bare = one_hex(terrain)
    wired = bare.with_counters(tuple(Map.from_data({"format": "asl-terrain/1", "columns": ["A", "F"], "rows": [1, 6],
                                                    "counter": [{"type": "wire", "at": "C3"}]}).counters))
    r, r0 = move_cost(wired, "infantry", "C2", "C3"), move_cost(bare, "infantry", "C2", "C3")
    assert r.allowed and r.cost == r0.cost and r.items == r0.items, r.explain()
    assert "B26.4" in r.rules() and "B26.4" not in r0.rules()
    assert "placed on top of the Wire" in r.explain() and "dr in MF" in r.explain()
    assert reach(wired, "infantry", "C2", 4).cost_of("C3") == reach(bare, "infantry", "C2", 4).cost_of("C3")
    # the note is Infantry's (B26.4); leaving the Wire hex carries none
    assert "B26.4" not in move_cost(wired, "infantry", "C3", "C4").rules()


# ---------------------------------------------------------------------------------------------- the search


def test_reach_weighs_the_road_rate_against_an_all_cost_by_the_allowance_bug() -> None:
    """Regression: entering a marsh hex a level up across a road hexside costs 2 MF at the road rate, or ALL
    the MF off it. With 4 MF the road rate is cheaper, with 1 MF only the ALL move fits; reach (whose tables
    are shared by every allowance) and move_cost must agree in both, whatever was asked first."""
    def m() -> Map:
        return one_hex("marsh", level=1, hexsides=[{"at": ["C2-C3"], "road": "dirt"}])
    for first, second in ((1, 4), (4, 1)):
        mm = m()
        for a in (first, second):
            want = 2 if a == 4 else 1
            assert move_cost(mm, "infantry", "C2", "C3", allowance=a).cost == want
            assert reach(mm, "infantry", "C2", a).cost_of("C3") == want


def test_reach_tables_shared_across_allowances_give_the_fresh_answer(demo: Map) -> None:
    """The search's tables do not depend on the allowance: a reach after others of the same unit equals the
    reach computed on a freshly loaded map."""
    for unit, a, b in (("vehicle", 16, 5), ("infantry", 6, 2)):
        reach(demo, unit, "M8", a)
        shared = reach(demo, unit, "M8", b)
        fresh = reach(load_demo(), unit, "M8", b)
        assert shared.costs == fresh.costs and shared.paths == fresh.paths


def test_reach_with_no_allowance_reaches_only_the_start(demo: Map) -> None:
    """An allowance of 0 reaches the start alone (no ALL move: there is nothing to spend)."""
    assert reach(demo, "infantry", "I5", 0).costs == {"HrI5": 0}
    assert reach(demo, "vehicle", "I5", 0).costs == {"HrI5": 0}


# ---------------------------------------------------------------------------------------------- the contract


def test_queries_md_keys_of_every_movement_answer(st_village: Map) -> None:
    """queries.md: move has allowed, cost, units, items, road_rate, ffmo_exposed (and reason when not
    allowed); path adds road_bonus, allowance, steps; reach costs and paths; vca-change allowed, cost, units,
    items (reason when not allowed); every answer kind, rules and explain."""
    common = {"kind", "rules", "explain"}
    mv = answer_one(st_village, {"kind": "move", "unit": "vehicle", "from": "N17", "to": "O17"})
    assert common | {"allowed", "cost", "units", "items", "road_rate", "ffmo_exposed", "reason"} <= set(mv)
    assert mv["allowed"] is False and mv["cost"] is None and isinstance(mv["reason"], str)
    pa = answer_one(st_village, {"kind": "path", "unit": "infantry", "allowance": 4,
                                 "hexes": ["N17", {"bypass": "O18-N18", "in": "N18", "to_vertex": "N18-O18-O19"},
                                           "O19"]})
    assert common | {"allowed", "cost", "units", "road_bonus", "allowance", "steps"} <= set(pa)
    assert pa["cost"] == 3 and [s["cost"] for s in pa["steps"]] == [1, 2]
    re_ = answer_one(st_village, {"kind": "reach", "unit": "infantry", "from": "N17", "allowance": 3})
    assert common | {"costs", "paths"} <= set(re_) and re_["costs"]["StN17"] == 0
    assert all(isinstance(v, (int, float)) for v in re_["costs"].values())
    assert re_["paths"]["StO19"][0] == "StN17" and re_["paths"]["StO19"][-1] == "StO19"
    vc = answer_one(st_village, {"kind": "vca-change", "unit": "vehicle", "at": "N17@N17-O17", "hexspines": 3})
    assert common | {"allowed", "cost", "units", "items", "reason"} <= set(vc) and vc["allowed"] is False
    ok = answer_one(st_village, {"kind": "vca-change", "unit": "wagon", "at": "N17@N17-O17", "hexspines": 1,
                                 "while_bypassing": True})
    assert ok["allowed"] is True and ok["cost"] == 1 and ok["units"] == "MF" and ok["items"]


@pytest.mark.parametrize("query, key", [
    ({"kind": "move", "unit": "infantry", "from": "N17", "to": "O17", "allowance": -1}, "allowance"),
    ({"kind": "path", "unit": "infantry", "hexes": ["N17", "O17"], "allowance": -0.5}, "allowance"),
    ({"kind": "move", "unit": {"type": "tank"}, "from": "N17", "to": "O17"}, "unit.type"),
    ({"kind": "move", "unit": "motorcycle", "from": "N17", "to": "O17", "dash": True}, "dash"),
    ({"kind": "move", "unit": "vehicle", "from": "N17", "to": "O17", "rout": True}, "rout"),
    ({"kind": "move", "unit": "infantry", "from": "N17", "to": "O17", "vca": 1}, "vca"),
    ({"kind": "move", "unit": "infantry", "from": "N17", "to": "O17", "declared_vertex": "O17-O18-P17"},
     "declared_vertex"),
    ({"kind": "move", "unit": "infantry", "from": "N17", "bypass": "N17-O17", "to_vertex": "O18-O19-P18"},
     "to_vertex"),
    ({"kind": "move", "unit": "infantry", "from": "N17", "bypass": "N17-O17", "in": "P17",
      "to_vertex": "N17-O17-O18"}, "in"),
    ({"kind": "move", "unit": "vehicle", "from": "N17", "to": "N17/crest"}, "to"),
    ({"kind": "vca-change", "unit": "cavalry", "at": "N17@N17-O17", "hexspines": 3}, "unit"),
    ({"kind": "vca-change", "unit": "vehicle", "at": "N17@N17-O17"}, "hexspines"),
    ({"kind": "vca-change", "unit": "vehicle", "at": "N17@N17-O17", "hexspines": 6}, "hexspines"),
    ({"kind": "reach", "unit": "infantry", "from": "N17", "vca": 2}, "vca"),
    ({"kind": "path", "unit": "infantry", "hexes": ["N17", {"to": "O17", "road-rate": False}]}, "hexes[1]"),
    ({"kind": "reach", "unit": "infantry", "from": "J19/1@J19-K19"}, "from"),
], ids=["move-negative-allowance", "path-negative-allowance", "unknown-unit-type", "motorcycle-dash",
        "vehicle-rout", "vca-for-infantry", "declared-vertex-off-hexside", "to-vertex-off-hexside", "in-off-hexside",
        "vehicle-crest", "vca-change-cavalry", "vca-change-no-hexspines", "vca-change-hexspines-6", "reach-vca",
        "path-step-typo", "bypass-position-above-ground"])
def test_bad_requests_name_the_key(st_village: Map, query: dict[str, Any], key: str) -> None:
    """Every bad request is an error answer whose message starts with (or names) the offending key."""
    ans = answer_one(st_village, query)
    assert set(ans) == {"kind", "error"}, ans
    assert key in ans["error"] and "internal" not in ans["error"], ans["error"]


@pytest.mark.parametrize("argv", [
    ["move", "M8", "M12"],
    ["move", "M8", "M9", "--unit", "tank"],
    ["reach", "M8", "--mf", "-1"],
    ["vca-change", "L11@K11-L11", "--unit", "infantry"],
    ["path", "M8", "M10"],
], ids=["not-adjacent", "unknown-unit", "negative-allowance", "vca-for-infantry", "path-not-adjacent"])
def test_cli_bad_requests_print_one_line_and_exit_2(argv: list[str]) -> None:
    """The CLI answers a bad request with one line on stderr and exit status 2, no traceback, nothing on
    stdout."""
    r = _run(*argv)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and not r.stdout.strip(), r.stderr


# ---------------------------------------------------------------------------------------------- the properties are not vacuous


def test_random_maps_and_rulings_are_not_trivial() -> None:
    """The random maps of the properties hold slopes, roads, Narrow Streets, buildings, streams, Crest Lines
    and counters, and the rulings on them include allowed and forbidden moves, road-rate moves, Up-Slope
    items, Bypass moves and ALL moves, so the properties test something."""
    seen: dict[str, int] = {}

    def saw(what: str) -> None:
        seen[what] = seen.get(what, 0) + 1

    @settings(max_examples=40, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(random_maps())
    def collect(m: Map) -> None:
        hexsides = {hs for h in m.hexes() for hs in h.hexsides()}
        feats = [m.hexside(hs) for hs in hexsides if all(x in m for x in hs.hexes)]
        for name, present in (("slope", any(t.slope for t in feats)), ("road", any(t.road for t in feats)),
                              ("narrow street", any(t.narrow_street for t in feats)),
                              ("crest line", any(t.crest for t in feats)),
                              ("building", any(m.terrain(h).is_building for h in m.hexes())),
                              ("stream", any(m.terrain(h).is_stream for h in m.hexes())),
                              ("counter", bool(m.counters))):
            if present:
                saw(name)
        start = _road_hexes(m)[:1] or [Hex(1, 2)]
        for unit in ("infantry", "vehicle"):
            r = reach(m, unit, Location(start[0]), 2)
            if len(r.reached) > 3:
                saw(f"{unit} reach")
            for x in r.reached:
                if x.location.is_bypass:
                    saw("bypass reached")
                if x.road_bonus:
                    saw("road bonus used")
                if x.all_mf:
                    saw("ALL move")
            for a in m.hexes():
                for b in m.neighbours(a):
                    mr = move_cost(m, unit, Location(a), Location(b))
                    saw("allowed" if mr.allowed else "forbidden")
                    if mr.road_rate:
                        saw("road rate")
                    if any(i.rule in ("P2.51", "P2.52") for i in mr.items):
                        saw("up-slope")

    collect()
    for what in ("slope", "road", "narrow street", "crest line", "building", "stream", "counter", "infantry reach",
                 "vehicle reach", "bypass reached", "road bonus used", "ALL move", "allowed", "forbidden",
                 "road rate", "up-slope"):
        assert seen.get(what, 0) >= 3, (what, seen)


@PROP
@given(random_maps(), st.sampled_from(UNITS), st.data())
def test_property_random_walks_cost_the_sum_of_their_steps(m: Map, unit: Any, data: Any) -> None:
    """A path of random steps (into neighbours, up and down levels, and in Bypass along nearby hexsides)
    either is a ruling whose cost is the sum of its steps' costs (allowed ones well formed), or raises
    QueryError for a step the unit or the map does not fit; nothing else escapes."""
    h = data.draw(st.sampled_from(list(m.hexes())))
    steps: list[Any] = [Location(h)]
    pos = h
    for _ in range(data.draw(st.integers(1, 5))):
        kind = data.draw(st.sampled_from(["hex", "hex", "level", "bypass"]))
        if kind == "hex":
            pos = data.draw(st.sampled_from(m.neighbours(pos)))
            steps.append(data.draw(st.sampled_from([x for x in m.locations(pos) if x.place != "rooftop"])))
        elif kind == "level":
            steps.append(data.draw(st.sampled_from([x for x in m.locations(pos) if x.place != "rooftop"])))
        else:
            k = data.draw(st.integers(0, 5))
            hs = Hexside.of(pos, pos.neighbour(k))
            if not all(x in m for x in hs.hexes):
                continue
            steps.append(Step(bypass=hs, to_vertex=data.draw(st.sampled_from(hs.vertices()))))
    try:
        p = path(m, unit, steps, data.draw(st.sampled_from([0, 4, 16])))
    except QueryError:
        return
    done = [s for s in p.steps if s.allowed]
    for s in p.steps:
        _check_ruling(s)
    if p.cost is not None:
        assert len(done) == len(p.steps) and p.cost == sum((s.cost for s in done if s.cost is not None), F(0))
        assert p.allowed == (p.cost <= p.allowance)
    else:
        assert not p.allowed and not p.steps[-1].allowed


@PROP
@given(random_maps(), st.data())
def test_property_ask_never_answers_with_an_internal_error(m: Map, data: Any) -> None:
    """Random movement queries, well formed or not, are answered with a ruling or an error naming what is
    wrong, never an internal error."""
    names = [h.name for h in m.hexes()]
    name = st.sampled_from(names)
    junk = st.one_of(st.none(), st.integers(-3, 20), st.floats(-2, 20, allow_nan=False), st.booleans(),
                     st.text(max_size=6), name, st.just("A1@A1-B1"), st.just("A1/1"), st.just("A1/crest"))
    unit = st.one_of(st.sampled_from(UNITS), st.sampled_from(["tank", ""]), st.just({"type": "vehicle", "mp": -1}))
    for _ in range(6):
        kind = data.draw(st.sampled_from(["move", "path", "reach", "vca-change"]))
        q: dict[str, Any] = {"kind": kind, "unit": data.draw(unit)}
        if kind == "move":
            q.update({"from": data.draw(name), "to": data.draw(st.one_of(name, junk))})
            for k in ("road_rate", "bypass", "to_vertex", "in", "dash", "rout", "vca", "allowance"):
                if data.draw(st.booleans()) and data.draw(st.booleans()):
                    q[k] = data.draw(junk)
        elif kind == "path":
            q["hexes"] = data.draw(st.lists(st.one_of(name, junk, st.fixed_dictionaries({"to": name})),
                                            min_size=0, max_size=4))
            q["allowance"] = data.draw(junk)
        elif kind == "reach":
            q.update({"from": data.draw(st.one_of(name, junk)), "allowance": data.draw(st.sampled_from([0, 2, 4]))})
        else:
            q.update({"at": data.draw(st.one_of(name, junk)), "hexspines": data.draw(junk)})
        ans = answer_one(m, q)
        assert "internal error" not in str(ans.get("error", "")), (q, ans)
        assert ans["kind"] == kind and ("error" in ans or "rules" in ans)


def test_bypass_to_a_vertex_beyond_the_grid_is_a_query_error_not_a_crash_bug() -> None:
    """Regression: a Bypass step (a Step value) toward the end vertex of A2-A3 that touches the column left
    of A (no name) crashed while naming it; it is a QueryError on to_vertex, and the other end is a ruling."""
    m = Map.from_data({"format": "asl-terrain/1", "columns": ["A", "D"], "rows": [1, 4],
                       "hex": [{"at": ["A2"], "terrain": "woods"}]})
    hs = Hexside.parse("A2-A3")
    off = next(v for v in hs.vertices() if any(h.col < 0 for h in v.hexes))
    on = next(v for v in hs.vertices() if v != off)
    with pytest.raises(QueryError, match="to_vertex"):
        path(m, "infantry", ["A3", Step(bypass=hs, to_vertex=off)], 4)
    r = path(m, "infantry", ["A3", Step(bypass=hs, to_vertex=on)], 4)
    assert r.allowed and r.cost == 1 and "A2@" in r.to_json()["steps"][0]["to"]


def test_reach_restores_the_garbage_collector_state(demo: Map) -> None:
    """reach pauses the cyclic garbage collector while it builds its tables and restores the state it found,
    enabled or disabled."""
    import gc

    assert gc.isenabled()
    reach(demo, "vehicle", "M8", 16)
    assert gc.isenabled()
    gc.disable()
    try:
        reach(demo, "infantry", "M8", 4)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_reach_on_a_warm_map_gives_the_fresh_maps_paths() -> None:
    """Equally cheap paths are broken the same way whatever earlier queries left in the map's tables (a
    Bypass vertex named from either hex of it was taken by node id, which depends on query history)."""
    u = Unit.from_json("infantry")
    fresh = load_demo()
    want = reach(fresh, u, fresh.parse_location("M13"), 3)
    warm = load_demo()
    reach(warm, u, warm.parse_location("L11"), 2)
    reach(warm, Unit.from_json("vehicle"), warm.parse_location("K5"), 6)
    got = reach(warm, u, warm.parse_location("M13"), 3)
    assert got.costs == want.costs and got.paths == want.paths


def test_reach_with_nowhere_to_go_from_a_rooftop_names_its_rules() -> None:
    """Regression (the fuzz suite): with 0 MF on the rooftop of N11 no neighbour's ground is a move at all,
    so the rules came out empty; they are those of the moves out of the rooftop it cannot pay for."""
    m = load_demo()
    r = reach(m, "infantry", m.parse_location("N11/rooftop"), 0)
    assert len(r.costs) == 1 and r.rules() and "B23.41" in r.rules()


@PROP
@given(random_maps(), st.sampled_from(UNITS), st.data())
def test_property_the_search_weighs_moves_as_their_rulings_say(m: Map, unit: Any, data: Any) -> None:
    """The search decides on numbers alone (movement.graph): every move it weighs out of every Location a
    reach meets agrees with the same move ruled with names (allowed, cost, road bonus, ALL, the Location
    entered, the items' rules), and no step in Bypass costs less than the floor the search leaves moves out
    by. Its pruned search (moves into Locations already reached as cheaply, or beyond the allowance, never
    weighed) finds the same costs and the same paths as the plain one that weighs every move."""
    import importlib

    api = importlib.import_module("asl_terrain.movement.api")
    graph = importlib.import_module("asl_terrain.movement.graph")
    bypass = importlib.import_module("asl_terrain.movement.bypass")
    start = Location(data.draw(st.sampled_from(list(m.hexes()))))
    allowance = F(data.draw(st.sampled_from([2, 4, 6, 16])))
    try:
        c = api._context(m, unit, allowance)
    except QueryError:
        return
    t = api._search_tables(c)
    dist, pred = api._search(t, start, allowance)
    # fresh tables for the plain search, so that nothing the pruned one weighed is reused (node ids differ:
    # nodes are compared by name, with "+" for the road bonus still possible)
    t2 = graph.Tables(t.c)
    plain_dist, plain_pred = api._search(t2, start, allowance, prune=False)

    def named(tt: Any, x: int) -> str:
        return tt.name(x >> 1) + "+" * (x & 1)

    assert {named(t, x): d for x, d in dist.items()} == {named(t2, x): d for x, d in plain_dist.items()}
    assert {named(t, x): (named(t, p), e[5]) for x, (p, e) in pred.items()} == \
        {named(t2, x): (named(t2, p), e[5]) for x, (p, e) in plain_pred.items()}
    floor = graph.scaled(bypass.bypass_floor(t.d))
    for x in {x >> 1 for x in dist}:
        frm = t.nodes[x]
        for mv in t.moves(x):
            for e in t.weigh(x, mv):
                r = graph.explain(t, frm, e[4])
                assert r.allowed and r.to == t.nodes[e[0]] and graph.scaled(r.cost) == e[1], (frm, r.explain())
                assert (r.keeps_road_bonus, r.all_mf, tuple(i.rule for i in r.items)) == (e[2], e[3], e[5])
                if mv.rule is bypass.bypass_move:
                    assert e[1] >= floor == mv.floor, r.explain()



@contextlib.contextmanager
def _every_rule_asked() -> Iterator[Counter[str]]:
    """Inside: the movement rules ask every rule of their tuples, also those a context's rulebook leaves out
    (answers_only_if), each of those checked to answer nothing there; the counter says how often each was."""
    common = importlib.import_module("asl_terrain.movement.common")
    asked: Counter[str] = Counter()

    def every_rule(c: Any, rules: tuple[Any, ...]) -> tuple[Any, ...]:
        def left_out(rule: Any) -> Any:
            def ask(*a: Any) -> Any:
                got = rule(*a)
                asked[rule.__name__] += 1
                assert not got, f"{rule.__name__} answered {got!r} where its answers_only_if says it cannot"
                return got
            return ask
        return tuple(r if common._applies(r, c) else left_out(r) for r in rules)

    with pytest.MonkeyPatch.context() as mp:
        for name in ("asl_terrain.movement.bypass", "asl_terrain.movement.entry"):
            mp.setattr(importlib.import_module(name), "rulebook", every_rule)
        yield asked


#: the units and flags the left-out rules are checked for
_ALL_KINDS: list[tuple[Any, dict[str, bool]]] = [(u, {}) for u in UNITS] + \
    [("infantry", {"dash": True}), ("infantry", {"rout": True})]


def _plain_searches(m: Map, starts: list[Hex], allowance: Fraction) -> None:
    """Plain searches (every move weighed) of every unit and flag from ``starts``, on fresh tables."""
    api = importlib.import_module("asl_terrain.movement.api")
    graph = importlib.import_module("asl_terrain.movement.graph")
    for unit, flags in _ALL_KINDS:
        c = api._context(m, unit, allowance, **flags)
        for start in starts:
            api._search(graph.Tables(c), Location(start), allowance, prune=False)


def test_a_rule_a_rulebook_leaves_out_answers_nothing_there() -> None:
    """A rule marked answers_only_if(applies) is left out of the rules a context asks where applies(c) is
    false (movement.common.rulebook): there it must answer nothing. Every such rule is asked anyway, over
    every move out of the Locations a plain search meets (no pruning) on the demo map and every test map,
    for every test unit, Dash and rout: a predicate narrower than its rule fails here."""
    with _every_rule_asked() as asked:
        for m in [load_demo()] + [Map.load(p) for p in sorted(MAPS.glob("*.toml"))]:
            hexes = list(m.hexes())
            _plain_searches(m, hexes[:: max(1, len(hexes) // 3)], F(3))
    # each kind of rule left out was asked, many times over
    assert {"no_rout_along_narrow_street", "no_dash_along_narrow_street", "no_vbm_along_narrow_street_roadblock",
            "no_dash_into_rubbled_road", "no_vehicle_across_crest_line_slope", "bypass_smoke",
            "vehicle_onto_or_off_bridge_only_by_its_road"} <= set(asked), asked
    assert sum(asked.values()) > 10_000, asked


@PROP
@given(random_maps(), st.data())
def test_property_a_rule_a_rulebook_leaves_out_answers_nothing_there(m: Map, data: Any) -> None:
    """The same on random maps (their counters, Narrow Streets, roadblocks, slopes and streams)."""
    with _every_rule_asked():
        _plain_searches(m, [data.draw(st.sampled_from(list(m.hexes())))], F(data.draw(st.sampled_from([2, 4]))))


def test_a_reach_ruling_copied_or_pickled_names_its_own_locations() -> None:
    """A ReachRuling names its Locations as the search named them (ReachRuling.named): a copy or a pickled
    one names the same, from the Locations it holds."""
    import copy
    import pickle

    m = load_demo()
    r = reach(m, "vehicle", "M5")
    want = r.to_json()
    for other in (copy.deepcopy(r), pickle.loads(pickle.dumps(r))):
        assert other.to_json() == want and other.costs == r.costs and other.paths == r.paths
    assert want["costs"]["HrM5"] == 0 and len(want["paths"]) == len(r.reached) > 100
