"""Batch handlers of the effects and set-up kinds (queries.md): ``tem``, ``setup``, ``stacking``,
``bypass-effects``, ``tca-change``, ``place-rubble``, ``remove``, ``street-fighting``, ``load``, ``unload``,
``unhook``, ``sniper-target``, ``end-of-player-turn``, ``rubble-drm``.

Each reads its query's keys (a missing or malformed key is a QueryError naming it) and returns the engine's
ruling; :func:`asl_terrain.ask.answer_one` serialises it.

Imports: effects, setup, model, errors, units, and the registry of ``ask``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from .. import effects as fx
from .. import setup as su
from ..errors import QueryError
from ..grid import Hexside, Vertex
from ..model import Location
from . import Context, Query, handler, keyed

_S = TypeVar("_S", bound=str)


def _opt_location(q: Query, key: str) -> Location | None:
    return q.location(key) if q.has(key) else None


def _opt_hexside(q: Query, key: str) -> Hexside | None:
    return q.hexside(key) if q.has(key) else None


def _location_list(q: Query, key: str) -> list[Location]:
    v = q.raw(key)
    if not isinstance(v, list) or not v:
        raise QueryError(f"{key}: expected a non-empty list of Locations such as [\"H13\", \"I14\"]")
    out = []
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise QueryError(f"{key}[{i}]: expected a Location name as a string, got {x!r}")
        try:
            out.append(q.map.parse_location(x))
        except QueryError as e:
            raise type(e)(f"{key}[{i}]: {e}") from None
    return out


def _required_choice(q: Query, key: str, choices: tuple[_S, ...]) -> _S:
    if not q.has(key):
        raise QueryError(f"missing key {key!r}; expected one of {', '.join(choices)}")
    v = q.choice(key, choices)
    assert v is not None
    return v


def _int(q: Query, key: str, default: int | None) -> int | None:
    v = q.raw(key, default)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        raise QueryError(f"{key}: expected a whole number, got {v!r}")
    return v


@handler("tem")
def tem(ctx: Context, q: Query) -> Any:
    """queries.md ``tem``; beyond the contract, ``"wall_advantage": false`` says the target does not hold Wall
    Advantage (B9.32)."""
    q.only("target", "firer", "firers", "attack", "moved_by", "unit", "assault_move", "snap_shot", "declared_vertex",
           "entrenched", "entered_across", "wall_advantage")
    target = q.location("target")
    attack = q.choice("attack", fx.ATTACKS, "small-arms")
    assert attack is not None
    if q.has("firers"):
        firers = _location_list(q, "firers")
        names = [(f"firers[{i}]", f) for i, f in enumerate(firers)]
    elif q.has("firer"):
        firers = [q.location("firer")]
        names = [("firer", firers[0])]
    else:
        firers, names = [], []
    moved_by = q.choice("moved_by", fx.MOVED_BY, None)
    unit, snap_shot, entered_across = q.unit(), _opt_hexside(q, "snap_shot"), _opt_hexside(q, "entered_across")
    declared_vertex = q.vertex("declared_vertex") if q.has("declared_vertex") else None
    assault_move, entrenched, wall_advantage = q.flag("assault_move"), q.flag("entrenched"), \
        q.flag("wall_advantage", True)
    with keyed(ctx.map, names):
        return fx.tem(ctx.map, target, firers, attack, unit=unit, moved_by=moved_by,
                      assault_move=assault_move, snap_shot=snap_shot, declared_vertex=declared_vertex,
                      entrenched=entrenched, entered_across=entered_across, wall_advantage=wall_advantage,
                      chart=ctx.chart, conditions=ctx.conditions)


@handler("setup")
def setup(ctx: Context, q: Query) -> Any:
    """queries.md ``setup``: set-up legality (B3.5, P4.21, P5.14, P5.142, P5.2, P5.21)."""
    q.only("item", "at", "mine_kind", "hidden", "hexside", "arrow")
    item = _required_choice(q, "item", su.SETUP_ITEMS)
    at = _opt_location(q, "at")
    if at is None and item != "roadblock":
        raise QueryError("missing key 'at': the Location to set up in, e.g. \"M4\"")
    mine_kind = q.choice("mine_kind", su.MINE_KINDS, None)
    arrow = q.vertex("arrow") if q.has("arrow") else None
    hidden = q.flag("hidden")
    hexside = _opt_hexside(q, "hexside")
    if item == "mines" and mine_kind is None:
        return _mines_of_either_kind(ctx, at, hidden, hexside, arrow)
    return su.can_set_up(ctx.map, item, at, mine_kind=mine_kind, hidden=hidden, hexside=hexside, arrow=arrow,
                         chart=ctx.chart)


def _mines_of_either_kind(ctx: Context, at: Location | None, hidden: bool, hexside: Hexside | None,
                          arrow: Vertex | None) -> Any:
    """Mines set up with no ``mine_kind`` (as queries.md's own example asks): the ruling when A-P and A-T mines
    get the same one (P5.142 forces both kinds revealed alike); a QueryError asking for the kind when they
    differ (B28.53: only non-hidden A-T mines in a paved road hex)."""
    rulings = [su.can_set_up(ctx.map, "mines", at, mine_kind=k, hidden=hidden, hexside=hexside, arrow=arrow,
                             chart=ctx.chart) for k in ("A-P", "A-T")]
    ap, at_ = rulings
    if (ap.allowed, ap.must_be_revealed) != (at_.allowed, at_.must_be_revealed):
        raise QueryError(f"missing key 'mine_kind': in {ctx.map.name_of(at) if at else 'this hex'} A-P and A-T "
                         "mines are ruled differently; expected \"A-P\" or \"A-T\"")
    return replace(ap, sentences=tuple(s.replace("A-P mines", "mines (A-P or A-T alike)") for s in ap.sentences))


@handler("stacking")
def stacking(ctx: Context, q: Query) -> Any:
    """queries.md ``stacking``: the stacking limit of a Location (A5.1, P4.2, P5.21)."""
    q.only("at", "units")
    units = q.raw("units")
    if units is not None and (not isinstance(units, list) or not all(isinstance(u, str) for u in units)):
        raise QueryError(f"units: expected a list such as [\"squad\", \"half-squad\"], got {units!r}")
    at = q.location("at")
    for u in units or ():
        if u not in su.STACKING_UNITS:
            raise QueryError(f"units: unknown unit {u!r}; expected some of {', '.join(su.STACKING_UNITS)}")
    return su.stacking_limit(ctx.map, at, units, chart=ctx.chart)


@handler("bypass-effects")
def bypass_effects(ctx: Context, q: Query) -> Any:
    """queries.md ``bypass-effects``: SMOKE, Residual FP and mines reaching a Bypasser (P5.131, P5.142), P5.126."""
    q.only("hexside", "in")
    return fx.bypass_effects(ctx.map, q.hexside("hexside"), q.hex("in") if q.has("in") else None, chart=ctx.chart)


@handler("tca-change")
def tca_change(ctx: Context, q: Query) -> Any:
    """queries.md ``tca-change``: the TCA-Change dr on a Narrow Street (P5.122), Non-Stopped status (P5.121)."""
    q.only("unit", "attempt", "phase", "tca_offset")
    if not q.has("unit"):
        raise QueryError("missing key 'unit': the vehicle, e.g. {\"type\": \"vehicle\", \"caliber\": 75}")
    attempt = _int(q, "attempt", 1)
    offset = _int(q, "tca_offset", None)
    phase = q.choice("phase", fx.PHASES, "MPh")
    assert attempt is not None and phase is not None
    return fx.tca_change(q.unit(), attempt, phase, offset, chart=ctx.chart)


@handler("place-rubble")
def place_rubble(ctx: Context, q: Query) -> Any:
    """queries.md ``place-rubble``: what placing Rubble removes and hits (P5.15)."""
    q.only("at")
    at = q.location("at")
    return fx.place_rubble(ctx.map, at.hex, chart=ctx.chart)


@handler("remove")
def remove(ctx: Context, q: Query) -> Any:
    """queries.md ``remove``: roadblock, mines and wreck removal (P5.1411, P5.142, P5.126)."""
    q.only("what", "method", "hexside", "at", "from", "vertex", "firer", "vs")
    what = _required_choice(q, "what", tuple(fx.REMOVAL_METHODS))
    method = _required_choice(q, "method", fx.REMOVAL_METHODS[what])
    firer = _opt_location(q, "firer")
    hexside, at, from_ = _opt_hexside(q, "hexside"), _opt_location(q, "at"), _opt_location(q, "from")
    vertex, vs = q.vertex("vertex") if q.has("vertex") else None, _opt_location(q, "vs")
    with keyed(ctx.map, (("firer", firer),)):
        return fx.can_remove(ctx.map, what, method, hexside=hexside, at=at, from_=from_, vertex=vertex, firer=firer,
                             vs=vs, chart=ctx.chart, conditions=ctx.conditions)


@handler("street-fighting")
def street_fighting(ctx: Context, q: Query) -> Any:
    """queries.md ``street-fighting``: Street Fighting CC vs a vehicle on a Narrow Street (P5.132)."""
    q.only("vehicle", "attacker")
    return fx.street_fighting(ctx.map, q.location("vehicle"), q.location("attacker"), chart=ctx.chart)


def _what(q: Query) -> str:
    v = q.raw("what", "squad")
    if not isinstance(v, str):
        raise QueryError(f"what: expected \"squad\", \"mortar\" or another unit as a string, got {v!r}")
    return v


@handler("unload")
def unload(ctx: Context, q: Query) -> Any:
    """queries.md ``unload``: unloading from a vehicle on a Narrow Street (P5.125)."""
    q.only("vehicle", "to", "what")
    return fx.can_unload(ctx.map, q.location("vehicle"), q.location("to"), _what(q))


@handler("load")
def load(ctx: Context, q: Query) -> Any:
    """queries.md ``load``: loading onto a vehicle on a Narrow Street (P5.125)."""
    q.only("vehicle", "from", "what")
    return fx.can_load(ctx.map, q.location("vehicle"), q.location("from"), _what(q))


@handler("unhook")
def unhook(ctx: Context, q: Query) -> Any:
    """queries.md ``unhook``: unhooking a Gun or trailer in Bypass on a Narrow Street (P5.124)."""
    q.only("vehicle", "what", "by")
    what = _required_choice(q, "what", fx.HOOKED)
    by = q.choice("by", fx.UNHOOKED_BY, "crew")
    assert by is not None
    return fx.can_unhook(ctx.map, q.location("vehicle"), what, by)


@handler("sniper-target")
def sniper_target(ctx: Context, q: Query) -> Any:
    """queries.md ``sniper-target``: Sniper target eligibility (P4.24)."""
    q.only("at")
    return fx.sniper_target(ctx.map, q.location("at"))


@handler("end-of-player-turn")
def end_of_player_turn(ctx: Context, q: Query) -> Any:
    """queries.md ``end-of-player-turn``: Replacement/Disruption checks (P4.23, B20.7)."""
    q.only("units")
    raw = q.raw("units")
    if not isinstance(raw, list):
        raise QueryError("units: expected a list such as [{\"type\": \"infantry\", \"at\": \"LL7/culvert\"}]")
    units: list[tuple[str, Location]] = []
    for i, u in enumerate(raw):
        if not isinstance(u, dict) or not isinstance(u.get("at"), str):
            raise QueryError(f"units[{i}]: expected an object with \"type\" and \"at\" (a Location name)")
        typ = u.get("type", "infantry")
        if typ not in ("infantry", "cavalry", "wagon", "vehicle", "motorcycle"):
            raise QueryError(f"units[{i}].type: unknown unit type {typ!r}; expected infantry, cavalry, wagon, "
                             "vehicle or motorcycle")
        try:
            units.append((typ, ctx.map.parse_location(u["at"])))
        except QueryError as e:
            raise type(e)(f"units[{i}].at: {e}") from None
    return fx.end_of_player_turn(ctx.map, units, ctx.conditions, chart=ctx.chart)


@handler("rubble-drm")
def rubble_drm(ctx: Context, q: Query) -> Any:
    """queries.md ``rubble-drm``: the rubble-determination drm of a building Location (B24.11, P5.2)."""
    q.only("at", "building")
    building = q.choice("building", fx.MATERIALS, None)
    return fx.rubble_drm(ctx.map, q.location("at"), building, chart=ctx.chart)
