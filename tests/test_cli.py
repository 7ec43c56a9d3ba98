"""The CLI as users meet it: the demo map by default, one clear line and exit status 2 for bad input,
never a traceback; `ask` exit statuses 0/1/2 (queries.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import clirun
from asl_terrain.cli import COMMAND_MODULES

MAPS = Path(__file__).parent / "maps"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return clirun.run(*args, stdin=stdin)


def test_render_demo_map_png(tmp_path: Path) -> None:
    out = tmp_path / "demo.png"
    r = run("render", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_render_a_fixture_map_svg(tmp_path: Path) -> None:
    out = tmp_path / "v.svg"
    r = run("render", str(MAPS / "st_village.toml"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "<svg" in out.read_text()


def test_check_reports_ok() -> None:
    r = run("check", str(MAPS / "p2_slopes.toml"))
    assert r.returncode == 0 and "OK" in r.stdout


@pytest.mark.parametrize("content, words", [
    ('format = "asl-terrain/1"\ncolumns = ["A", "D"]\nrows = [1, 5]\n[[hex]]\nat = ["Q9"]\n', "off the map"),
    ('format = "asl-terrain/1"\ncolumns = ["A", "D"]\nrows = [1, 5]\ncolour = 1\n', "unknown key"),
    ("format = ", "not valid TOML"),
])
def test_bad_map_one_line_exit_2(tmp_path: Path, content: str, words: str) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(content)
    r = run("check", str(p))
    assert r.returncode == 2
    assert words in r.stderr and "Traceback" not in r.stderr and str(p) in r.stderr


def test_missing_map_file_exit_2(tmp_path: Path) -> None:
    r = run("render", str(tmp_path / "nope.toml"), "-o", str(tmp_path / "x.svg"))
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr


def test_schema_is_json_schema() -> None:
    r = run("schema")
    schema = json.loads(r.stdout)
    assert schema["title"].startswith("asl-terrain map file") and "hex" in schema["properties"]


def test_chart_lists_uncertain_values() -> None:
    r = run("chart", "--uncertain")
    assert r.returncode == 0 and "vbm_factor" in r.stdout


def test_bad_chart_override_exit_2(tmp_path: Path) -> None:
    p = tmp_path / "c.toml"
    # a user's chart is merged over the bundled one (issue 9), so "schema = 1" alone is now a valid chart
    p.write_text("schema = 1\n[param]\nstacking_squads = -3\n")
    r = run("--chart", str(p), "chart")
    assert r.returncode == 2 and "c.toml" in r.stderr and "Traceback" not in r.stderr


def test_ask_exit_statuses(tmp_path: Path) -> None:
    q = tmp_path / "q.json"
    q.write_text("[]")
    assert run("ask", str(q)).returncode == 0
    q.write_text(json.dumps([{"kind": "frobnicate"}, {"nokind": 1}, 7]))
    r = run("ask", str(q))
    answers = json.loads(r.stdout)
    assert r.returncode == 1 and len(answers) == 3 and all("error" in a for a in answers)
    assert "unknown kind 'frobnicate'" in answers[0]["error"]
    q.write_text("[{")
    r = run("ask", str(q))
    assert r.returncode == 2 and "not valid JSON" in r.stderr and "Traceback" not in r.stderr
    r = run("ask", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_ask_reads_stdin() -> None:
    r = run("ask", "-", stdin="[]")
    assert r.returncode == 0 and json.loads(r.stdout) == []


def test_unknown_command_is_a_usage_error() -> None:
    r = run("frobnicate")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_ask_conditions_must_be_an_object(tmp_path: Path) -> None:
    """Regression: a string "conditions" gave an internal error instead of an error answer."""
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{"kind": "los", "from": "HrW2", "to": "HrW6", "conditions": "rain"},
                             {"kind": "los", "from": "HrW2", "to": "HrW6", "conditions": {"month": 13}}]))
    r = run("ask", str(q))
    answers = json.loads(r.stdout)
    assert r.returncode == 1
    assert "conditions: expected an object" in answers[0]["error"]
    assert answers[1]["error"].startswith("conditions:")


# ------------------------------------------------------------------------------------ review regressions

DEMO_ENV = {**os.environ, "COLUMNS": "1000"}


def run_wide(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI with a wide console, so that no line is wrapped."""
    return clirun.run(*args, env=DEMO_ENV)


