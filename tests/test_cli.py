"""The CLI as users meet it: the demo map by default, one clear line and exit status 2 for bad input,
never a traceback; `ask` exit statuses 0/1/2 (queries.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

MAPS = Path(__file__).parent / "maps"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "asl_terrain", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


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
    p.write_text("schema = 1\n")
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
