"""SSR terrain switches (issue 12): each changes movement, LOS and TEM alike, cites its rule, is named in
``[conditions] ssr`` or per query (``conditions.ssr``), and VASL's SSR names map onto them."""

from __future__ import annotations

from typing import Any

import pytest

from asl_terrain import effects, los, movement, ssr
from asl_terrain.ask import answer_one
from asl_terrain.errors import MapError, QueryError
from asl_terrain.model import Map
from asl_terrain.units import Unit

INF = Unit.from_json("infantry")


def _map(c3: dict[str, Any], **extra: Any) -> Map:
    """Columns A-E, rows 1-5; C3 holds ``c3``; a paved road runs C1-C2-C3-C4-C5 across the hexsides."""
    d: dict[str, Any] = {"format": "asl-terrain/1", "name": "ssr", "columns": ["A", "E"], "rows": [0, 6],
                         "hex": [{"at": "C3", **c3}],
                         "hexside": [{"at": ["C1-C2", "C2-C3", "C3-C4", "C4-C5"], "road": "paved"}]}
    d.update(extra)
    return Map.from_data(d)


def _cost(m: Map, a: str, b: str) -> Any:
    return movement.move_cost(m, INF, m.parse_location(a), m.parse_location(b)).cost


def _tem(m: Map) -> Any:
    return effects.tem(m, m.parse_location("C3"), [m.parse_location("C1")]).to_json()["tem"]


def test_brush_as_open_changes_movement_los_and_tem_alike() -> None:
    m = _map({"terrain": "brush"})
    s = m.with_ssr(["brush-as-open"])
    plain_open = _map({"terrain": "open"})
    assert _cost(m, "B3", "C3") != _cost(s, "B3", "C3") == _cost(plain_open, "B3", "C3")
    assert los.los(m, m.parse_location("C1"), m.parse_location("C5")).hindrance_drm == 1  # brush, B12
    assert los.los(s, s.parse_location("C1"), s.parse_location("C5")).hindrance_drm == 0
    assert _tem(s) == _tem(plain_open)
    assert s.conditions.ssr == ("brush-as-open",) and m.conditions.ssr == ()


def test_woods_as_brush_turns_an_obstacle_into_a_hindrance() -> None:
    m = _map({"terrain": "woods"})
    s = m.with_ssr(["woods-as-brush"])
    a, b = m.parse_location("C1"), m.parse_location("C5")
    assert not los.los(m, a, b).clear
    r = los.los(s, a, b)
    assert r.clear and r.hindrance_drm == 1 and "brush" in r.explain()
    assert s.terrain(s.parse_hex("C3")).terrain == "brush"
    assert _tem(m) == 1 and _tem(s) == _tem(_map({"terrain": "brush"})) == 0  # B13.3 woods +1; brush none


def test_no_roads_and_dirt_roads() -> None:
    m = _map({"terrain": "woods"})
    road = movement.move_cost(m, INF, m.parse_location("C2"), m.parse_location("C3"))
    assert road.road_rate
    none = m.with_ssr(["no-roads"])
    r = movement.move_cost(none, INF, none.parse_location("C2"), none.parse_location("C3"))
    assert not r.road_rate and r.cost == _cost(_map({"terrain": "woods"}, hexside=[]), "C2", "C3")
    dirt = m.with_ssr(["roads-dirt"])
    assert dirt.hexside(dirt.parse_hexside("C2-C3")).road == "dirt"


def test_streams_flooded_and_building_material() -> None:
    m = _map({"terrain": "open", "stream": "shallow"})
    f = m.with_ssr(["streams-flooded"])
    assert f.terrain(f.parse_hex("C3")).stream == "flooded"
    r = movement.move_cost(f, INF, f.parse_location("C2"), f.parse_location("C3/crest"))
    assert not r.allowed and r.forbidden_by == "B20.44"
    b = _map({"terrain": "building", "building": "wooden"}).with_ssr(["buildings-stone"])
    assert b.terrain(b.parse_hex("C3")).building == "stone"


def test_season_switches_override_the_month() -> None:
    june = _map({"terrain": "orchard"}, conditions={"month": 6})
    a, b = june.parse_location("C1"), june.parse_location("C5")
    in_season = los.los(june, a, b)
    assert in_season.clear and "out of season" not in in_season.explain()  # same-level: a +1 Hindrance (B14.2)
    out = june.with_ssr(["orchards-out-of-season"])
    assert "out of season" in los.los(out, a, b).explain()
    october = _map({"terrain": "grain"}, conditions={"month": 10})
    grain = october.with_ssr(["grain-in-season"])
    assert _cost(october, "B3", "C3") < _cost(grain, "B3", "C3")  # 1½ MF in season (B15.4)
    assert los.los(grain, a, b).hindrance_drm == 1 and los.los(october, a, b).hindrance_drm == 0


