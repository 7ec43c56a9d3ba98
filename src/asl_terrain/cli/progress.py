"""Progress bars for long work (vasl-check, los-table, big ask batches): rich, on stderr, and only when
stderr is a terminal, so that piped or JSON output never carries one."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from . import err_console


@contextmanager
def progress(what: str, total: int = 0, unit: str = "") -> Iterator[Callable[..., None]]:
    """Yields ``update(done, total=None)``: a rich progress bar of ``total`` steps (or of the total the first
    update gives) on a terminal's stderr, redrawn at most ten times a second from the caller's thread (no
    thread of its own); a no-op when stderr is not a terminal."""
    if not err_console.is_terminal:
        yield lambda done, total=None: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    cols = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
    with Progress(*cols, console=err_console, transient=True, auto_refresh=False) as bar:
        task = bar.add_task(what + (f" ({unit})" if unit else ""), total=total or None)
        last = [0.0]

        def update(done: int, total: int | None = None) -> None:
            now = time.monotonic()
            if total is not None:
                bar.update(task, total=total)
            if now - last[0] >= 0.1 or done >= (total or bar.tasks[0].total or 0):
                last[0] = now
                bar.update(task, completed=done)
                bar.refresh()

        yield update