def one_error_line(r: subprocess.CompletedProcess[str]) -> str:
    """The single non-blank stderr line of a refused command (exit status 2, no traceback, nothing on stdout)."""
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert len(lines) == 1 and lines[0].startswith("error:"), r.stderr
    assert "Traceback" not in r.stderr and not r.stdout.strip(), (r.stdout, r.stderr)
    return lines[0]


@pytest.mark.parametrize("value, text", [
    (0.5, "½"), (1.5, "1½"), (3.75, "3¾"), (-0.5, "-½"), (-1.25, "-1¼"), (2.0, "2"), (16, "16"),
    (0.333333, "⅓"), (Fraction(2, 3), "⅔"), (0.1234, "0.1234"), (True, "yes"), (False, "no"), (None, "-"),
    ([], "none"), (["HrI14", "HrH13"], "HrI14, HrH13"), ({"from": True, "to": 0.75}, "from yes, to ¾"),
    ({"hex": "HrJ12", "terrain": "single-story house", "rule": "A6.2"}, "single-story house at HrJ12 (A6.2)"),
    ({"hexside": "HrI4-J4", "terrain": "wall", "rule": "B9.2"}, "wall at HrI4-J4 (B9.2)"),
])
def test_format_value_reads_as_a_player_writes(value: object, text: str) -> None:
    """Regression: dicts and lists printed as Python reprs ({'from': False, ...}), thirds as 0.333333."""
    from asl_terrain.cli import format_value

    assert format_value(value) == text


def test_los_prints_objects_and_fractions_readably() -> None:
    """Regression: `los` printed blocked_by, up_slope and elevations as Python dicts, and its hindrance items
    under a COST column with "-" for the DRM."""
    up = run_wide("los", "W2", "W6")
    assert up.returncode == 0, up.stderr
    assert "elevations: from 3¾, to 2" in up.stdout and "up_slope: from yes, to no" in up.stdout
    assert "roadblocks_crossed: none" in up.stdout
    blocked = run_wide("los", "I14", "K11")
    assert "blocked_by: single-story house at HrJ12 (A6.2)" in blocked.stdout
    assert "{'" not in blocked.stdout + up.stdout and "False" not in blocked.stdout + up.stdout
    header = next(line for line in blocked.stdout.splitlines() if "why" in line)
    assert "DRM" in header and "COST" not in header
    assert re.search(r"\+1 .*orchard in HrI13 .*B14\.2", blocked.stdout), blocked.stdout


def test_move_items_are_headed_by_the_units() -> None:
    r = run_wide("move", "S7", "T6", "--mf", "4")
    assert r.returncode == 0, r.stderr
    header = next(line for line in r.stdout.splitlines() if "why" in line)
    assert "MF" in header and "1½" in r.stdout


@pytest.mark.parametrize("argv", [
    ["render", "-o", "{d}/x.jpg"],
    ["reach", "M13", "-o", "{d}/x.gif"],
    ["los", "W2", "W6", "-o", "{d}/x.pdf"],
    ["viewshed", "K10/2", "-o", "{d}/x"],
    ["render", "-o", "{d}/no/such/dir/x.png"],
    ["los", "W2", "W6", "-o", "{d}/no/such/dir/x.svg"],
])
def test_bad_picture_file_is_one_line_exit_2(tmp_path: Path, argv: list[str]) -> None:
    """Regression: `-o x.jpg` or `-o` into a missing directory was an "internal error" (exit 3), after all the
    work was done."""
    line = one_error_line(run(*(a.format(d=tmp_path) for a in argv)))
    assert "-o" in line and (".svg or .png" in line or "no such directory" in line)
    assert not any(tmp_path.rglob("x*"))


@pytest.mark.parametrize("argv, words", [
    (["move"], "Missing argument"),
    (["tem"], "--target"),
    (["move", "H13", "I14", "--frob"], "--frob"),
    (["move", "H13", "I14", "--vca", "9"], "--vca"),
    (["schema", "extra"], "extra"),
])
def test_usage_errors_are_one_line_naming_the_help(argv: list[str], words: str) -> None:
    """Regression: click's usage errors took four lines (usage, hint, blank, error)."""
    line = one_error_line(run(*argv))
    assert words in line and f"asl-terrain {argv[0]} --help" in line


