"""The movement engine as a whole: the API's rulings, the ``ask`` contract (queries.md move, path, reach,
vca-change), bad requests, building levels, the CLI, and hypothesis properties on random maps (costs never
negative but for bonus items, items add up, a path costs the sum of its steps, reach grows with the
allowance, reach's cost equals path() of its path, random maps never crash)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asl_terrain.ask import answer_one
from asl_terrain.errors import NotAdjacent, QueryError
from asl_terrain.grid import Hex, column_label
from asl_terrain.model import Location, Map, load_demo
from asl_terrain.movement import MoveRuling, move_cost, path, reach, vca_change

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
    return subprocess.run([sys.executable, "-m", "asl_terrain", *args], capture_output=True, text=True, timeout=120,
                          check=False)


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
    counters = []
    all_names = [f"{column_label(c)}{r}" for c in range(cols) for r in range(1, rows + 1)]
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["smoke", "wreck", "vehicle", "rubble", "blaze", "mines", "roadblock"]))
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
    step's ruling is well formed, and the path is allowed (after any road bonus)."""
    start = Location(data.draw(st.sampled_from(list(m.hexes()))))
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
