"""Effects and set-up subcommands: tem, setup, stacking, bypass-effects, tca-change, place-rubble, remove,
street-fighting, load, unload, unhook, sniper-target, end-of-player-turn, rubble-drm.

Each builds the query object ``ask`` takes (queries.md), answers it with
:func:`asl_terrain.ask.answer_one` and prints it, so the CLI and the batch agree.
"""

from __future__ import annotations

import json
import re
from typing import Any

import typer

from ..errors import UserError
from ..model import Map
from . import WhatIf, app, get_chart, is_map_arg, load_map, print_answer, split_map, what_if_options

_TEM_KEYS = ["target", "firers", "attack", "affected", "reason", "range", "tem", "hindrance_drm", "drm", "ffmo",
             "ffnam", "total_drm", "open_ground", "fire_group_los"]


def _run(m: Map, query: dict[str, Any], keys: list[str] | None = None, item_key: str = "amount",
         spelled: dict[str, str] | None = None) -> None:
    """Answer ``query`` as ``ask`` does and print it; an error answer is one line on stderr, exit status 2.

    ``spelled`` names the command-line spelling of a query key that is not ``--key`` (e.g. a positional
    ``AT``), for the message when the engine misses it."""
    from ..ask import answer_one

    left_out = {k for k, v in query.items() if v is None}
    query = {k: v for k, v in query.items() if v is not None and v != [] and v is not False or k == "kind"}
    # debug=True: a bug is raised, not dressed up as an error answer, so main() exits 3 for it (2 is for
    # the user's mistakes), with the traceback under --debug
    ans = answer_one(m, query, get_chart(), debug=True)
    if "error" in ans:  # a query the engine cannot answer: one line on stderr, exit status 2 (via main)
        raise UserError(_cli_message(str(ans["error"]), left_out, spelled or {}))
    print_answer(ans, keys, item_key)


_MISSING = re.compile(r"missing key '(\w+)'")


def _cli_message(msg: str, left_out: set[str], spelled: dict[str, str]) -> str:
    """The engine's message in the words of the command line: a missing query key the command left out
    becomes the option (``--hexside``) or argument (``AT``) to give."""
    found = _MISSING.match(msg)
    if found is None or found.group(1) not in left_out:
        return msg
    key = found.group(1)
    return f"missing {spelled.get(key, '--' + key.replace('_', '-'))}{msg[found.end():]}"


def _map_only(args: list[str] | None) -> Map:
    m, _ = split_map(args or [], 0, "")
    return m


def _unit(text: str | None) -> Any:
    if text is None:
        return None
    t = text.strip()
    if not t.startswith("{"):
        return t
    try:
        return json.loads(t)
    except json.JSONDecodeError as e:
        raise UserError(f"--unit: not a JSON object ({e.msg} at column {e.colno}); expected e.g. "
                        "'{\"type\": \"vehicle\", \"caliber\": 75}'") from None


@app.command()
@what_if_options
def tem(
    args: list[str] | None = typer.Argument(None, metavar="[MAP]", help="Map file (default: the demo map)."),
    target: str = typer.Option(..., "--target", "-t", help="The target's Location, e.g. K14 or O17@O17-O18-N17."),
    firer: list[str] | None = typer.Option(None, "--firer", "-f",
                                              help="The firer's Location; repeat it for a Fire Group (A.5)."),
    attack: str = typer.Option("small-arms", "--attack", "-a",
                               help="small-arms, ordnance, ft, indirect, air-burst, fire-lane, aerial, residual-fp."),
    moved_by: str | None = typer.Option(None, "--moved-by", help="road-rate or non-road: how the target "
                                           "entered its hex this phase (B3.3, FFMO/FFNAM)."),
    assault_move: bool = typer.Option(False, "--assault-move", help="The target used Assault Movement."),
    snap_shot: str | None = typer.Option(None, "--snap-shot", help="A Snap Shot at this hexside."),
    declared_vertex: str | None = typer.Option(None, "--declared-vertex",
                                                  help="The roadblock side the target crossed on (P5.141)."),
    unit: str | None = typer.Option(None, "--unit", help="The target: infantry (default), cavalry, vehicle, "
                                       "or a JSON object."),
    entrenched: bool = typer.Option(False, "--entrenched", help="The target is entrenched."),
    entered_across: str | None = typer.Option(None, "--entered-across",
                                                 help="The hexside the target entered its hex across (B3.3)."),
    wall_advantage: bool = typer.Option(True, "--wall-advantage/--no-wall-advantage",
                                        help="Whether the target holds Wall Advantage (B9.32)."),
    what_if: WhatIf = WhatIf(),
) -> None:
    """The terrain effects on one attack: each TEM and DRM with its rule, and the total (B3.3, P2.41, P2.42,
    P4.13, P4.24, P5.141, A4.6).

    Examples (on the demo map; its hex names may leave out the prefix Hr):
    asl-terrain tem --target K11 --firer M11                  (stone house +3, SMOKE in L11 +3)
    asl-terrain tem -t K14 -f I14 -f H13 --moved-by non-road  (a Fire Group vs a moving target: FFMO, FFNAM)
    """
    m = what_if.on(_map_only(args))
    firers = list(firer or [])
    q: dict[str, Any] = {"kind": "tem", "target": target, "attack": attack, "moved_by": moved_by,
                         "assault_move": assault_move, "snap_shot": snap_shot, "declared_vertex": declared_vertex,
                         "unit": _unit(unit), "entrenched": entrenched, "entered_across": entered_across}
    if not wall_advantage:
        q["wall_advantage"] = False
    if len(firers) == 1:
        q["firer"] = firers[0]
    elif firers:
        q["firers"] = firers
    _run(m, q, _TEM_KEYS)