def test_no_arguments_still_shows_the_help() -> None:
    r = run()
    assert "Usage: asl-terrain" in r.stdout + r.stderr and "move" in r.stdout + r.stderr


@pytest.mark.parametrize("argv, words", [
    (["move", "H13", "I14", "J15"], "one too many, unless the first is a map file"),
    (["move", "H13", "I14", "--dash", "true"], "got 3: H13 I14 true"),
    (["tem", "K14", "--target", "K14"], "at most a map file"),
    (["reach", str(MAPS / "p2_slopes.toml")], "expected FROM after the map file"),
    (["move", str(MAPS / "p2_slopes.toml"), "H13"], "got 1: H13"),
    (["path", "H13"], "at least one step"),
    (["end-of-player-turn", str(MAPS / "streams.toml")], "at least one Location"),
])
def test_wrong_argument_counts_name_what_was_expected(argv: list[str], words: str) -> None:
    """Regression: a surplus argument was read as a map file ("H13: cannot read the map file"), and a map
    file with too few arguments was reported as "expected 2, got 2"."""
    assert words in one_error_line(run(*argv))


@pytest.mark.parametrize("argv, words", [
    (["remove", "roadblock", "--method", "clearance"], "missing --hexside"),
    (["setup", "entrenchment"], "missing AT"),
])
def test_a_missing_value_is_named_as_the_command_line_spells_it(argv: list[str], words: str) -> None:
    """Regression: the CLI said "missing key 'hexside'" (the batch's word) for a missing --hexside option."""
    assert words in one_error_line(run(*argv))


def test_move_takes_mf_like_path_and_reach() -> None:
    ok = run_wide("move", "S7", "T6", "--mp", "4", "--unit", "vehicle")
    assert ok.returncode == 0, ok.stderr
    assert "give one of --allowance, --mf, --mp" in one_error_line(run("move", "S7", "T6", "--mf", "4",
                                                                       "--allowance", "3"))


