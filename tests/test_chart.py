"""The terrain chart as data: loads, validates, is overridable, and every value names its rule."""

from __future__ import annotations

import re
from fractions import Fraction
from importlib.resources import files
from pathlib import Path
from typing import Any, Callable

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


# ------------------------------------------------------------------ a user's chart, merged and validated (issue 9)

def _user_chart(tmp_path: Path, text: str | bytes) -> str:
    p = tmp_path / "mine.toml"
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    load_chart.cache_clear()
    return str(p)


def test_a_user_chart_is_merged_over_the_bundled_one(tmp_path: Path) -> None:
    """A user corrects only the values they know: the rest (open ground, woods, rules and tags) stays."""
    c = load_chart(_user_chart(tmp_path, "[param]\nstacking_squads = 4\n[terrain.woods.mf]\ninfantry = 3\n"))
    assert c.param("stacking_squads").value == 4 and c.param("stacking_squads").rule == "A5.1"
    assert c.terrain["woods"].mf["infantry"] == 3 and c.terrain["woods"].mf["cavalry"] == 4
    assert c.terrain["woods"].mf.rule == "B13.4"
    assert c.terrain["open"].mf["infantry"] == 1 and c.terrain["woods"].los["role"] == "obstacle"
    assert c.source.endswith("mine.toml")


@pytest.mark.parametrize("text, words", [
    ("[param]\nstacking_squads = -3\n", "param.stacking_squads.value: cannot be negative"),
    ("[param]\nblind_hex_range_step = { value = 0 }\n",
     "param.blind_hex_range_step.value: expected a whole number from 1"),
    ("[param]\nborderline_tolerance = 1e300\n", "param.borderline_tolerance.value: expected a number from 0 to 0.5"),
    ("[param]\ngrain_season = [\"June\"]\n", "param.grain_season.value[0]: expected a month"),
    ("[param]\nup_slope_mf = \"half\"\n", "param.up_slope_mf.value: expected a number"),
    ("[param]\nnonesuch = 1\n", "param.nonesuch: unknown entry"),
    ("[terrain.woods]\nlos = { role = \"obstakle\" }\n", "terrain.woods.los.role: expected a LOS role"),
    ("[terrain.open.los]\nrole = \"obstacle\"\n",
     "terrain.open.los.role: 'obstacle' stands as high as the entry's height, which it has not; expected one of none"),
    ("[terrain.woods]\nmf = { infantry = [2] }\n", "terrain.woods.mf.infantry: expected a cost"),
    ("[terrain.woods]\nmf = { infantry = { a = 1 } }\n", "terrain.woods.mf.infantry: expected a cost"),
    ("[terrain.woods]\nmf = { infantri = 2 }\n", "terrain.woods.mf.infantri: unknown key"),
    ("[terrain.open.mp]\ntruck = nan\n", "terrain.open.mp.truck: expected a cost"),
    ("[terrain.open.mp]\ntruck = inf\n", "terrain.open.mp.truck: expected a cost"),
    ("[terrain.woods.los]\nheight = 1.1\n", "not a multiple of 1/4"),
    ("[terrain.woods.tem]\ndirect = true\n", "terrain.woods.tem.direct: expected a TEM"),
    ("[terrain.jungle]\nname = \"Jungle\"\n", "terrain.jungle: unknown entry"),
    ("[judgment]\nroad_target_point = \"other\"\n", "judgment.road_target_point.value: expected 'end-vertices'"),
    ("[judgment]\nup_slope_relative = 1\n", "judgment.up_slope_relative.value: expected true or false"),
    ("[judgment.blaze_entry_na]\ntag = \"X\"\n", "judgment.blaze_entry_na.tag: expected S, V, R or U"),
    ("schema = 2\n", "schema: expected 1"),
    ("[terrain]\nwoods = 3\n", "terrain.woods: expected a table"),
    ("x = [" * 100 + "]" * 100, "nested more than"),
    ("[param]\nstacking_squads = " + "9" * 5000 + "\n", "limited to 30 digits"),
])
def test_every_bad_value_of_a_user_chart_is_refused_naming_file_key_and_expectation(
        tmp_path: Path, text: str, words: str) -> None:
    path = _user_chart(tmp_path, text)
    with pytest.raises(ChartError) as e:
        load_chart(path)
    assert str(e.value).startswith(path) and words in str(e.value), str(e.value)


def test_all_the_problems_of_a_chart_are_reported_at_once(tmp_path: Path) -> None:
    path = _user_chart(tmp_path, "[param]\nstacking_squads = -3\nsmoke_cot = \"x\"\n")
    with pytest.raises(ChartError, match=r"2 problems in the chart(.|\n)*smoke_cot(.|\n)*stacking_squads"):
        load_chart(path)


