"""A ruling never depends on what the process ruled before (issue 13's los-table --jobs 1 / --jobs 2 finding).

An artwork hex's record is built once per set of pixel codes and reused: it must not depend on the order in
which the first thread to meet that set read its pixels."""

from __future__ import annotations

import random

import pytest

from asl_terrain import vasl
from asl_terrain.los import los
from asl_terrain.model import Map

DATA = vasl.vasl_data_dir()


@pytest.mark.skipif(DATA is None or not (DATA / "boards" / "bd02").exists(),
                    reason="VASL board bd02 is not found: set ASL_TERRAIN_VASL or put it in ../shared/vasl")
def test_the_same_pairs_ruled_in_two_orders_give_the_same_rulings() -> None:
    """3,000 seeded random pairs of bd02, ruled first to last on one fresh map and last to first on another:
    the same clear, Blind Hex and blocking terrain for every pair. Before the fix, 2M7 -> 2O5 was a Blind Hex
    in one order and not in the other (the woods record's obstacles in the first thread's pixel order)."""
    data = vasl.import_boards(["bd02"]).map
    board = Map.from_data(data, source="<bd02>")
    names = [board.name_of(h) for h in board.hexes()]
    rnd = random.Random(1)
    pairs = [(rnd.choice(names), rnd.choice(names)) for _ in range(3000)]

    def ruled(m: Map, a: str, b: str) -> tuple[bool, bool, str | None]:
        r = los(m, m.parse_location(a), m.parse_location(b), borderline=False)
        return r.clear, r.blind, r.blocked_by.terrain if r.blocked_by else None

    first = Map.from_data(data, source="<bd02>")
    forward = [ruled(first, a, b) for a, b in pairs]
    second = Map.from_data(data, source="<bd02>")
    backward = [ruled(second, a, b) for a, b in reversed(pairs)][::-1]
    assert [(p, f, b) for p, f, b in zip(pairs, forward, backward) if f != b] == []