@app.command()
def setup(
    args: list[str] = typer.Argument(..., metavar="[MAP] ITEM [AT]",
                                     help="unit, gun, squad, half-squad, entrenchment, mines, roadblock, "
                                          "fortification or fortified-building; and the Location."),
    hidden: bool = typer.Option(False, "--hidden", help="Set up hidden (HIP)."),
    mine_kind: str | None = typer.Option(None, "--mine-kind", help="A-P or A-T (mines)."),
    hexside: str | None = typer.Option(None, "--hexside", help="A roadblock's hexside."),
    arrow: str | None = typer.Option(None, "--arrow", help="The vertex a Narrow Street roadblock's arrow "
                                        "points to."),
) -> None:
    """May this be set up here? (B3.5, P4.21, P5.14, P5.142, P5.2, P5.21)

    Examples (on the demo map):
    asl-terrain setup entrenchment M4                          (no: a paved road hex, B3.5)
    asl-terrain setup mines L12 --mine-kind A-P --hidden       (revealed only: P5.142)
    asl-terrain setup roadblock K11 --hexside K11-K12 --arrow J11-K11-K12
    """
    if args and is_map_arg(args[0]):
        m, rest = load_map(args[0]), args[1:]
    else:
        m, rest = load_map(None), list(args)
    if not 1 <= len(rest) <= 2:
        raise UserError(f"expected [MAP] ITEM [AT], got {' '.join(args)}")
    _run(m, {"kind": "setup", "item": rest[0], "at": rest[1] if len(rest) > 1 else None, "hidden": hidden,
             "mine_kind": mine_kind, "hexside": hexside, "arrow": arrow}, spelled={"at": "AT"})


@app.command()
def stacking(
    args: list[str] = typer.Argument(..., metavar="[MAP] AT", help="Map file (default: the demo map) and a "
                                     "Location, e.g. K10/2 or F8/culvert."),
    unit: list[str] | None = typer.Option(None, "--unit", help="A unit to stack there (squad, half-squad, "
                                             "crew, leader, gun); repeat it."),
) -> None:
    """The stacking limit of a Location (A5.1, P4.2, P5.21).

    Examples (on the demo map):
    asl-terrain stacking K10/2 --unit squad     (the steeple: one half-squad equivalent, P5.21)
    asl-terrain stacking F8/culvert             (a Stream Culvert, P4.2)
    """
    m, (at,) = split_map(args, 1, "AT")
    _run(m, {"kind": "stacking", "at": at, "units": list(unit) if unit else None})


@app.command("bypass-effects")
def bypass_effects(
    args: list[str] = typer.Argument(..., metavar="[MAP] HEXSIDE", help="Map file (default: the demo map) and "
                                     "a Narrow Street hexside, e.g. L11-L12."),
    in_: str | None = typer.Option(None, "--in", help="The hex the unit is Bypassing in (default: both)."),
) -> None:
    """What SMOKE, Residual FP and mines reach a unit in Bypass along a Narrow Street hexside (P5.131, P5.142),
    and whether Bypass is allowed (P5.126).

    Example (on the demo map):
    asl-terrain bypass-effects L11-L12          (SMOKE 3 in L11, A-P mines in L12)
    """
    m, (hs,) = split_map(args, 1, "HEXSIDE")
    _run(m, {"kind": "bypass-effects", "hexside": hs, "in": in_})


