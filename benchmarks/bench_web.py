"""Benchmarks of ``asl-terrain serve`` (issue 14). Not a test: prints figures. Only 127.0.0.1 is asked.

    .venv/bin/python benchmarks/bench_web.py [--quick]

1. From ``serve`` start to the first answer: a fresh ``asl-terrain serve --port 0`` process, timed from its
   start until a ``POST /api/ask`` (one LOS) is answered, and until the page's picture (``/api/map.svg``) is
   served too. On the demo map (target < 3 s) and, with the VASL data, on a 3-board imported layout
   (bd01,bd02,bd03 side by side, written by import-vasl first; target < 5 s), and a VASL saved game of
   three boards (Hill 621, imported as serve starts).
2. Warm LOS over HTTP: the median of single-LOS requests between random Locations (a fixed seed), after a
   warm-up pass (target < 30 ms on both maps).
3. Warm viewshed and reach (a squad with 4 MF; a vehicle with 16 MP) over HTTP on the same maps: the median
   of requests from several origins, each asked once before (target < 300 ms on the 3-board layout).
"""

from __future__ import annotations

import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from asl_terrain import vasl  # noqa: E402
from asl_terrain.model import Map  # noqa: E402

QUICK = "--quick" in sys.argv


def start(args: list[str]) -> tuple[subprocess.Popen[str], str, float]:
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "asl_terrain", "serve", "--port", "0", *args], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None
    line = p.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not m:
        p.kill()
        raise SystemExit(f"serve did not start: {line} {p.stderr.read() if p.stderr else ''}")
    return p, m.group(0), t0


def first_answer(args: list[str], q: dict[str, object]) -> tuple[float, float, subprocess.Popen[str], str]:
    p, url, t0 = start(args)
    while True:
        try:
            r = httpx.post(url + "api/ask", json=[q], timeout=60)
            break
        except httpx.ConnectError:
            time.sleep(0.01)
    t_answer = time.perf_counter() - t0
    assert r.status_code == 200, r.text
    r = httpx.get(url + "api/map.svg", timeout=120)
    assert r.status_code == 200
    return t_answer, time.perf_counter() - t0, p, url


def stop(p: subprocess.Popen[str]) -> None:
    p.send_signal(2)
    p.wait(timeout=20)


def median_ms(http: httpx.Client, queries: list[dict[str, object]], warm: bool = True) -> float:
    if warm:
        for q in queries:
            http.post("/api/ask", json=[q])
    times = []
    for q in queries:
        t = time.perf_counter()
        r = http.post("/api/ask", json=[q])
        times.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200, r.text
    return statistics.median(times)


def bench(label: str, args: list[str], m: Map, first: dict[str, object]) -> None:
    t_answer, t_picture, p, url = first_answer(args, first)
    print(f"{label}: serve start -> first answer {t_answer:.2f} s; -> picture served too {t_picture:.2f} s")
    rnd = random.Random(14)
    hexes = [m.name_of(h) for h in m.hexes() if not m.terrain(h).offboard]
    n = 40 if QUICK else 200
    pairs = [{"kind": "los", "from": rnd.choice(hexes), "to": rnd.choice(hexes)} for _ in range(n)]
    origins = rnd.sample(hexes, 4 if QUICK else 8)
    try:
        with httpx.Client(base_url=url, timeout=120) as http:
            print(f"  LOS over HTTP, warm, median of {n}: {median_ms(http, pairs):.1f} ms")
            vs = [{"kind": "viewshed", "from": h} for h in origins]
            print(f"  viewshed over HTTP, warm, median of {len(vs)}: {median_ms(http, vs):.0f} ms")
            rs = [{"kind": "reach", "unit": "infantry", "from": h, "allowance": 4} for h in origins]
            print(f"  reach (squad, 4 MF) over HTTP, warm, median of {len(rs)}: {median_ms(http, rs):.0f} ms")
            rv = [{"kind": "reach", "unit": "vehicle", "from": h} for h in origins]
            print(f"  reach (vehicle, 16 MP) over HTTP, warm, median of {len(rv)}: {median_ms(http, rv):.0f} ms")
    finally:
        stop(p)


def main() -> None:
    from asl_terrain.model import load_demo

    bench("demo map", [], load_demo(), {"kind": "los", "from": "I14", "to": "K11"})
    data = vasl.vasl_data_dir()
    if data is None or not all((data / "boards" / b).is_file() for b in ("bd01", "bd02", "bd03")):
        print("3-board layout: skipped (no VASL data with bd01, bd02, bd03: set ASL_TERRAIN_VASL)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "three.toml"
        subprocess.run([sys.executable, "-m", "asl_terrain", "import-vasl", "bd01", "bd02", "bd03", "--layout",
                        "bd01,bd02,bd03", "-o", str(path)], cwd=ROOT, check=True, capture_output=True)
        m = Map.load(path)
        bench(f"3-board layout bd01,bd02,bd03 ({len(m)} hexes)", [str(path)], m,
              {"kind": "los", "from": "1E3", "to": "3Q7"})
    game = data / "games" / "Hill 621 (Scenario E).vsav"
    if game.is_file():  # a saved game is imported when serve starts: its boards 2, 4, 3
        t_answer, t_picture, p, _ = first_answer([str(game)], {"kind": "los", "from": "4K4", "to": "4K8"})
        stop(p)
        print(f"saved game {game.name}: serve start -> first answer {t_answer:.2f} s; -> picture served too "
              f"{t_picture:.2f} s")


if __name__ == "__main__":
    main()
