"""A batch split among worker processes forked from this one (``los-table``, ``vasl-check``): the first chunk
is worked here, so that what it builds (a map's LOS tables, its artwork) is built once, and the workers,
forked after it, share this process's memory instead of loading the map again.

Imports: nothing of the package.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .collector import paused

K = TypeVar("K")
R = TypeVar("R")

# the work of a batch, in a worker forked for it: set only in the workers
_WORK: list[Callable[[Any], Any]] = []


def can_fork() -> bool:
    """Whether this system starts worker processes by forking (not Windows, not macOS's default)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _init(work: Callable[[Any], Any]) -> None:
    # the parent's heap, inherited: never scanned by this worker's collector, its pages stay shared; and no
    # collection at all in a worker that ends with its batch: the LOS batch path makes no cyclic garbage
    # (none found after 160 viewers' rows of a 3-board layout), and the passes over what the worker builds (its
    # thread shapes, records, stretch codes) were ~5 % of its time (issue 13)
    gc.freeze()
    paused.for_good()
    _WORK[:] = [work]


def _run(key: Any) -> Any:
    return _WORK[0](key)


def forked_map(work: Callable[[K], R], first: K, rest: Iterable[K], jobs: int,
               done: Callable[[K, R], None]) -> None:
    """``done(k, work(k))`` for ``first``, worked here, then for each ``k`` of ``rest`` as ``jobs`` processes
    forked from this one finish it (in the order they finish). ``work`` reaches the workers by the fork, as
    it is here (it is not pickled; the keys and the results are). Only where :func:`can_fork`."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    done(first, work(first))
    with ProcessPoolExecutor(jobs, mp_context=get_context("fork"), initializer=_init, initargs=(work,)) as pool:
        futures = {pool.submit(_run, k): k for k in rest}
        for f in as_completed(futures):
            done(futures[f], f.result())
