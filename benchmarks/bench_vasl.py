"""Benchmarks of the VASL import and of LOS on an imported board's artwork (issue 6). Not a test: prints
figures. Needs the VASL data directory (../shared/vasl beside the repository, or $ASL_TERRAIN_VASL).

    .venv/bin/python benchmarks/bench_vasl.py [BOARD] [--quick]

1. Import of one board (read the archive, derive the map, write TOML, load the map): median seconds over
   five runs, each from scratch (target < 2 s).
2. All 119,716 ordered pairs of the board's 346 hexes (same-hex pairs included), at ground level, on the
   artwork depiction: pairs per second and total seconds (target < 8 s; VASL's own engine manages about
   5,000-16,000 pairs/s on these boards on one core). Measured three ways:
   - cold: a fresh process's first pass (the LOS tables and the compiled thread shapes are built on the
     way: what a first ``vasl-check`` pays);
   - warm, through ``viewshed``: 346 viewsheds (every hex seen from every hex, the engine's batch path);
   - warm, through ``los``: one public ruling per pair, with its items and explanation objects.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from asl_terrain import los as L  # noqa: E402
from asl_terrain import vasl  # noqa: E402
from asl_terrain.model import Location, Map  # noqa: E402


def bench_import(board: str, runs: int) -> float:
    from asl_terrain.cli.vasl import map_toml

    times = []
    for _ in range(runs):
        t = time.perf_counter()
        table = vasl.load_terrain_table()
        r = vasl.import_boards([vasl.read_board(board)], table)
        text = map_toml(r.map, r.unsupported)
        import tomllib

        Map.from_data(tomllib.loads(text))
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def board_hexes(m: Map) -> list[Location]:
    return [Location(h) for h in m.hexes() if not m.terrain(h).offboard]


def bench_pairs_cold(m: Map, locs: list[Location]) -> tuple[int, float]:
    # ``m`` is a fresh map: its LOS tables (kept with the map) are built on the way
    t = time.perf_counter()
    tab = L._resolve(m, None, None)
    ends = [tab.end(a) for a in locs]
    n = 0
    for A in ends:
        for B in ends:
            L._decide(tab, A, B, (False, False), False)
            n += 1
    return n, time.perf_counter() - t


def bench_pairs_viewshed(m: Map, locs: list[Location]) -> tuple[int, float]:
    t = time.perf_counter()
    n = 0
    for a in locs:
        v = L.viewshed(m, a)
        n += v.considered + 1  # the viewer's own hex is a pair too (same-hex: trivially clear)
    return n, time.perf_counter() - t


def bench_pairs_los(m: Map, locs: list[Location]) -> tuple[int, float]:
    t = time.perf_counter()
    n = 0
    for a in locs:
        for b in locs:
            L.los(m, a, b, borderline=False)
            n += 1
    return n, time.perf_counter() - t


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    board = args[0] if args else "bd01"
    if vasl.vasl_data_dir() is None:
        print("the VASL data directory is not found: set ASL_TERRAIN_VASL (skipped)")
        return
    s = bench_import(board, 2 if quick else 5)
    print(f"import of {board}: {s:.3f} s (median; target < 2 s)")

    m = Map.from_data(vasl.import_boards([board]).map)
    locs = board_hexes(m)
    n, s = bench_pairs_cold(m, locs)
    print(f"all {n:,} ordered pairs of {board}, cold (tables and thread shapes built on the way): "
          f"{s:.2f} s, {n / s:,.0f} pairs/s (target < 8 s)")
    runs = 1 if quick else 3
    best = min((bench_pairs_viewshed(m, locs) for _ in range(runs)), key=lambda x: x[1])
    print(f"all {best[0]:,} pairs of {board} as {len(locs)} viewsheds, warm: {best[1]:.2f} s, "
          f"{best[0] / best[1]:,.0f} pairs/s")
    best = min((bench_pairs_los(m, locs) for _ in range(runs)), key=lambda x: x[1])
    print(f"all {best[0]:,} pairs of {board} as single los() rulings, warm: {best[1]:.2f} s, "
          f"{best[0] / best[1]:,.0f} pairs/s")


if __name__ == "__main__":
    main()
