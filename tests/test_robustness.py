"""Issue 9: bad input is refused when the file is read (strict types, every problem at once, the stated
limits), nothing the user gave is overwritten, and internal errors exit 3 everywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from asl_terrain import limits
from asl_terrain.errors import MapError
from asl_terrain.mapfile import map_warnings
from asl_terrain.model import Map, demo_map_path

from clirun import run

MAPS = Path(__file__).parent / "maps"


def base(**extra: object) -> dict[str, object]:
    d: dict[str, object] = {"format": "asl-terrain/1", "name": "t", "columns": ["A", "H"], "rows": [1, 8]}
    d.update(extra)
    return d


def problems(data: dict[str, object]) -> list[str]:
    with pytest.raises(MapError) as e:
        Map.from_data(data, "m.toml")
    return e.value.problems


# ------------------------------------------------------------------ strict types (map-format.md: integers, true/false)

@pytest.mark.parametrize("block, key", [
    ({"at": ["B2"], "level": "2"}, "level"),
    ({"at": ["B2"], "level": 2.0}, "level"),
    ({"at": ["B2"], "level": True}, "level"),
    ({"at": ["B2"], "terrain": "building", "steeple": "yes"}, "steeple"),
    ({"at": ["B2"], "terrain": "building", "upper_levels": 1.0, "building_type": "multi-level"}, "upper_levels"),
])
def test_a_hex_key_of_the_wrong_type_is_refused(block: dict[str, object], key: str) -> None:
    found = problems(base(hex=[block]))
    assert len(found) == 1 and found[0].startswith(f"hex[0].{key} (at B2)"), found


@pytest.mark.parametrize("value", ["yes", 1, 0, "true"])
def test_a_fence_must_be_true_or_false(value: object) -> None:
    found = problems(base(hexside=[{"at": ["B2-B3"], "fence": value}]))
    assert found and found[0].startswith("hexside[0].fence"), found


@pytest.mark.parametrize("rows", [["1", "5"], [1.0, 5], [True, 5]])
def test_rows_must_be_integers(rows: list[object]) -> None:
    assert any(p.startswith("rows") for p in problems(base(rows=rows)))


def test_valid_maps_load_unchanged() -> None:
    for p in [*MAPS.glob("*.toml"), demo_map_path()]:
        assert len(Map.load(p)) > 0


def test_a_toml_map_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    p = tmp_path / "bom.toml"
    p.write_bytes(b"\xef\xbb\xbf" + demo_map_path().read_bytes())
    assert Map.load(p).name == Map.load(demo_map_path()).name
    j = tmp_path / "bom.json"
    j.write_bytes(b"\xef\xbb\xbf" + json.dumps(base()).encode())
    assert len(Map.load(j)) == 64


def test_a_json_key_given_twice_is_refused(tmp_path: Path) -> None:
    """JSON keeps the last of two keys silently (TOML refuses them): a hex given two levels."""
    j = tmp_path / "two.json"
    j.write_text('{"format": "asl-terrain/1", "columns": ["A", "C"], "rows": [1, 3], '
                 '"hex": [{"at": ["B2"], "level": 1, "level": 2}]}')
    with pytest.raises(MapError, match="'level' is given twice"):
        Map.load(j)


# ------------------------------------------------------------------ every problem at once

def test_type_errors_and_off_map_hexes_are_reported_together() -> None:
    found = problems(base(hex=[{"at": ["B2"], "level": "2"}, {"at": ["Q9"], "terrain": "woods"}],
                          hexside=[{"at": ["B2-D7"], "wall": True}]))
    assert len(found) == 3, found
    assert any("level" in p for p in found) and any("off the map" in p for p in found)
    assert any("not adjacent" in p for p in found)


def test_file_and_hex_problems_are_reported_together() -> None:
    """The per-hex checks (a steeple on a non-building) used to run only once the blocks were clean."""
    found = problems(base(hex=[{"at": ["B2"], "steeple": True}, {"at": ["Z9"]}]))
    assert len(found) == 2 and any("steeple" in p for p in found) and any("off the map" in p for p in found)


def test_wall_and_hedge_on_one_hexside_is_refused() -> None:
    assert "not both" in problems(base(hexside=[{"at": ["B2-B3"], "wall": True, "hedge": True}]))[0]
    found = problems(base(hexside=[{"at": ["B2-B3"], "wall": True}, {"at": ["B3-B2"], "hedge": True}]))
    assert found == ["hexside B2-B3: both a wall and a hedge (set by different blocks): a hexside carries one or "
                     "the other (B9.1)"]


def test_a_crest_line_narrow_street_between_hexes_of_one_level_is_refused() -> None:
    """P5.11 puts Bypass along a Crest-Line Narrow Street in its lower hex; with neither lower, place-rubble and
    bypass-effects failed on an assertion."""
    found = problems(base(hexside=[{"at": ["B2-B3"], "narrow_street": "paved", "crest": True}]))
    assert len(found) == 1 and "neither is lower" in found[0]
    # with different levels it is a Crest Line anyway and loads
    Map.from_data(base(hex=[{"at": ["B3"], "level": 1}],
                       hexside=[{"at": ["B2-B3"], "narrow_street": "paved", "crest": True}]))


def test_check_warns_of_a_building_without_material_and_a_lone_stream_hex() -> None:
    data = base(hex=[{"at": ["C3"], "terrain": "building"}, {"at": ["E5"], "stream": "shallow"},
                     {"at": ["A1", "A2"], "stream": "shallow"}, {"at": ["D4"], "terrain": "building",
                                                                  "building": "wooden"}])
    warnings = map_warnings(data, "m.toml")
    assert len(warnings) == 2, warnings
    assert "(C3): stone is taken" in warnings[0]
    assert warnings[1].startswith("stream hex E5 is joined to no other stream hex")
    assert Map.from_data(data).terrain(Map.from_data(data).parse_hex("C3")).building == "stone"


def test_check_prints_the_warnings_and_still_says_ok(tmp_path: Path) -> None:
    p = tmp_path / "w.toml"
    p.write_text('format = "asl-terrain/1"\ncolumns = ["A", "E"]\nrows = [1, 5]\n'
                 '[[hex]]\nat = ["C3"]\nterrain = "building"\n')
    r = run("check", str(p))
    assert r.returncode == 0 and "warning:" in r.stdout and "stone is taken" in r.stdout and "OK" in r.stdout


# ------------------------------------------------------------------ limits (README "Limits")

@pytest.mark.parametrize("extra, words", [
    ({"rows": [1, 10**30]}, "numbered at most"),
    ({"rows": [1, 10**18]}, "numbered at most"),
    ({"rows": [1, 201]}, f"at most {limits.MAX_ROWS}"),
    ({"columns": ["A", "ZZZZZZZZZ"]}, f"at most {limits.MAX_COLUMNS}"),
    ({"hex": [{"at": ["B2"], "level": 10**6}]}, f"less than or equal to {limits.MAX_LEVEL}"),
    ({"hex": [{"at": ["B2"], "level": -11}]}, f"greater than or equal to {limits.MIN_LEVEL}"),
    ({"name": "x" * 201}, "at most 200 characters"),
    ({"hex": [{"at": ["B" + "1" * 100]}]}, "at most 80 characters"),
    ({"hex": [{"at": ["B2"], "terrain": "building", "building_id": "x" * 101}]}, "at most 100 characters"),
])
def test_over_limit_maps_are_refused(extra: dict[str, object], words: str) -> None:
    found = problems(base(**extra))
    assert any(words in p for p in found), found


@pytest.mark.parametrize("text, words", [
    ('format = "asl-terrain/1"\ncolumns = ["A", "C"]\nrows = [1, ' + "9" * 5000 + "]\n", "limited to 30 digits"),
    ("x = " + "[" * 3000 + "]" * 3000 + "\n", "nested more than 32"),
    ('format = "asl-terrain/1"\ncolumns = ["A", "C"]\nrows = [1, 3]\n[[hex]]\nat = ["B' + "1" * 5000 + '"]\n',
     "limited to 30 digits"),
])
def test_huge_numbers_and_deep_nesting_exit_2(tmp_path: Path, text: str, words: str) -> None:
    for suffix in (".toml", ".json"):
        p = tmp_path / f"m{suffix}"
        p.write_text(text if suffix == ".toml" else "[" * 3000 + "]" * 3000 if "nested" in words else
                     '{"rows": [' + "9" * 5000 + "]}")
        r = run("check", str(p))
        assert r.returncode == 2 and "internal error" not in r.stderr, r.stderr
        assert (words if suffix == ".toml" or "nested" in words else "30 digits") in r.stderr


def test_query_files_over_the_limits_exit_2(tmp_path: Path) -> None:
    q = tmp_path / "q.json"
    for text, words in [("[" * 3000 + "]" * 3000, "nested more than"),
                        ('[{"kind": "los", "from": "W2", "to": "W6", "x": ' + "9" * 5000 + "}]", "30 digits"),
                        (json.dumps([{"kind": "los"}] * (limits.MAX_BATCH + 1)), "a batch has at most")]:
        q.write_text(text)
        r = run("ask", str(q))
        assert r.returncode == 2 and words in r.stderr and "internal error" not in r.stderr, r.stderr
    r = run("ask", "-", stdin="[" * 3000 + "]" * 3000)
    assert r.returncode == 2 and "nested" in r.stderr


def test_a_hex_name_with_a_5000_digit_row_is_a_query_error(tmp_path: Path) -> None:
    r = run("los", "W" + "1" * 5000, "W6")
    assert r.returncode == 2 and "is not a hex name" in r.stderr and "internal" not in r.stderr


def test_the_limits_are_stated_in_the_readme_and_the_schema() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    for n in (limits.MAX_COLUMNS, limits.MAX_ROWS, f"{limits.MAX_HEXES:,}", limits.MAX_LEVEL,
              f"{limits.MAX_BATCH:,}", limits.MAX_DEPTH, limits.MAX_DIGITS, limits.MAX_MAP_NAME):
        assert str(n) in readme.split("## Limits", 1)[1].split("\n## ", 1)[0], n
    from asl_terrain.mapfile import json_schema

    schema = json.dumps(json_schema())
    assert f'"maximum": {limits.MAX_LEVEL}' in schema and f'"maxLength": {limits.MAX_MAP_NAME}' in schema
    assert "x-limits" in json_schema()


# ------------------------------------------------------------------ nothing the user gave is lost

def test_render_refuses_an_existing_file_unless_force(tmp_path: Path) -> None:
    out = tmp_path / "map.svg"
    out.write_text("my own drawing")
    r = run("render", "-o", str(out))
    assert r.returncode == 2 and "the file exists; pass --force" in r.stderr
    assert out.read_text() == "my own drawing"
    r = run("render", "-o", str(out), "--force")
    assert r.returncode == 0 and out.read_text().startswith("<svg")
    assert [p.name for p in tmp_path.iterdir()] == ["map.svg"]  # no temporary file left behind


def test_render_never_writes_over_its_input(tmp_path: Path) -> None:
    """A map saved as map.svg (a TOML map with another suffix) is not overwritten by `render map.svg`."""
    m = tmp_path / "m.svg"
    text = demo_map_path().read_text()
    m.write_text(text)
    for extra in ([], ["--force"]):
        r = run("render", str(m), "-o", str(m), *extra)
        assert r.returncode == 2 and "input files" in r.stderr, r.stderr
        assert m.read_text() == text


@pytest.mark.parametrize("argv", [["los", "W2", "W6"], ["viewshed", "K10/2"], ["reach", "M13", "--mf", "2"]])
def test_every_picture_option_refuses_an_existing_file(tmp_path: Path, argv: list[str]) -> None:
    out = tmp_path / "x.png"
    out.write_bytes(b"keep")
    r = run(*argv, "-o", str(out))
    assert r.returncode == 2 and "--force" in r.stderr and out.read_bytes() == b"keep"
    r = run(*argv, "-o", str(out), "--force")
    assert r.returncode == 0 and out.read_bytes()[:4] == b"\x89PNG"


def test_a_picture_is_never_written_over_the_chart(tmp_path: Path) -> None:
    chart = tmp_path / "c.svg"
    chart.write_text("[param]\nstacking_squads = 4\n")
    r = run("--chart", str(chart), "los", "W2", "W6", "-o", str(chart), "--force")
    assert r.returncode == 2 and "input files" in r.stderr and "stacking_squads" in chart.read_text()


def test_import_vasl_never_destroys_its_input_archive(tmp_path: Path) -> None:
    archive = tmp_path / "bd01copy.toml"
    archive.write_bytes(b"PK\x03\x04 not really a board")
    r = run("import-vasl", str(archive), "-o", str(archive), "--force")
    assert r.returncode == 2 and "input files" in r.stderr
    assert archive.read_bytes() == b"PK\x03\x04 not really a board"
    other = tmp_path / "out.toml"
    other.write_text("mine")
    r = run("import-vasl", str(archive), "-o", str(other))
    assert r.returncode == 2 and "the file exists" in r.stderr and other.read_text() == "mine"


def test_an_interrupted_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from asl_terrain.cli import core
    from asl_terrain.errors import UserError

    out = tmp_path / "old.svg"
    out.write_text("old")

    def boom(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(core.os, "fsync", boom)
    with pytest.raises(UserError, match="cannot write the file"):
        core.write_new_file(out, b"new", "-o", True)
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["old.svg"]


# ------------------------------------------------------------------ exit statuses: one rule for all

def test_an_internal_error_exits_3_in_every_subcommand_and_in_ask(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    from asl_terrain import ask

    def bug(ctx: object, q: object) -> None:
        raise ZeroDivisionError("a bug")

    for kind in ("los", "move"):
        ask.HANDLERS[kind]  # loads its module, which registers the real handler
        monkeypatch.setitem(ask.HANDLERS._fns, kind, bug)
    for argv in (["los", "W2", "W6"], ["move", "M13", "M12"]):
        r = run(*argv)
        assert r.returncode == 3 and "internal error" in r.stderr and "ZeroDivisionError" in r.stderr, r.stderr
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{"kind": "los", "from": "W2", "to": "W6"}, {"kind": "nonesuch"}]))
    r = run("ask", str(q))
    assert r.returncode == 3 and json.loads(r.stdout)[0]["error"].startswith("internal error")


# ------------------------------------------------------------------ render: escaping, bounded level colours

def test_a_control_character_in_the_map_name_renders_valid_svg_and_png(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    m = tmp_path / "ctl.toml"
    m.write_text('format = "asl-terrain/1"\nname = "bad\\u0001name & <co>"\ncolumns = ["A", "C"]\nrows = [1, 3]\n')
    for suffix in (".svg", ".png"):
        out = tmp_path / f"x{suffix}"
        r = run("render", str(m), "-o", str(out))
        assert r.returncode == 0, r.stderr
    ET.fromstring((tmp_path / "x.svg").read_text())


def test_level_colours_are_found_without_stepping_level_by_level() -> None:
    import time

    from asl_terrain.render import map_svg

    m = Map.from_data(base(columns=["A", "B"], rows=[1, 2], hex=[{"at": ["A1"], "level": limits.MAX_LEVEL},
                                                                {"at": ["B1"], "level": limits.MIN_LEVEL}]))
    t0 = time.perf_counter()
    svg = map_svg(m)
    assert svg.startswith("<svg") and time.perf_counter() - t0 < 10


# ------------------------------------------------------------------ crashes that are now clear errors

@pytest.mark.parametrize("mapdata, query, hint", [
    (None, {"kind": "los", "from": "HrA4@A3-A4", "to": "C7"}, "HrA4@A3-A4-B3"),
    (None, {"kind": "los", "from": "C7", "to": "HrA4@A3-A4"}, "HrA4@A3-A4-B3"),
    (base(rows=[0, 4]), {"kind": "los", "from": "A2@A1-A2", "to": "C3"}, "A2@A1-A2-B1"),
    (base(rows=[0, 4]), {"kind": "los", "from": "B0@B0-C0", "to": "C3"}, "B0@B0-C0-C1"),
    (base(rows=[0, 4]), {"kind": "tem", "target": "A2@A1-A2", "firer": "C3"}, "A2@A1-A2-B1"),
])
def test_a_hexside_form_bypass_on_an_edge_hex_gets_a_nameable_vertex_hint(
        mapdata: dict[str, object] | None, query: dict[str, object], hint: str) -> None:
    from asl_terrain.ask import answer_one

    m = Map.from_data(mapdata) if mapdata else Map.load(demo_map_path())
    ans = answer_one(m, query, debug=True)
    assert "vertex" in ans["error"] and ans["error"].endswith(f"e.g. {hint}"), ans


@pytest.mark.parametrize("kind", ["move", "path", "reach"])
@pytest.mark.parametrize("allowance, words", [
    (float("nan"), "expected a finite number"), (float("inf"), "expected a finite number"),
    (1e-300, "at most three decimals"), (1e6, "from 0 to 1000"), (-1, ">= 0"),
])
def test_an_allowance_that_is_no_usable_number_is_a_query_error(kind: str, allowance: float, words: str,
                                                                tmp_path: Path) -> None:
    q = {"move": {"kind": "move", "from": "M13", "to": "M12"}, "path": {"kind": "path", "hexes": ["M13", "M12"]},
         "reach": {"kind": "reach", "from": "M13"}}[kind] | {"allowance": allowance}
    p = tmp_path / "q.json"
    p.write_text(json.dumps([q]))  # json writes NaN and Infinity, as a careless program would
    r = run("ask", str(p))
    ans = json.loads(r.stdout)[0]
    assert r.returncode == 1 and ans["error"].startswith("allowance:") and words in ans["error"], ans
    assert "chart" not in ans["error"]


def test_a_crest_narrow_street_no_longer_reaches_the_engines(tmp_path: Path) -> None:
    """place-rubble and bypass-effects failed on an assertion; the map check now refuses the hexside."""
    p = tmp_path / "ns.toml"
    p.write_text('format = "asl-terrain/1"\ncolumns = ["A", "D"]\nrows = [1, 4]\n[[hex]]\nat = ["B2", "B3"]\n'
                 'terrain = "building"\nbuilding = "stone"\n[[hexside]]\nat = ["B2-B3"]\nnarrow_street = "paved"\n'
                 'crest = true\n')
    for argv in (["place-rubble", str(p), "B2"], ["bypass-effects", str(p), "B2-B3"], ["check", str(p)]):
        r = run(*argv)
        assert r.returncode == 2 and "neither is lower" in r.stderr, (argv, r.stderr)


# ------------------------------------------------------------------ the last rulings

def test_a_stream_woods_hex_entered_across_its_stream_hexside_names_p4_11() -> None:
    from asl_terrain.movement import move_cost

    m = Map.load(MAPS / "streams.toml")
    r = move_cost(m, "infantry", "MM5", "MM6")
    assert r.cost == 3 and "P4.11" in r.explain() and "stream hexside StMM5-MM6" in r.explain()


def test_the_inherent_stairwells_name_p5_2_and_p5_3() -> None:
    from asl_terrain.movement import move_cost

    m = Map.load(MAPS / "st_village.toml")
    house = move_cost(m, "infantry", "Q19", "Q19/1")
    assert house.cost == 1 and "(P5.3)" in house.items[0].why
    steeple = Map.from_data({"format": "asl-terrain/1", "prefix": "Ch", "columns": ["Z", "BB"], "rows": [9, 11],
                             "hex": [{"at": ["AA10"], "terrain": "building", "building": "stone", "steeple": True}]})
    s = move_cost(steeple, "infantry", "AA10", "AA10/1")
    assert s.cost == 1 and "steeple's inherent stairwell (P5.2)" in s.explain()


def test_the_p5_11_example_step_into_the_building_names_p5_11() -> None:
    from asl_terrain.movement import path

    m = Map.load(MAPS / "st_village.toml")
    r = path(m, "infantry", ["N17", {"bypass": "O18-N18", "in": "N18", "to_vertex": "N18-O18-O19"}, "O19"], 4)
    assert r.steps[1].cost == 2 and "(P5.11)" in r.steps[1].explain()


def test_paying_for_woods_protection_names_b3_43_as_what_loses_the_bonus() -> None:
    from asl_terrain.movement import path

    m = Map.load(MAPS / "b3_roads.toml")
    r = path(m, "infantry", ["L3", "K3", {"to": "J3", "protection": True}, "I3", "H3", "G3"], 4)
    assert not r.road_bonus and "B3.43" in r.steps[1].explain() and "protection" in (r.reason or "")
    assert r.steps[1].to_json()["road_bonus_lost_by"][0].startswith("it pays for the protection of the woods")


@pytest.mark.parametrize("extra, words", [
    ({"hexside": [{"at": ["C2-D2"], "fence": True}]}, "barbed-wire fence on C2-D2 (judgment fence_denies_road_bonus"),
    ({"counter": [{"type": "wreck", "at": "D2", "burning": True}]}, "a burning wreck in D2"),
    ({"counter": [{"type": "smoke", "at": "D2", "strength": 2}]}, "SMOKE in D2"),
])
def test_a_lost_road_bonus_names_what_spoiled_it(extra: dict[str, Any], words: str) -> None:
    from asl_terrain.movement import path

    sides = [{"at": ["B2-C2", "C2-D2", "D2-E2"], "road": "dirt"}, *extra.get("hexside", [])]
    m = Map.from_data(base(hexside=sides, counter=extra.get("counter", [])))
    r = path(m, "infantry", ["B2", "C2", "D2", "E2"], 4)
    assert not r.road_bonus and words in r.explain() and words in r.to_json()["road_bonus_lost"]
    assert words in " ".join(s.explain() for s in r.steps)  # the move that loses it says so too


def test_the_path_command_prints_what_spoiled_the_road_bonus(tmp_path: Path) -> None:
    p = tmp_path / "r.json"
    p.write_text(json.dumps(base(hexside=[{"at": ["B2-C2", "C2-D2", "D2-E2"], "road": "dirt"},
                                          {"at": ["C2-D2"], "fence": True}])))
    r = run("path", str(p), "B2", "C2", "D2", "E2", "--mf", "4")
    assert r.returncode == 0, r.stderr
    assert "fence_denies_road_bonus" in r.stdout.replace("\n", " ")


def test_the_blind_hex_text_names_the_blind_hex_and_the_obstacle_behind() -> None:
    from asl_terrain.los import los

    m = Map.load(demo_map_path())
    r = los(m, m.parse_location("K10/2"), m.parse_location("A1"))
    assert r.blind and r.blocked_by is not None and r.blocked_by.hex == m.parse_hex("C3")
    assert "HrA1 is a Blind Hex behind the woods at HrC3 (A6.4)" in r.explain()
    out = run("los", "K10/2", "A1")
    assert "a Blind Hex behind the woods at HrC3" in out.stdout.replace("\n", " ")


def test_import_vasl_never_writes_over_an_overlay_archive(tmp_path: Path) -> None:
    ovr = tmp_path / "ovr1.toml"
    ovr.write_bytes(b"PK overlay")
    r = run("import-vasl", "bd01", "--overlay", f"{ovr} F5 F4", "-o", str(ovr), "--force")
    assert r.returncode == 2 and "input files" in r.stderr and ovr.read_bytes() == b"PK overlay"


def test_a_png_over_the_pixel_limit_is_refused_before_drawing(tmp_path: Path) -> None:
    out = tmp_path / "big.png"
    r = run("render", "--size", "200", "-o", str(out))
    assert r.returncode == 2 and f"at most {limits.MAX_PNG_PIXELS:,}" in r.stderr and not out.exists()
    r = run("render", "--size", "200", "-o", str(tmp_path / "big.svg"))
    assert r.returncode == 0


def test_check_warns_of_a_stream_broken_by_a_missing_hex() -> None:
    """D1..D3 and D5..D8 run edge to edge but for D4: both ends next to the gap are warned of."""
    data = base(hex=[{"at": ["D1", "D2", "D3", "D5", "D6", "D7", "D8"], "stream": "shallow"}])
    warnings = map_warnings(data, "m.toml")
    assert [w.split()[2] for w in warnings] == ["D3", "D5"] and all("ends the stream" in w for w in warnings)
    data["hex"][0]["at"].append("D4")  # type: ignore[index]
    assert map_warnings(data, "m.toml") == []