def test_map_file_and_query_switches() -> None:
    m = _map({"terrain": "brush"}, conditions={"ssr": ["brush-as-open"]})
    assert m.terrain(m.parse_hex("C3")).terrain == "open" and m.conditions.ssr == ("brush-as-open",)
    plain = _map({"terrain": "brush"})
    q = {"kind": "move", "unit": "infantry", "from": "B3", "to": "C3"}
    assert answer_one(plain, q)["cost"] == 2
    with_switch = answer_one(plain, {**q, "conditions": {"ssr": ["brush-as-open"]}})
    assert with_switch["cost"] == 1
    assert with_switch["ssr"] == ["SSR brush-as-open: brush is Open Ground (B12.1)."]
    assert "ssr" not in answer_one(plain, q)
    bad = answer_one(plain, {**q, "conditions": {"ssr": ["brush-is-lava"]}})
    assert "unknown SSR switch 'brush-is-lava'" in bad["error"]
    with pytest.raises(MapError, match="contradict"):
        _map({"terrain": "brush"}, conditions={"ssr": ["roads-dirt", "no-roads"]})
    with pytest.raises(QueryError, match="contradict"):
        plain.conditions.updated({"ssr": ["streams-dry", "streams-flooded"]})


def test_every_switch_cites_a_rule_and_vasl_names_map_onto_switches() -> None:
    for s in ssr.SWITCHES.values():
        assert s.rule and s.says and (s.hex or s.hexside or s.season or s.feature)
    switches, missing = ssr.from_vasl(["NoRoads", "OrchardOutOfSeason", "AllStone", "Winter"])
    assert switches == ["no-roads", "orchards-out-of-season", "buildings-stone"] and missing == ["Winter"]
    assert all(v in ssr.SWITCHES for v in ssr.VASL_NAMES.values())


def test_switches_change_what_the_vasl_artwork_counts_as() -> None:
    """On a map drawn from VASL artwork the switches change what its features count as: a LOS the woods of
    bd01 block is, with woods as brush, no longer blocked by woods (B12.1)."""
    from asl_terrain import vasl

    if vasl.vasl_data_dir() is None:
        pytest.skip("the VASL boards are not found: set ASL_TERRAIN_VASL or put them in ../shared/vasl")
    m = Map.from_data(vasl.import_boards(["bd01"]).map)
    s = m.with_ssr(["woods-as-brush"])
    assert s.depiction.ssr == ("woods-as-brush",)
    names = [m.name_of(h) for h in m.hexes() if not m.terrain(h).offboard]
    checked = 0
    for i, x in enumerate(names[::7]):
        for y in names[i % 5 :: 13]:
            if x == y:
                continue
            r = los.los(m, m.parse_location(x), m.parse_location(y))
            if r.blocked_by is not None and r.blocked_by.terrain == "woods":
                r2 = los.los(s, s.parse_location(x), s.parse_location(y))
                assert r2.blocked_by is None or r2.blocked_by.terrain != "woods", (x, y, r2.explain())
                checked += 1
        if checked >= 5:
            break
    assert checked >= 5


def _look(m: Map) -> tuple[Any, ...]:
    """What movement, LOS and TEM say about C3 (entered from B3, crossed from C1 to C5, fired on from C1)."""
    r = los.los(m, m.parse_location("C1"), m.parse_location("C5"))
    move = movement.move_cost(m, INF, m.parse_location("B3"), m.parse_location("C3"))
    return (move.allowed, move.cost, r.clear, r.hindrance_drm, _tem(m))


@pytest.mark.parametrize("name", [n for n, s in ssr.SWITCHES.items() if s.hex and "terrain" in s.hex])
def test_a_terrain_switch_rules_as_the_terrain_it_gives(name: str) -> None:
    """Each "A is B" switch: a hex of A under the switch is ruled, in movement, LOS and TEM, exactly as a hex
    of B (the rule the switch cites is B's)."""
    switch = ssr.SWITCHES[name]
    for old, new in switch.hex["terrain"].items():  # type: ignore[index]
        m = _map({"terrain": old}).with_ssr([name])
        assert m.terrain(m.parse_hex("C3")).terrain == new
        assert _look(m) == _look(_map({"terrain": new})), (name, old, new)
        if _look(_map({"terrain": old})) != _look(_map({"terrain": new})):
            assert _look(m) != _look(_map({"terrain": old}))


