"""Movement benchmark (issue 3): prints the speed figures the issue names.

* a single ``move`` ruling, median in-process (target < 50 µs);
* ``reach`` for a 16-MP fully-tracked vehicle and for a 6-MF infantry squad on a generated 60 x 40 hex map
  of mixed terrain, median (target < 50 ms each); the first (cold) call on a fresh map, which builds the
  move tables, is reported separately, and so is a first reach with another allowance (the tables do not
  depend on it);
* ``asl-terrain ask`` with 10,000 ``move`` queries on the demo map, wall clock of the whole command
  (target < 2 s).

Run: ``.venv/bin/python benchmarks/bench_movement.py`` (``--quick`` for fewer repetitions).
Speed lives here, never in a timed test.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from asl_terrain.grid import Hex, column_label
from asl_terrain.model import Location, Map, demo_map_path, load_demo
from asl_terrain.movement import move_cost, reach

ROOT = Path(__file__).resolve().parent.parent


def generated_map(cols: int = 60, rows: int = 40, seed: int = 1) -> Map:
    """A cols x rows map of mixed terrain: hills with slopes, woods, buildings, brush, grain, orchards,
    a stream with stream-woods, roads, walls and hedges, some SMOKE and wrecks."""
    rnd = random.Random(seed)
    last = column_label(cols - 1)
    hexes: list[dict[str, Any]] = []
    terrains = ["open"] * 10 + ["woods"] * 4 + ["building"] * 3 + ["brush"] * 2 + ["grain"] * 2 + \
               ["orchard", "pine-woods", "graveyard", "shellholes", "marsh"]
    levels: dict[Hex, int] = {}
    for c in range(cols):
        for r in range(1, rows + 1):
            h = Hex(c, r)
            lv = 0
            if 10 <= c <= 25 and 5 <= r <= 20:
                lv = 1 + (1 if 14 <= c <= 21 and 8 <= r <= 16 else 0)
            levels[h] = lv
            t = rnd.choice(terrains)
            block: dict[str, Any] = {"at": [h.name], "terrain": t}
            if lv:
                block["level"] = lv
            hexes.append(block)
    # a stream down column AP (41), rows 1..rows, plain or stream-woods
    sc = 41
    stream_hexes = []
    for r in range(1, rows + 1):
        h = Hex(sc, r)
        stream_hexes.append(h)
        hexes.append({"at": [h.name], "terrain": rnd.choice(["open", "open", "woods", "brush"]),
                      "stream": "shallow", "level": 0})
    hexsides: list[dict[str, Any]] = []
    # roads: a paved road along row 30 and a dirt road down column 30
    road = []
    for c in range(cols - 1):
        a, b = Hex(c, 30), Hex(c + 1, 30)
        if a.is_adjacent(b):
            road.append(f"{a.name}-{b.name}")
        else:
            b2 = Hex(c + 1, 29 if c % 2 == 0 else 31)
            if a.is_adjacent(b2):
                road.append(f"{a.name}-{b2.name}")
    hexsides.append({"at": road, "road": "paved"})
    hexsides.append({"at": [f"{Hex(30, r).name}-{Hex(30, r + 1).name}" for r in range(1, rows)], "road": "dirt"})
    # walls, hedges, slopes at random
    seen = set()
    walls, hedges = [], []
    for _ in range(250):
        h = Hex(rnd.randrange(cols), rnd.randrange(1, rows + 1))
        n = h.neighbour(rnd.randrange(6))
        if not (0 <= n.col < cols and 1 <= n.row <= rows):
            continue
        key = tuple(sorted([(h.col, h.row), (n.col, n.row)]))
        if key in seen or h.col == sc or n.col == sc:
            continue
        seen.add(key)
        (walls if rnd.random() < 0.5 else hedges).append(f"{h.name}-{n.name}")
    hexsides.append({"at": walls, "wall": True})
    hexsides.append({"at": hedges, "hedge": True})
    for _ in range(80):
        h = Hex(rnd.randrange(cols), rnd.randrange(1, rows + 1))
        n = h.neighbour(rnd.randrange(6))
        if not (0 <= n.col < cols and 1 <= n.row <= rows):
            continue
        key = tuple(sorted([(h.col, h.row), (n.col, n.row)]))
        if key in seen or h.col == sc or n.col == sc:
            continue
        seen.add(key)
        hexsides.append({"at": [f"{h.name}-{n.name}"], "slope": h.name})
    counters: list[dict[str, Any]] = []
    for _ in range(12):
        counters.append({"type": "smoke", "at": Hex(rnd.randrange(cols), rnd.randrange(1, rows + 1)).name,
                         "strength": 2})
    for _ in range(8):
        counters.append({"type": "wreck", "at": Hex(rnd.randrange(cols), rnd.randrange(1, rows + 1)).name})
    data = {"format": "asl-terrain/1", "name": "generated", "columns": ["A", last], "rows": [1, rows],
            "hex": hexes, "hexside": hexsides, "counter": counters}
    return Map.from_data(data, source="<generated>")


def median_time(fn: Any, n: int) -> float:
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def bench_move(n: int) -> None:
    m = load_demo()
    rnd = random.Random(7)
    hexes = list(m.hexes())
    pairs = []
    for _ in range(500):
        h = rnd.choice(hexes)
        nb = [x for x in m.neighbours(h)]
        pairs.append((Location(h), Location(rnd.choice(nb))))
    for f, t in pairs:  # warm the per-map caches once
        move_cost(m, "infantry", f, t)
    ts = []
    for _ in range(max(1, n // len(pairs))):
        for f, t in pairs:
            t0 = time.perf_counter()
            move_cost(m, "infantry", f, t)
            ts.append(time.perf_counter() - t0)
    print(f"move (Location objects, demo map): median {statistics.median(ts) * 1e6:.1f} µs over {len(ts)} rulings "
          f"(target < 50 µs)")
    names = [(f.text(m.prefix), t.text(m.prefix)) for f, t in pairs]
    ts = []
    for _ in range(max(1, n // len(pairs))):
        for f, t in names:
            t0 = time.perf_counter()
            move_cost(m, "vehicle", f, t)
            ts.append(time.perf_counter() - t0)
    print(f"move (names, vehicle):             median {statistics.median(ts) * 1e6:.1f} µs over {len(ts)} rulings")


def bench_reach(reps: int) -> None:
    t0 = time.perf_counter()
    generated_map()
    print(f"generated 60 x 40 map built in {(time.perf_counter() - t0) * 1e3:.0f} ms")
    for label, unit, allowance, other, start in (("16-MP fully-tracked vehicle", "vehicle", 16, 12, "EE30"),
                                                 ("6-MF infantry squad", "infantry", 6, 4, "EE30")):
        m = generated_map()  # a fresh map: the cold figure includes every per-map table
        t0 = time.perf_counter()
        r = reach(m, unit, start, allowance)
        cold = time.perf_counter() - t0
        med = median_time(lambda m=m, u=unit, s=start, a=allowance: reach(m, u, s, a), reps)
        t0 = time.perf_counter()
        reach(m, unit, start, other)
        shared = time.perf_counter() - t0
        print(f"reach, {label}: {len(r.reached)} Locations; cold {cold * 1e3:.1f} ms, "
              f"median {med * 1e3:.1f} ms over {reps} (target < 50 ms); first reach with {other} after it "
              f"{shared * 1e3:.1f} ms (tables shared by every allowance)")


def bench_ask(n: int) -> None:
    m = load_demo()
    rnd = random.Random(3)
    hexes = list(m.hexes())
    qs = []
    units = ["infantry", "vehicle", "cavalry", {"type": "vehicle", "class": "truck"}]
    for i in range(n):
        h = rnd.choice(hexes)
        t = rnd.choice(m.neighbours(h))
        qs.append({"kind": "move", "unit": units[i % len(units)], "from": h.name, "to": t.name})
    exe = Path(sys.executable).with_name("asl-terrain")
    with tempfile.TemporaryDirectory() as d:
        qf = Path(d) / "q.json"
        qf.write_text(json.dumps(qs))
        t0 = time.perf_counter()
        proc = subprocess.run([str(exe), "ask", str(demo_map_path()), str(qf), "--indent", "0"],
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
    answers = json.loads(proc.stdout)
    errors = sum(1 for a in answers if "error" in a)
    print(f"asl-terrain ask, {n} move queries on the demo map: {wall:.2f} s wall (target < 2 s); "
          f"exit {proc.returncode}, {len(answers)} answers, {errors} errors")


def main() -> None:
    quick = "--quick" in sys.argv
    bench_move(2000 if quick else 20000)
    bench_reach(5 if quick else 21)
    bench_ask(10000)


if __name__ == "__main__":
    main()
