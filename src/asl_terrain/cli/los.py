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
from . import (FORCE_OPT, SIZE_OPT, WhatIf, app, board_image, check_output, console, get_chart, print_answer,
               save_picture, split_map, what_if_options)

_LOS_KEYS = ["from", "to", "clear", "blocked_by", "hindrance_drm", "range", "height_advantage", "up_slope",
             "blind", "borderline", "elevations", "roadblocks_crossed"]


#: a viewshed of a map of this many hexes or more shows a progress bar on a terminal (it takes a second or more)
BIG_VIEWSHED = 5000


def _answer(m: Map, query: dict[str, Any], progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    from ..ask import answer_one

    # debug=True: a bug is raised, not dressed up as an error answer, so main() exits 3 for it (2 is for
    # the user's mistakes), with the traceback under --debug
    ans = answer_one(m, query, get_chart(), debug=True, progress=progress)
    if "error" in ans:
        raise UserError(str(ans["error"]))
    return ans


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
    check_output(output, force, args)
    m, (a, b) = split_map(args, 2, "A B")
    m = what_if.on(m)
    q: dict[str, Any] = {"kind": "los", "from": a, "to": b}
    if entrenched_from or entrenched_to:
        q["entrenched"] = {"from": entrenched_from, "to": entrenched_to}
    ans = _answer(m, q)
    print_answer(ans, _LOS_KEYS)
    hs = ans.get("hindrances") or []
    if hs and not ans.get("items"):  # the items table lists them otherwise
        console.print("[bold]hindrances[/]: " + ", ".join(f"{h['what']} in {h['hex']} +{h['drm']}" for h in hs))
    if output is not None:
        _draw_los(m, a, b, (entrenched_from, entrenched_to), output, size, force, args)
        console.print(f"wrote {output}")


def _draw_los(m: Map, a: str, b: str, entrenched: tuple[bool, bool], output: Path, size: float, force: bool,
              inputs: list[str]) -> None:
    from ..los import los
    from ..render import Mark, Thread, map_svg

    r = los(m, m.parse_location(a), m.parse_location(b), chart=get_chart(), entrenched=entrenched)
    block = r.block_point
    marks = []
    if block is not None and r.blocked_by is not None:
        marks.append(Mark(block, f"{r.blocked_by.terrain} ({r.blocked_by.rule})", "error"))
    label = "clear" if r.clear else "blocked"
    if r.clear and r.hindrance_drm:
        label += f" +{r.hindrance_drm}"
    thread = Thread(r.start, r.end, r.clear, block, tuple(h.hex for h in r.hindrances), label)
    save_picture(map_svg(m, size=size, threads=[thread], marks=marks, caption=r.explain(), board_image=board_image(m)),
                 output, force, inputs)


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
    console.print(f"[bold]visible[/]: {len(vis)} Locations, {hindered} of them through Hindrances")
    for d in sorted(by_drm):
        if d:
            console.print(f"  [bold]+{d}[/] ({len(by_drm[d])}): {', '.join(by_drm[d])}")
    print_answer(ans, ["from", "level", "count"])
    if output is not None:
        _draw_viewshed(m, a, level, output, size, force, args)
        console.print(f"wrote {output}")


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
