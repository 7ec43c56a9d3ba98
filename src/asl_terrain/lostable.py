"""LOS tables for programs: every ordered pair of a map's Locations, one record each, in columns.

:func:`table_locations` picks the Locations (every hex's ground level on the boards, plus the building levels
asked for), :func:`los_table` rules every ordered pair with :func:`asl_terrain.los.los_verdicts` (one viewer's
row at a time, on as many processes as asked) and :func:`npz_bytes` packs the columns as a NumPy ``.npz``
archive that numpy, pandas and Arrow read (README "LOS tables"):

==================  =========  =====================================================================
array               dtype      meaning
==================  =========  =====================================================================
``locations``       str        the Locations' names, as the map names them (index = position)
``from``, ``to``    int32      each pair's viewer and target, indices into ``locations``
``clear``           bool       a LOS exists, hindered or not (A6.1)
``hindrance_drm``   int8       the Hindrance DRM of the LOS (met before any block; A6.7)
``blind``           bool       the target (or viewer) lies in a Blind Hex (A6.4)
``range``           int16      the range in hexes
``meta``            str        one JSON object: format, map, source, chart, conditions, levels, counts
==================  =========  =====================================================================

Pairs are in order: viewer 0 to every Location (itself included), then viewer 1, ... (``from`` major), so
row ``i * n + j`` is the pair (i, j). The engine is the one every ruling uses; a table holds exactly what
``los(m, a, b, borderline=False)`` rules.

Imports: los, model, chart; numpy (when a table is built).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

from .chart import Chart, default_chart, load_chart
from .errors import UserError
from .forked import can_fork, forked_map
from .los import los_verdicts
from .model import Conditions, Location, Map, settled

__all__ = ["FORMAT", "LosTable", "los_table", "npz_bytes", "table_locations"]

FORMAT = "asl-terrain-los-table/1"


def table_locations(m: Map, levels: Sequence[int] = (0,)) -> list[Location]:
    """The Locations of a LOS table: for each hex on the map's boards (column by column), its ground-level
    Location (level 0) and its building Locations at the other ``levels`` where it has them."""
    want = set(levels)
    out: list[Location] = []
    for h in m.hexes():
        if m.terrain(h).offboard:
            continue
        for loc in m.locations(h):
            if loc.place == "" and loc.bypass is None and loc.level in want:
                out.append(loc)
    return out


@dataclass(frozen=True)
class LosTable:
    """The columns of a LOS table (see the module docstring) and what it was built from."""

    locations: tuple[str, ...]
    columns: dict[str, Any]
    meta: dict[str, Any]

    def __len__(self) -> int:
        return len(self.columns["clear"])


def _rows(m: Map, locs: Sequence[Location], viewers: range, chart: Chart | None,
          conditions: Conditions | None) -> dict[str, Any]:
    import numpy as np

    pairs = product([locs[i] for i in viewers], locs)
    # the verdicts' four values as one array converted once, then its columns (a third of the cost of four
    # arrays made from four tuples, issue 13)
    rows = np.array(list(los_verdicts(m, pairs, chart=chart, conditions=conditions)), dtype=np.int64).reshape(-1, 4)
    return {"clear": rows[:, 0].astype(np.bool_), "hindrance_drm": np.minimum(rows[:, 1], 127).astype(np.int8),
            "blind": rows[:, 2].astype(np.bool_), "range": rows[:, 3].astype(np.int16)}


# a worker process's map, loaded once by _init_worker where the system does not fork: set only inside those
# worker processes, never in the process that asks for the table
_WORKER: dict[str, Any] = {}


def _init_worker(map_path: str, chart_path: str | None, levels: tuple[int, ...], conditions: Conditions) -> None:
    m = Map.load(map_path)
    _WORKER.update(m=m, locs=table_locations(m, levels), chart=load_chart(chart_path), conditions=conditions)


def _work(viewers: range) -> dict[str, Any]:
    w = _WORKER
    return _rows(w["m"], w["locs"], viewers, w["chart"], w["conditions"])


def los_table(m: Map, levels: Sequence[int] = (0,), *, chart: Chart | None = None, chart_path: str | None = None,
              conditions: Conditions | None = None, jobs: int = 1,
              progress: Callable[[int, int], None] | None = None) -> LosTable:
    """Every ordered pair of :func:`table_locations` ruled (``los(m, a, b, borderline=False)``'s clear,
    Hindrance DRM, Blind Hex and range), as columns.

    ``jobs`` > 1 splits the viewers among that many processes: forked from this one where the system forks
    (they share the map, its LOS tables and artwork as this process built them), else each loading the map
    from its file (``m.source``) and the chart from ``chart_path`` (the bundled chart if None);
    ``progress(done, total)`` is called as viewers' rows are finished.
    """
    import numpy as np

    locs = table_locations(m, levels)
    n = len(locs)
    chart = chart or default_chart()
    cond = m.conditions_for(conditions)
    parts: dict[int, dict[str, Any]] = {}
    jobs = max(1, min(jobs, n or 1))
    fork = jobs > 1 and can_fork()
    if jobs > 1 and not fork and not Path(m.source).is_file():
        raise UserError(f"--jobs {jobs}: the map must be a file the worker processes can read ({m.source!r} is not)")
    # small chunks (about 32 per process, at most 64 viewers): the last ones finish close together
    step = max(1, min(64, -(-n // (jobs * 32)))) if n else 1
    chunks = [range(i, min(i + step, n)) for i in range(0, n, step)]
    done = 0

    def finished(viewers: range, cols: dict[str, Any]) -> None:
        nonlocal done
        parts[viewers.start] = cols
        done += len(viewers)
        if progress:
            progress(done, n)

    if jobs == 1:
        with settled():
            for c in chunks:
                finished(c, _rows(m, locs, c, chart, cond))
    elif fork:
        # the first viewer's row here: the tables and artwork it builds are built once, before the workers fork
        forked_map(lambda c: _rows(m, locs, c, chart, cond), range(1),
                   [range(i, min(i + step, n)) for i in range(1, n, step)], jobs, finished)
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn"), initializer=_init_worker,
                                 initargs=(m.source, chart_path, tuple(levels), cond)) as pool:
            futures = {pool.submit(_work, c): c for c in chunks}
            for f in as_completed(futures):
                finished(futures[f], f.result())
    order = sorted(parts)
    columns: dict[str, Any] = {
        "from": np.repeat(np.arange(n, dtype=np.int32), n),
        "to": np.tile(np.arange(n, dtype=np.int32), n),
    }
    for key in ("clear", "hindrance_drm", "blind", "range"):
        columns[key] = (np.concatenate([parts[s][key] for s in order]) if order
                        else np.empty(0, dtype=np.bool_ if key in ("clear", "blind") else np.int16))
    names = tuple(m.name_of(loc) for loc in locs)
    meta = {"format": FORMAT, "map": m.name, "source": m.source, "chart": chart.source,
            "conditions": {"month": cond.month, "weather": cond.weather, "frigid": cond.frigid},
            "levels": sorted(set(levels)), "locations": n, "pairs": n * n,
            "columns": ["from", "to", "clear", "hindrance_drm", "blind", "range"],
            "rules": ["A6.1", "A6.2", "A6.4", "A6.7"]}
    return LosTable(names, columns, meta)


def npz_bytes(table: LosTable) -> bytes:
    """``table`` as a compressed NumPy ``.npz`` archive (module docstring), for writing to a file."""
    import io

    import numpy as np

    buf = io.BytesIO()
    np.savez_compressed(buf, locations=np.array(table.locations, dtype=np.str_),
                        meta=np.array(json.dumps(table.meta)), **table.columns)
    return buf.getvalue()
