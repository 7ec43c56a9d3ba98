"""What reaches a unit in Bypass along a Narrow Street hexside, and whether Bypass is allowed there (queries.md
``bypass-effects``: P5.11, P5.126, P5.131, P5.141, P5.142).

Imports: chart, errors, grid, model, rulings, and effects.common.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..chart import Chart, default_chart
from ..errors import QueryError
from ..grid import Hex, Hexside
from ..model import Map, narrow_street_bypass_blockers
from ..rulings import Explained, fmt, num
from .common import check_narrow_street, ruling_json


@dataclass(frozen=True, slots=True)
class MineThreat:
    """A minefield that can attack a unit in Bypass (P5.142)."""

    kind: str
    strength: int
    hex: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "strength": self.strength, "hex": self.hex}


@dataclass(frozen=True, slots=True)
class BypassEffects(Explained):
    """What SMOKE, Residual FP and mines reach a unit in Bypass along a Narrow Street hexside (P5.131,
    P5.142), and whether Bypass (and VBM) along it is allowed (P5.126, P5.141)."""

    hexside: str
    in_hex: str | None
    smoke: int
    residual_fp: int
    mines: tuple[MineThreat, ...]
    bypass_allowed: bool
    vbm_allowed: bool
    smoke_extra_cost: Fraction
    reason: str | None
    rule_refs: tuple[str, ...]
    sentences: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return ruling_json("bypass-effects", {
            "hexside": self.hexside, "in": self.in_hex, "smoke": self.smoke, "residual_fp": self.residual_fp,
            "mines": [x.to_json() for x in self.mines], "bypass_allowed": self.bypass_allowed,
            "vbm_allowed": self.vbm_allowed, "smoke_extra_cost": num(self.smoke_extra_cost),
            **({"reason": self.reason} if self.reason else {})}, (), self.rules(), self.sentences)


def bypass_effects(m: Map, hs: Hexside, in_hex: Hex | None = None, chart: Chart | None = None) -> BypassEffects:
    """What reaches a unit in Bypass along Narrow Street hexside ``hs`` (P5.131, P5.142) and whether Bypass
    along it is allowed (P5.126).

    SMOKE and Residual FP of either ground-level Location reach it, only the higher when they differ; mines
    of either hex (both types when one holds A-P and the other A-T; only the stronger of one type). On a
    Crest-Line hexside the unit is in the lower hex (P5.11) and only that hex's SMOKE, Residual FP and mines
    apply. Bypass is NA when either hex holds another vehicle/wreck in Bypass along ``hs``, a Blaze (a
    burning wreck along another hexside excepted) or Rubble (P5.126); VBM is NA past a Narrow Street
    roadblock straddling ``hs`` (P5.141).

    :raises QueryError: when ``hs`` is not a Narrow Street hexside or ``in_hex`` is not one of its hexes.

    Examples
    --------
    >>> from asl_terrain.model import load_demo
    >>> m = load_demo()
    >>> r = bypass_effects(m, m.parse_hexside("L11-L12"))
    >>> [(x.kind, x.strength, x.hex) for x in r.mines], r.bypass_allowed
    ([('A-P', 6, 'HrL12')], True)
    """
    chart = chart or default_chart()
    check_narrow_street(m, hs)
    if in_hex is not None and in_hex not in hs.hexes:
        raise QueryError(f"in: {m.name_of(in_hex)} is not a hex of hexside {m.name_of(hs)}")
    c = _Along(m, chart, hs, m.name_of(hs), m.crest_narrow_street_lower_hex(hs), m.bypass_hexes(hs))
    t = _Reach()
    for rule in _BYPASS_RULES:
        t = rule(c, t)
    placed = c.lower or in_hex
    return BypassEffects(c.name, m.name_of(placed) if placed is not None else None, t.smoke, t.residual_fp, t.mines,
                         not t.blockers, not t.blockers and not t.roadblock, t.smoke_extra_cost, t.reason, t.rules,
                         t.sentences)


# ------------------------------------------------------------------------------- Bypass effects as a rulebook
#
# Each rule reads the hexside (``_Along``) and what the rules before it found (``_Reach``), and returns that
# with its own sentences, rules and findings added. A new rule is one function, put in its place in
# ``_BYPASS_RULES``.


@dataclass(frozen=True, slots=True)
class _Along:
    """What the Bypass-effects rules read: the Narrow Street hexside and where a unit in Bypass along it is."""

    m: Map
    chart: Chart
    hs: Hexside
    name: str
    lower: Hex | None  # the lower hex of a Crest-Line hexside, where the unit is (P5.11)
    sources: tuple[Hex, ...]  # the hexes whose SMOKE, Residual FP and mines reach it

    def sources_named(self) -> str:
        return " or ".join(self.m.name_of(h) for h in self.sources)


@dataclass(frozen=True, slots=True)
class _Reach:
    """What the Bypass-effects rules found so far."""

    sentences: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    smoke: int = 0
    residual_fp: int = 0
    mines: tuple[MineThreat, ...] = ()
    blockers: tuple[str, ...] = ()
    reason: str | None = None
    roadblock: bool = False
    smoke_extra_cost: Fraction = Fraction(0)

    def said(self, sentences: tuple[str, ...], *rules: str, **changes: Any) -> _Reach:
        return replace(self, sentences=(*self.sentences, *sentences), rules=(*self.rules, *rules), **changes)


def unit_in_the_lower_hex(c: _Along, t: _Reach) -> _Reach:
    """P5.11: along a Crest-Line Narrow Street the unit is in the lower hex, and only its SMOKE, Residual FP
    and mines apply (P5.131, P5.142)."""
    if c.lower is None:
        return t
    return t.said((f"{c.name} is also a Crest Line: the unit is in the lower hex {c.m.name_of(c.lower)} (P5.11), "
                   "and only that hex's SMOKE, Residual FP and mines apply (P5.131, P5.142).",),
                  "P5.11", "P5.131", "P5.142")


def _higher(c: _Along, values: dict[Hex, int], what: str) -> tuple[int, str]:
    """P5.131: the higher SMOKE (or Residual FP) of the two Locations applies, and the sentence saying so."""
    m, v = c.m, max(values.values(), default=0)
    if not v:
        return 0, f"No {what} in {c.sources_named()} (P5.131)."
    where = [m.name_of(h) for h, x in values.items() if x == v]
    others = {m.name_of(h): x for h, x in values.items() if x and x != v}
    return v, (f"{what} {v} in {' and '.join(where)} reaches the unit"
               + (f" (only the higher: {', '.join(f'{k} has {x}' for k, x in others.items())})" if others else "")
               + " (P5.131).")


def smoke_reaches(c: _Along, t: _Reach) -> _Reach:
    """P5.131: SMOKE of either ground-level Location reaches the unit; only the higher when they differ."""
    v, sentence = _higher(c, {h: c.m.smoke(h) for h in c.sources}, "SMOKE")
    return t.said((sentence,), "P5.131", smoke=v)


def residual_fp_reaches(c: _Along, t: _Reach) -> _Reach:
    """P5.131: Residual FP of either ground-level Location reaches the unit; only the higher when they differ."""
    v, sentence = _higher(c, {h: c.m.residual_fp(h) for h in c.sources}, "Residual FP")
    return t.said((sentence,), "P5.131", residual_fp=v)


def mines_reach(c: _Along, t: _Reach) -> _Reach:
    """P5.142: the mines of either hex can attack the unit, both types when A-P and A-T are there, only the
    stronger field of one type."""
    m = c.m
    threats: list[MineThreat] = []
    said: list[str] = []
    for kind in ("A-P", "A-T"):
        fields_ = [(x.strength, h) for h in c.sources for x in m.mines(h) if x.kind == kind]
        if fields_:
            strength, h = max(fields_, key=lambda x: x[0])
            threats.append(MineThreat(kind, strength, m.name_of(h)))
            weaker = [f"{m.name_of(x)} {s}" for s, x in fields_ if (s, x) != (strength, h)]
            said.append(f"{kind} mines of {strength} factors in {m.name_of(h)} can attack the unit"
                        + (f" (only the higher strength: {', '.join(weaker)})" if weaker else "") + " (P5.142).")
    if not threats:
        said.append(f"No mines in {c.sources_named()} (P5.142).")
    elif len(threats) == 2:
        said.append("A-P and A-T mines both attack (P5.142).")
    return t.said(tuple(said), "P5.142", mines=tuple(threats))


def bypass_blocked(c: _Along, t: _Reach) -> _Reach:
    """P5.126: all Bypass is NA with another vehicle/wreck in Bypass along the hexside, a Blaze (a burning
    wreck along another hexside excepted) or Rubble in either hex."""
    m = c.m
    found = narrow_street_bypass_blockers(m, c.hs)
    blockers = tuple(b.words(m, c.hs) for b in found if b.blocks)
    said = ["A burning wreck in Bypass along another hexside is no Blaze for this hexside (P5.126)."] \
        if any(not b.blocks for b in found) else []
    if not blockers:
        said.append(f"Nothing in {' or '.join(m.name_of(h) for h in c.hs.hexes)} prohibits Bypass along {c.name} "
                    "(P5.126).")
        return t.said(tuple(said), "P5.126")
    reason = f"all Bypass along {c.name} is NA: {'; '.join(blockers)} (P5.126)"
    return t.said((*said, reason[0].upper() + reason[1:] + "."), "P5.126", blockers=blockers, reason=reason)


def no_vbm_past_a_roadblock(c: _Along, t: _Reach) -> _Reach:
    """P5.141: VBM along a hexside a Narrow Street roadblock straddles is NA."""
    if c.m.roadblock(c.hs) is None:
        return t
    return t.said((f"A Narrow Street roadblock straddles {c.name}: VBM along it is NA (P5.141).",), "P5.141",
                  roadblock=True)


def smoke_adds_to_bypass(c: _Along, t: _Reach) -> _Reach:
    """P5.11: SMOKE that reaches the unit adds to the cost of Bypass along the hexside."""
    if not t.smoke:
        return t
    p = c.chart.param("narrow_street_smoke_bypass")
    extra = Fraction(p.value)
    return t.said((f"SMOKE adds {fmt(extra)} MF/MP to Bypass along {c.name} ({p.rule}).",), p.rule,
                  smoke_extra_cost=extra)


#: the Bypass-effects rules, asked in this order (the SMOKE cost reads the SMOKE found before it)
_BYPASS_RULES: tuple[Callable[[_Along, _Reach], _Reach], ...] = (
    unit_in_the_lower_hex, smoke_reaches, residual_fp_reaches, mines_reach, bypass_blocked, no_vbm_past_a_roadblock,
    smoke_adds_to_bypass)