def test_viewshed_groups_hindered_locations_and_its_picture_has_a_legend(tmp_path: Path) -> None:
    out = tmp_path / "v.svg"
    r = run_wide("viewshed", "K10/2", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "visible: 309 Locations, 39 of them through Hindrances" in r.stdout
    assert re.search(r"^\s+\+3 \(34\): HrL11, HrL12", r.stdout, re.M), r.stdout
    assert "untinted: not seen" in out.read_text()


# The CLI builds the query the batch takes: the same ruling, word for word, on the demo map.
_AGREE = [
    (["move", "HrS7", "HrT6"], {"kind": "move", "unit": "infantry", "from": "HrS7", "to": "HrT6"}),
    (["move", "V4", "V3", "--unit", "vehicle"], {"kind": "move", "unit": "vehicle", "from": "HrV4", "to": "HrV3"}),
    (["move", "L11", "--bypass", "L11-L12", "--to-vertex", "K12-L11-L12", "--unit", "vehicle"],
     {"kind": "move", "unit": "vehicle", "from": "HrL11", "bypass": "HrL11-L12", "to_vertex": "HrK12-L11-L12"}),
    (["path", "M18", "M17", "M16", "M15", "M14", "--mf", "4"],
     {"kind": "path", "unit": "infantry", "hexes": ["M18", "M17", "M16", "M15", "M14"], "allowance": 4}),
    (["reach", "L11", "--mf", "2"], {"kind": "reach", "unit": "infantry", "from": "L11", "allowance": 2}),
    (["los", "K10/2", "R12"], {"kind": "los", "from": "K10/2", "to": "R12"}),
    (["viewshed", "K10/2"], {"kind": "viewshed", "from": "K10/2"}),
    (["tem", "-t", "K11", "-f", "M11"], {"kind": "tem", "target": "K11", "firer": "M11"}),
    (["setup", "mines", "L12", "--mine-kind", "A-P", "--hidden"],
     {"kind": "setup", "item": "mines", "at": "L12", "mine_kind": "A-P", "hidden": True}),
    (["stacking", "K10/2", "--unit", "squad"], {"kind": "stacking", "at": "K10/2", "units": ["squad"]}),
    (["bypass-effects", "L11-L12"], {"kind": "bypass-effects", "hexside": "L11-L12"}),
    (["tca-change", "--bu"], {"kind": "tca-change", "unit": {"type": "vehicle", "caliber": 75, "barrel": "L",
                                                             "buttoned_up": True}}),
    (["vca-change", "L11@K11-L11", "--while-bypassing"],
     {"kind": "vca-change", "unit": "vehicle", "at": "L11@K11-L11", "hexspines": 3, "while_bypassing": True}),
    (["place-rubble", "K11"], {"kind": "place-rubble", "at": "K11"}),
    (["remove", "roadblock", "--hexside", "K11-K12", "--method", "clearance", "--from", "J11"],
     {"kind": "remove", "what": "roadblock", "hexside": "K11-K12", "method": "clearance", "from": "J11"}),
    (["street-fighting", "K12@K12-L12", "L12"], {"kind": "street-fighting", "vehicle": "K12@K12-L12",
                                                 "attacker": "L12"}),
    (["load", "K12@K12-L12", "K12", "--what", "mortar"],
     {"kind": "load", "vehicle": "K12@K12-L12", "from": "K12", "what": "mortar"}),
    (["unload", "K12@K12-L12", "L12"], {"kind": "unload", "vehicle": "K12@K12-L12", "to": "L12", "what": "squad"}),
    (["unhook", "K12@K12-L12", "--what", "trailer"], {"kind": "unhook", "vehicle": "K12@K12-L12",
                                                      "what": "trailer", "by": "crew"}),
    (["sniper-target", "F8/culvert"], {"kind": "sniper-target", "at": "F8/culvert"}),
    (["end-of-player-turn", "F8/culvert", "E8"],
     {"kind": "end-of-player-turn", "units": [{"type": "infantry", "at": "F8/culvert"},
                                              {"type": "infantry", "at": "E8"}]}),
    (["rubble-drm", "K10/1"], {"kind": "rubble-drm", "at": "K10/1"}),
]


def test_cli_and_ask_agree_on_the_demo_map() -> None:
    """Each subcommand prints the explanation `ask` gives for the same query (and `ask` answers it)."""
    r = run("ask", "-", stdin=json.dumps([q for _, q in _AGREE]))
    answers = json.loads(r.stdout)
    assert r.returncode == 0, [a for a in answers if "error" in a]
    for (argv, _), ans in zip(_AGREE, answers, strict=True):
        c = run_wide(*argv)
        assert c.returncode == 0, (argv, c.stderr)
        assert " ".join(ans["explain"].split()) in " ".join(c.stdout.split()), (argv, ans["explain"], c.stdout)


def test_every_command_help_shows_an_example() -> None:
    """Each `asl-terrain COMMAND --help` shows at least one example command line."""
    import typer
    from typer.testing import CliRunner

    from asl_terrain.cli import app

    names = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert len(names) >= 27
    runner = CliRunner()
    for name in names:
        out = runner.invoke(app, [name, "--help"], env={"COLUMNS": "200"}).output
        assert "Example" in out and f"asl-terrain {name}" in out, name


def test_import_vasl_refuses_a_bad_output_before_reading_boards(tmp_path: Path) -> None:
    """Regression: `-o` into a missing directory was an internal error after the import."""
    assert "no such directory" in one_error_line(run("import-vasl", "bd01", "-o", str(tmp_path / "no" / "x.toml")))
    assert "ending in .toml" in one_error_line(run("import-vasl", "bd01", "-o", str(tmp_path / "x.txt")))
    f = tmp_path / "f.txt"
    f.write_text("")
    assert "expected a directory" in one_error_line(run("vasl-check", str(MAPS / "p2_slopes.toml"), "bd01",
                                                        "--out", str(f)))


def _help_examples(name: str) -> list[str]:
    """The example command lines of ``asl-terrain NAME --help`` that can run here: placeholders for the
    user's own files (mymap.toml, mine.toml) are left out, and the VASL examples need the VASL data."""
    from typer.testing import CliRunner

    from asl_terrain import vasl
    from asl_terrain.cli import app

    help_text = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "250"}).output
    lines = []
    for line in help_text.splitlines():
        line = line.strip(" │")
        if not line.startswith("asl-terrain ") or "mymap.toml" in line or "mine.toml" in line:
            continue
        if ("vasl" in line or "bd01" in line) and vasl.vasl_data_dir() is None:
            continue
        lines.append(line)
    return lines