@app.command("tca-change")
def tca_change(
    args: list[str] | None = typer.Argument(None, metavar="[MAP]", help="Map file (default: the demo map)."),
    caliber: int = typer.Option(75, help="MA caliber in mm."),
    barrel: str = typer.Option("L", help="Barrel length: '', '*', 'L' or 'LL'."),
    buttoned_up: bool = typer.Option(False, "--bu", help="The vehicle is Buttoned Up."),
    turreted: bool = typer.Option(True, "--turreted/--no-turret"),
    armor_leader: int = typer.Option(0, "--armor-leader", help="The Armor Leader's modifier, e.g. -1."),
    attempt: int = typer.Option(1, help="Which TCA-Change dr of this phase (1, 2, 3 ...)."),
    phase: str = typer.Option("MPh", help="MPh or other."),
    tca_offset: int | None = typer.Option(None, "--tca-offset", help="Hexspines between TCA and VCA (0-5)."),
) -> None:
    """A vehicle's TCA-Change dr on a Narrow Street (P5.122) and Non-Stopped status (P5.121).

    Examples:
    asl-terrain tca-change                                     (a 75L turreted gun)
    asl-terrain tca-change --barrel LL --bu --attempt 2
    """
    m = _map_only(args)
    unit = {"type": "vehicle", "caliber": caliber, "barrel": barrel, "buttoned_up": buttoned_up,
            "turreted": turreted, "armor_leader": armor_leader}
    _run(m, {"kind": "tca-change", "unit": unit, "attempt": attempt, "phase": phase, "tca_offset": tca_offset})


@app.command("place-rubble")
def place_rubble(
    args: list[str] = typer.Argument(..., metavar="[MAP] AT", help="Map file (default: the demo map) and the "
                                     "hex the Rubble counter is placed in."),
) -> None:
    """What placing Rubble removes and whom it hits along Narrow Street hexsides (P5.15).

    Example (on the demo map):
    asl-terrain place-rubble K11
    """
    m, (at,) = split_map(args, 1, "AT")
    _run(m, {"kind": "place-rubble", "at": at})


@app.command()
def remove(
    args: list[str] = typer.Argument(..., metavar="[MAP] WHAT", help="Map file (default: the demo map) and "
                                     "what to remove: roadblock, mines, wreck or vehicle."),
    method: str = typer.Option(..., "--method", help="clearance, dc, direct-fire, indirect-he, b28.53, d10.4."),
    hexside: str | None = typer.Option(None, "--hexside", help="A roadblock's hexside."),
    at: str | None = typer.Option(None, "--at", help="The hex of the mines or wreck."),
    from_: str | None = typer.Option(None, "--from", help="The Location of the unit making the attempt."),
    vertex: str | None = typer.Option(None, "--vertex", help="A DC's vertex."),
    firer: str | None = typer.Option(None, "--firer", help="Direct Fire ordnance's Location."),
    vs: str | None = typer.Option(None, "--vs", help="The Location Indirect Fire HE resolves against."),
) -> None:
    """May a Narrow Street roadblock, revealed mines or a wreck be removed this way? (P5.1411, P5.142, P5.126)

    Examples (on the demo map):
    asl-terrain remove roadblock --hexside K11-K12 --method clearance --from J11
    asl-terrain remove mines --at L12 --method b28.53
    """
    m, (what,) = split_map(args, 1, "WHAT")
    _run(m, {"kind": "remove", "what": what, "method": method, "hexside": hexside, "at": at, "from": from_,
             "vertex": vertex, "firer": firer, "vs": vs})


@app.command("street-fighting")
def street_fighting(
    args: list[str] = typer.Argument(..., metavar="[MAP] VEHICLE ATTACKER",
                                     help="The vehicle's Bypass position (N17@N17-O17) and the attacker's Location."),
) -> None:
    """Street Fighting CC vs a vehicle on a Narrow Street (P5.132).

    Example (on the demo map):
    asl-terrain street-fighting K12@K12-L12 L12   (the attacker in the house in L12)
    """
    m, (vehicle, attacker) = split_map(args, 2, "VEHICLE ATTACKER")
    _run(m, {"kind": "street-fighting", "vehicle": vehicle, "attacker": attacker})


