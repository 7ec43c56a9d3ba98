"""Movement subcommands: ``move``, ``path``, ``reach`` (``-o reach.png``) and ``vca-change``.

Each builds the query object ``ask`` takes (queries.md), answers it with
:func:`asl_terrain.ask.answer_one` and prints it, so the CLI and the batch agree. ``reach -o`` draws the
engine's answer with :mod:`asl_terrain.render`: each reachable hex tinted and labelled with its least
cost, the cheapest paths on request; render only draws.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from ..errors import UserError
from ..model import Location, Map
from . import (
    FORCE_OPT,
    SIZE_OPT,
    WhatIf,
    app,
    board_image,
    check_output,
    console,
    format_value,
    get_chart,
    is_map_arg,
    load_map,
    print_answer,
    save_picture,
    split_map,
    what_if_options,
)
from .quick import allowance_of, answer, one_shot, run_move, run_reach, unit_value

_UNIT_HELP = ("The unit: infantry, cavalry, wagon, vehicle (a 16-MP fully-tracked AFV), motorcycle, or a JSON "
              "object such as '{\"type\": \"vehicle\", \"class\": \"truck\", \"mp\": 12}' (queries.md).")
_unit = unit_value
_answer = answer
_allowance = allowance_of


@app.command("move")
@what_if_options
def move_command(
    args: list[str] = typer.Argument(..., metavar="[MAP] FROM [TO]", help="Map file (default: the demo map), the "
                                     "unit's Location and the Location it enters (left out with --bypass)."),
    unit: str = typer.Option("infantry", "--unit", "-u", help=_UNIT_HELP),
    road_rate: Optional[bool] = typer.Option(None, "--road-rate/--no-road-rate", help="Use (or refuse) the road "
                                             "rate; left out, the cheaper legal way."),
    bypass: Optional[str] = typer.Option(None, "--bypass", help="Move in Bypass along this hexside, e.g. N17-O17."),
    to_vertex: Optional[str] = typer.Option(None, "--to-vertex", help="The vertex a Bypass step ends at."),
    in_hex: Optional[str] = typer.Option(None, "--in", help="The hex a Bypass step is in."),
    dash: bool = typer.Option(False, "--dash", help="The move is part of a Dash (A4.63)."),
    rout: bool = typer.Option(False, "--rout", help="The move is part of a rout."),
    declared_vertex: Optional[str] = typer.Option(None, "--declared-vertex", help="Side declared when crossing "
                                                  "a Narrow Street roadblock's hexside (P5.141)."),
    protection: bool = typer.Option(False, "--protection", help="Pay for woods/shellhole protection or take an "
                                    "orchard's cover instead of the road (B3.43)."),
    allowance: Optional[float] = typer.Option(None, "--allowance", help="The unit's MF/MP (for ALL costs)."),
    mf: Optional[float] = typer.Option(None, "--mf", help="Same as --allowance (MF)."),
    mp: Optional[float] = typer.Option(None, "--mp", help="Same as --allowance (MP)."),
    vca: Optional[int] = typer.Option(None, "--vca", min=0, max=5, help="A vehicle's VCA (0 = N ... 5 = NW): "
                                      "the VCA change to face the hex entered is charged (D2.11)."),
    what_if: WhatIf = WhatIf(),
) -> None:
    """What one move costs: allowed or not (and the rule that forbids it), the cost and its items, each citing
    its rule (B3, P2.5, P4.1-P4.3, P5.11-P5.141, and the Chapter B chart).

    Examples (on the demo map; its hex names may leave out the prefix Hr):
    asl-terrain move S7 T6                           (1½ MF: dirt road, Up-Slope; B3.4, P2.51)
    asl-terrain move V4 V3 --unit vehicle            (not allowed: Crest-Line slope hexside, P2.53)
    asl-terrain move E8 F8/culvert                   (not allowed: into a Stream Culvert from the bank, P4.21)
    asl-terrain move L11 --bypass L11-L12 --to-vertex K12-L11-L12 --unit vehicle   (Bypass, P5.11)
    """
    run_move(args, unit, road_rate, bypass, to_vertex, in_hex, dash, rout, declared_vertex, protection, allowance,
             mf, mp, vca, what_if)


@app.command("path")
def path_command(
    args: list[str] = typer.Argument(..., metavar="[MAP] START STEP...", help="Map file (default: the demo map), "
                                     "the start Location, then each Location entered (Bypass positions such as "
                                     "N18@N18-O18-O19 for Bypass steps)."),
    unit: str = typer.Option("infantry", "--unit", "-u", help=_UNIT_HELP),
    allowance: Optional[float] = typer.Option(None, "--allowance", help="The unit's MF/MP (default: its own)."),
    mf: Optional[float] = typer.Option(None, "--mf", help="Same as --allowance."),
    mp: Optional[float] = typer.Option(None, "--mp", help="Same as --allowance."),
    dash: bool = typer.Option(False, "--dash", help="The move is a Dash (A4.63)."),
    rout: bool = typer.Option(False, "--rout", help="The move is a rout."),
    vca: Optional[int] = typer.Option(None, "--vca", min=0, max=5, help="A vehicle's VCA at the start (0 = N ... "
                                      "5 = NW): each VCA change is charged (D2.11)."),
) -> None:
    """What a whole move costs: each step, the B3.4 road bonus for the path, the allowance after it.

    Examples (on the demo map):
    asl-terrain path M15 M14 M13 M12 M11             (4 MF; the road bonus raises the allowance to 5, B3.4)
    asl-terrain path M18 M17 M16 M15 M14 --mf 4      (5 MF with SMOKE in M16: over the allowance)
    """
    if args and is_map_arg(args[0]):
        m, hexes = load_map(args[0]), args[1:]
    else:
        m, hexes = load_map(None), list(args)
    if len(hexes) < 2:
        raise UserError(f"expected [MAP] START STEP...: the start Location and at least one step, got "
                        f"{' '.join(hexes) or '(none)'}")
    q: dict[str, Any] = {"kind": "path", "unit": _unit(unit), "hexes": hexes}
    a = _allowance(allowance, mf, mp)
    if a is not None:
        q["allowance"] = a
    if dash:
        q["dash"] = True
    if rout:
        q["rout"] = True
    if vca is not None:
        q["vca"] = vca
    ans = _answer(m, q)
    t = Table(show_header=True, header_style="bold")
    for col in ("step", "to", "cost", "rules", "note"):
        t.add_column(col)
    for i, s in enumerate(ans.get("steps", []), start=1):
        note = s.get("reason") or ("road rate" if s.get("road_rate") else "")
        t.add_row(str(i), str(s.get("to")), format_value(s.get("cost")), ", ".join(s.get("rules", [])), note)
    console.print(t)
    print_answer(ans, ["allowed", "cost", "units", "road_bonus", "allowance", "reason"])


def _gradient(x: float) -> str:
    """Green (0) -> amber (0.5) -> red (1)."""
    x = max(0.0, min(1.0, x))
    stops = [(0.0, (46, 125, 50)), (0.5, (249, 168, 37)), (1.0, (198, 40, 40))]
    for (x0, c0), (x1, c1) in itertools.pairwise(stops):
        if x <= x1:
            f = (x - x0) / (x1 - x0) if x1 > x0 else 0.0
            r, g, b = (round(a + (b_ - a) * f) for a, b_ in zip(c0, c1, strict=True))
            return f"#{r:02x}{g:02x}{b:02x}"
    return "#c62828"


def _point(loc: Location) -> tuple[int, int]:
    return loc.vertex.point() if loc.vertex is not None else loc.hex.centre()


def _draw_reach(m: Map, q: dict[str, Any], output: Path, size: float, with_paths: bool, force: bool = False,
                inputs: list[str] | None = None) -> None:
    from ..movement import as_unit, context, parse_location, rule_reach
    from ..render import map_svg
    from ..rulings import fmt

    # the query was answered by ask already: its names parse, and the engine takes the typed values
    mc = context(m, as_unit(q["unit"]), q.get("allowance"), chart=get_chart())
    r = rule_reach(mc, parse_location(m, q["from"], "from"))
    allow = float(r.allowance) or 1.0
    # a hex's label: the cost of its ground Location (IN a stream hex) where that is reached, else of its
    # cheapest other Location ("B" before the cost when only Bypass positions in it are reached)
    best: dict[Any, tuple[int, Fraction, str]] = {}
    for x in r.reached:
        loc = x.location
        rank = 0 if loc.is_ground else 2 if loc.is_bypass else 1
        cur = best.get(loc.hex)
        if cur is None or (rank, x.cost) < (cur[0], cur[1]):
            best[loc.hex] = (rank, x.cost, "B" if loc.is_bypass else "")
    fills: dict[Any, str] = {}
    labels: dict[Any, str] = {}
    for h, (_, c, mark) in best.items():
        if h == r.start.hex:
            fills[h] = "#1565c0"
            labels[h] = "start"
            continue
        fills[h] = "#6a1b9a" if c > r.allowance else _gradient(float(c) / allow)
        labels[h] = mark + fmt(c)
    paths: list[list[tuple[int, int]]] = []
    if with_paths:
        seen: set[tuple[tuple[int, int], tuple[int, int]]] = set()
        for x in r.reached:
            pts = [_point(p) for p in x.path]
            for a, b in itertools.pairwise(pts):
                if (a, b) not in seen and a != b:
                    seen.add((a, b))
                    paths.append([a, b])
    caption = (r.explain() + f" Labels: least {r.units} to enter each hex (\"B2\": only Bypass positions in it are "
               f"reached, for 2); green is cheap, red takes the whole allowance, purple needs the road bonus (B3.4).")
    save_picture(map_svg(m, size=size, fills=fills, labels=labels, paths=paths, caption=caption,
                         board_image=board_image(m)), output, force, inputs or [])


@app.command("reach")
@what_if_options
def reach_command(
    args: list[str] = typer.Argument(..., metavar="[MAP] FROM", help="Map file (default: the demo map) and the "
                                     "unit's Location."),
    unit: str = typer.Option("infantry", "--unit", "-u", help=_UNIT_HELP),
    allowance: Optional[float] = typer.Option(None, "--allowance", help="The unit's MF/MP (default: its own)."),
    mf: Optional[float] = typer.Option(None, "--mf", help="Same as --allowance (MF)."),
    mp: Optional[float] = typer.Option(None, "--mp", help="Same as --allowance (MP)."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Draw the reach map: .svg or .png."),
    paths: bool = typer.Option(False, "--paths", help="With -o: draw the cheapest paths."),
    size: float = SIZE_OPT,
    limit: int = typer.Option(40, help="Rows of the cost table to print (0: all)."),
    force: bool = FORCE_OPT,
    what_if: WhatIf = WhatIf(),
) -> None:
    """Everywhere a unit can reach with its allowance: each Location's least cost and one cheapest path,
    honouring the road bonus (B3.4) and Bypass (A4.3, D2.3, P5.11) exactly.

    Examples (on the demo map):
    asl-terrain reach M13 --mf 4 -o reach.png        (the picture: each hex tinted and labelled with its cost)
    asl-terrain reach M5 --unit vehicle --limit 0    (every Location a 16-MP tank reaches from M5)
    """
    check_output(output, force, args)
    with one_shot():  # the drawing too
        m, q = run_reach(args, unit, allowance, mf, mp, limit, what_if)
        if output is not None:
            q2 = dict(q)
            if "allowance" in q2:
                q2["allowance"] = Fraction(str(q2["allowance"]))
            _draw_reach(m, q2, output, size, paths, force, args)
            console.print(f"wrote {output}")


@app.command("vca-change")
def vca_change_command(
    args: list[str] = typer.Argument(..., metavar="[MAP] AT", help="Map file (default: the demo map) and the "
                                     "vehicle's Location or Bypass position, e.g. L11@K11-L11."),
    unit: str = typer.Option("vehicle", "--unit", "-u", help=_UNIT_HELP),
    hexspines: int = typer.Option(3, "--hexspines", min=0, max=5, help="Hexspines turned (3 is 180 degrees)."),
    motion_attempt: bool = typer.Option(False, "--motion-attempt", help="As part of a Motion attempt (D2.401)."),
    while_bypassing: bool = typer.Option(False, "--while-bypassing", help="As part of Bypass movement (D2.33)."),
) -> None:
    """A vehicle's VCA change: on a Narrow Street only a motorcycle (1/4 of its printed MP) or a very small
    vehicle (1/2) may turn 180 degrees, others only in Bypass (D2.33), none during a Motion attempt (P5.123).

    Examples (on the demo map):
    asl-terrain vca-change L11@L11-L12 --unit '{"type": "motorcycle", "mp": 20}'
    asl-terrain vca-change L11@K11-L11 --while-bypassing
    """
    m, (at,) = split_map(args, 1, "AT")
    q: dict[str, Any] = {"kind": "vca-change", "unit": _unit(unit), "at": at, "hexspines": hexspines,
                         "motion_attempt": motion_attempt, "while_bypassing": while_bypassing}
    ans = _answer(m, q)
    print_answer(ans, ["allowed", "cost", "units", "reason"])