def test_the_help_texts_show_examples() -> None:
    from asl_terrain import cli

    assert sum(len(_help_examples(name)) for name in cli.COMMAND_MODULES) >= 40


@pytest.mark.parametrize("name", sorted(COMMAND_MODULES))
def test_every_help_example_runs(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example command lines of every `--help` run on the demo map (in a scratch directory), so that
    no example goes stale; one test per command, so that the workers share them out."""
    import shlex

    from typer.testing import CliRunner

    from asl_terrain.cli import app

    repo = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def argv_of(line: str) -> list[str]:
        argv = shlex.split(re.split(r"\s{2,}\(", line)[0].split(" > ")[0])[1:]
        return [str(repo / a) if a.startswith("examples/") else a for a in argv]

    # a map another command's example writes (`import-vasl bd01 -o bd01.toml`) is made first
    makers = {a[a.index("-o") + 1]: a for a in map(argv_of, _help_examples("import-vasl")) if "-o" in a[:-1]}
    for line in _help_examples(name):
        argv = argv_of(line)
        for needed in argv:
            if needed in makers and not (tmp_path / needed).exists() and makers[needed] != argv:
                made = runner.invoke(app, makers[needed])
                assert made.exit_code == 0, (makers[needed], made.output)
        res = runner.invoke(app, argv)
        assert res.exit_code == 0, (line, res.output, res.exception)


def test_the_installed_entry_point_in_a_real_process() -> None:
    """End to end, as a shell runs it: the rest of the CLI tests run in-process (tests/clirun.py)."""
    ok = clirun.run_subprocess("los", "W2", "W6")
    assert ok.returncode == 0 and "clear" in ok.stdout.lower(), ok.stderr
    bad = clirun.run_subprocess("los", "W2", "ZZ99")
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr


def test_the_command_table_names_the_module_of_every_command() -> None:
    """`asl-terrain CMD` imports only CMD's module (cli.COMMAND_MODULES): the table must match the
    registrations, or a command would be missing from a narrowed run."""
    from asl_terrain import cli

    registered = {(c.name or c.callback.__name__.replace("_", "-")): c.callback.__module__.rsplit(".", 1)[-1]
                  for c in cli.app.registered_commands}
    assert registered == cli.COMMAND_MODULES


def test_one_command_imports_only_its_own_module() -> None:
    """Start-up (issue 13): `los` on the demo map imports cli.los only (past the root options) and typer
    builds that one command (not viewshed, defined beside it); the next command of that module still runs
    in the same process; --help and an unknown command still see every command."""
    code = ("import sys; sys.argv = ['asl-terrain', '--debug', 'los', 'W2', 'W6']\n"
            "import typer.main as tm\n"
            "built = []\n"
            "real = tm.get_command_from_info\n"
            "def counted(*a, **kw):\n"
            "    built.append((a[0] if a else kw['command_info']).name)\n"
            "    return real(*a, **kw)\n"
            "tm.get_command_from_info = counted\n"
            "from asl_terrain import cli\n"
            "for argv in (['los', 'W2', 'W6'], ['viewshed', 'W2']):\n"
            "    sys.argv = ['asl-terrain', '--debug', *argv]\n"
            "    try:\n        cli.main()\n    except SystemExit:\n        pass\n"
            "print(built)\n"
            "print(sorted(m for m in sys.modules if m.startswith('asl_terrain.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "clear: yes" in out and out.splitlines()[-1] == \
        "['asl_terrain.cli._app', 'asl_terrain.cli.los', 'asl_terrain.cli.plain', 'asl_terrain.cli.quick']", out
    assert "visible:" in out and out.splitlines()[-2] == "['los', 'viewshed']", out
    helped = clirun.run_subprocess("--help")
    assert helped.returncode == 0 and "tem" in helped.stdout and "los-table" in helped.stdout
    typo = clirun.run_subprocess("tme", "W2")
    assert typo.returncode == 2 and "tme" in typo.stderr


def test_a_one_shot_command_runs_with_the_collector_paused() -> None:
    """Start-up (issue 13): `los`, `viewshed` and `move` (quick path or typer's) run with the cyclic collector
    off and turn it back on (a user error too); `tem` leaves it alone. Called in a program that goes on, nothing
    stays frozen; called by the entry point (the process ends next), what the command built is frozen."""
    code = ("import gc, sys\n"
            "from asl_terrain import cli\n"
            "from asl_terrain.cli import quick\n"
            "seen = []\n"
            "for name in ('run_los', 'run_move'):\n"
            "    real = getattr(quick, name)\n"
            "    def spy(*a, real=real, **kw):\n"
            "        seen.append(gc.isenabled())\n"
            "        return real(*a, **kw)\n"
            "    setattr(quick, name, spy)\n"
            "for argv in (['los', 'W2', 'W6'], ['--debug', 'los', 'W2', 'W6', '--force'], ['move', 'M13', 'M12'],\n"
            "             ['tem', 'W2'], ['los', 'W2', 'Q99'], ['los', 'W2', 'W7', 'end']):\n"
            "    sys.argv = ['asl-terrain', *(argv[:-1] if argv[-1] == 'end' else argv)]\n"
            "    try:\n        cli.main(ends_process=argv[-1] == 'end')\n    except SystemExit:\n        pass\n"
            "    print(argv[-3:], seen[-1:] if argv[0] != 'tem' else '-', gc.isenabled(), gc.get_freeze_count() > 0)\n"
            "    seen.clear()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert [x for x in lines if x.startswith("[")] == [
        "['los', 'W2', 'W6'] [False] True False", "['W2', 'W6', '--force'] [False] True False",
        "['move', 'M13', 'M12'] [False] True False", "['tem', 'W2'] - True False",
        "['los', 'W2', 'Q99'] [False] True False", "['W2', 'W7', 'end'] [False] True True"], out


def test_the_entry_point_keeps_openblas_to_one_thread_unless_told() -> None:
    """Start-up (issue 13): the console entry point loads numpy's OpenBLAS with one thread (its thread pool
    was ~40 ms of CPU a start, for linear algebra no command does), unless OPENBLAS_NUM_THREADS is set."""
    code = ("import os, sys\nfrom asl_terrain.__main__ import run\nsys.argv = ['asl-terrain', 'los', 'W2', 'W6']\n"
            "try:\n    run()\nexcept SystemExit:\n    pass\nprint(os.environ.get('OPENBLAS_NUM_THREADS'))\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for preset, want in ((None, "1"), ("3", "3")):
        e = env if preset is None else {**env, "OPENBLAS_NUM_THREADS": preset}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=e).stdout
        assert "clear: yes" in out and out.splitlines()[-1] == want, out


def test_a_module_imported_while_a_command_runs_keeps_its_commands(tmp_path: Path) -> None:
    """Regression (start-up narrowing, issue 13): `los -o` imports cli.core while it runs; core's commands
    must still be registered for the next command of the same process."""
    code = ("import sys\nfrom asl_terrain import cli\n"
            f"for argv in (['los', 'W2', 'W6', '-o', {str(tmp_path / 'a.svg')!r}], "
            f"['render', '-o', {str(tmp_path / 'b.svg')!r}]):\n"
            "    sys.argv = ['asl-terrain', *argv]\n"
            "    try:\n        cli.main()\n    except SystemExit as e:\n        print('exit', e.code)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and "exit" not in r.stdout, r.stdout + r.stderr
    assert (tmp_path / "a.svg").exists() and (tmp_path / "b.svg").exists()


QUICK_CASES = [["los", "W2", "W6"], ["los", "I14", "K11"], ["los", "V2", "V6"], ["move", "M13", "M12"],
               ["move", "S7", "T6"], ["move", "V4", "V3"], ["los", "W2"], ["los", "W2", "W6", "W7"],
               ["los", "ZZ99", "W6"],
               ["los", "nofile.toml", "W2", "W6"], ["move", str(MAPS / "st_village.toml"), "O17", "N17"],
               ["los", str(MAPS / "st_village.toml"), "O17", "P17"], ["move", "M13"], ["los", "", "W6"],
               ["reach", "M13", "--mf", "4"], ["reach", "M5", "--unit", "vehicle", "--limit", "5"],
               ["reach", "--limit", "3", "-u", "cavalry", "M13"], ["reach", "M13", "--mf", "4", "--mp", "3"],
               ["reach", "ZZ99"], ["reach", "M13", "--unit", "tank"], ["reach", "nofile.toml", "M13"],
               ["reach", str(MAPS / "st_village.toml"), "O17", "--allowance", "2.5", "--limit", "0"],
               ["reach", "M13", "M14"], ["reach", "M13", "--unit", '{"type": "vehicle", "mp": 6}']]


@pytest.mark.parametrize("argv", QUICK_CASES, ids=" ".join)
def test_the_quick_path_answers_as_typer_does(argv: list[str]) -> None:
    """Start-up (issue 13): `los`/`move` with Locations only are answered without typer (cli.quick); the
    output, errors and exit status are typer's (a root option sends the same line through typer)."""
    from asl_terrain import cli

    assert cli._quick_of(argv) is not None and cli._quick_of(["--debug", *argv]) is None
    quick, typed = run(*argv), run("--debug", *argv)
    assert (quick.returncode, quick.stdout, quick.stderr) == (typed.returncode, typed.stdout, typed.stderr)


def test_the_quick_path_imports_no_typer_and_options_go_through_typer() -> None:
    code = ("import sys\nfrom asl_terrain import cli\nsys.argv = ['asl-terrain', 'move', 'M13', 'M12']\n"
            "cli.main()\nprint('typer' in sys.modules, 'rich.console' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    # the answer (with its items table) written as plain text on a pipe: nor typer nor rich's console
    assert "allowed: yes" in out and "┏" in out and out.splitlines()[-1] == "False False", out
    from asl_terrain import cli

    for argv in (["los", "W2", "W6", "-o", "x.png"], ["move", "M13", "M12", "--unit", "vehicle"], ["los"],
                 ["los", "--help"], ["viewshed", "W2"], ["--chart", "c.toml", "los", "W2", "W6"],
                 ["reach", "M13", "-o", "x.png"], ["reach", "M13", "--unit=vehicle"], ["reach", "M13", "--paths"],
                 ["reach"], ["reach", "--unit", "vehicle"], ["reach", "M13", "--limit", "x"],
                 ["reach", "M13", "--mf"], ["reach", "M13", "--smoke", "M12"], ["reach", "M13", "--help"]):
        assert cli._quick_of(argv) is None, argv


def test_a_viewshed_written_on_a_pipe_imports_no_rich_console() -> None:
    """Start-up (issue 13): viewshed's lines (visible, each DRM's Locations) go through cli.plain as well."""
    code = ("import sys\nfrom asl_terrain import cli\nsys.argv = ['asl-terrain', 'viewshed', 'K10/2']\n"
            "cli.main()\nprint('rich.console' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.startswith("visible: 309 Locations, 39 of them through Hindrances\n  +3 (34): HrL11,") and \
        out.splitlines()[-1] == "False", out


def test_the_quick_answers_take_the_commands_defaults() -> None:
    """cli.quick's run_los/run_move defaults are the typer commands' option defaults."""
    import inspect

    import typer.main

    from asl_terrain import cli
    from asl_terrain.cli import quick

    group = typer.main.get_command(cli.app)
    for name, fn in (("los", quick.run_los), ("move", quick.run_move)):
        params = {p.name: p for p in group.commands[name].params}  # type: ignore[attr-defined]
        sig = inspect.signature(fn).parameters
        for pname, p in sig.items():
            if pname in ("args", "what_if"):
                continue
            assert params[pname].default == p.default, (name, pname)
        assert set(params) - set(sig) == {"smoke", "wreck", "vehicle", "rubble", "ssr"}, name
    params = {p.name: p for p in group.commands["reach"].params}  # type: ignore[attr-defined]
    sig = inspect.signature(quick.run_reach).parameters
    for pname, p in sig.items():
        if pname not in ("args", "what_if"):
            assert params[pname].default == p.default, ("reach", pname)
    # the quick path reads only these: -o and its options go through typer
    assert set(params) - set(sig) == {"output", "paths", "size", "force", "smoke", "wreck", "vehicle", "rubble",
                                      "ssr"}
    assert {k for k, _ in cli._REACH_OPTIONS.values()} == set(sig) - {"args", "what_if"}


# ------------------------------------------------------------------ answers written without rich's console

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;()+-=/'½¾—é",
                min_size=1, max_size=14)
_TEXT = st.lists(st.one_of(_WORD, st.just(" "), st.just("  "), st.just("\n"), st.just("Supercalifragilisticexpi"
                                                                                          "alidocious-x")),
                 max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=4), st.lists(st.tuples(_TEXT, _TEXT, _TEXT), max_size=5),
       st.tuples(_WORD, _WORD, _WORD), st.integers(16, 140), st.data())
def test_plain_answers_are_the_bytes_rich_writes(lines: list[str], rows: list[tuple[str, str, str]],
                                                 headers: tuple[str, str, str], width: int, data: Any) -> None:
    """Start-up (issue 13): an answer written by cli.plain (without importing rich's console) is exactly
    what rich writes to a file that is not a terminal: lines wrapped and folded, tables laid out (columns
    measured and collapsed, cells wrapped, cut with an ellipsis, justified), at every width."""
    import io

    from rich.console import Console
    from rich.markup import escape

    from asl_terrain.cli.plain import Printed

    p = Printed()
    for text in lines[:2]:
        p.line(text, lambda text=text: escape(text))  # type: ignore[misc]
    if rows:
        p.table(headers, ("right", "left", "left"), rows)
    for text in lines[2:]:
        p.line(text, lambda text=text: f"[italic]{escape(text)}[/]")  # type: ignore[misc]
    plain = p.render(width)
    assume(plain is not None)
    buf = io.StringIO()
    p.print_through(Console(file=buf, width=width, highlight=False))
    assert plain == buf.getvalue()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT, _TEXT), min_size=1, max_size=4), st.tuples(_WORD, _WORD, _WORD),
       st.lists(_WORD, min_size=1, max_size=6).map(" ".join), st.integers(16, 140))
