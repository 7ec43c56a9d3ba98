"""forked.forked_map (los-table, vasl-check): the first key worked here, the others by forked workers that see
this process's memory as it was after the first (the work is not pickled) with their collector off, every
result handed back once."""

from __future__ import annotations

import gc
import os

import pytest

from asl_terrain.forked import can_fork, forked_map


def test_the_first_key_here_the_rest_on_forked_workers_that_share_what_it_built() -> None:
    if not can_fork():
        pytest.skip("this system does not fork")
    built: dict[str, int] = {}
    here = os.getpid()

    def work(k: int) -> tuple[int, int, bool]:  # a closure: it could not be pickled to a worker
        if k == 0:
            built["tables"] = 42  # what the first chunk builds, the workers inherit
        return k * k + built["tables"], os.getpid(), gc.get_freeze_count() > 0 and not gc.isenabled()

    got: dict[int, tuple[int, int, bool]] = {}
    order: list[int] = []

    def done(k: int, r: tuple[int, int, bool]) -> None:
        assert k not in got
        got[k] = r
        order.append(k)

    frozen_before = gc.get_freeze_count()
    forked_map(work, 0, range(1, 40), 2, done)
    assert sorted(got) == list(range(40)) and order[0] == 0
    assert all(got[k][0] == k * k + 42 for k in got)
    assert got[0][1] == here and {got[k][1] for k in range(1, 40)} - {here} and here not in {got[k][1] for k in range(1, 40)}
    assert all(got[k][2] for k in range(1, 40))  # each worker froze what it inherited, and collects nothing
    assert gc.get_freeze_count() == frozen_before and gc.isenabled()  # not this process's collector
