"""The ``move``, ``path``, ``reach`` and ``vca-change`` kinds of ``ask`` (../shared/docs/queries.md).

Each handler reads its query's keys into typed values (naming the key and what was expected when one is
wrong), calls the movement engine with them (it takes typed values only) and returns its ruling. Unknown keys are errors, so a typo never passes silently.

Imports: movement, errors, and the registry of this package.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .. import limits
from ..errors import QueryError
from ..movement import (
    MoveRuling,
    PathRuling,
    ReachRuling,
    VcaRuling,
    as_allowance,
    context,
    parse_start,
    parse_step,
    rule_move,
    rule_path,
    rule_reach,
    rule_vca_change,
)
from . import Context, Query, handler

_COMMON = {"unit", "allowance"}


def _known(q: Query, keys: set[str]) -> None:
    """The keys a movement query reads: its own, the unit and allowance, and those of every query."""
    q.only(*_COMMON, *keys)


def _allowance(q: Query) -> Any:
    a = q.number("allowance", minimum=0)
    if a is not None and (a > limits.MAX_ALLOWANCE or Fraction(str(a)).denominator > 1000):
        raise QueryError(f"allowance: expected a number of MF/MP from 0 to {limits.MAX_ALLOWANCE} with at most "
                         f"three decimals, got {a!r}")
    return a


@handler("move")
def move(ctx: Context, q: Query) -> MoveRuling:
    """One move into an adjacent hex or Location, or one step in Bypass (queries.md ``move``)."""
    _known(q, {"from", "to", "road_rate", "bypass", "to_vertex", "in", "dash", "rout", "declared_vertex",
               "protection", "vca"})
    frm = q.location("from")
    to = q.location("to") if q.has("to") else None
    bypass = q.hexside("bypass") if q.has("bypass") else None
    if to is None and bypass is None:
        raise QueryError("missing key 'to'; expected the Location entered (or 'bypass' with 'to_vertex' for a "
                         "Bypass step)")
    unit = q.unit()
    road_rate = q.optional_flag("road_rate")
    to_vertex = q.vertex("to_vertex") if q.has("to_vertex") else None
    in_hex = q.hex("in") if q.has("in") else None
    dash, rout = q.flag("dash"), q.flag("rout")
    declared_vertex = q.vertex("declared_vertex") if q.has("declared_vertex") else None
    protection = q.flag("protection")
    allowance = as_allowance(_allowance(q))
    c = context(ctx.map, unit, allowance, dash=dash, rout=rout, conditions=ctx.conditions, chart=ctx.chart)
    return rule_move(c, frm, to, road_rate=road_rate, bypass=bypass, to_vertex=to_vertex, in_hex=in_hex,
                     protection=protection, declared_vertex=declared_vertex, vca=q.raw("vca"))


@handler("path")
def path_(ctx: Context, q: Query) -> PathRuling:
    """A whole move through several Locations (queries.md ``path``)."""
    _known(q, {"hexes", "dash", "rout", "vca"})
    hexes = q.raw("hexes")
    if not isinstance(hexes, list) or len(hexes) < 2:
        raise QueryError("hexes: expected a list of the start Location and at least one step (Locations and step "
                         "objects), such as [\"H9\", \"I10\", {\"to\": \"J10\", \"road_rate\": false}]")
    unit, allowance = q.unit(), as_allowance(_allowance(q))
    dash, rout, vca = q.flag("dash"), q.flag("rout"), q.raw("vca")
    c = context(ctx.map, unit, allowance, dash=dash, rout=rout, conditions=ctx.conditions, chart=ctx.chart)
    start = parse_start(ctx.map, hexes[0])
    # each step is read when the path gets there: a forbidden step ends the path before the next is parsed
    steps = (parse_step(ctx.map, x, i) for i, x in enumerate(hexes[1:], start=1))
    return rule_path(c, start, steps, vca)


@handler("reach")
def reach_(ctx: Context, q: Query) -> ReachRuling:
    """Every Location the unit can reach with its allowance (queries.md ``reach``)."""
    if q.has("vca"):
        raise QueryError("vca: reach does not track a vehicle's VCA (queries.md: a VCA not given is not charged); "
                         "leave vca out, or ask a path with it")
    _known(q, {"from", "dash", "rout"})
    unit, frm, allowance = q.unit(), q.location("from"), as_allowance(_allowance(q))
    c = context(ctx.map, unit, allowance, dash=q.flag("dash"), rout=q.flag("rout"), conditions=ctx.conditions,
                chart=ctx.chart)
    return rule_reach(c, frm)


@handler("vca-change")
def vca_change_(ctx: Context, q: Query) -> VcaRuling:
    """A vehicle's VCA change, on a Narrow Street or elsewhere (queries.md ``vca-change``)."""
    _known(q, {"at", "hexspines", "motion_attempt", "while_bypassing"})
    if "unit" not in q.data:
        raise QueryError("missing key 'unit'; expected a vehicle, motorcycle or wagon")
    n = q.data.get("hexspines")
    if n is None:
        raise QueryError("missing key 'hexspines'; expected a whole number 0-5 (3 is a 180-degree turn)")
    if isinstance(n, bool) or not isinstance(n, int):
        raise QueryError(f"hexspines: expected a whole number 0-5 (3 is a 180-degree turn), got {n!r}")
    return rule_vca_change(ctx.map, q.unit(), q.location("at"), n, motion_attempt=q.flag("motion_attempt"),
                           while_bypassing=q.flag("while_bypassing"), chart=ctx.chart)
