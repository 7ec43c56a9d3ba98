"""Scenario-scale figures (issue 13): every row of the issue's table, plus pairs/s per VASL board.

    .venv/bin/python benchmarks/bench_scenario.py [--quick] [--rows startup,layout,big,vasl,boards,table]

Rows (each measured in fresh processes where the issue says "whole process"):

* ``boards``: all ordered pairs (same-hex included) of every board in the VASL data directory that has
  oracle data, each in a fresh process: seconds from the loaded map to the last ruling (tables built on
  the way) and pairs/s, beside VASL's own pairs/s where the issue gives it (goal: 10x VASL, one core);
  twice: the first process derives the LOS tables a grid and its artwork fix and keeps them in the user
  cache, the second reads them back (the benchmark's own cache directory); each row says which LOS walk ran
  (the compiled one, asl_terrain/_walk.c, or the pure Python one: ``ASL_TERRAIN_PURE=1`` asks for it, to
  compare the two);
* ``startup``: ``asl-terrain los`` and ``move`` on the demo map, whole process, wall (goal < 0.15 s);
* ``layout``: ``los`` / ``reach --unit vehicle`` / ``viewshed`` on a 3-board imported layout, whole
  process (goals 0.3 / 0.4 / 0.5 s);
* ``big``: a viewshed on a hand-made 100 x 100 map (goal < 1 s, < 300 MB) and one LOS on a hand-made
  1,000 x 1,000 map (goal < 50 ms after load, load < 5 s), each in a fresh process with its peak memory;
* ``vasl``: ``asl-terrain vasl-check`` of bd01, whole process (goal < 3 s);
* ``table``: ``asl-terrain los-table`` of the 3-board layout (about 1,000,000 pairs; goal < 10 s).

Whole-process figures are the median wall clock of several runs with CPU seconds (user + system) beside
them; in-process figures (pairs, viewsheds, one LOS) are CPU seconds of that process (``time.process_time``),
because on a shared machine the wall clock also measures the other processes. Needs ../shared/vasl (or
$ASL_TERRAIN_VASL) for the board rows; they say so and are skipped without it.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
EXE = [PY, "-m", "asl_terrain"]
# VASL's own engine on one core of this machine kind (the figures)
VASL_RATE = {"bd01": 15_700, "bd02": 15_700, "bd03": 10_600, "bd04": 5_300, "bd05": 15_700, "bdBFPL": 4_200}


def vasl_dir() -> Path | None:
    env = os.environ.get("ASL_TERRAIN_VASL")
    for p in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "vasl", ROOT.parent.parent / "shared" / "vasl"]:
        if (p / "boards").is_dir():
            return p
    return None


def run(cmd: list[str], reps: int, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Median wall seconds and median CPU seconds of a command over ``reps`` runs, and its last stdout."""
    walls, cpus = [], []
    out = ""
    for _ in range(reps):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if p.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
        out = p.stdout
    return statistics.median(walls), statistics.median(cpus), out


