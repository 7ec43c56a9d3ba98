"""Issue 10 item 4: nothing breaks when threads ask at once (the web page does). Each engine's caches belong to
the map (``Map.derived``) and are built under a lock or made and then published whole, so a map asked the same
questions from many threads at once, its caches cold, gives exactly the answers one thread gives on a map of
its own: moves, paths and reaches (the search tables), TEM and the other effects, set-up, LOS and viewsheds,
also with what-if counters and SSR switches (the maps they make are kept with the map).
The VASL-board case needs the VASL data (``../shared/vasl``) and is skipped, saying so, without it."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from asl_terrain import vasl
from asl_terrain.ask import answer_all
from asl_terrain.model import Map, load_demo

UNITS: list[Any] = ["infantry", "cavalry", "wagon", "vehicle", {"type": "vehicle", "class": "half-track"}]
THREADS = 8


def _queries(m: Map, stride: int) -> list[dict[str, Any]]:
    """Questions of every engine over hexes spread across ``m`` (every ``stride``-th hex)."""
    names = [m.name_of(h) for h in m.hexes()]
    picked = names[::stride]
    qs: list[dict[str, Any]] = []
    for i, a in enumerate(picked):
        h = m.parse_hex(a)
        b = m.name_of(m.neighbours(h)[0])
        far = picked[(i * 7 + 3) % len(picked)]
        u = UNITS[i % len(UNITS)]
        qs += [{"kind": "move", "unit": u, "from": a, "to": b},
               {"kind": "reach", "unit": u, "from": a, "allowance": 4 if u == "infantry" else 8},
               {"kind": "path", "unit": "infantry", "hexes": [a, b, a], "allowance": 4},
               {"kind": "los", "from": a, "to": far},
               {"kind": "tem", "target": a, "firer": far, "attack": "small-arms", "moved_by": None},
               {"kind": "tem", "target": a, "attack": "indirect"},
               {"kind": "setup", "item": "entrenchment", "at": a},
               {"kind": "setup", "item": "mines", "at": a, "hidden": True},
               {"kind": "stacking", "at": a}]
        if i % 6 == 0:
            qs.append({"kind": "viewshed", "from": a})
        # the what-if and SSR maps are kept with the map too (asked at once, each must be made once)
        what_if = {"counters": [{"type": "smoke", "at": a, "strength": 2}]}
        ssr = {"conditions": {"ssr": ["woods-as-brush" if i % 2 else "no-roads"]}}
        qs += [{"kind": "los", "from": far, "to": b, **what_if},
               {"kind": "move", "unit": u, "from": b, "to": a, **what_if},
               {"kind": "reach", "unit": "infantry", "from": a, "allowance": 3, **ssr},
               {"kind": "tem", "target": a, "firer": far, "attack": "small-arms", "moved_by": None, **ssr}]
    return qs


def _answers(m: Map, qs: list[dict[str, Any]]) -> Iterator[str]:
    for q in qs:
        ans, _ = answer_all(m, [q])
        yield json.dumps(ans[0], sort_keys=True)


def _asked_at_once(make: Callable[[], Map], qs: list[dict[str, Any]]) -> None:
    serial = list(_answers(make(), qs))
    shared = make()  # cold caches, built by the threads while they race
    order = [i for _ in range(THREADS) for i in range(len(qs))]
    random.Random(10).shuffle(order)
    chunks = [order[k::THREADS] for k in range(THREADS)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often, inside the caches' critical moments too
    try:
        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            results = list(pool.map(lambda chunk: [(i, next(_answers(shared, [qs[i]]))) for i in chunk], chunks))
    finally:
        sys.setswitchinterval(old)
    wrong = [qs[i] for chunk in results for i, got in chunk if got != serial[i]]
    assert sum(len(c) for c in results) == THREADS * len(qs)
    assert wrong == [], f"{len(wrong)} answers differ from the serial ones"
    assert sum('"error"' in a for a in serial) < len(serial) // 10  # the questions are real ones


def test_the_demo_map_asked_from_many_threads_answers_as_one_thread_does() -> None:
    _asked_at_once(load_demo, _queries(load_demo(), 23))


DATA = vasl.vasl_data_dir()


@pytest.mark.skipif(DATA is None or not (DATA / "boards" / "bd01").is_file(),
                    reason="the VASL data (boards/) is not found: set ASL_TERRAIN_VASL or put it in ../shared/vasl")
def test_a_vasl_board_asked_from_many_threads_answers_as_one_thread_does() -> None:
    doc = vasl.import_boards(["bd01"]).map
    _asked_at_once(lambda: Map.from_data(doc), _queries(Map.from_data(doc), 29))