@pytest.mark.parametrize("raw, words", [
    ("schema = 1\n".encode("utf-16"), "not UTF-8 text (it looks like UTF-16)"),
    (b"\x00\x01\x02\xff\xfe", "not UTF-8 text"),
    (b"\x00\x00\x00", "NUL bytes"),
])
def test_binary_and_utf16_charts_are_refused(tmp_path: Path, raw: bytes, words: str) -> None:
    path = _user_chart(tmp_path, raw)
    with pytest.raises(ChartError, match=re.escape(words)):
        load_chart(path)


def test_a_chart_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    assert load_chart(_user_chart(tmp_path, b"\xef\xbb\xbf[param]\nstacking_squads = 2\n")).param(
        "stacking_squads").value == 2


def test_a_complete_chart_document_must_have_every_entry() -> None:
    """parse_chart reads a whole chart: without [terrain.open] open ground would be unenterable."""
    text = (files("asl_terrain") / "data" / "terrain_chart.toml").read_text()
    start = text.index("[terrain.open]")
    cut = text[:start] + text[text.index("[terrain.woods]"):]
    with pytest.raises(ChartError, match="terrain.open: required entry is missing"):
        parse_chart(cut, "mine.toml")


def test_the_bundled_chart_passes_its_own_validation() -> None:
    from asl_terrain.chart import _bundled_document, validate_chart_document

    assert validate_chart_document(_bundled_document(), _bundled_document()) == []


def test_the_bundled_chart_read_without_validation_equals_the_validated_one() -> None:
    """load_chart() trusts the shipped chart (no pydantic at start-up, issue 13): it must be the very chart
    the full validation of a user's chart gives for the same file."""
    from asl_terrain.chart import validated_bundled_chart

    fast, checked = load_chart(None), validated_bundled_chart()
    assert fast.source == checked.source
    for table in ("terrain", "hexside", "building_height", "params", "judgments"):
        assert getattr(fast, table) == getattr(checked, table), table
    assert fast.all_values() == checked.all_values() and len(fast.all_values()) > 100


# ------------------------------------------------------------------ the declared entries (issue 10 item 5)

