"""A least-cost search that knows nothing of ASL: Dijkstra over whatever nodes a successors function gives.

As networkx's ``single_source_dijkstra`` with a weight function: the caller says, for a node reached at some
distance, which moves leave it and what each costs (``None``: not allowed from there at that distance); the
search keeps the least distance of every node within the cutoff and the move that reached it. The caller sees
the distances known so far, so it need not weigh a move into a node already known as near (the move cannot
improve it). Costs are
integers, so the answer is exact; ties go to the earlier push (not to the nodes' order), so the same question
gives the same paths however the caller numbers its nodes.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TypeVar

from ..collector import paused

N = TypeVar("N", bound=Hashable)
E = TypeVar("E")

def dijkstra(source: N, successors: Callable[[N, int, Mapping[N, int]], Iterable[tuple[N, int | None, E]]],
             cutoff: int | None = None) -> tuple[dict[N, int], dict[N, tuple[N, E]]]:
    """Least distances from ``source`` and, for each node reached, its predecessor and the move from it.

    ``successors(node, distance, known)`` gives the moves out of ``node`` when it is reached at ``distance``;
    a move whose cost is None is not allowed. ``known`` holds the least distances found so far (read only):
    a move into a node known at ``distance`` or less changes nothing (costs are never negative), so the
    caller may leave it out. No node is reached beyond ``cutoff`` (None: no limit).

    >>> graph = {"a": [("b", 2), ("c", 5)], "b": [("c", 1)], "c": []}
    >>> dist, pred = dijkstra("a", lambda x, d, known: ((y, c, (x, y)) for y, c in graph[x]))
    >>> dist, pred["c"]
    ({'a': 0, 'b': 2, 'c': 3}, ('b', ('b', 'c')))
    """
    dist: dict[N, int] = {source: 0}
    pred: dict[N, tuple[N, E]] = {}
    heap: list[tuple[int, int, N]] = [(0, 0, source)]
    seq = 0
    pop, push = heapq.heappop, heapq.heappush
    limit = cutoff if cutoff is not None else float("inf")
    while heap:
        d, _, x = pop(heap)
        if d > dist[x]:
            continue
        for y, c, e in successors(x, d, dist):
            if c is None:
                continue
            nd = d + c
            if nd > limit:
                continue
            old = dist.get(y)
            if old is None or nd < old:
                dist[y] = nd
                pred[y] = (x, e)
                seq += 1
                push(heap, (nd, seq, y))
    return dist, pred


#: Pause the cyclic garbage collector while a search builds its tables: tens of thousands of acyclic
#: records would otherwise trigger full collections that cost a fifth of a cold search (the process's one
#: counted pause, so several threads searching at once restore the previous state).
gc_paused = paused
