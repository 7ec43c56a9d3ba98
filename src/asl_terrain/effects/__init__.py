"""Effects: the TEM and DRM of an attack, and the other P4/P5 rulings about what reaches a unit.

One module per topic; every public name is importable from ``asl_terrain.effects``:

- :mod:`.tem_rules` — ``tem``: the TEM/DRM of one attack as a rulebook (decisions P4.24, A6.1, P2.42, then
  ``_TEM_RULES`` in order: hindrances A6.7, Fire Lane slope P2.42, the Location's TEM, B3.3 road-rate
  exposure, entrenchments B27.1, walls/hedges/roadblocks B9.3/B29.3, Narrow Street roadblocks P5.141, the
  better TEM, slope TEM P2.41, Mud/Deep Snow E3.62/E3.72, Height Advantage B10.31, FFMO/FFNAM A4.6), and the
  Fire Group choice (A7.5, A.5).
- :mod:`.cover` — the cover the target's own Location gives (terrain B13.3/B23.3/B15.3, IN a stream B20.3 and
  P4.13, Crest status B20.91, bridges B6, culverts, Rooftops), hexside TEM, the Narrow Street roadblock's
  TEM (P5.141) and B3.3's road-rate exposure (A4.132).
- :mod:`.slope` — slope TEM (P2.41) and the Fire Lane slope DRM (P2.42).
- :mod:`.bypass` — ``bypass_effects``: what reaches a unit in Bypass along a Narrow Street and whether Bypass
  is allowed (P5.11, P5.126, P5.131, P5.141, P5.142).
- :mod:`.vehicles` — TCA changes (P5.121, P5.122), Street Fighting CC (P5.132), (un)loading and unhooking
  (P5.124, P5.125).
- :mod:`.rubble` — placing Rubble (P5.15) and the rubble-determination drm (B24.11, P5.2).
- :mod:`.removal` — ``can_remove``: roadblocks (P5.1411), revealed mines (P5.142), wrecks (P5.126).
- :mod:`.culvert` — end-of-Player-Turn checks (P4.23, B20.7) and Sniper targets (P4.24).
- :mod:`.common` — the attack types and what several of them read.

Every number comes from the terrain chart (``param`` and ``judgment`` entries name their rule and tag).
Rulings are values: what the rules forbid is a ruling (``affected=False``, ``allowed=False``) with its
reason, and a question that cannot be answered raises a :class:`~asl_terrain.errors.QueryError`. The
engines take typed values (Locations, Hexsides, Units) as ``ask`` parsed them: a Location comes from
:meth:`~asl_terrain.model.Map.parse_location`, which checks that it exists, and is not checked again.

Imports: los, setup, chart, errors, grid, model, rulings, units. Never movement, ask, cli or render.
"""

from __future__ import annotations

from .bypass import BypassEffects, MineThreat, bypass_effects
from .common import ATTACKS, MOVED_BY, NO_FIRER, Attack, MovedBy, is_ground_level, narrow_street_of
from .cover import bridge_tem
from .culvert import Check, EndOfPlayerTurn, SniperTarget, end_of_player_turn, sniper_target
from .removal import REMOVAL_METHODS, Removable, RemovalMethod, RemovalRuling, can_remove
from .rubble import MATERIALS, Material, Removed, RubbleDrm, RubblePlacement, apply_rubble, place_rubble, rubble_drm
from .slope import down_slope_hexsides, fire_lane_slope_drm, has_slope_tem_hexsides, slope_tem_applies
from .tem_rules import TemRuling, tem
from .vehicles import (
    HOOKED,
    PHASES,
    UNHOOKED_BY,
    Hooked,
    Phase,
    StreetFighting,
    UnhookedBy,
    TcaChange,
    TransferRuling,
    can_load,
    can_unhook,
    can_unload,
    non_stopped_allowed,
    street_fighting,
    tca_change,
)

__all__ = [
    "ATTACKS",
    "HOOKED",
    "MATERIALS",
    "MOVED_BY",
    "NO_FIRER",
    "PHASES",
    "UNHOOKED_BY",
    "Attack",
    "Hooked",
    "Material",
    "Phase",
    "UnhookedBy",
    "REMOVAL_METHODS",
    "BypassEffects",
    "Check",
    "EndOfPlayerTurn",
    "MineThreat",
    "MovedBy",
    "Removable",
    "RemovalMethod",
    "RemovalRuling",
    "Removed",
    "RubbleDrm",
    "RubblePlacement",
    "SniperTarget",
    "StreetFighting",
    "TcaChange",
    "TemRuling",
    "TransferRuling",
    "apply_rubble",
    "bridge_tem",
    "bypass_effects",
    "can_load",
    "can_remove",
    "can_unhook",
    "can_unload",
    "down_slope_hexsides",
    "is_ground_level",
    "end_of_player_turn",
    "fire_lane_slope_drm",
    "has_slope_tem_hexsides",
    "narrow_street_of",
    "non_stopped_allowed",
    "place_rubble",
    "rubble_drm",
    "slope_tem_applies",
    "sniper_target",
    "street_fighting",
    "tca_change",
    "tem",
]
