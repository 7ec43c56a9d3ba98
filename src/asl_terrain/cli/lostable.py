"""``los-table MAP [--levels 0,1] [--jobs N] -o FILE.npz``: every ordered pair's LOS ruling, for programs."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Optional

import typer

from ..errors import UserError
from . import State, app, console, get_chart, load_map


def _levels(text: str) -> tuple[int, ...]:
    try:
        levels = tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError:
        raise UserError(f"--levels {text}: expected whole numbers separated by commas, e.g. 0,1,2") from None
    if not levels or min(levels) < 0:
        raise UserError(f"--levels {text}: expected levels 0 (ground) and up, e.g. 0,1,2")
    return levels


@app.command("los-table")
def los_table_command(
    map_file: Path = typer.Argument(..., metavar="MAP", help="Map file or imported layout."),
    output: Path = typer.Option(..., "-o", "--output", help="The table to write: a .npz file (numpy, pandas and "
                                "Arrow read it; README \"LOS tables\")."),
    levels: str = typer.Option("0", "--levels", help="Levels of Locations: 0 for each hex's ground level, 1, 2, ... "
                               "for its building levels where it has them, e.g. 0,1."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Worker processes (0: every core)."),
    force: bool = typer.Option(False, "--force", help="Replace FILE if it exists."),
) -> None:
    """Every ordered pair of the map's Locations ruled for LOS (clear, Hindrance DRM, Blind Hex, range; A6),
    one record per pair, in columns: for bots and scenario analysis.

    Example (bd01.toml written by `asl-terrain import-vasl bd01 -o bd01.toml`):
    asl-terrain los-table bd01.toml -o bd01.npz --jobs 2    (119,716 pairs; README "LOS tables" reads them)
    """
    from ..lostable import los_table, npz_bytes
    from .core import check_new_file, write_new_file
    from .progress import progress

    if output.suffix.lower() != ".npz":
        raise UserError(f"-o {output}: expected a table file ending in .npz")
    check_new_file(output, "-o", force, [map_file, State.chart_path])
    wanted = _levels(levels)
    start = time.perf_counter()
    m = load_map(str(map_file))
    n_jobs = jobs or os.cpu_count() or 1
    from ..lostable import table_locations

    n = len(table_locations(m, wanted))
    with progress("LOS table", n, "viewers") as update:
        table = los_table(m, wanted, chart=get_chart(), chart_path=State.chart_path, jobs=n_jobs,
                          progress=update)
    write_new_file(output, npz_bytes(table), "-o", force, [map_file, State.chart_path])
    clear = int(table.columns["clear"].sum())
    console.print(f"wrote {output}: {len(table):,} pairs of {n:,} Locations ({clear:,} clear), "
                  f"{time.perf_counter() - start:.1f} s on {min(n_jobs, max(n, 1))} process"
                  f"{'es' if min(n_jobs, max(n, 1)) > 1 else ''}")