def test_plain_titled_tables_are_the_bytes_rich_writes(rows: list[tuple[str, str, str]],
                                                       headers: tuple[str, str, str], title: str,
                                                       width: int) -> None:
    """A table with a title (the reach table's "reach from ..."), written by cli.plain, is exactly what rich
    writes: the title centred over the table's width (plain refuses a title longer than the table)."""
    import io

    from rich.console import Console

    from asl_terrain.cli.plain import Printed

    p = Printed()
    p.table(headers, ("left", "right", "left"), rows, title=title)
    plain = p.render(width)
    assume(plain is not None)
    buf = io.StringIO()
    p.print_through(Console(file=buf, width=width, highlight=False))
    assert plain == buf.getvalue()
    assert plain.splitlines()[0].strip() == title  # the title's line, above the box


_ANSWERED = [["move", "M13", "M12"], ["move", "M13", "M14"], ["move", "A1", "B1"], ["move", "W2", "W3"],
             ["move", "I14", "H13"], ["move", "HrI5", "HrI6"], ["los", "W2", "W6"], ["los", "A1", "Q10"],
             ["los", "I5", "P5"], ["los", "M13", "Q13"], ["los", "B2", "GG9"], ["tem", "M13"], ["tem", "I5"],
             ["los", "M13", "M12", "--ssr", "no-roads"], ["viewshed", "K10/2"], ["viewshed", "W2", "--level", "1"],
             ["viewshed", "K10/2", "--smoke", "K9"], ["reach", "M13", "--mf", "3"],
             ["reach", "M5", "--unit", "vehicle", "--limit", "4"]]


