"""The cyclic garbage collector paused while bounded work builds tens of thousands of acyclic objects (a map,
its LOS tables, a search's tables): every automatic pass would walk them all again, for no cycle to find
(issue 13). One pause for the whole process, counted: the first to start turns the collector off (when it was
on), the last to end turns it back on, however many threads or nested commands pause at once.

Imports: nothing of the package.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator


class _Pause:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.was = False

    def _enter(self) -> None:
        with self.lock:
            if self.depth == 0:
                self.was = gc.isenabled()
                gc.disable()
            self.depth += 1

    def _leave(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0 and self.was:
                gc.enable()

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        """Paused while the block runs; the previous state comes back however it ends."""
        self._enter()
        try:
            yield
        finally:
            self._leave()

    def for_good(self) -> None:
        """Paused until the process ends (a worker process that ends with its batch)."""
        self._enter()


#: ``with paused(): ...``; ``paused.for_good()`` in a process that ends with its work
paused = _Pause()
