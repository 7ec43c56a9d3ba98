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

Shape (as networkx's shortest paths): the public :func:`move_cost`, :func:`path` and :func:`reach` wrap
one rules object whose rules each decide one thing and return a :class:`MoveRuling`, allowed or not, and
:func:`reach` runs one least-cost search over (Location, state) nodes. The state is what the rules remember
along the way: whether the B3.4 road bonus can still apply (a Bypass position also carries the hexside it was
reached along, which decides P5.11's "along a Narrow Street"). The allowance is the cutoff, raised by the
road bonus for the states that kept it. The search's tables (adjacency lists, built the first time a node is
expanded) do not depend on the allowance, so every ``reach`` of one unit on one map shares them; each way of
entering a hex (its COT, the road rate) is its own edge, so the search weighs an ALL cost against the road
rate by the actual allowance. Every number comes from the terrain chart.

The package, by topic:

* ``rulings``: the ruling values (:class:`MoveRuling`, :class:`PathRuling`, :class:`ReachRuling`,
  :class:`VcaRuling`) and a path's :class:`Step`;
* ``terrain``: what the map says for movement (road types, slopes, Narrow Streets, culverts, Crest status)
  and the cached geometry of Bypass;
* ``mover``: the rules for one unit on one map, and the search's tables;
* ``search``: a Dijkstra that knows nothing of ASL (a successors function and a cutoff, as networkx's);
* ``api``: :func:`move_cost`, :func:`path`, :func:`reach`; ``vca``: :func:`vca_change`.

Imports: chart, errors, grid, model, rulings, units. Never los, effects, render, ask or cli.
"""

from __future__ import annotations

from .api import move_cost, path, reach
from .rulings import MoveRuling, PathRuling, Reached, ReachRuling, Step, VcaRuling
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
from .vca import vca_change

__all__ = [
    "MoveRuling",
    "PathRuling",
    "ReachRuling",
    "Reached",
    "Step",
    "VcaRuling",
    "bypass_hex",
    "crest_status_problem",
    "culvert_entry_problem",
    "is_crest_line_slope",
    "move_cost",
    "moves_up_slope",
    "narrow_street_bypass_blocked",
    "narrow_street_smoke",
    "path",
    "reach",
    "road_bonus_spoilers",
    "road_hex_type",
    "road_hexside_type",
    "road_negated",
    "vca_change",
]
