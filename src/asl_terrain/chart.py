"""The terrain chart: every number a ruling uses, with its rule and confidence tag, as data.

The bundled chart is ``data/terrain_chart.toml``; ``--chart FILE`` (or :func:`load_chart`) is merged over
it, so a user's file gives only the values they correct. The result is validated as a whole at load (every
entry the bundled chart has, every key of the right type, in range, a known name; nothing unknown), each
problem naming the chart file, the key and what was expected, and then frozen into small typed entries the
engines read (:class:`Chart`). Nothing here decides a rule.

Imports: errors, limits, cache (and pydantic). Never an engine.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, Literal, Mapping, TypeVar

from .errors import ChartError
from .limits import decode_bytes, guard_text

Tag = Literal["S", "V", "R", "U"]
#: a cost: a number of MF/MP, or "ALL" (all of them), or "NA" (not allowed)
Cost = Fraction | Literal["ALL", "NA"]

#: the weathers the map format and the chart name (map-format.md [conditions])
Weather = Literal["clear", "rain", "snow", "deep-snow", "mud"]
WEATHERS: tuple[Weather, ...] = ("clear", "rain", "snow", "deep-snow", "mud")

UNIT_CLASSES_MF = ("infantry", "cavalry", "wagon")
UNIT_CLASSES_MP = ("motorcycle", "armored-car", "fully-tracked", "half-track", "truck")


@lru_cache(maxsize=1)
def _chart_file_model() -> Any:
    """The pydantic model a chart document must fit, built on first use: only a user's chart is validated
    by it (the bundled chart is checked by the test suite), so a command on the bundled chart never imports
    pydantic (start-up, issue 13)."""
    from pydantic import BaseModel, ConfigDict, Field

    class _Group(BaseModel):
        model_config = ConfigDict(extra="allow", frozen=True)
        rule: str
        tag: Tag
        note: str = ""


    class _Value(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        value: Any
        rule: str
        tag: Tag
        note: str = ""


    class _Entry(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        name: str
        mf: _Group | None = None
        mp: _Group | None = None
        mp_buttoned_up: _Group | None = None
        los: _Group | None = None
        tem: _Group | None = None


    class _ChartFile(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        schema_: int = Field(alias="schema")
        terrain: dict[str, _Entry]
        hexside: dict[str, _Entry]
        building_height: dict[str, _Value]
        param: dict[str, _Value]
        judgment: dict[str, _Value]

    return _ChartFile


def _frac(v: Any) -> Any:
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, float):
        return Fraction(str(v))
    if isinstance(v, list):
        return tuple(_frac(x) for x in v)
    return v


T = TypeVar("T")
#: the value of a list-of-months entry (``grain_season``: months 1-12)
Months = tuple[Fraction, ...]
#: the value of a list-of-names entry (terrain keys, unit classes, weather, depths)
Names = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Value(Generic[T]):
    """One chart value with its source: ``value`` (Fraction, bool, str or tuple), ``rule``, ``tag``, ``note``."""

    value: T
    rule: str
    tag: str
    note: str = ""

    @property
    def uncertain(self) -> bool:
        return self.tag == "U"


@dataclass(frozen=True, slots=True)
class Group:
    """A group of related values of one entry (``mf``, ``mp``, ``los``, ``tem``) with their rule and tag."""

    values: Mapping[str, Any]
    rule: str
    tag: str
    note: str = ""

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


@dataclass(frozen=True, slots=True)
class Entry:
    """A terrain or hexside feature: name and its groups (any may be absent)."""

    key: str
    name: str
    mf: Group | None
    mp: Group | None
    mp_buttoned_up: Group | None
    los: Group | None
    tem: Group | None


def _group(g: Mapping[str, Any] | None, where: str) -> Group | None:
    if g is None:
        return None
    values: dict[str, Any] = {}
    for k, v in g.items():
        if k in ("rule", "tag", "note"):
            continue
        v = _frac(v)
        if isinstance(v, str) and v not in ("ALL", "NA") and k not in ("role",):
            raise ChartError(f"{where}.{k}: expected a number, 'ALL' or 'NA', got {v!r}")
        if isinstance(v, Fraction) and v < 0 and k not in ("air_burst",):
            raise ChartError(f"{where}.{k}: a cost or height cannot be negative, got {v}")
        values[k] = v
    return Group(values, g["rule"], g["tag"], g.get("note", ""))


def _value(v: Mapping[str, Any]) -> Value[Any]:
    return Value(_frac(v["value"]), v["rule"], v["tag"], v.get("note", ""))


class Chart:
    """The frozen terrain chart. ``source`` says where it came from.

    ``parameters`` (:class:`Params`) and ``judgment_calls`` (:class:`Judgments`) hold the ``[param]`` and
    ``[judgment]`` entries as typed fields (``chart.parameters.cot_doubled_up.value`` is a Fraction);
    :meth:`param` and :meth:`judgment` read the same values by name.
    """

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        """``data``: a valid chart document (as :func:`parse_chart` checks it)."""
        self.source = source
        self.terrain: dict[str, Entry] = {}
        self.hexside: dict[str, Entry] = {}
        for table, out in (("terrain", self.terrain), ("hexside", self.hexside)):
            for key, e in data[table].items():
                where = f"{table}.{key}"
                out[key] = Entry(key, e["name"], _group(e.get("mf"), f"{where}.mf"),
                                 _group(e.get("mp"), f"{where}.mp"),
                                 _group(e.get("mp_buttoned_up"), f"{where}.mp_buttoned_up"),
                                 _group(e.get("los"), f"{where}.los"), _group(e.get("tem"), f"{where}.tem"))
        self.building_height = {k: _value(v) for k, v in data["building_height"].items()}
        self.params = {k: _value(v) for k, v in data["param"].items()}
        self.judgments = {k: _value(v) for k, v in data["judgment"].items()}
        self.parameters = _declared(Params, "param", self.params, source)
        self.judgment_calls = _declared(Judgments, "judgment", self.judgments, source)
        #: the retired values the chart file gave, each a note saying it is ignored and why (:data:`RETIRED`)
        self.retired: tuple[str, ...] = ()

    def param(self, name: str) -> Value[Any]:
        """A named parameter. :raises ChartError: naming it when the chart lacks it."""
        try:
            return self.params[name]
        except KeyError:
            raise ChartError(f"{self.source}: the chart has no param.{name}") from None

    def judgment(self, name: str) -> Value[Any]:
        try:
            return self.judgments[name]
        except KeyError:
            raise ChartError(f"{self.source}: the chart has no judgment.{name}") from None

    def entry(self, key: str) -> Entry:
        e = self.terrain.get(key) or self.hexside.get(key)
        if e is None:
            raise ChartError(f"{self.source}: the chart has no terrain or hexside entry {key!r}")
        return e

    def all_values(self) -> list[tuple[str, str, str, str]]:
        """Every (where, value, rule, tag) in the chart, for listings and the coverage check."""
        rows: list[tuple[str, str, str, str]] = []
        for table, entries in (("terrain", self.terrain), ("hexside", self.hexside)):
            for key, e in entries.items():
                for gname in ("mf", "mp", "mp_buttoned_up", "los", "tem"):
                    g = getattr(e, gname)
                    if g is not None:
                        shown = ", ".join(f"{k}={_show(v)}" for k, v in g.values.items())
                        rows.append((f"{table}.{key}.{gname}", shown, g.rule, g.tag))
        for table, vals in (("building_height", self.building_height), ("param", self.params),
                            ("judgment", self.judgments)):
            for key, v in vals.items():
                rows.append((f"{table}.{key}", _show(v.value), v.rule, v.tag))
        return rows


def _show(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else str(float(v))
    if isinstance(v, tuple):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return str(v)


def _decode(text: str, source: str) -> dict[str, Any]:
    if text.startswith("\ufeff"):
        text = text[1:]
    guard_text(text, source, ChartError)
    import tomllib  # only a chart not read back from the cache is parsed (start-up, issue 13)

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ChartError(f"{source}: not valid TOML ({e})") from None
    except (RecursionError, ValueError) as e:  # the guard should have caught these; never a traceback
        raise ChartError(f"{source}: cannot be read as TOML ({type(e).__name__}: {e})") from None


def parse_chart(text: str, source: str) -> Chart:
    """Validate and freeze a *complete* chart document: every entry of the bundled chart must be in it.

    :raises ChartError: naming the source, the key and what was expected, for every problem found.
    """
    return _freeze(_decode(text, source), source)


class ChartDeprecationWarning(UserWarning):
    """A chart gives a value no rule reads any more (:data:`RETIRED`): it is dropped, and the chart loads."""


_HINDRANCE_HEIGHT = ("a Hindrance stands param.hindrance_height above its ground (digest 7.6) whatever its own "
                     "height: los.height is read only for a role that stands as high as it (obstacle, orchard, "
                     "half-level)")
#: Values the chart once had that no rule reads, taken out of the bundled chart (issue 10 item 5): ``table.entry.
#: group`` or ``table.entry.group.key``, each with why nothing reads it. A user's chart that still gives one
#: loads: the value is dropped with a :class:`ChartDeprecationWarning` naming it (docs/chart-research.md,
#: "Retired chart values"). So is a los.height where the bundled entry has none and the role stands at no height.
RETIRED: dict[str, str] = {
    **{f"terrain.stream-{d}.los": "a stream's depression comes from the hex's stream key (B20.2, A6.3), not from "
                                  "a LOS role" for d in ("shallow", "dry", "deep", "flooded")},
    "terrain.bridge.los.role": "a bridge is always the B6.2 Hindrance (its los.hindrance is read), never a role",
    "terrain.bridge.mp": "a vehicle drives onto a bridge's deck only across its road hexsides, at the road rate "
                         "(B6.1)",
    **{f"terrain.{e}.tem.open_ground": "terrain with a positive TEM is never Open Ground (A4.6)"
       for e in ("building-wooden", "rubble", "rubble-wooden")},
    "terrain.culvert.tem.indirect": "no attack that reads the TEM vs Indirect Fire (Indirect Fire, Air Bursts, "
                                    "Aerial attacks) can affect a unit IN a Stream Culvert (P4.24)",
    "hexside.rowhouse-wall.los": "a rowhouse wall is always an obstacle as high as its taller building (B23.71)",
    "hexside.cliff.los": "a cliff is no obstacle itself (B11.2); its Blind Hexes come from the map's cliff key",
    "hexside.cliff.tem": "a cliff gives no TEM beyond a Crest Line's (B11.3)",
    "hexside.fence.los": "a fence is no LOS obstacle or Hindrance (P3.2)",
    "hexside.narrow-street-roadblock.los.role": "the roadblock's centre-to-centre segment is always a Half-Level "
                                                "obstacle (P5.141): only its los.height is read",
    "hexside.narrow-street-roadblock.tem.residual_fp": "Residual FP has no firer whose LOS crosses the roadblock's "
                                                       "segment, so P5.141's TEM never applies to it",
}


def _without_retired(data: dict[str, Any], base: dict[str, Any], source: str) -> tuple[dict[str, Any], list[str]]:
    """``data`` without the :data:`RETIRED` values (and Hindrances' heights) it gives, and a note for each."""
    notes: list[str] = []
    out = dict(data)
    for table in ("terrain", "hexside"):
        entries = out.get(table)
        if not isinstance(entries, dict):
            continue
        out[table] = entries = dict(entries)
        for key, e in list(entries.items()):
            if not isinstance(e, dict):
                continue
            for group, g in list(e.items()):
                where = f"{table}.{key}.{group}"
                if where in RETIRED:
                    e = {k: v for k, v in e.items() if k != group}
                    notes.append(f"{source}: {where} is no longer read ({RETIRED[where]}); it is ignored")
                    continue
                if not isinstance(g, dict):
                    continue
                drop = [k for k in g if f"{where}.{k}" in RETIRED]
                bg = base.get(table, {}).get(key, {}).get(group, {})
                if (group == "los" and "height" in g and "height" not in bg
                        and g.get("role", bg.get("role")) not in _ROLES_WITH_HEIGHT):
                    drop.append("height")
                for k in drop:
                    notes.append(f"{source}: {where}.{k} is no longer read "
                                 f"({RETIRED.get(f'{where}.{k}', _HINDRANCE_HEIGHT)}); it is ignored")
                if drop:
                    e = {**e, group: {k: v for k, v in g.items() if k not in drop}}
            entries[key] = e
    return out, notes


def _freeze(data: dict[str, Any], source: str) -> Chart:
    base = _bundled_document()
    data, notes = _without_retired(data, base, source)
    for n in notes:
        warnings.warn(n, ChartDeprecationWarning, stacklevel=3)
    problems = validate_chart_document(data, base)
    if problems:
        raise ChartError(_summary(source, problems))
    from pydantic import ValidationError

    try:
        _chart_file_model().model_validate(data)
    except ValidationError as e:  # the checks above should leave nothing for pydantic to refuse
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ChartError(f"{source}: {where}: {first['msg']} ({e.error_count()} problem(s) in all)") from None
    chart = Chart(data, source)
    chart.retired = tuple(notes)
    return chart


def _summary(source: str, problems: list[str]) -> str:
    if len(problems) == 1:
        return f"{source}: {problems[0]}"
    shown = problems[:40]
    more = f"\n  ... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    return f"{source}: {len(problems)} problems in the chart:\n" + "\n".join(f"  - {p}" for p in shown) + more


@lru_cache(maxsize=1)
def _bundled_text() -> str:
    # next to this module, as the package ships it (not importlib.resources: its import costs start-up)
    return (Path(__file__).parent / "data" / "terrain_chart.toml").read_text(encoding="utf-8")


#: the ``source`` of the bundled chart
BUNDLED_SOURCE = "terrain_chart.toml (bundled)"


def _bundled_document() -> dict[str, Any]:
    from . import cache  # parsed once, then read back (start-up, issue 13)

    return cache.toml_document(_bundled_text(), "chart")


def validated_bundled_chart() -> Chart:
    """The bundled chart through the full validation a user's chart gets (:func:`load_chart` trusts the
    shipped file; tests/test_chart.py checks both give the same chart)."""
    return parse_chart(_bundled_text(), BUNDLED_SOURCE)


def merge_chart_documents(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """A user's chart merged over the bundled one: tables merge key by key, any other value replaces the
    base's. A bare value for a ``[param]``, ``[judgment]`` or ``[building_height]`` entry
    (``stacking_squads = 4``) is taken as its ``value``, keeping the bundled rule and tag."""
    out = dict(base)
    for k, v in over.items():
        b = base.get(k)
        if isinstance(b, dict) and isinstance(v, dict):
            out[k] = merge_chart_documents(b, v)
        else:
            out[k] = v
    for table in ("param", "judgment", "building_height"):
        t, b = over.get(table), base.get(table)
        if isinstance(t, dict) and isinstance(b, dict):
            merged = dict(out[table]) if isinstance(out.get(table), dict) else {}
            for k, v in t.items():
                if not isinstance(v, dict) and isinstance(b.get(k), dict):
                    merged[k] = {**b[k], "value": v}
            out[table] = merged
    return out


@lru_cache(maxsize=8)
def load_chart(path: str | None = None) -> Chart:
    """The bundled chart, or the user's chart file at ``path`` merged over it (the user corrects only the
    values they know; every value of the result is validated). Loaded once per path."""
    if path is None:
        return Chart(_bundled_document(), BUNDLED_SOURCE)
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ChartError(f"{p}: cannot read the chart file ({e.strerror or e})") from None
    text = decode_bytes(raw, str(p), "chart file", ChartError)
    user = _decode(text, str(p))
    return _freeze(merge_chart_documents(_bundled_document(), user), str(p))


def default_chart() -> Chart:
    return load_chart(None)


# --------------------------------------------------------------------------------------------- validation
# Every value of a chart is checked against the bundled chart's shape (the same tables, entries, groups and
# keys: nothing unknown, nothing missing) and against what the engines can use (types, ranges, known names).

_ROLES = ("none", "obstacle", "hindrance", "orchard", "half-level", "depression")
#: LOS roles the engine stands at the entry's los.height (an entry without one may not take them)
_ROLES_WITH_HEIGHT = ("obstacle", "orchard", "half-level")
_COST_GROUPS = ("mf", "mp", "mp_buttoned_up")
_GROUPS = ("mf", "mp", "mp_buttoned_up", "los", "tem")
_TABLES = ("schema", "terrain", "hexside", "building_height", "param", "judgment")
_DEPTHS = ("dry", "shallow", "deep", "flooded")
#: string judgments the engines read with more than one reading; any other string judgment has one reading
_CHOICES: dict[str, tuple[str, ...]] = {
    "up_slope_locations": ("above-ground", "ground-level"),
    "mines_revealed_exemption": ("paved-crest-lower", "all-crest-lower"),
    "rubble_removes_mines": ("hexes", "effect"),
    "orchard_out_of_season_los": ("same-level", "adjacent-once", "each"),
    "wall_on_hillside": ("higher-hex", "lower-hex"),
    "bocage_vertex": ("vertices-included", "both-sides"),
    "bocage_along_hexspine": ("hexspine-rule", "blocks"),
}
Q = Fraction(1, 4)
#: (lowest, highest, step or None) of named parameters; the others: 0..100 in quarters
_PARAM_RANGES: dict[str, tuple[Fraction, Fraction, Fraction | None]] = {
    "blind_hex_range_step": (Fraction(1), Fraction(100), Fraction(1)),
    "borderline_tolerance": (Fraction(0), Fraction(1, 2), None),
    "hindrance_blocks_at": (Fraction(1), Fraction(100), Fraction(1)),
    "tca_change_target": (Fraction(0), Fraction(12), Fraction(1)),
    "tca_change_max_attempts": (Fraction(1), Fraction(10), Fraction(1)),
    "tca_min_caliber": (Fraction(0), Fraction(1000), Fraction(1)),
    "cot_doubled_up": (Fraction(1), Fraction(10), Q),
    "vbm_factor": (Fraction(1), Fraction(10), Q),
}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _show_got(v: Any) -> str:
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        return "a list"
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _number(v: Any, where: str, lo: Fraction, hi: Fraction, step: Fraction | None, what: str,
            problems: list[str]) -> None:
    if not _is_number(v):
        problems.append(f"{where}: expected {what}, got {_show_got(v)}")
        return
    f = Fraction(str(v)) if isinstance(v, float) else Fraction(v)
    if f < lo or f > hi:
        if f < 0 <= lo:
            problems.append(f"{where}: cannot be negative; expected {what}, got {v}")
        else:
            problems.append(f"{where}: expected {what}, got {v} (out of range)")
    elif step is not None and (f / step).denominator != 1:
        problems.append(f"{where}: expected {what}, got {v} (not a multiple of {step})")


def _words(lo: Fraction, hi: Fraction, step: Fraction | None) -> str:
    unit = {Fraction(1): "a whole number", Fraction(1, 2): "a number in halves",
            Fraction(1, 4): "a number in quarters"}.get(step, "a number") if step is not None else "a number"
    return f"{unit} from {_show(lo)} to {_show(hi)}"


def _check_group_value(where: str, group: str, key: str, v: Any, base: Any, problems: list[str]) -> None:
    if group in _COST_GROUPS and (key in UNIT_CLASSES_MF or key in UNIT_CLASSES_MP or key == "protection"):
        if isinstance(v, str):
            if v not in ("ALL", "NA"):
                problems.append(f"{where}: expected a number, 'ALL' or 'NA', got {v!r}")
            return
        _number(v, where, Fraction(0), Fraction(100), Fraction(1, 2),
                "a cost (a number >= 0 in halves, up to 100), 'ALL' or 'NA'", problems)
    elif key == "role":
        if v not in _ROLES:
            problems.append(f"{where}: expected a LOS role, one of {', '.join(_ROLES)}; got {_show_got(v)}")
    elif isinstance(base, bool):
        if not isinstance(v, bool):
            problems.append(f"{where}: expected true or false, got {_show_got(v)}")
    elif key == "height":
        _number(v, where, Fraction(0), Fraction(10), Q, "a height (" + _words(Fraction(0), Fraction(10), Q) + ")",
                problems)
    elif key == "hindrance":
        _number(v, where, Fraction(0), Fraction(10), Fraction(1), "a Hindrance DRM (" +
                _words(Fraction(0), Fraction(10), Fraction(1)) + ")", problems)
    elif group == "tem":
        lo = Fraction(-10) if key == "air_burst" else Fraction(0)  # only Air Bursts worsen a TEM
        _number(v, where, lo, Fraction(10), Fraction(1), "a TEM/DRM (" + _words(lo, Fraction(10), Fraction(1)) + ")",
                problems)
    else:
        _number(v, where, Fraction(0), Fraction(100), Q, _words(Fraction(0), Fraction(100), Q), problems)


def _check_param_value(where: str, name: str, v: Any, base: Any, vocab: tuple[str, ...],
                       problems: list[str]) -> None:
    if isinstance(base, bool):
        if not isinstance(v, bool):
            problems.append(f"{where}: expected true or false, got {_show_got(v)}")
    elif isinstance(base, list):
        if not isinstance(v, list):
            problems.append(f"{where}: expected a list, got {_show_got(v)}")
        elif all(isinstance(x, int) for x in base):  # months (grain_season, orchard_season, ...)
            for i, x in enumerate(v):
                if isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 12:
                    problems.append(f"{where}[{i}]: expected a month as a whole number 1-12, got {_show_got(x)}")
        else:
            for i, x in enumerate(v):
                if x not in vocab:
                    problems.append(f"{where}[{i}]: expected one of {', '.join(vocab)}; got {_show_got(x)}")
    elif isinstance(base, str):
        choices = _CHOICES.get(name, (base,))
        if v not in choices:
            only = ("the only reading the engine implements" if len(choices) == 1
                    else "the readings the engine implements")
            problems.append(f"{where}: expected {' or '.join(repr(c) for c in choices)} ({only}), got {_show_got(v)}")
    elif "_drm" in name:
        _number(v, where, Fraction(-10), Fraction(10), Fraction(1),
                "a DRM (" + _words(Fraction(-10), Fraction(10), Fraction(1)) + ")", problems)
    elif name.endswith("_tem"):
        _number(v, where, Fraction(0), Fraction(10), Fraction(1),
                "a TEM (" + _words(Fraction(0), Fraction(10), Fraction(1)) + ")", problems)
    else:
        lo, hi, step = _PARAM_RANGES.get(name, (Fraction(0), Fraction(100), Q))
        _number(v, where, lo, hi, step, _words(lo, hi, step), problems)


def _check_meta(where: str, d: dict[str, Any], problems: list[str]) -> None:
    if "rule" not in d:
        problems.append(f"{where}.rule: required key is missing (the rule the value comes from)")
    elif not isinstance(d["rule"], str) or not d["rule"].strip():
        problems.append(f"{where}.rule: expected a rule reference such as 'B13.4', got {_show_got(d['rule'])}")
    if "tag" not in d:
        problems.append(f"{where}.tag: required key is missing (S, V, R or U)")
    elif d["tag"] not in ("S", "V", "R", "U"):
        problems.append(f"{where}.tag: expected S, V, R or U, got {_show_got(d['tag'])}")
    if "note" in d and not isinstance(d["note"], str):
        problems.append(f"{where}.note: expected a string, got {_show_got(d['note'])}")


def validate_chart_document(doc: dict[str, Any], base: dict[str, Any]) -> list[str]:
    """Every problem of a chart document measured against the bundled one (``base``): unknown or missing
    tables, entries, groups and keys, wrong types, values out of range, unknown names."""
    problems: list[str] = []
    for k in doc:
        if k not in _TABLES:
            problems.append(f"{k}: unknown table or key; expected some of {', '.join(_TABLES)}")
    if "schema" not in doc:
        problems.append("schema: required key is missing (schema = 1)")
    elif isinstance(doc["schema"], bool) or doc["schema"] != 1:
        problems.append(f"schema: expected 1, got {_show_got(doc['schema'])}")
    terrain_names = tuple(base.get("terrain", {})) + ("water-obstacle",)
    vocab_of = {"road_bonus_units": UNIT_CLASSES_MF + UNIT_CLASSES_MP, "road_bonus_lost_weather": WEATHERS,
                "elevation_change_weather": WEATHERS, "frigid_water_depths": _DEPTHS}
    for table in _TABLES[1:]:
        if table not in doc:
            problems.append(f"{table}: required table is missing")
            continue
        t, bt = doc[table], base[table]
        if not isinstance(t, dict):
            problems.append(f"{table}: expected a table, got {_show_got(t)}")
            continue
        for key in t:
            if key not in bt:
                problems.append(f"{table}.{key}: unknown entry; expected one of {', '.join(bt)}")
        for key, b in bt.items():
            where = f"{table}.{key}"
            if key not in t:
                problems.append(f"{where}: required entry is missing")
                continue
            e = t[key]
            if not isinstance(e, dict):
                problems.append(f"{where}: expected a table, got {_show_got(e)}")
                continue
            if table in ("terrain", "hexside"):
                _check_entry(where, e, b, problems)
            else:
                for k in e:
                    if k not in ("value", "rule", "tag", "note"):
                        problems.append(f"{where}.{k}: unknown key; expected value, rule, tag, note")
                _check_meta(where, e, problems)
                if "value" not in e:
                    problems.append(f"{where}.value: required key is missing")
                elif table == "building_height":
                    if isinstance(b["value"], bool):
                        _check_param_value(f"{where}.value", key, e["value"], b["value"], (), problems)
                    else:
                        _number(e["value"], f"{where}.value", Fraction(0), Fraction(10), Q,
                                "a height (" + _words(Fraction(0), Fraction(10), Q) + ")", problems)
                else:
                    vocab = vocab_of.get(key, terrain_names)
                    _check_param_value(f"{where}.value", key, e["value"], b["value"], vocab, problems)
    return problems


def _check_entry(where: str, e: dict[str, Any], b: dict[str, Any], problems: list[str]) -> None:
    for k in e:
        if k != "name" and k not in b:
            known = [g for g in _GROUPS if g in b]
            problems.append(f"{where}.{k}: unknown key; this entry has name, {', '.join(known)}"
                            + (" (the engines read no other group for it)" if k in _GROUPS else ""))
    if not isinstance(e.get("name"), str):
        problems.append(f"{where}.name: expected the terrain's name as a string, got {_show_got(e.get('name'))}")
    for g in _GROUPS:
        if g not in b:
            continue
        gw = f"{where}.{g}"
        if g not in e:
            problems.append(f"{gw}: required group is missing")
            continue
        grp, bgrp = e[g], b[g]
        if not isinstance(grp, dict):
            problems.append(f"{gw}: expected a table, got {_show_got(grp)}")
            continue
        _check_meta(gw, grp, problems)
        for k, v in grp.items():
            if k in ("rule", "tag", "note"):
                continue
            if k == "height" and g == "los" and "height" not in bgrp and grp.get("role") in _ROLES_WITH_HEIGHT:
                _check_group_value(f"{gw}.{k}", g, k, v, None, problems)  # the height a new role stands at
                continue
            if k not in bgrp:
                values = [x for x in bgrp if x not in ("rule", "tag", "note")]
                problems.append(f"{gw}.{k}: unknown key; expected some of {', '.join(values)}")
                continue
            _check_group_value(f"{gw}.{k}", g, k, v, bgrp[k], problems)
        for k in bgrp:
            if k not in grp and k not in ("rule", "tag", "note"):
                problems.append(f"{gw}.{k}: required key is missing")
        role = grp.get("role")
        if g == "los" and role in _ROLES_WITH_HEIGHT and role != bgrp.get("role") and "height" not in grp:
            others = [r for r in _ROLES if r not in _ROLES_WITH_HEIGHT]
            problems.append(f"{gw}.role: {role!r} stands as high as the entry's height, which it has not; expected "
                            f"one of {', '.join(others)}")


# --------------------------------------------------------------------------- the entries the engines read
# The declaration of every [param] and [judgment] entry some engine reads, each with the type of its value.
# A chart is frozen into these at load: an entry the chart has and the declaration lacks (read by no code,
# so a player's correction would change nothing), an entry it lacks, or a value of another type is an
# error naming the file and the key. A new entry is a row in terrain_chart.toml, a field here (in the
# chart's order) and the code that reads it; tests/test_chart_entries.py proves each changes a ruling.


@dataclass(frozen=True, slots=True)
class Params:
    """The ``[param]`` entries: the numbers, months and names the rules use."""

    cot_doubled_up: Value[Fraction]
    vehicle_up_level_mp: Value[Fraction]
    vehicle_up_level_road_mp: Value[Fraction]
    road_bonus_mf: Value[Fraction]
    vehicle_in_hex_mp: Value[Fraction]
    vehicle_in_hex_road_mp: Value[Fraction]
    smoke_cot: Value[Fraction]
    up_slope_mf: Value[Fraction]
    up_slope_mp: Value[Fraction]
    skis_down_slope_bonus_mf: Value[Fraction]
    stairwell_mf: Value[Fraction]
    bypass_mf: Value[Fraction]
    vbm_factor: Value[Fraction]
    narrow_street_vbm_factor: Value[Fraction]
    vca_change_mp: Value[Fraction]
    vca_change_in_obstacle_mp: Value[Fraction]
    narrow_street_smoke_bypass: Value[Fraction]
    motorcycle_vca_180_fraction: Value[Fraction]
    very_small_vca_180_fraction: Value[Fraction]
    stream_woods_crest_mf: Value[Fraction]
    stream_pine_woods_crest_mf: Value[Fraction]
    stream_brush_crest_mf: Value[Fraction]
    stream_orchard_crest_mf: Value[Fraction]
    crest_status_mf: Value[Fraction]
    orchard_season: Value[Months]
    grain_season: Value[Months]
    grain_hindrance_season: Value[Months]
    hindrance_blocks_at: Value[Fraction]
    up_slope_height: Value[Fraction]
    hindrance_height: Value[Fraction]
    vehicle_hindrance: Value[Fraction]
    smoke_counter_hindrance: Value[Fraction]
    wp_counter_hindrance: Value[Fraction]
    dispersed_smoke_hindrance: Value[Fraction]
    dispersed_wp_hindrance: Value[Fraction]
    smoke_height: Value[Fraction]
    blind_hex_range_step: Value[Fraction]
    slope_tem: Value[Fraction]
    fire_lane_slope_drm: Value[Fraction]
    height_advantage_tem: Value[Fraction]
    ffmo_drm: Value[Fraction]
    ffnam_drm: Value[Fraction]
    stacking_squads: Value[Fraction]
    culvert_stacking_squads: Value[Fraction]
    steeple_stacking_squads: Value[Fraction]
    tca_change_target: Value[Fraction]
    tca_change_failure_mp: Value[Fraction]
    tca_change_max_attempts: Value[Fraction]
    tca_drm_LL: Value[Fraction]
    tca_drm_L: Value[Fraction]
    tca_drm_star: Value[Fraction]
    tca_drm_bu: Value[Fraction]
    tca_min_caliber: Value[Fraction]
    street_fighting_cc_drm: Value[Fraction]
    stone_rubble_drm: Value[Fraction]
    stacking_smc: Value[Fraction]
    entrenchment_forbidden_terrain: Value[Names]
    mines_forbidden_terrain: Value[Names]
    entrenchment_tem: Value[Fraction]
    mud_tem: Value[Fraction]
    deep_snow_tem: Value[Fraction]
    rooftop_tem: Value[Fraction]
    frigid_water_depths: Value[Names]
    borderline_tolerance: Value[Fraction]
    bypass_terrain: Value[Names]
    entrenchment_indirect_tem: Value[Fraction]
    indirect_building_level_tem: Value[Fraction]
    crest_status_tem: Value[Fraction]
    half_squad_equivalents: Value[Fraction]
    vca_obstacle_terrain: Value[Names]
    road_bonus_units: Value[Names]
    road_bonus_lost_weather: Value[Names]
    elevation_change_weather: Value[Names]
    cavalry_charge_na_terrain: Value[Names]


@dataclass(frozen=True, slots=True)
class Judgments:
    """The ``[judgment]`` entries: the readings of ambiguous rule text the engines follow."""

    up_slope_locations: Value[str]
    up_slope_relative: Value[bool]
    orchard_same_base_level: Value[bool]
    slope_tem_vs_ffmo: Value[bool]
    narrow_street_smoke_replaces_cot: Value[bool]
    rout_across_narrow_street: Value[bool]
    wagon_half_bypass: Value[bool]
    smc_in_small_locations: Value[bool]
    mines_revealed_exemption: Value[str]
    rubble_removes_mines: Value[str]
    culvert_frigid_always: Value[bool]
    narrow_street_crossing_is_road: Value[bool]
    blaze_entry_na: Value[bool]
    wagon_cot_doubled_up: Value[bool]
    bypass_entry_crosses_hexside: Value[bool]
    hexside_tem_not_cumulative: Value[bool]
    road_target_point: Value[str]
    snap_shot_open_ground: Value[bool]
    bypass_tem_through_obstacle: Value[bool]
    stream_depiction_entry: Value[str]
    roadblock_hexside_los: Value[str]
    aerial_uses_indirect_tem: Value[bool]
    frigid_in_stream: Value[bool]
    roadblock_los_own_hex: Value[bool]
    stream_depiction_clear: Value[bool]
    counters_whole_hex: Value[bool]
    fence_denies_road_bonus: Value[bool]
    orchard_out_of_season_los: Value[str]
    wall_vertex_both_sides: Value[bool]
    wall_on_hillside: Value[str]
    bocage_vertex: Value[str]
    bocage_along_hexspine: Value[str]


def _is_months(v: Any) -> bool:
    return isinstance(v, tuple) and all(isinstance(x, Fraction) and x.denominator == 1 and 1 <= x <= 12 for x in v)


#: each declared type: the test a value passes and what the message says was expected
_KINDS: dict[str, tuple[Any, str]] = {
    "Value[Fraction]": (lambda v: isinstance(v, Fraction), "a number"),
    "Value[bool]": (lambda v: isinstance(v, bool), "true or false"),
    "Value[str]": (lambda v: isinstance(v, str), "a string (a reading)"),
    "Value[Months]": (_is_months, "a list of months (whole numbers 1-12)"),
    "Value[Names]": (lambda v: isinstance(v, tuple) and all(isinstance(x, str) for x in v), "a list of names"),
}
#: each declaration's fields and their types (the annotations, as text)
_FIELDS: dict[type, dict[str, str]] = {cls: {f.name: str(f.type) for f in fields(cls)} for cls in (Params, Judgments)}

D = TypeVar("D", Params, Judgments)


def _declared(cls: type[D], table: str, values: Mapping[str, Value[Any]], source: str) -> D:
    """``values`` (one table of a chart) frozen into its declaration ``cls``.

    :raises ChartError: naming ``source`` and each entry the declaration lacks, each declared entry
        missing and each value of another type than declared.
    """
    declared = _FIELDS[cls]
    name = f"chart.{cls.__name__}"
    problems = [f"{table}.{k}: no engine reads this entry ({name} does not declare it); expected only the "
                f"{len(declared)} entries {name} declares" for k in values if k not in declared]
    for k, kind in declared.items():
        if k not in values:
            problems.append(f"{table}.{k}: required entry is missing ({name} declares it: an engine reads it)")
            continue
        ok, what = _KINDS[kind]
        if not ok(values[k].value):
            problems.append(f"{table}.{k}.value: expected {what}, got {_show_got(values[k].value)}")
    if problems:
        raise ChartError(_summary(source, problems))
    return cls(**values)
