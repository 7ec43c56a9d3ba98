"""The ``move``, ``path``, ``reach`` and ``vca-change`` kinds of ``ask`` (../shared/docs/queries.md).

Each handler reads its query's keys (naming the key and what was expected when one is wrong), calls the
movement engine and returns its ruling. Unknown keys are errors, so a typo never passes silently.

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
    move_cost,
    path,
    reach,
    vca_change,
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
    return move_cost(
        ctx.map, q.unit(), frm, to,
        road_rate=q.optional_flag("road_rate"),
        bypass=bypass,
        to_vertex=q.vertex("to_vertex") if q.has("to_vertex") else None,
        in_hex=q.hex("in") if q.has("in") else None,
        dash=q.flag("dash"),
        rout=q.flag("rout"),
        declared_vertex=q.vertex("declared_vertex") if q.has("declared_vertex") else None,
        protection=q.flag("protection"),
        allowance=_allowance(q),
        vca=q.raw("vca"),
        conditions=ctx.conditions,
        chart=ctx.chart,
    )


@handler("path")
def path_(ctx: Context, q: Query) -> PathRuling:
    """A whole move through several Locations (queries.md ``path``)."""
    _known(q, {"hexes", "dash", "rout", "vca"})
    hexes = q.raw("hexes")
    if not isinstance(hexes, list) or len(hexes) < 2:
        raise QueryError("hexes: expected a list of the start Location and at least one step (Locations and step "
                         "objects), such as [\"H9\", \"I10\", {\"to\": \"J10\", \"road_rate\": false}]")
    return path(ctx.map, q.unit(), hexes, _allowance(q), dash=q.flag("dash"), rout=q.flag("rout"),
                vca=q.raw("vca"), conditions=ctx.conditions, chart=ctx.chart)


@handler("reach")
def reach_(ctx: Context, q: Query) -> ReachRuling:
    """Every Location the unit can reach with its allowance (queries.md ``reach``)."""
    if q.has("vca"):
        raise QueryError("vca: reach does not track a vehicle's VCA (queries.md: a VCA not given is not charged); "
                         "leave vca out, or ask a path with it")
    _known(q, {"from", "dash", "rout"})
    return reach(ctx.map, q.unit(), q.location("from"), _allowance(q), dash=q.flag("dash"), rout=q.flag("rout"),
                 conditions=ctx.conditions, chart=ctx.chart)


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
    return vca_change(ctx.map, q.unit(), q.location("at"), n, motion_attempt=q.flag("motion_attempt"),
                      while_bypassing=q.flag("while_bypassing"), chart=ctx.chart)