def _sided(**side: Any) -> Map:
    """Columns A-E of open ground; only what lies on C3's B3-C3 and C2-C3 hexsides differs."""
    return Map.from_data({"format": "asl-terrain/1", "name": "sides", "columns": ["A", "E"], "rows": [0, 6],
                          "hexside": [{"at": ["B3-C3", "C2-C3"], **side}] if side else []})


def _across(m: Map) -> tuple[Any, ...]:
    """What movement, LOS and TEM say across C3's B3-C3 and C2-C3 hexsides."""
    move = movement.move_cost(m, INF, m.parse_location("B3"), m.parse_location("C3"))
    r = los.los(m, m.parse_location("A3"), m.parse_location("C3"))
    tem = effects.tem(m, m.parse_location("C3"), [m.parse_location("A3")]).to_json()["tem"]
    return (move.allowed, move.cost, r.clear, r.hindrance_drm, tem)


@pytest.mark.parametrize("name, before, after", [
    ("no-walls", {"wall": True}, {}), ("no-hedges", {"hedge": True}, {}),
    ("walls-as-hedges", {"wall": True}, {"hedge": True}), ("hedges-as-walls", {"hedge": True}, {"wall": True}),
    ("walls-as-bocage", {"wall": True}, {"bocage": True}), ("hedges-as-bocage", {"hedge": True}, {"bocage": True}),
])
def test_a_hexside_switch_rules_as_the_hexside_it_gives(name: str, before: dict[str, Any],
                                                        after: dict[str, Any]) -> None:
    m = _sided(**before).with_ssr([name])
    assert _across(m) == _across(_sided(**after)), name
    assert _across(_sided(**before)) != _across(_sided(**after))  # the switch changes something


def test_no_stairwells_no_slopes_no_cliffs_and_no_dirt_roads() -> None:
    building = {"terrain": "building", "building": "stone", "building_type": "multi-level", "upper_levels": 1,
                "stairwell": True}
    m = _map(building)
    up = movement.move_cost(m, INF, m.parse_location("C3"), m.parse_location("C3/1"))
    s = m.with_ssr(["no-stairwells"])
    assert s.terrain(s.parse_hex("C3")).stairwell is False
    up2 = movement.move_cost(s, INF, s.parse_location("C3"), s.parse_location("C3/1"))
    no_stair = _map({**building, "stairwell": False})
    up3 = movement.move_cost(no_stair, INF, no_stair.parse_location("C3"), no_stair.parse_location("C3/1"))
    assert (up2.allowed, up2.cost) == (up3.allowed, up3.cost) != (up.allowed, up.cost)
    sloped = Map.from_data({"format": "asl-terrain/1", "name": "s", "columns": ["A", "E"], "rows": [0, 6],
                            "hexside": [{"at": "B3-C3", "slope": "B3"}]})
    flat = sloped.with_ssr(["no-slopes"])
    assert flat.hexside(flat.parse_hexside("B3-C3")).slope is None
    assert _across(flat) == _across(_sided())
    cliff = Map.from_data({"format": "asl-terrain/1", "name": "c", "columns": ["A", "E"], "rows": [0, 6],
                           "hex": [{"at": ["C1", "C2", "C3", "C4", "C5", "D3", "D4"], "level": 1}],
                           "hexside": [{"at": "B3-C3", "cliff": True}]})
    assert not movement.move_cost(cliff, INF, cliff.parse_location("B3"), cliff.parse_location("C3")).allowed
    hill = cliff.with_ssr(["no-cliffs"])
    assert movement.move_cost(hill, INF, hill.parse_location("B3"), hill.parse_location("C3")).allowed
    m = _map({"terrain": "woods"}, hexside=[{"at": ["C2-C3"], "road": "dirt"}, {"at": ["C3-C4"], "road": "paved"}])
    n = m.with_ssr(["no-dirt-roads"])
    assert n.hexside(n.parse_hexside("C2-C3")).road is None and n.hexside(n.parse_hexside("C3-C4")).road == "paved"


