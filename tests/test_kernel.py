"""The compiled walk (``asl_terrain/_walk.c``, issue 13) rules as the Python walk it stands in for.

``los._walk`` is the reference; ``_walk.c`` is the same walk compiled, for a compiled shape's contacts. Every
ruling here is asked twice, with the compiled walk and with ``los._kernel`` set to None (the pure Python walk,
as on a machine where the extension could not be built), and the two must be equal to the last item: on
random maps (walls, hedges, slopes, streams, counters), on the fixture maps, and on VASL boards with walls
drawn on the artwork, streams and hills.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_los import small_maps

from asl_terrain import los as L
from asl_terrain.model import Location, Map, load_demo

pytestmark = pytest.mark.skipif(L._kernel is None, reason="the compiled walk (asl_terrain._walk) was not built "
                                                          "here: the pure Python walk is the only one")

MAPS = Path(__file__).parent / "maps"


@contextmanager
def _pure() -> Iterator[None]:
    was = L._kernel
    L._kernel = None
    try:
        yield
    finally:
        L._kernel = was


def _both(m: Map, ask: Any) -> tuple[Any, Any]:
    """``ask(m)`` with the compiled walk and with the Python walk, each on tables built anew."""
    m._derived.clear()
    compiled = ask(m)
    m._derived.clear()
    with _pure():
        pure = ask(m)
    m._derived.clear()
    return compiled, pure


def _all_pairs(m: Map, every: int = 1) -> list[tuple[Location, Location]]:
    locs = [loc for h in m.hexes() for loc in m.locations(h)]
    return [(a, b) for a in locs[::every] for b in locs]


def _rulings(pairs: list[tuple[Location, Location]], full_every: int) -> Any:
    def ask(m: Map) -> Any:
        verdicts = list(L.los_verdicts(m, pairs))
        # twice: the second time every shape is compiled, and the batch walks the compiled contacts
        verdicts += list(L.los_verdicts(m, pairs))
        full = [(r.to_json(), r.explain()) for r in (L.los(m, a, b) for a, b in pairs[::full_every])]
        return verdicts, full
    return ask


def test_the_compiled_walk_is_the_one_walked_here() -> None:
    """Without this, every other test here would compare the Python walk with itself."""
    m = load_demo()
    m._derived.clear()
    calls = []
    real = L._kernel
    assert real is not None

    class Spy:
        @staticmethod
        def walk(*args: Any) -> Any:
            calls.append(args[2])
            return real.walk(*args)

    L._kernel = Spy  # type: ignore[assignment]
    try:
        locs = [Location(h) for h in m.hexes()][:40]
        list(L.los_verdicts(m, [(a, b) for a in locs for b in locs]))
        list(L.los_verdicts(m, [(a, b) for a in locs for b in locs]))
    finally:
        L._kernel = real
        m._derived.clear()
    assert len(calls) > 1000


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_maps())
def test_on_random_maps_the_compiled_walk_rules_as_the_python_walk(m: Map) -> None:
    compiled, pure = _both(m, _rulings(_all_pairs(m), 7))
    assert compiled == pure


@pytest.mark.parametrize("name", ["demo", "b3_roads", "b6_bridge_b21_water_b23_rowhouse", "b6_bridge_levels",
                                  "b9_bocage", "crest_slope", "p2_slopes", "p2_slopes_house", "st_village",
                                  "st_village_mines", "streams"])
def test_on_the_fixture_maps_the_compiled_walk_rules_as_the_python_walk(name: str) -> None:
    m = load_demo() if name == "demo" else Map.load(MAPS / f"{name}.toml")
    compiled, pure = _both(m, _rulings(_all_pairs(m, 3), 41))
    assert compiled == pure


@functools.lru_cache(maxsize=None)
def _board(name: str) -> dict[str, object]:
    from asl_terrain import vasl

    if vasl.vasl_data_dir() is None:
        pytest.skip("the VASL board archives (../shared/vasl) are not here")
    return vasl.import_boards([name]).map


@pytest.mark.parametrize("name", ["bd04", "bd05", "bdBFPL"])  # walls drawn, streams, hills and slopes
def test_on_vasl_boards_the_compiled_walk_rules_as_the_python_walk(name: str) -> None:
    m = Map.from_data(_board(name))
    compiled, pure = _both(m, _rulings(_all_pairs(m, 23), 211))
    assert compiled == pure
