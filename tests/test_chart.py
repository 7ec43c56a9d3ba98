"""The terrain chart as data: loads, validates, is overridable, and every value names its rule."""

from __future__ import annotations

import re
from fractions import Fraction
from importlib.resources import files
from pathlib import Path

import pytest

from asl_terrain.chart import default_chart, load_chart, parse_chart
from asl_terrain.errors import ChartError

RULE = re.compile(r"^(A|B|C|D|E|O|P)?\.?\d+(\.\d+)*$")


def test_bundled_chart_loads_and_every_value_names_a_rule_and_tag() -> None:
    c = default_chart()
    rows = c.all_values()
    assert len(rows) > 100
    for where, _value, rule, tag in rows:
        assert tag in {"S", "V", "R", "U"}, where
        assert RULE.match(rule), f"{where}: rule {rule!r} is not a rule reference"


def test_seed_values_are_where_the_engines_look() -> None:
    c = default_chart()
    assert c.param("up_slope_mf").value == Fraction(1, 2) and c.param("up_slope_mf").rule == "P2.51"
    assert c.terrain["pine-woods"].mf["infantry"] == Fraction(3, 2)
    assert c.terrain["woods"].los["height"] == 1 and c.terrain["pine-woods"].los["height"] == 2
    assert c.building_height["single-hex-two-story-house"].value == Fraction(3, 2)
    assert c.hexside["road-paved"].mp["fully-tracked"] == Fraction(1, 2)


def test_uncertain_values_are_marked() -> None:
    uncertain = [w for w, _, _, tag in default_chart().all_values() if tag == "U"]
    assert "param.vbm_factor" in uncertain


def test_override_file_replaces_the_chart(tmp_path: Path) -> None:
    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text()
    text = text.replace('up_slope_mf = { value = 0.5,', 'up_slope_mf = { value = 1,')
    p = tmp_path / "mine.toml"
    p.write_text(text)
    assert load_chart(str(p)).param("up_slope_mf").value == 1


@pytest.mark.parametrize("text, words", [
    ("schema = ", "not valid TOML"),
    ("schema = 1", "terrain"),
])
def test_bad_charts_are_refused(text: str, words: str) -> None:
    with pytest.raises(ChartError, match=words):
        parse_chart(text, "mine.toml")


def test_a_negative_cost_is_refused() -> None:
    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text()
    text = text.replace("mf = { infantry = 2, cavalry = 4,", "mf = { infantry = -2, cavalry = 4,", 1)
    with pytest.raises(ChartError, match="cannot be negative"):
        parse_chart(text, "mine.toml")


def test_missing_param_names_it() -> None:
    with pytest.raises(ChartError, match="no param.nonesuch"):
        default_chart().param("nonesuch")