def test_every_vasl_ssr_name_in_the_shared_boards_is_carried_or_says_why_not() -> None:
    """Every SSR name VASL's shared board archives (colorSSR, overlaySSR, SSRControls) and its terrain table's
    LOS rules give maps onto a switch, changes only the picture, or has its own reason for not being
    carried (no name falls to the catch-all)."""
    import re
    import zipfile
    from pathlib import Path

    shared = Path(__file__).resolve().parents[2] / "shared" / "vasl"
    if not (shared / "SharedBoardMetadata.xml").is_file():
        pytest.skip("../shared/vasl (the VASL boards and SharedBoardMetadata.xml) is not found")
    names = set(re.findall(r'<LOSSSRule name="([^"]+)"', (shared / "SharedBoardMetadata.xml").read_text("latin-1")))
    for board in (shared / "boards").glob("bd*"):
        with zipfile.ZipFile(board) as z:
            have = set(z.namelist())
            for member in ("colorSSR", "overlaySSR"):
                if member not in have:
                    continue
                blocks = re.split(r"\n\s*\n", z.read(member).decode("latin-1").replace("\r", ""))
                for block in blocks:  # a rule's name heads its block (colorSSR may hold several blocks' rules)
                    for line in block.splitlines():
                        if line and not line[0].isspace() and not line.startswith("//") and "=" not in line \
                                and not re.search(r"\.(gif|png)\b|^underlay\b", line):
                            names.add(line.split()[0])
            if "SSRControls" in have:
                names.update(re.findall(r'rule="([^"]+)"', z.read("SSRControls").decode("latin-1")))
    assert len(names) > 150
    switches, missing = ssr.from_vasl(sorted(names))
    assert {"no-roads", "woods-as-open", "no-walls", "walls-as-hedges", "no-slopes", "no-stairwells"} <= set(switches)
    generic = [n for n in missing if ssr.not_carried_reason(n).startswith("VASL's terrain change")]
    assert not generic, generic
    assert "Winter" in missing and "weather" in ssr.not_carried_reason("Winter")
    assert "NoHillNums" not in missing and "NoHillNums" not in switches  # only the picture changes


@pytest.mark.parametrize("name", [n for n, s in ssr.SWITCHES.items() if s.elevation])
def test_a_level_switch_rules_as_the_level_it_gives(name: str) -> None:
    """VASL's LevelNToLevelM: a hex of ground level N under the switch is ruled as one drawn at level M."""
    ((old, new),) = ssr.SWITCHES[name].elevation.items()  # type: ignore[union-attr]
    m = _map({"terrain": "woods", "level": old}).with_ssr([name])
    assert m.terrain(m.parse_hex("C3")).level == new
    assert _look(m) == _look(_map({"terrain": "woods", "level": new}))


def test_level_switches_flatten_the_hills_of_the_vasl_artwork() -> None:
    """bd02's level-1 and level-2 hills, under level-2-as-1 then level-1-as-0 (VASL's Level2ToLevel1,
    Level1ToLevel0): no hex and no pixel of the artwork is at level 1 or 2 any more, and no LOS is blocked by
    level-1 or level-2 ground, though many were before (B10.2)."""
    from asl_terrain import vasl

    if vasl.vasl_data_dir() is None:
        pytest.skip("the VASL boards are not found: set ASL_TERRAIN_VASL or put them in ../shared/vasl")
    m = Map.from_data(vasl.import_boards(["bd02"]).map)
    s = m.with_ssr(["level-2-as-1", "level-1-as-0"])
    assert {m.terrain(h).level for h in m.hexes()} >= {1, 2}
    assert not {s.terrain(h).level for h in s.hexes()} & {1, 2}
    art = vasl.map_artwork(s)
    levels = {art.decode(int(c))[1] for c in set(art._flat.tolist())}
    assert not levels & {1, 2} and 0 in levels
    names = [m.name_of(h) for h in m.hexes() if not m.terrain(h).offboard]
    hill_blocks = 0
    for i, x in enumerate(names[::9]):
        for y in names[i % 7 :: 13]:
            if x == y:
                continue
            r = los.los(m, m.parse_location(x), m.parse_location(y))
            hill = r.blocked_by is not None and r.blocked_by.terrain in ("level 1 ground", "level 2 ground")
            hill_blocks += hill
            r2 = los.los(s, s.parse_location(x), s.parse_location(y))
            assert r2.blocked_by is None or not r2.blocked_by.terrain.startswith(("level 1 ", "level 2 ")), (x, y)
    assert hill_blocks >= 20
