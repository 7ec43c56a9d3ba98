"""Movement: what one move costs, what a whole path costs, and everywhere a unit can reach.

This module decides the movement rules of the seeds and the base rules they lean on:

* B3.1 (paved/dirt road hexsides), B3.3/B3.4 (the Infantry road rate, its FFMO exposure, the road bonus),
  B3.41/B3.42 (the vehicle road rate, the halved climb surcharge, the doubled vehicle/wreck penalty),
  B3.43 (road-negating rubble, protection that costs the bonus);
* P2.5-P2.53 (Up-Slope and Down-Slope costs, skis, no vehicle across a Crest-Line slope), P2.54 (flagged);
* P4.11/P4.12 (stream-woods/brush/orchard entry and Crest costs), P4.21/P4.22 (the Stream Culvert), P4.3
  (printed fords cost as ford counters);
* P5.11 (Narrow Streets: Bypass along them, no road rate into an obstacle, no Dash, no rout along them,
  their SMOKE), P5.123 (VCA changes on them), P5.124 (VBM while towing), P5.126 (Bypass NA there),
  P5.141 (the Narrow Street roadblock);
* and the base costs of the terrain chart: every terrain of the map format, walls, hedges, fences and
  roadblocks, the doubled COT going up (B10.4), SMOKE as COT (B.2), building levels by stairwell
  (B23.42), Infantry Bypass (A4.3) and VBM (D2.3).

Shape (as networkx's shortest paths): the public :func:`move_cost`, :func:`path` and :func:`reach` build one
small frozen :class:`~.context.Context` (map, the chart's typed entries, conditions, unit, allowance, flags) and ask
the rules, each a function named for what it decides, citing its rule, put in its place in an ordered tuple
(:data:`~.entry.ENTRY_PROHIBITIONS`, :data:`~.entry.ENTRY_COSTS`, :data:`~.bypass.BYPASS_PROHIBITIONS`,
:data:`~.bypass.BYPASS_COSTS`, :data:`~.levels.LEVEL_CHANGES` ...); a rule that forbids a move returns a
:class:`Prohibition`, which becomes a not-allowed :class:`MoveRuling`. :func:`reach` runs one least-cost
search over (Location, state) nodes; the state is whether the B3.4 road bonus can still apply. The allowance
is the cutoff, raised by the road bonus for the states that kept it. The search's tables do not depend on the
allowance, so every ``reach`` of one unit on one map shares them; each way of entering a hex (its COT, the
road rate) is its own edge, so the search weighs an ALL cost against the road rate by the actual allowance.
Every number comes from the terrain chart.

The package, by topic (a new rule goes in the module of its topic, in its place in the tuple):

* ``rulings``: the ruling values (:class:`MoveRuling`, :class:`PathRuling`, :class:`ReachRuling`,
  :class:`VcaRuling`, :class:`Prohibition`) and a path's :class:`Step`;
* ``terrain``: what the map says for movement (road types, slopes, Narrow Streets, culverts, Crest status)
  and the cached geometry of Bypass;
* ``context``: the frozen context the rules read (the chart's entries as the chart declares them,
  ``chart.Params``/``chart.Judgments``, and what they come to for the unit);
* ``common``: the items every kind of entry shares (hexside extras, the climb, SMOKE, vehicles, the road
  bonus's spoilers) and no entry into a Blaze;
* ``entry``: entering an adjacent hex (prohibitions, costs, the road rate);
* ``levels``: upper building levels, Stream Culverts, changes of Location inside a hex;
* ``bypass``: Bypass and Bypass along a Narrow Street;
* ``moves``: one move however it is asked, and the VCA change it costs;
* ``graph``: the search's tables (shared by threads: ids under a lock, adjacency lists published whole;
  kept with the map in :meth:`~asl_terrain.model.Map.derived`); ``search``: a Dijkstra that knows nothing
  of ASL (a successors function and a cutoff, as networkx's);
* ``api``: :func:`context` and the typed :func:`rule_move`, :func:`rule_path`, :func:`rule_reach` (typed
  values only, as python-chess's ``push`` takes a ``Move``), and the name-taking :func:`move_cost`,
  :func:`path`, :func:`reach` (its ``push_san``); ``vca``: :func:`rule_vca_change`, :func:`vca_change`;
* ``names``: parse once, at the edge (``ask``, the CLI, and the name-taking functions use it).

>>> from asl_terrain.model import load_demo
>>> r = move_cost(load_demo(), "infantry", "M16", "M17")
>>> r.cost, r.rules()
(Fraction(1, 1), ('B3.4',))

Imports: chart, errors, grid, model, rulings, units. Never los, effects, render, ask or cli.
"""

from __future__ import annotations

from .api import context, move_cost, path, reach, rule_move, rule_path, rule_reach
from .names import as_allowance, as_unit, parse_location, parse_start, parse_step
from .rulings import MoveRuling, PathRuling, Prohibition, Reached, ReachRuling, Step, VcaRuling
from .terrain import (
    bypass_hex,
    crest_status_problem,
    culvert_entry_problem,
    is_crest_line_slope,
    moves_up_slope,
    narrow_street_bypass_blocked,
    narrow_street_smoke,
    road_bonus_spoilers,
    road_hex_type,
    road_hexside_type,
    road_negated,
)
from .vca import rule_vca_change, vca_change

__all__ = [
    "MoveRuling",
    "PathRuling",
    "Prohibition",
    "ReachRuling",
    "Reached",
    "Step",
    "VcaRuling",
    "as_allowance",
    "as_unit",
    "bypass_hex",
    "context",
    "crest_status_problem",
    "culvert_entry_problem",
    "is_crest_line_slope",
    "move_cost",
    "moves_up_slope",
    "narrow_street_bypass_blocked",
    "narrow_street_smoke",
    "parse_location",
    "parse_start",
    "parse_step",
    "path",
    "reach",
    "road_bonus_spoilers",
    "road_hex_type",
    "road_hexside_type",
    "road_negated",
    "rule_move",
    "rule_path",
    "rule_reach",
    "rule_vca_change",
    "vca_change",
]
