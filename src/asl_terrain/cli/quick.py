"""The answers of ``los``, ``move`` and ``reach``, as functions of plain values: the typer commands (cli.los,
cli.movement) call them with what they parsed, and :func:`asl_terrain.cli.main` calls them directly for a
command line of Locations only (no options; for ``reach``, only the unit, its allowance and ``--limit``),
without importing typer (start-up, issue 13). Their defaults are the commands' (tests/test_cli.py checks
them against the typer options).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

from ..errors import UserError
from ..model import Map
from . import (
    WhatIf,
    _console,
    board_image,
    check_output,
    format_value,
    get_chart,
    one_shot as one_shot,  # re-exported: cli.movement's reach command pauses the collector with it
    print_answer,
    save_picture,
    split_map,
)

LOS_KEYS = ["from", "to", "clear", "blocked_by", "hindrance_drm", "range", "height_advantage", "up_slope",
            "blind", "borderline", "elevations", "roadblocks_crossed"]
MOVE_KEYS = ["allowed", "cost", "units", "road_rate", "ffmo_exposed", "keeps_road_bonus", "bypass", "all", "bog",
             "reason"]


def answer(m: Map, query: dict[str, Any], progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The answer to ``query`` (as ``ask`` gives it); an error answer is a user error."""
    from ..ask import answer_one

    # debug=True: a bug is raised, not dressed up as an error answer, so main() exits 3 for it (2 is for
    # the user's mistakes), with the traceback under --debug
    ans = answer_one(m, query, get_chart(), debug=True, progress=progress)
    if "error" in ans:
        raise UserError(str(ans["error"]))
    return ans


def unit_value(text: str) -> Any:
    """``--unit``: a unit's name, or a JSON object."""
    t = text.strip()
    if t.startswith("{"):
        try:
            return json.loads(t)
        except json.JSONDecodeError as e:
            raise UserError(f"--unit: not a JSON object ({e}); expected e.g. '{{\"type\": \"vehicle\"}}'") from None
    return t


def allowance_of(allowance: Optional[float], mf: Optional[float], mp: Optional[float]) -> Optional[float]:
    """The one of ``--allowance``, ``--mf`` and ``--mp`` given, if any."""
    given = [x for x in (allowance, mf, mp) if x is not None]
    if len(given) > 1:
        raise UserError("give one of --allowance, --mf, --mp")
    return given[0] if given else None


def run_los(args: list[str], output: Optional[Path] = None, entrenched_from: bool = False,
            entrenched_to: bool = False, size: float = 36.0, force: bool = False,
            what_if: WhatIf = WhatIf()) -> None:
    """``asl-terrain los [MAP] A B``: the ruling printed (and drawn with ``output``)."""
    check_output(output, force, args)
    m, (a, b) = split_map(args, 2, "A B")
    m = what_if.on(m)
    q: dict[str, Any] = {"kind": "los", "from": a, "to": b}
    if entrenched_from or entrenched_to:
        q["entrenched"] = {"from": entrenched_from, "to": entrenched_to}
    ans = answer(m, q)
    hs = ans.get("hindrances") or []
    more = []
    if hs and not ans.get("items"):  # the items table lists them otherwise
        listed = ", ".join(f"{h['what']} in {h['hex']} +{h['drm']}" for h in hs)
        more.append(("hindrances: " + listed, "[bold]hindrances[/]: " + listed))
    print_answer(ans, LOS_KEYS, more=more)
    if output is not None:
        _draw_los(m, a, b, (entrenched_from, entrenched_to), output, size, force, args)
        _console().print(f"wrote {output}")


def run_move(args: list[str], unit: str = "infantry", road_rate: Optional[bool] = None,
             bypass: Optional[str] = None, to_vertex: Optional[str] = None, in_hex: Optional[str] = None,
             dash: bool = False, rout: bool = False, declared_vertex: Optional[str] = None,
             protection: bool = False, allowance: Optional[float] = None, mf: Optional[float] = None,
             mp: Optional[float] = None, vca: Optional[int] = None, what_if: WhatIf = WhatIf()) -> None:
    """``asl-terrain move [MAP] FROM [TO]``: the ruling of one move printed."""
    allowance = allowance_of(allowance, mf, mp)
    n = 1 if bypass else 2
    m, rest = split_map(args, n, "FROM" if bypass else "FROM TO")
    m = what_if.on(m)
    q: dict[str, Any] = {"kind": "move", "unit": unit_value(unit), "from": rest[0]}
    if not bypass:
        q["to"] = rest[1]
    for key, val in (("road_rate", road_rate), ("bypass", bypass), ("to_vertex", to_vertex), ("in", in_hex),
                     ("declared_vertex", declared_vertex), ("allowance", allowance), ("vca", vca)):
        if val is not None:
            q[key] = val
    for key, flag in (("dash", dash), ("rout", rout), ("protection", protection)):
        if flag:
            q[key] = True
    ans = answer(m, q)
    print_answer(ans, MOVE_KEYS)


def run_reach(args: list[str], unit: str = "infantry", allowance: Optional[float] = None,
              mf: Optional[float] = None, mp: Optional[float] = None, limit: int = 40,
              what_if: WhatIf = WhatIf()) -> tuple[Map, dict[str, Any]]:
    """``asl-terrain reach [MAP] FROM``: the cost table (``limit`` rows, 0: all) and the answer printed; the
    map and the query answered are returned (the typer command draws them with ``-o``)."""
    with one_shot():
        m, (frm,) = split_map(args, 1, "FROM")
        m = what_if.on(m)
        q: dict[str, Any] = {"kind": "reach", "unit": unit_value(unit), "from": frm}
        a = allowance_of(allowance, mf, mp)
        if a is not None:
            q["allowance"] = a
        ans = answer(m, q)
        from .plain import Printed

        costs: dict[str, Any] = ans["costs"]
        paths: dict[str, list[str]] = ans["paths"]
        rows = sorted(costs.items(), key=lambda kv: (kv[1], kv[0]))
        shown = rows if limit <= 0 else rows[:limit]
        out = Printed()
        out.table(("Location", ans["units"], "cheapest path"), ("left", "right", "left"),
                  [(name, format_value(c), " > ".join(paths.get(name, []))) for name, c in shown],
                  title=f"reach from {ans['from']}")
        if len(shown) < len(rows):
            more = f"... and {len(rows) - len(shown)} more (--limit 0 prints all)"
            out.line(more, lambda: more)
        out.emit()
        print_answer(ans, ["allowance", "units"])
        return m, q


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
