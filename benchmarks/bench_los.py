"""Benchmarks of the LOS engine (issue 4). Not a test: prints figures.

    .venv/bin/python benchmarks/bench_los.py [--quick]

1. One ``los`` ruling on the bundled demo map: median microseconds over many pairs (target < 100 µs).
2. ``viewshed`` from one Location over a generated 60 x 40 map with hills, woods and buildings:
   median milliseconds over repeated runs (target < 100 ms).
3. Every ground-level pair of a 33 x 10 geomorphic board (columns A..GG; rows 0..10 in odd columns,
   1..10 in even ones: 346 hexes with the edge half hexes), both directions: rulings per second and
   total seconds (target < 3 s).

Figures are medians of repeated in-process runs after one warm-up (the per-map tables and the compiled
thread shapes are built once and reused, as in a long-running process).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from asl_terrain.grid import column_label
from asl_terrain.los import los, viewshed
from asl_terrain.model import Location, Map, load_demo


def generated_map(cols: int, rows: int, seed: int = 4) -> Map:
    """A made-up map: hill masses (levels 1-3), woods, pine woods, brush, orchards, buildings, a few walls."""
    rnd = random.Random(seed)
    level: dict[tuple[int, int], int] = {}
    for _ in range(max(1, cols * rows // 300)):
        cc, rr, rad = rnd.randrange(cols), rnd.randrange(rows), rnd.randint(3, 7)
        for c in range(cols):
            for r in range(rows):
                d = max(abs(c - cc), abs(r - rr))
                if d <= rad:
                    level[(c, r)] = max(level.get((c, r), 0), 1 + (rad - d) * 3 // (rad + 1))
    blocks: list[dict[str, Any]] = []
    by_level: dict[int, list[str]] = {}
    for (c, r), lv in level.items():
        by_level.setdefault(lv, []).append(f"{column_label(c)}{r + 1}")
    for lv, at in sorted(by_level.items()):
        blocks.append({"at": at, "level": lv})
    kinds = ["woods"] * 6 + ["pine-woods", "brush", "brush", "orchard", "grain", "building", "building"]
    for c in range(cols):
        for r in range(rows):
            if rnd.random() < 0.22:
                k = rnd.choice(kinds)
                b: dict[str, Any] = {"at": [f"{column_label(c)}{r + 1}"], "terrain": k}
                if k == "building":
                    b["building"] = rnd.choice(["stone", "wooden"])
                    b["building_type"] = rnd.choice(["single-story-house", "two-story-house"])
                blocks.append(b)
    data = {"format": "asl-terrain/1", "name": f"generated {cols}x{rows}", "prefix": "",
            "columns": ["A", column_label(cols - 1)], "rows": [1, rows], "hex": blocks}
    return Map.from_data(data)


def board_33x10() -> tuple[Map, list[Location]]:
    """A geomorphic-style board A..GG with a hill, woods, a village and brush; its 346 hexes."""
    data = {
        "format": "asl-terrain/1", "name": "board 33x10", "prefix": "1",
        "columns": ["A", "GG"], "rows": [0, 10],
        "hex": [
            {"at": ["F4", "F5", "G4", "G5", "G6", "H4", "H5", "E5"], "level": 1},
            {"at": ["G5"], "level": 2},
            {"at": ["M3", "M4", "N3", "N4", "O4", "L6", "L7", "K7"], "terrain": "woods"},
            {"at": ["T5", "T6", "U5", "V6", "S6"], "terrain": "building", "building": "stone"},
            {"at": ["U6"], "terrain": "building", "building_type": "two-story-house"},
            {"at": ["Y2", "Y3", "Z3", "AA8", "BB8"], "terrain": "brush"},
            {"at": ["C8", "D8", "D9"], "terrain": "orchard"},
            {"at": ["CC4", "CC5", "DD4"], "terrain": "pine-woods"},
        ],
        "hexside": [{"at": ["Q5-Q6", "Q6-R6"], "wall": True}],
    }
    m = Map.from_data(data)
    hexes = []
    for h in m.hexes():
        if h.row == 0 and h.col % 2 == 0:  # even columns (A, C, ...) run 1..10; odd ones 0..10
            continue
        hexes.append(Location(h))
    return m, hexes


def bench_one_los(rounds: int) -> float:
    m = load_demo()
    rnd = random.Random(1)
    hexes = list(m.hexes())
    pairs = [(Location(rnd.choice(hexes)), Location(rnd.choice(hexes))) for _ in range(2000)]
    for a, b in pairs:
        los(m, a, b)
    times = []
    for _ in range(rounds):
        for a, b in pairs:
            t = time.perf_counter()
            los(m, a, b)
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def bench_viewshed(rounds: int) -> tuple[float, int, int]:
    m = generated_map(60, 40)
    a = Location(m.parse_hex("EE20"))
    v = viewshed(m, a)
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        v = viewshed(m, a)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3, len(v.visible), v.considered


def bench_all_pairs(rounds: int) -> tuple[float, int, int]:
    m, locs = board_33x10()
    n = 0
    clear = 0
    totals = []
    for k in range(rounds + 1):
        n = clear = 0
        t = time.perf_counter()
        for a in locs:
            for b in locs:
                if a is not b:
                    r = los(m, a, b)
                    n += 1
                    clear += r.clear
        if k:  # the first round builds the tables and compiles the thread shapes
            totals.append(time.perf_counter() - t)
    return statistics.median(totals), n, clear


def main() -> None:
    quick = "--quick" in sys.argv
    us = bench_one_los(1 if quick else 5)
    print(f"los, one ruling on the demo map: median {us:.1f} µs (target < 100 µs)")
    ms, seen, considered = bench_viewshed(3 if quick else 15)
    print(f"viewshed on a generated 60x40 map: median {ms:.1f} ms (target < 100 ms); sees {seen} of {considered}")
    secs, n, clear = bench_all_pairs(1 if quick else 3)
    print(f"all ground-level pairs of a 33x10 board: {n} rulings in {secs:.2f} s = {n / secs:,.0f} rulings/s "
          f"(target < 3 s); {clear} clear")


if __name__ == "__main__":
    main()
