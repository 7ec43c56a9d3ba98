"""LOS subcommands: ``los [MAP] A B [-o los.png]`` and ``viewshed [MAP] A [--level N] [-o view.png]``.

Each builds the query object ``ask`` takes (queries.md), answers it with
:func:`asl_terrain.ask.answer_one` and prints it, so the CLI and the batch agree. With ``-o`` the
ruling is drawn with :mod:`asl_terrain.render`: the values come from the engine, render only draws.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import UserError
from ..model import Map
from . import (FORCE_OPT, SIZE_OPT, WhatIf, _console, app, board_image, check_output, get_chart, print_answer,
               save_picture, split_map, what_if_options)
from .quick import answer as _answer
from .quick import run_los

#: a viewshed of a map of this many hexes or more shows a progress bar on a terminal (it takes a second or more)
BIG_VIEWSHED = 5000


@app.command("los")
@what_if_options
def los_command(
    args: list[str] = typer.Argument(..., metavar="[MAP] A B", help="Map file (default: the demo map), then the "
                                     "two Locations, e.g. I14 K11/1 or O17@O17-O18-N17."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Draw the thread: .svg or .png."),
    entrenched_from: bool = typer.Option(False, "--entrenched-from", help="A is entrenched (B9.21)."),
    entrenched_to: bool = typer.Option(False, "--entrenched-to", help="B is entrenched (B9.21)."),
    size: float = SIZE_OPT,
    force: bool = FORCE_OPT,
    what_if: WhatIf = WhatIf(),
) -> None:
    """Line of sight from A to B: clear or blocked (where, by what, which rule), every Hindrance and its DRM,
    range, Height Advantage, Up-Slope ends, Blind Hex, borderline (A6, B10, P2.3, P4.2, P5.141).

    Examples (on the demo map; its hex names may leave out the prefix Hr):
    asl-terrain los W2 W6 -o los.png        (clear: W2 is Up-Slope, ¾ level higher; P2.3)
    asl-terrain los V2 V6                   (blocked by the plateau's level-3 ground at V3; B10.2)
    asl-terrain los I14 K11                 (blocked by the house in J12, past the orchard Hindrance in I13)
    """
    run_los(args, output, entrenched_from, entrenched_to, size, force, what_if)


@app.command("viewshed")
@what_if_options
def viewshed_command(
    args: list[str] = typer.Argument(..., metavar="[MAP] A", help="Map file (default: the demo map), then the "
                                     "viewing Location, e.g. K10/2."),
    level: Optional[int] = typer.Option(None, "--level", min=0, help="Look at each hex's building level N "
                                        "where it has one, instead of ground level."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Draw the viewshed: .svg or .png."),
    size: float = SIZE_OPT,
    force: bool = FORCE_OPT,
    what_if: WhatIf = WhatIf(),
) -> None:
    """Every hex's Location that A sees, with the Hindrance DRM of each LOS (A6.1-A6.7).

    Examples (on the demo map):
    asl-terrain viewshed K10/2 -o view.png   (from the church steeple: green clear, amber through Hindrances)
    asl-terrain viewshed W2 --level 1        (looking at the 1st level of each building)
    """
    check_output(output, force, args)
    m, (a,) = split_map(args, 1, "A")
    m = what_if.on(m)
    q: dict[str, Any] = {"kind": "viewshed", "from": a}
    if level is not None:
        q["level"] = level
    if len(m) >= BIG_VIEWSHED:
        from .progress import progress

        with progress("viewshed", len(m) - 1, "Locations") as update:  # on a terminal's stderr only
            ans = _answer(m, q, update)
    else:
        ans = _answer(m, q)
    vis: dict[str, int] = ans["visible"]
    by_drm: dict[int, list[str]] = {}
    for k, v in vis.items():
        by_drm.setdefault(v, []).append(k)
    hindered = sum(len(v) for d, v in by_drm.items() if d)
    counts = f"{len(vis)} Locations, {hindered} of them through Hindrances"
    first = [(f"visible: {counts}", f"[bold]visible[/]: {counts}")]
    for d in sorted(by_drm):
        if d:
            listed = f"({len(by_drm[d])}): {', '.join(by_drm[d])}"
            first.append((f"  +{d} {listed}", f"  [bold]+{d}[/] {listed}"))
    print_answer(ans, ["from", "level", "count"], first=first)  # plain text on a pipe (cli.plain)
    if output is not None:
        _draw_viewshed(m, a, level, output, size, force, args)
        _console().print(f"wrote {output}")


def _draw_viewshed(m: Map, a: str, level: Optional[int], output: Path, size: float, force: bool,
                   inputs: list[str]) -> None:
    from ..los import viewshed
    from ..render import map_svg

    origin = m.parse_location(a)
    v = viewshed(m, origin, level=level, chart=get_chart())
    fills = {origin.hex: "#3355ff"}
    labels = {}
    for loc, d in v.visible:
        fills[loc.hex] = "#22aa22" if d == 0 else "#e0b000"
        if d:
            labels[loc.hex] = f"+{d}"
    caption = (v.explain() + f" Blue: the viewer at {m.name_of(origin)}; green: seen clear; amber: seen through "
               "Hindrances, labelled with their DRM; untinted: not seen.")
    save_picture(map_svg(m, size=size, fills=fills, labels=labels, caption=caption, board_image=board_image(m)),
                 output, force, inputs)