@app.command()
def unload(
    args: list[str] = typer.Argument(..., metavar="[MAP] VEHICLE TO", help="Map file (default: the demo map), "
                                     "the vehicle's Bypass position (K12@K12-L12) and the Location unloaded into."),
    what: str = typer.Option("squad", "--what", help="squad, mortar (a 76-107mm MTR) or another unit."),
) -> None:
    """May Passengers unload from a vehicle on a Narrow Street into this Location? (P5.125)

    Example (on the demo map):
    asl-terrain unload K12@K12-L12 L12
    """
    m, (vehicle, to) = split_map(args, 2, "VEHICLE TO")
    _run(m, {"kind": "unload", "vehicle": vehicle, "to": to, "what": what})


@app.command()
def load(
    args: list[str] = typer.Argument(..., metavar="[MAP] VEHICLE FROM", help="Map file (default: the demo map), "
                                     "the vehicle's Bypass position (K12@K12-L12) and the Location loaded from."),
    what: str = typer.Option("squad", "--what", help="squad, mortar (a 76-107mm MTR) or another unit."),
) -> None:
    """May Passengers load onto a vehicle on a Narrow Street from this Location? (P5.125)

    Example (on the demo map):
    asl-terrain load K12@K12-L12 K12 --what mortar
    """
    m, (vehicle, frm) = split_map(args, 2, "VEHICLE FROM")
    _run(m, {"kind": "load", "vehicle": vehicle, "from": frm, "what": what})


@app.command()
def unhook(
    args: list[str] = typer.Argument(..., metavar="[MAP] VEHICLE", help="Map file (default: the demo map) and "
                                     "the towing vehicle's Bypass position, e.g. K12@K12-L12."),
    what: str = typer.Option("gun", "--what", help="gun or trailer."),
    by: str = typer.Option("crew", "--by", help="crew (of the towing vehicle) or other."),
) -> None:
    """May a towed Gun or trailer be unhooked in Bypass on a Narrow Street? (P5.124)

    Example (on the demo map):
    asl-terrain unhook K12@K12-L12 --what trailer
    """
    m, (vehicle,) = split_map(args, 1, "VEHICLE")
    _run(m, {"kind": "unhook", "vehicle": vehicle, "what": what, "by": by})


@app.command("sniper-target")
def sniper_target(
    args: list[str] = typer.Argument(..., metavar="[MAP] AT", help="Map file (default: the demo map) and the "
                                     "units' Location."),
) -> None:
    """Are units here eligible Sniper targets? (P4.24)

    Example (on the demo map):
    asl-terrain sniper-target F8/culvert        (no: IN a Stream Culvert)
    """
    m, (at,) = split_map(args, 1, "AT")
    _run(m, {"kind": "sniper-target", "at": at})


@app.command("end-of-player-turn")
def end_of_player_turn(
    args: list[str] = typer.Argument(..., metavar="[MAP] LOCATION...", help="Map file (default: the demo map) "
                                     "and the Locations of the units."),
    unit_type: str = typer.Option("infantry", "--type", help="The units' type."),
) -> None:
    """Which units are due a Replacement/Disruption check at the end of the Player Turn? (P4.23, B20.7)

    Example (on the demo map):
    asl-terrain end-of-player-turn F8/culvert E8
    """
    if args and is_map_arg(args[0]):
        m, locs = load_map(args[0]), args[1:]
    else:
        m, locs = load_map(None), list(args)
    if not locs:
        raise UserError("expected [MAP] LOCATION...: at least one Location of a unit after the map file")
    _run(m, {"kind": "end-of-player-turn", "units": [{"type": unit_type, "at": x} for x in locs]})


@app.command("rubble-drm")
def rubble_drm(
    args: list[str] = typer.Argument(..., metavar="[MAP] AT", help="Map file (default: the demo map) and a "
                                     "building Location, e.g. K10/1."),
    building: str | None = typer.Option(None, "--building", help="stone or wooden (default: the map's)."),
) -> None:
    """The drm a building Location adds to rubble determination (B24.11; P5.2 for a Steeple).

    Examples (on the demo map):
    asl-terrain rubble-drm K10/1                (+1: stone building, B24.11)
    asl-terrain rubble-drm K10/2                (0: the steeple, P5.2)
    """
    m, (at,) = split_map(args, 1, "AT")
    _run(m, {"kind": "rubble-drm", "at": at, "building": building})
