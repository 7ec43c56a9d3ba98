"""The LOS engine as a whole: its API and values, the batch contract of ``los`` and ``viewshed``
(queries.md), the CLI, and the properties every ruling must keep on random maps (A6.5 reciprocity, own-hex
terrain never blocks, adjacent same-level Locations see each other)."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import clirun
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asl_terrain.ask import answer_one
from asl_terrain.errors import QueryError, UnknownLocation
from asl_terrain.grid import Hex, column_label
from asl_terrain.los import LosRuling, ViewshedRuling, los, los_verdicts, viewshed
from asl_terrain.model import Location, Map, load_demo

MAPS = Path(__file__).parent / "maps"

LOS_KEYS = {"kind", "rules", "explain", "clear", "borderline", "blocked_by", "hindrances", "hindrance_drm", "range",
            "height_advantage", "up_slope", "blind"}


@pytest.fixture(scope="module")
def demo() -> Map:
    return load_demo()


# ------------------------------------------------------------------------------------------ API values


def test_los_ruling_is_a_frozen_slotted_value(demo: Map) -> None:
    r = los(demo, demo.parse_location("K10/2"), demo.parse_location("C8"))
    assert isinstance(r, LosRuling)
    with pytest.raises(AttributeError):
        r.clear = False  # type: ignore[misc]
    assert not hasattr(r, "__dict__")
    assert r.trace.start == r.start and r.trace.end == r.end
    assert isinstance(r.elevations[0], Fraction)
    assert r.rules()[0] == "A6.1"
    assert r.explain().startswith("LOS from HrK10/2")


def test_hindrance_items_add_up_to_the_drm(demo: Map) -> None:
    hits = 0
    for h in list(demo.hexes())[::7]:
        r = los(demo, demo.parse_location("L11"), Location(h))
        assert sum(i.amount for i in r.items) == r.hindrance_drm
        assert sum(x.drm for x in r.hindrances) == r.hindrance_drm
        hits += bool(r.hindrances)
    assert hits  # L11 holds SMOKE: its own-hex SMOKE hinders every LOS from it


def test_a_bypass_along_a_hexside_needs_its_vertex(demo: Map) -> None:
    with pytest.raises(QueryError, match="vertex"):
        los(demo, demo.parse_location("K12@K12-L12"), demo.parse_location("C8"))


def test_a_location_that_does_not_exist_is_an_error(demo: Map) -> None:
    with pytest.raises(UnknownLocation):
        los(demo, Location(Hex.parse("C8"), 3), demo.parse_location("C9"))


def test_the_engine_takes_parsed_conditions_only(demo: Map) -> None:
    """Names and objects are parsed at the edge (ask, the CLI): the engine refuses a raw mapping, naming the
    type it expects and the parser to use."""
    a, b = demo.parse_location("C8"), demo.parse_location("C9")
    for call in (lambda: los(demo, a, b, conditions={"month": 1}),  # type: ignore[arg-type]
                 lambda: viewshed(demo, a, conditions={"month": 1}),  # type: ignore[arg-type]
                 lambda: list(los_verdicts(demo, [(a, b)], conditions={"month": 1}))):  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="expected a Conditions.*conditions_for"):
            call()


def test_bypass_position_is_traced_from_its_vertex(demo: Map) -> None:
    a = demo.parse_location("K12@K12-K13-L12")
    r = los(demo, a, demo.parse_location("C8"))
    assert r.start == a.vertex.point()  # type: ignore[union-attr]


def test_same_location_and_same_hex(demo: Map) -> None:
    r = los(demo, demo.parse_location("K10"), demo.parse_location("K10/2"))
    assert r.clear and r.range == 0


# ------------------------------------------------------------------------------------- ask and contract


def test_ask_los_answer_carries_every_contract_key(demo: Map) -> None:
    ans = answer_one(demo, {"kind": "los", "from": "K10/2", "to": "W2"})
    assert LOS_KEYS <= set(ans)
    assert isinstance(ans["up_slope"], dict) and set(ans["up_slope"]) == {"from", "to"}
    assert ans["blocked_by"] is None or {"terrain", "rule"} <= set(ans["blocked_by"])
    assert ans["rules"] and ans["explain"]
    json.dumps(ans)


def test_ask_los_equals_the_api(demo: Map) -> None:
    ans = answer_one(demo, {"kind": "los", "from": "L11", "to": "Q14"})
    r = los(demo, demo.parse_location("L11"), demo.parse_location("Q14"))
    assert ans == r.to_json()


def test_ask_los_blocked_by_names_the_hex_and_rule() -> None:
    m = Map.load(MAPS / "p2_slopes.toml")
    ans = answer_one(m, {"kind": "los", "from": "H13", "to": "H11"})
    assert ans["clear"] is False and ans["blocked_by"] == {"hex": "H12", "terrain": "level 3 ground", "rule": "B10.2"}


def test_ask_los_entrenched_and_errors(demo: Map) -> None:
    ok = answer_one(demo, {"kind": "los", "from": "C8", "to": "C10", "entrenched": {"from": True}})
    assert "error" not in ok
    bad = answer_one(demo, {"kind": "los", "from": "C8", "to": "C10", "entrenched": "yes"})
    assert "entrenched" in bad["error"]
    assert "to" in answer_one(demo, {"kind": "los", "from": "C8"})["error"]
    assert "K12@K12-L12" in answer_one(demo, {"kind": "los", "from": "K12@K12-L12", "to": "C8"})["error"]


def test_ask_los_conditions_override_the_month() -> None:
    m = Map.from_data({"format": "asl-terrain/1", "name": "o", "prefix": "", "columns": ["A", "E"], "rows": [1, 6],
                       "hex": [{"at": ["C3"], "terrain": "orchard"}, {"at": ["C1"], "level": 1}]})
    assert answer_one(m, {"kind": "los", "from": "C1", "to": "C5"})["clear"] is False
    assert answer_one(m, {"kind": "los", "from": "C1", "to": "C5", "conditions": {"month": 12}})["clear"] is True


@pytest.mark.parametrize("terrain", ["open", "grain", "woods"])
def test_wire_is_no_obstacle_hindrance_or_tem(terrain: str) -> None:
    """B26.2: Wire is neither an obstacle nor a LOS Hindrance; B26.3: it has no TEM (the Location's TEM is
    that of its other terrain). Wire in C3 changes neither a LOS through or into it nor the TEM in it."""
    from asl_terrain.effects import tem

    bare = Map.from_data({"format": "asl-terrain/1", "name": "w", "prefix": "", "columns": ["A", "E"],
                          "rows": [1, 6], "hex": [{"at": ["C3"], "terrain": terrain}]})
    wired = Map.from_data({"format": "asl-terrain/1", "name": "w", "prefix": "", "columns": ["A", "E"],
                           "rows": [1, 6], "hex": [{"at": ["C3"], "terrain": terrain}],
                           "counter": [{"type": "wire", "at": "C3"}]})
    assert wired.has_counter(Hex.parse("C3"), "wire")
    for a, b in (("C1", "C5"), ("C1", "C3"), ("B2", "D4")):
        w, o = los(wired, wired.parse_location(a), wired.parse_location(b)), los(bare, bare.parse_location(a),
                                                                                 bare.parse_location(b))
        assert (w.clear, w.hindrance_drm, w.rules()) == (o.clear, o.hindrance_drm, o.rules()), (a, b, w.explain())
    target, firer = wired.parse_location("C3"), wired.parse_location("C1")
    tw, to = tem(wired, target, [firer]), tem(bare, bare.parse_location("C3"), [bare.parse_location("C1")])
    assert (tw.tem, tw.total_drm, tw.rules()) == (to.tem, to.total_drm, to.rules()), tw.explain()


def test_viewshed_holds_exactly_the_locations_los_sees(demo: Map) -> None:
    origin = demo.parse_location("K10/2")
    v = viewshed(demo, origin)
    assert isinstance(v, ViewshedRuling)
    got = v.as_dict()
    for h in demo.hexes():
        if h == origin.hex:
            continue
        r = los(demo, origin, Location(h))
        assert (Location(h) in got) is r.clear
        if r.clear:
            assert got[Location(h)] == r.hindrance_drm
    ans = answer_one(demo, {"kind": "viewshed", "from": "K10/2"})
    assert ans["visible"] == {loc.text("Hr"): d for loc, d in v.visible}
    assert {"kind", "rules", "explain", "visible"} <= set(ans)


def test_viewshed_level_looks_at_building_levels(demo: Map) -> None:
    v = viewshed(demo, demo.parse_location("K10/2"), level=1)
    for loc, _ in v.visible:
        t = demo.terrain(loc.hex)
        assert loc.level == (1 if t.is_building and t.top_level >= 1 else 0)
    assert any(loc.level == 1 for loc, _ in v.visible)
    ans = answer_one(demo, {"kind": "viewshed", "from": "K10/2", "level": 1})
    assert all("/" not in k or k.endswith("/1") for k in ans["visible"])
    assert "level" in answer_one(demo, {"kind": "viewshed", "from": "K10", "level": 1.5})["error"]


# ---------------------------------------------------------------------------------------------- CLI


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return clirun.run(*args)


def test_cli_los_prints_the_ruling_and_draws_it(tmp_path: Path) -> None:
    out = tmp_path / "los.svg"
    p = run("los", str(MAPS / "p2_slopes_house.toml"), "I14", "K11", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert "Blind Hex" in p.stdout and "A6.4" in p.stdout
    svg = out.read_text()
    assert "<svg" in svg and "layer-threads" in svg


def test_cli_viewshed_png(tmp_path: Path) -> None:
    out = tmp_path / "view.png"
    p = run("viewshed", "K10/2", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert "visible" in p.stdout
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_cli_los_bad_location_is_one_line_exit_2() -> None:
    p = run("los", "C8", "ZZ99")
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.strip()


# ------------------------------------------------------------------------------------------ properties

TERRAIN = ["open", "open", "open", "woods", "pine-woods", "brush", "orchard", "grain", "building", "rubble",
           "graveyard", "marsh"]


@st.composite
def small_maps(draw: Any) -> Map:
    cols = draw(st.integers(3, 7))
    rows = draw(st.integers(3, 7))
    hexes = []
    for c in range(cols):
        for r in range(1, rows + 1):
            block: dict[str, Any] = {"at": [f"{column_label(c)}{r}"]}
            kind = draw(st.sampled_from(["plain", "plain", "terrain", "level", "stream"]))
            if kind == "terrain":
                t = draw(st.sampled_from(TERRAIN))
                block["terrain"] = t
                if t == "building":
                    bt = draw(st.sampled_from(["single-story-house", "two-story-house", "multi-level"]))
                    block["building_type"] = bt
                    if bt == "multi-level":
                        block["upper_levels"] = draw(st.integers(1, 2))
            elif kind == "level":
                block["level"] = draw(st.integers(-1, 2))
            elif kind == "stream":
                block["stream"] = "shallow"
            hexes.append(block)
    sides: dict[tuple[frozenset[str], bool], dict[str, object]] = {}  # a wall or a hedge, not both (B9.1)
    for _ in range(draw(st.integers(0, 5))):
        h = Hex(draw(st.integers(0, cols - 1)), draw(st.integers(1, rows)))
        n = h.neighbour(draw(st.integers(0, 5)))
        if 0 <= n.col < cols and 1 <= n.row <= rows:
            f = draw(st.sampled_from(["wall", "hedge", "slope"]))
            sides[frozenset((h.name, n.name)), f == "slope"] = {"at": [f"{h.name}-{n.name}"],
                                                               f: h.name if f == "slope" else True}
    counters = []
    for _ in range(draw(st.integers(0, 2))):
        at = f"{column_label(draw(st.integers(0, cols - 1)))}{draw(st.integers(1, rows))}"
        counters.append(draw(st.sampled_from([{"type": "smoke", "at": at, "strength": 2}, {"type": "wreck", "at": at},
                                              {"type": "vehicle", "at": at}])))
    return Map.from_data({"format": "asl-terrain/1", "name": "h", "prefix": "", "columns": ["A", column_label(cols - 1)],
                          "rows": [1, rows], "hex": hexes, "hexside": list(sides.values()), "counter": counters,
                          "conditions": {"month": draw(st.integers(1, 12))}})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_maps(), st.data())
def test_a6_5_los_is_reciprocal_on_random_maps(m: Map, data: Any) -> None:
    """A6.5: if A sees B, B sees A, through the same Hindrance total; borderline both ways too."""
    locs = [loc for h in m.hexes() for loc in m.locations(h)]
    for _ in range(12):
        a = data.draw(st.sampled_from(locs))
        b = data.draw(st.sampled_from(locs))
        r1, r2 = los(m, a, b), los(m, b, a)
        assert r1.clear == r2.clear
        assert r1.borderline == r2.borderline
        if r1.clear:
            assert r1.hindrance_drm == r2.hindrance_drm
        assert r1.range == r2.range
        assert r1.up_slope == (r2.up_slope[1], r2.up_slope[0])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a6_1_terrain_only_in_the_firers_and_targets_hexes_never_blocks(data: Any) -> None:
    """Whatever stands in the two end hexes (woods, buildings, walls on their hexsides, hills), the LOS
    between their Locations is clear when every other hex is level-0 Open Ground (Locations IN a stream and
    culverts aside)."""
    a = Hex(data.draw(st.integers(0, 6)), data.draw(st.integers(1, 7)))
    b = Hex(data.draw(st.integers(0, 6)), data.draw(st.integers(1, 7)))
    hexes: list[dict[str, Any]] = []
    sides: dict[frozenset[str], dict[str, Any]] = {}
    for h in {a, b}:
        t = data.draw(st.sampled_from(TERRAIN))
        block: dict[str, Any] = {"at": [h.name], "terrain": t, "level": data.draw(st.integers(0, 2))}
        if t == "building":
            block["building_type"] = data.draw(st.sampled_from(["two-story-house", "multi-level"]))
            if block["building_type"] == "multi-level":
                block["upper_levels"] = 2
        hexes.append(block)
        for k in range(6):
            n = h.neighbour(k)
            if 0 <= n.col <= 6 and 1 <= n.row <= 7 and data.draw(st.booleans()):
                # a and b may share a hexside: it carries a wall or a hedge, not both (B9.1)
                sides[frozenset((h.name, n.name))] = {"at": [f"{h.name}-{n.name}"],
                                                      data.draw(st.sampled_from(["wall", "hedge"])): True}
    m = Map.from_data({"format": "asl-terrain/1", "name": "o", "prefix": "", "columns": ["A", "G"], "rows": [1, 7],
                       "hex": hexes, "hexside": list(sides.values())})
    for la in m.locations(a):
        for lb in m.locations(b):
            r = los(m, la, lb)
            assert r.clear, (la, lb, r.blocked_by)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_maps(), st.data())
def test_adjacent_ground_level_locations_at_one_level_see_each_other(m: Map, data: Any) -> None:
    """Two adjacent ground-level Locations at the same elevation always see each other: nothing lies between
    them, and a wall or hedge on their common hexside is a hexside of their own hexes (B9.2)."""
    h = data.draw(st.sampled_from(list(m.hexes())))
    for n in m.neighbours(h):
        a, b = Location(h), Location(n)
        if m.terrain(h).is_stream or m.terrain(n).is_stream or m.terrain(h).level != m.terrain(n).level:
            continue
        assert los(m, a, b).clear