@pytest.mark.parametrize("columns", ["80", "44", "130"])
def test_cli_answers_written_plain_equal_rich_ones(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same command lines answered with cli.plain writing the answer and with rich writing it (plain
    refused) give the same stdout, stderr and exit status."""
    from asl_terrain.cli import plain

    env = {**os.environ, "COLUMNS": columns}
    written = [clirun.run(*argv, env=env) for argv in _ANSWERED]
    assert sum("┏" in r.stdout for r in written) >= 6  # tables among them
    monkeypatch.setattr(plain.Printed, "render", lambda self, w: None)
    for argv, r in zip(_ANSWERED, written):
        rich_r = clirun.run(*argv, env=env)
        assert (r.returncode, r.stdout, r.stderr) == (rich_r.returncode, rich_r.stdout, rich_r.stderr), argv


def test_plain_is_refused_where_rich_would_change_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from asl_terrain.cli import plain

    p = plain.Printed()
    p.line("ok text", lambda: "ok text")
    assert p.render(80) == "ok text\n"
    for text in ("a :smile: b", "tab\there", "a [bold]b", "back\\slash", "cr\rx"):
        q = plain.Printed()
        q.line(text, lambda: text)
        assert q.render(80) is None, text
    monkeypatch.setattr(plain, "FORCED_WIDTH", None)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert plain.width() is None