def _bundled_doc_with(table: str, change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    import copy

    from asl_terrain.chart import _bundled_document

    doc = copy.deepcopy(_bundled_document())
    change(doc[table])
    return doc


def test_every_param_and_judgment_is_a_typed_field_of_the_declaration() -> None:
    """chart.parameters / chart.judgment_calls hold the very values chart.param / chart.judgment give."""
    from dataclasses import fields

    from asl_terrain.chart import Judgments, Params

    c = default_chart()
    assert [f.name for f in fields(Params)] == list(c.params)
    assert [f.name for f in fields(Judgments)] == list(c.judgments)
    for name in c.params:
        assert getattr(c.parameters, name) is c.param(name)
    for name in c.judgments:
        assert getattr(c.judgment_calls, name) is c.judgment(name)
    assert c.parameters.cot_doubled_up.value == 2 and c.parameters.cot_doubled_up.rule == "B10.4"
    assert c.judgment_calls.wall_on_hillside.value == "higher-hex"
    with pytest.raises(AttributeError):
        c.parameters.cot_doubled_up = c.parameters.smoke_cot  # type: ignore[misc]


@pytest.mark.parametrize("table, change, words", [
    ("param", lambda t: t.update(unread_mf={"value": 1, "rule": "B1", "tag": "U"}),
     "param.unread_mf: no engine reads this entry (chart.Params does not declare it); expected only the 74 entries"),
    ("judgment", lambda t: t.update(unread={"value": True, "rule": "B1", "tag": "U"}),
     "judgment.unread: no engine reads this entry (chart.Judgments does not declare it)"),
    ("param", lambda t: t.pop("smoke_cot"), "param.smoke_cot: required entry is missing (chart.Params declares it"),
    ("param", lambda t: t["grain_season"].update(value=[4, 13]),
     "param.grain_season.value: expected a list of months (whole numbers 1-12)"),
    ("param", lambda t: t["smoke_cot"].update(value="one"), "param.smoke_cot.value: expected a number, got 'one'"),
    ("judgment", lambda t: t["up_slope_relative"].update(value="yes"),
     "judgment.up_slope_relative.value: expected true or false"),
    ("param", lambda t: t["bypass_terrain"].update(value=[1]), "param.bypass_terrain.value: expected a list of names"),
])
def test_a_chart_entry_the_declaration_does_not_have_is_refused_at_load(table: str, change: Any, words: str) -> None:
    """The bundled chart is frozen into chart.Params/Judgments at load (load_chart() builds it as here, without
    the user-chart validation): an entry no engine reads, a declared entry missing or a value of another type
    stops the load, naming the file and the key; so the bundled chart loading at all proves it has none."""
    from asl_terrain.chart import BUNDLED_SOURCE, Chart

    with pytest.raises(ChartError) as e:
        Chart(_bundled_doc_with(table, change), BUNDLED_SOURCE)
    assert str(e.value).startswith(BUNDLED_SOURCE + ": ") and words in str(e.value), str(e.value)


def test_a_user_chart_entry_the_declaration_does_not_have_is_refused(tmp_path: Path) -> None:
    path = _user_chart(tmp_path, "[judgment]\nroad_bonus_first_hexside = false\n")
    with pytest.raises(ChartError) as e:
        load_chart(path)
    assert str(e.value).startswith(path) and "judgment.road_bonus_first_hexside: unknown entry" in str(e.value)


#: each retired value as the chart gave it before it was taken out (issue 10 item 5), as a user's chart copied
#: from the old bundled one still gives it
_OLD_VALUES = {
    "terrain.stream-shallow.los": '{ role = "depression", rule = "B20.2", tag = "V" }',
    "terrain.stream-dry.los": '{ role = "depression", rule = "B19.2", tag = "V" }',
    "terrain.stream-deep.los": '{ role = "depression", rule = "B20.2", tag = "V" }',
    "terrain.stream-flooded.los": '{ role = "depression", rule = "B20.2", tag = "V" }',
    "terrain.bridge.los.role": '"hindrance"',
    "terrain.bridge.mp": '{ motorcycle = 3, armored-car = 3, fully-tracked = 1, half-track = 1, truck = 4, rule = "B6", '
                         'tag = "U" }',
    "terrain.building-wooden.tem.open_ground": "false",
    "terrain.rubble.tem.open_ground": "false",
    "terrain.rubble-wooden.tem.open_ground": "false",
    "terrain.culvert.tem.indirect": "0",
    "hexside.rowhouse-wall.los": '{ role = "obstacle", rule = "B23.71", tag = "R" }',
    "hexside.cliff.los": '{ role = "none", rule = "B11.2", tag = "V" }',
    "hexside.cliff.tem": '{ direct = 0, indirect = 0, rule = "B11.3", tag = "V" }',
    "hexside.fence.los": '{ role = "none", rule = "P3.2", tag = "U" }',
    "hexside.narrow-street-roadblock.los.role": '"half-level"',
    "hexside.narrow-street-roadblock.tem.residual_fp": "0",
}


def _toml_line(where: str, value: str) -> str:
    parts = where.split(".")
    return f"[{'.'.join(parts[:3])}]\n{parts[3]} = {value}\n" if len(parts) == 4 else \
        f"[{'.'.join(parts[:2])}]\n{parts[2]} = {value}\n"


def test_every_retired_value_is_listed_with_its_old_value() -> None:
    from asl_terrain.chart import RETIRED

    assert sorted(RETIRED) == sorted(_OLD_VALUES)


@pytest.mark.parametrize("where", sorted(_OLD_VALUES))
def test_a_user_chart_giving_a_retired_value_loads_with_a_warning_naming_it(tmp_path: Path, where: str) -> None:
    """A value no rule reads was taken out of the chart; a user's chart that still gives it is not broken: it
    loads, the value is dropped, and a ChartDeprecationWarning says which and why."""
    from asl_terrain.chart import RETIRED, ChartDeprecationWarning

    path = _user_chart(tmp_path, _toml_line(where, _OLD_VALUES[where]))
    with pytest.warns(ChartDeprecationWarning, match=re.escape(where) + r" is no longer read"):
        c = load_chart(path)
    assert c.retired == (f"{path}: {where} is no longer read ({RETIRED[where]}); it is ignored",)
    assert c.all_values() == default_chart().all_values()


def test_a_hindrance_height_is_dropped_but_an_obstacle_height_is_read(tmp_path: Path) -> None:
    """brush, grain, graveyard and marsh once gave los.height = 0, which no rule reads (a Hindrance stands at
    param.hindrance_height): a user's chart giving it loads with a warning. A user who makes brush an
    obstacle gives it the height it stands at, and that is kept."""
    from asl_terrain.chart import ChartDeprecationWarning

    path = _user_chart(tmp_path, "[terrain.brush.los]\nheight = 0\n")
    with pytest.warns(ChartDeprecationWarning, match=r"terrain\.brush\.los\.height is no longer read"):
        assert "height" not in load_chart(path).entry("brush").los.values  # type: ignore[union-attr]
    path = _user_chart(tmp_path, "[terrain.brush.los]\nrole = \"obstacle\"\nheight = 1\n")
    los = load_chart(path).entry("brush").los
    assert los is not None and los["role"] == "obstacle" and los["height"] == 1
    with pytest.raises(ChartError, match="terrain.brush.los.role: 'obstacle' stands as high as the entry's height"):
        load_chart(_user_chart(tmp_path, "[terrain.brush.los]\nrole = \"obstacle\"\n"))
