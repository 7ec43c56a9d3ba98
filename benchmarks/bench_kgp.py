"""Benchmark of the KGP maps' import (issue 15): ``import_boards(["bdST"])`` etc., each in a fresh process.
Not a test: prints figures. Needs the VASL data directory (../shared/vasl beside the repository).

    .venv/bin/python benchmarks/bench_kgp.py [--src DIR] [BOARD ...]

For each board, the median of three fresh processes of: read the archive from its artwork colours, derive
the map, add the Narrow Streets, slopes and annotation blocks. ``cold``: no disk cache (ASL_TERRAIN_CACHE
off: the colour reading is done again); ``warm``: the colour reading comes from the disk cache, as on every
run after the first. ``--src`` times another checkout's ``src`` (e.g. main's, for a before/after figure).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = """
import sys, time
sys.path.insert(0, {src!r})
t = time.perf_counter()
from asl_terrain import vasl
vasl.import_boards([{board!r}])
print(time.perf_counter() - t)
"""


def run(src: str, board: str, cache: str) -> float:
    env = {**os.environ, "ASL_TERRAIN_CACHE": cache}
    out = subprocess.run([sys.executable, "-c", CHILD.format(src=src, board=board)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    args = sys.argv[1:]
    src = str(ROOT / "src")
    if "--src" in args:
        i = args.index("--src")
        src = args[i + 1]
        del args[i : i + 2]
    boards = args or ["bdST", "bdCH", "bdLG"]
    with tempfile.TemporaryDirectory() as cache:
        for board in boards:
            cold = statistics.median(run(src, board, "off") for _ in range(3))
            run(src, board, cache)  # fills the disk cache
            warm = statistics.median(run(src, board, cache) for _ in range(3))
            print(f"{board}: cold {cold:.2f} s, warm (disk cache) {warm:.2f} s  [{src}]")


if __name__ == "__main__":
    main()