def child(code: str, env: dict[str, str] | None = None) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter; it prints one JSON object of figures; peak memory is added."""
    prog = ("import json, resource, sys, time\n" f"sys.path.insert(0, {str(ROOT / 'src')!r})\n" + code +
            "\nfig['peak_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\nprint(json.dumps(fig))")
    p = subprocess.run([PY, "-c", prog], capture_output=True, text=True, env=env, cwd=ROOT)
    if p.returncode:
        raise SystemExit(f"benchmark child failed: {p.stderr.strip()[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def row(what: str, figure: str, goal: str) -> None:
    print(f"| {what} | {figure} | {goal} |", flush=True)


# ------------------------------------------------------------------------------------------------ maps


def import_map(boards: list[str], out: Path, env: dict[str, str], layout: str | None = None) -> Path:
    if not out.exists():
        cmd = [*EXE, "import-vasl", *boards, "-o", str(out)]
        if layout:
            cmd += ["--layout", layout]
        subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=ROOT)
    return out


def _big_blocks(cols: int, rows: int, seed: int) -> tuple[list[tuple[dict[str, Any], list[Any]]], list[Any]]:
    """Hills (levels 1-3), woods, brush, orchards, grain and buildings on about a fifth of the hexes, a few
    walls: (values, hexes) blocks and the walls' hex pairs."""
    import random

    sys.path.insert(0, str(ROOT / "src"))
    from asl_terrain.grid import Hex

    rnd = random.Random(seed)
    level: dict[tuple[int, int], int] = {}
    for _ in range(max(1, cols * rows // 400)):
        cc, rr, rad = rnd.randrange(cols), rnd.randrange(1, rows + 1), rnd.randint(2, 6)
        for c in range(max(0, cc - rad), min(cols, cc + rad + 1)):
            for r in range(max(1, rr - rad), min(rows, rr + rad) + 1):
                d = max(abs(c - cc), abs(r - rr))
                level[(c, r)] = max(level.get((c, r), 0), 1 + (rad - d) * 3 // (rad + 1))
    by_level: dict[int, list[Any]] = {}
    for (c, r), lv in level.items():
        by_level.setdefault(lv, []).append(Hex(c, r))
    kinds = ["woods"] * 6 + ["pine-woods", "brush", "brush", "orchard", "grain", "building"]
    by_kind: dict[str, list[Any]] = {}
    walls: list[Any] = []
    for c in range(cols):
        for r in range(1, rows + 1):
            x = rnd.random()
            if x < 0.2:
                by_kind.setdefault(rnd.choice(kinds), []).append(Hex(c, r))
            elif x < 0.205:
                n = Hex(c, r).neighbour(rnd.randrange(6))
                if 0 <= n.col < cols and 1 <= n.row <= rows:
                    walls.append((Hex(c, r), n))
    blocks: list[tuple[dict[str, Any], list[Any]]] = [({"level": lv}, at) for lv, at in sorted(by_level.items())]
    blocks += [({"terrain": k}, at) for k, at in sorted(by_kind.items())]
    return blocks, walls


def big_map_file(cols: int, rows: int, out: Path, seed: int = 13) -> Path:
    """A hand-made map file of :func:`_big_blocks`, written as blocks of many hexes each (as a map maker
    writes them)."""
    if out.exists():
        return out
    from asl_terrain.grid import column_label

    blocks, walls = _big_blocks(cols, rows, seed)
    lines = ['format = "asl-terrain/1"', f'name = "hand-made {cols}x{rows}"', 'prefix = ""',
             f'columns = ["A", "{column_label(cols - 1)}"]', f"rows = [1, {rows}]", ""]
    for vals, at in blocks:
        lines += ["[[hex]]", f"at = {json.dumps([h.name for h in at])}"]
        lines += [f"{k} = {json.dumps(v)}" for k, v in vals.items()]
        lines += (['building = "stone"'] if vals.get("terrain") == "building" else []) + [""]
    names = sorted({f"{a.name}-{b.name}" if (a.col, a.row) < (b.col, b.row) else f"{b.name}-{a.name}"
                    for a, b in walls})
    if names:
        lines += ["[[hexside]]", f"at = {json.dumps(names)}", "wall = true", ""]
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


# ------------------------------------------------------------------------------------------------ rows

PAIRS = """
from asl_terrain.model import Location, Map
from asl_terrain import los as L
m = Map.load(sys.argv[1] if len(sys.argv) > 1 else {path!r})
locs = [Location(h) for h in m.hexes() if not m.terrain(h).offboard]
t = time.process_time()
if {prime!r}:  # only the map's raster and the like into the user cache
    L.los(m, locs[0], locs[-1])
    n = 1
else:  # the batch path (los-table's, vasl-check's): it reads and keeps the derived LOS tables (user cache)
    fast = getattr(L, "los_pairs", None)
    pairs = fast(m, locs) if fast is not None else L.los_verdicts(m, ((a, b) for a in locs for b in locs))
    n = sum(1 for _ in pairs)
fig = {{"pairs": n, "seconds": time.process_time() - t, "hexes": len(locs), "compiled": L._kernel is not None}}
"""


def bench_boards(vd: Path, tmp: Path, env: dict[str, str], quick: bool) -> None:
    boards = sorted(p.name.split(".")[0] for p in (vd / "oracle").glob("*.los.gz"))
    # a cache of the benchmark's own: the first process finds the map and raster kept but no LOS tables
    # derived (thread shapes, stretch codes), the second finds what the first kept
    own = tmp / "cache"
    env = {**env, "ASL_TERRAIN_CACHE": str(own)}
    for b in boards[:2] if quick else boards:
        f = import_map([b], tmp / f"{b}.toml", env)
        child(PAIRS.format(path=str(f), prime=True), env)
        for kind in ("los-shapes", "stretch-codes"):
            shutil.rmtree(own / kind, ignore_errors=True)
        for which in ("first", "second"):
            fig = child(PAIRS.format(path=str(f), prime=False), env)
            rate = fig["pairs"] / fig["seconds"]
            vr = VASL_RATE.get(b)
            ratio = f"; {rate / vr:.1f}x VASL's {vr:,}" if vr else ""
            walk = "compiled walk" if fig["compiled"] else "pure Python walk"
            row(f"all {int(fig['pairs']):,} ordered pairs of {b}, fresh process ({which}, {walk})",
                f"{fig['seconds']:.2f} s ({rate:,.0f} pairs/s{ratio}; {fig['peak_mb']:.0f} MB)",
                f"10x VASL: {10 * vr:,} pairs/s" if vr else "10x VASL")


def bench_startup(reps: int) -> None:
    # as an installed package runs: with its byte-code cache (a session that sets PYTHONDONTWRITEBYTECODE
    # would otherwise compile every edited module at every start and measure that)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    run([*EXE, "los", "W2", "W6"], 1, env)
    for args in (["los", "W2", "W6"], ["move", "M13", "M12"]):
        wall, cpu, _ = run([*EXE, *args], reps, env)
        row(f"`asl-terrain {' '.join(args)}` on the demo map, whole process", f"{wall:.3f} s wall ({cpu:.3f} s CPU)",
            "< 0.15 s")
    # the floor under those: what the interpreter and the libraries cost before asl-terrain does anything
    for what, code in (("python -c pass", "pass"), ("import typer", "import typer"),
                       ("import rich.console", "import rich.console"),
                       ("from pydantic import BaseModel", "from pydantic import BaseModel")):
        wall, cpu, _ = run([PY, "-c", code], reps, env)
        row(f"start-up floor: `{what}`, whole process", f"{wall:.3f} s wall ({cpu:.3f} s CPU)", "(part of 0.15 s)")


def bench_layout(vd: Path, tmp: Path, env: dict[str, str], reps: int) -> None:
    f = import_map(["bd01", "bd02", "bd03"], tmp / "three.toml", env, layout="bd01;bd02;bd03")
    for args, goal in ((["los", str(f), "1A1", "3GG10"], "< 0.3 s"),
                       (["reach", str(f), "2M5", "--unit", "vehicle"], "< 0.4 s"),
                       (["viewshed", str(f), "2M5"], "< 0.5 s")):
        run([*EXE, *args], 1, env)  # warm: the user cache holds the map, boards and terrain table after one run
        wall, cpu, _ = run([*EXE, *args], reps, env)
        row(f"`{' '.join(a if a != str(f) else 'three.toml' for a in args[:1] + args[2:])}` on a 3-board layout, "
            "whole process", f"{wall:.3f} s wall ({cpu:.3f} s CPU)", goal)


def bench_big(tmp: Path) -> None:
    f = big_map_file(100, 100, tmp / "big100.toml")
    fig = child(f"""
from asl_terrain.model import Location, Map
from asl_terrain.los import viewshed
m = Map.load({str(f)!r})
t = time.process_time()
from asl_terrain.grid import Hex
v = viewshed(m, Location(Hex(49, 50)))
fig = {{"seconds": time.process_time() - t, "seen": len(v.visible)}}
""")
    row("viewshed on a hand-made 100 x 100 map (in-process, after load)",
        f"{fig['seconds']:.2f} s, {fig['peak_mb']:.0f} MB peak (sees {int(fig['seen'])})", "< 1 s, < 300 MB")
    # the map format refuses maps over 40,000 hexes (README "Limits"): the largest file it takes is loaded,
    # and the 1,000 x 1,000 map is built in Python with the same generator (engine only)
    f = big_map_file(200, 200, tmp / "big200.toml")
    fig = child(f"""
from asl_terrain.model import Location, Map
from asl_terrain.los import los
from asl_terrain.grid import Hex
t = time.process_time()
m = Map.load({str(f)!r})
load = time.process_time() - t
t = time.process_time()
r = los(m, Location(Hex(1, 2)), Location(Hex(198, 199)))
first = time.process_time() - t
fig = {{"load": load, "first": first}}
""")
    row("one LOS on a hand-made 200 x 200 map file (the format's largest)",
        f"{1000 * fig['first']:.0f} ms; load {fig['load']:.1f} s; {fig['peak_mb']:.0f} MB peak", "(< 50 ms after load)")
    fig = child(f"""
sys.path.insert(0, {str(ROOT / 'benchmarks')!r})
from bench_scenario import big_map_in_python
from asl_terrain.model import Location
from asl_terrain.los import los
from asl_terrain.grid import Hex
t = time.process_time()
m = big_map_in_python(1000, 1000)
load = time.process_time() - t
t = time.process_time()
r = los(m, Location(Hex(1, 2)), Location(Hex(998, 999)))
first = time.process_time() - t
t = time.process_time()
r2 = los(m, Location(Hex(500, 500)), Location(Hex(520, 20)))
second = time.process_time() - t
fig = {{"load": load, "first": first, "second": second}}
""")
    row("one LOS on a hand-made 1,000 x 1,000 map (built in Python: over the file format's limits)",
        f"{1000 * fig['first']:.0f} ms first, {1000 * fig['second']:.0f} ms next; built in {fig['load']:.1f} s; "
        f"{fig['peak_mb']:.0f} MB peak", "< 50 ms after load; load < 5 s")


def big_map_in_python(cols: int, rows: int, seed: int = 13) -> Any:
    """The map of :func:`big_map_file`, built directly as a :class:`Map` (for sizes over the file limits)."""
    sys.path.insert(0, str(ROOT / "src"))
    from asl_terrain.grid import Hex, Hexside
    from asl_terrain.mapfile import Grid
    from asl_terrain.model import Conditions, HexsideTerrain, HexTerrain, Map

    blocks, walls = _big_blocks(cols, rows, seed)
    hexes: dict[Hex, dict[str, Any]] = {}
    for vals, at in blocks:
        for h in at:
            hexes.setdefault(h, {}).update(vals)
    terr = {}
    for h, v in hexes.items():
        if v.get("terrain") == "building":
            v = {**v, "building": "stone", "building_type": "single-story-house"}
        terr[h] = HexTerrain(h, **v)
    sides = {Hexside.of(a, b): HexsideTerrain(Hexside.of(a, b), wall=True) for a, b in walls}
    m = Map(f"hand-made {cols}x{rows}", "", Grid(0, cols - 1, 1, rows), Conditions(), terr, sides, ())
    m._default = HexTerrain(Hex(0, 0))
    return m


def bench_vasl_check(vd: Path, tmp: Path, env: dict[str, str]) -> None:
    f = import_map(["bd01"], tmp / "bd01.toml", env)
    wall, cpu, _ = run([*EXE, "vasl-check", str(f), "bd01"], 1, env)
    row("`vasl-check` of bd01, whole process", f"{wall:.2f} s wall ({cpu:.2f} s CPU)", "< 3 s, with progress")


def bench_table(vd: Path, tmp: Path, env: dict[str, str]) -> None:
    f = import_map(["bd01", "bd02", "bd03"], tmp / "three.toml", env, layout="bd01;bd02;bd03")
    probe = subprocess.run([*EXE, "los-table", "--help"], capture_output=True, cwd=ROOT)
    if probe.returncode:
        row("`los-table` of a 3-board layout", "no such command", "< 10 s")
        return
    jobs = str(os.cpu_count() or 1)
    wall, cpu, _ = run([*EXE, "los-table", str(f), "--jobs", jobs, "-o", str(tmp / "three.npz"), "--force"], 1, env)
    row(f"`los-table` of a 3-board layout (1,000 hexes, --jobs {jobs}), whole process",
        f"{wall:.2f} s wall ({cpu:.2f} s CPU)", "< 10 s")


def main() -> None:
    quick = "--quick" in sys.argv
    rows = {"boards", "startup", "layout", "big", "vasl", "table"}
    for a in sys.argv[1:]:
        if a.startswith("--rows="):
            rows = set(a.split("=", 1)[1].split(","))
    reps = 3 if quick else 7
    tmp = Path(os.environ.get("BENCH_TMP") or tempfile.mkdtemp(prefix="asl-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    vd = vasl_dir()
    # every child as an installed package runs: with its byte-code cache (see bench_startup), and with one BLAS
    # thread, as the asl-terrain command sets (asl_terrain.__main__): OpenBLAS's idle threads otherwise spin
    # for about 0.1 s of CPU after numpy's import, which process_time counts
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    if vd is not None:
        env["ASL_TERRAIN_VASL"] = str(vd)
    print("| what | measured | goal |\n|---|---|---|", flush=True)
    if "startup" in rows:
        bench_startup(reps)
    if vd is None:
        print("(the VASL data directory is not found: set ASL_TERRAIN_VASL; the board rows are skipped)")
    else:
        if "boards" in rows:
            bench_boards(vd, tmp, env, quick)
        if "layout" in rows:
            bench_layout(vd, tmp, env, reps)
        if "vasl" in rows:
            bench_vasl_check(vd, tmp, env)
        if "table" in rows:
            bench_table(vd, tmp, env)
    if "big" in rows:
        bench_big(tmp)


if __name__ == "__main__":
    main()
