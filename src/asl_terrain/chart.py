"""The terrain chart: every number a ruling uses, with its rule and confidence tag, as data.

The bundled chart is ``data/terrain_chart.toml``; ``--chart FILE`` (or :func:`load_chart`) replaces it
with a user's corrected copy. It is validated with pydantic at the boundary and then frozen into small
typed entries the engines read (:class:`Chart`). Nothing here decides a rule.

Imports: errors (and pydantic). Never an engine.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ChartError

Tag = Literal["S", "V", "R", "U"]
#: a cost: a number of MF/MP, or "ALL" (all of them), or "NA" (not allowed)
Cost = Fraction | Literal["ALL", "NA"]

UNIT_CLASSES_MF = ("infantry", "cavalry", "wagon")
UNIT_CLASSES_MP = ("motorcycle", "armored-car", "fully-tracked", "half-track", "truck")


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


@dataclass(frozen=True, slots=True)
class Value:
    """One chart value with its source: ``value`` (Fraction, bool, str or tuple), ``rule``, ``tag``, ``note``."""

    value: Any
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


def _group(g: _Group | None, where: str) -> Group | None:
    if g is None:
        return None
    extra = dict(g.model_extra or {})
    values: dict[str, Any] = {}
    for k, v in extra.items():
        v = _frac(v)
        if isinstance(v, str) and v not in ("ALL", "NA") and k not in ("role",):
            raise ChartError(f"{where}.{k}: expected a number, 'ALL' or 'NA', got {v!r}")
        if isinstance(v, Fraction) and v < 0 and k not in ("air_burst",):
            raise ChartError(f"{where}.{k}: a cost or height cannot be negative, got {v}")
        values[k] = v
    return Group(values, g.rule, g.tag, g.note)


class Chart:
    """The frozen terrain chart. ``source`` says where it came from."""

    def __init__(self, data: _ChartFile, source: str) -> None:
        self.source = source
        self.terrain: dict[str, Entry] = {}
        self.hexside: dict[str, Entry] = {}
        for table, out in (("terrain", self.terrain), ("hexside", self.hexside)):
            for key, e in getattr(data, table).items():
                where = f"{table}.{key}"
                out[key] = Entry(key, e.name, _group(e.mf, f"{where}.mf"), _group(e.mp, f"{where}.mp"),
                                 _group(e.mp_buttoned_up, f"{where}.mp_buttoned_up"),
                                 _group(e.los, f"{where}.los"), _group(e.tem, f"{where}.tem"))
        self.building_height = {k: Value(_frac(v.value), v.rule, v.tag, v.note)
                                for k, v in data.building_height.items()}
        self.params = {k: Value(_frac(v.value), v.rule, v.tag, v.note) for k, v in data.param.items()}
        self.judgments = {k: Value(_frac(v.value), v.rule, v.tag, v.note) for k, v in data.judgment.items()}

    def param(self, name: str) -> Value:
        """A named parameter. :raises ChartError: naming it when the chart lacks it."""
        try:
            return self.params[name]
        except KeyError:
            raise ChartError(f"{self.source}: the chart has no param.{name}") from None

    def judgment(self, name: str) -> Value:
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


def parse_chart(text: str, source: str) -> Chart:
    """Validate and freeze a chart document. :raises ChartError: naming the source and key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ChartError(f"{source}: not valid TOML ({e})") from None
    try:
        model = _ChartFile.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ChartError(f"{source}: {where}: {first['msg']} ({e.error_count()} problem(s) in all)") from None
    if model.schema_ != 1:
        raise ChartError(f"{source}: schema: expected 1, got {model.schema_}")
    return Chart(model, source)


@lru_cache(maxsize=8)
def load_chart(path: str | None = None) -> Chart:
    """The bundled chart, or the chart file at ``path``. Loaded once per path."""
    if path is None:
        res = files("asl_terrain") / "data" / "terrain_chart.toml"
        return parse_chart(res.read_text(encoding="utf-8"), "terrain_chart.toml (bundled)")
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ChartError(f"{p}: cannot read the chart file ({e.strerror or e})") from None
    return parse_chart(text, str(p))


def default_chart() -> Chart:
    return load_chart(None)
