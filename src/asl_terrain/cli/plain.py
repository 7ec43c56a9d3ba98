"""An answer's lines and table written as rich writes them to a file that is not a terminal, without
importing rich's console (a fifth of a ``los``/``move`` start-up, issue 13).

:class:`Printed` collects an answer's lines (each with its rich markup and its plain text) and tables.
:meth:`Printed.emit` writes them itself when rich would write plain text: stdout not a terminal, UTF-8, no
setting rich reads from the environment (``FORCE_COLOR``, ``COLUMNS``, ...), not Windows, and no text rich
would change (an emoji code such as ``:smile:``, control characters, tabs). It wraps with rich's own line
division and cell widths (``rich._wrap``, ``rich.cells``) and lays a table out by rich's rules (column widths
measured and collapsed as ``rich.table.Table`` does, the HEAVY_HEAD box, cells padded one space each side).
Anything else goes through rich. tests/test_cli.py checks both give the same bytes on many answers.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

#: the width tests/clirun.py gives the consoles while it runs a command in-process (None: as rich finds it)
FORCED_WIDTH: int | None = None

# settings rich reads from the environment that change what it writes to a file
_RICH_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "JUPYTER_COLUMNS", "JUPYTER_LINES",
             "DATABRICKS_RUNTIME_VERSION")
# what rich would not write as it is: control characters and tabs, anything like an emoji code, and
# markup (a bracket, a backslash: this module writes the text, rich parses the markup)
_CHANGED = re.compile(r"[\x00-\x09\x0b-\x1f\x7f\[\\]|:\S*?:")
_TRAILING_SPACE = re.compile(r"\s+$")


def width() -> int | None:
    """The width rich wraps at on stdout when it writes plain text there, else None."""
    out = sys.stdout
    try:
        if out is None or out.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    if not str(getattr(out, "encoding", None) or "").lower().startswith("utf"):
        return None  # rich draws another box then
    if FORCED_WIDTH is not None:
        return FORCED_WIDTH
    if sys.platform == "win32" or any(k in os.environ for k in _RICH_ENV):
        return None
    found = None
    for fd in (0, 1, 2):  # rich takes the first standard stream that is a terminal's size
        try:
            found = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):
            continue
        break
    return found or 80


class Printed:
    """An answer's output: lines (rich markup and the plain text it shows) and tables, written at the end."""

    def __init__(self) -> None:
        self.blocks: list[tuple[Any, ...]] = []

    def line(self, text: str, markup: Callable[[], str]) -> None:
        """A line of ``text``, which ``markup()`` gives as rich markup (called only when rich writes it)."""
        self.blocks.append(("line", markup, text))

    def table(self, headers: Sequence[str], justify: Sequence[str], rows: Sequence[Sequence[str]],
              title: str | None = None) -> None:
        """A table with a bold header row (headers as rich markup, cells as text); ``justify`` per column:
        "left" or "right"; ``title`` (text) centred above it."""
        self.blocks.append(("table", tuple(headers), tuple(justify), tuple(tuple(r) for r in rows), title))

    def _texts(self) -> list[str]:
        out: list[str] = []
        for b in self.blocks:
            if b[0] == "line":
                out.append(b[2])
            else:
                out += b[1]
                out += [c for r in b[3] for c in r]
                if b[4] is not None:
                    out.append(b[4])
        return out

    def render(self, w: int) -> str | None:
        """The text rich writes at width ``w``, or None where this module does not know it."""
        if w < 8 or any(_CHANGED.search(t) for t in self._texts()):
            return None
        parts: list[str] = []
        for b in self.blocks:
            if b[0] == "line":
                parts += _wrapped(b[2], w)
            else:
                lines = _table(b[1], b[2], b[3], w)
                if lines is None:
                    return None
                if b[4] is not None:
                    title = _title(b[4], len(lines[0]))
                    if title is None:
                        return None
                    parts.append(title)
                parts += lines
        return "".join(p + "\n" for p in parts)

    def emit(self, console: Any = None) -> None:
        """Write it: plain where :func:`width` says rich writes plain text, else through ``console`` (the CLI's
        rich console)."""
        w = width()
        text = self.render(w) if w is not None else None
        if text is not None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        if console is None:
            from . import console
        self.print_through(console)

    def print_through(self, console: Any) -> None:
        """Write it through a rich console."""
        from rich.markup import escape
        from rich.table import Table

        for b in self.blocks:
            if b[0] == "line":
                console.print(b[1]())
                continue
            t = Table(show_header=True, header_style="bold", title=b[4])
            for head, just in zip(b[1], b[2]):
                t.add_column(head, justify=just)
            for r in b[3]:
                t.add_row(*(escape(c) for c in r))
            console.print(t)


# ------------------------------------------------------------------------------ rich's rules, as it writes


def _title(text: str, w: int) -> str | None:
    """A table's title as rich writes it above a table ``w`` cells wide: centred, padded to the table's
    width (None for a title that does not fit on one line: rich would wrap it)."""
    from rich.cells import cell_len

    n = cell_len(text)
    if n > w or "\n" in text or text != text.strip():
        return None
    left = (w - n) // 2
    return " " * left + text + " " * (w - n - left)


def _rstrip_end(text: str, size: int) -> str:
    """Trailing whitespace beyond ``size`` characters dropped (rich's Text.rstrip_end)."""
    excess = len(text) - size
    if excess > 0:
        m = _TRAILING_SPACE.search(text)
        if m is not None:
            return text[: len(text) - min(len(m.group(0)), excess)]
    return text


def _pieces(line: str, w: int, fold: bool) -> list[str]:
    from rich._wrap import divide_line

    cuts = divide_line(line, w, fold=fold)
    return [_rstrip_end(line[a:b], w) for a, b in zip([0, *cuts], [*cuts, len(line)])]


def _wrapped(text: str, w: int) -> list[str]:
    """A printed line's lines: wrapped at words, words longer than the width folded (console.print)."""
    from rich.cells import cell_len, set_cell_size

    out = []
    for line in text.split("\n"):
        for p in _pieces(line, w, True):
            out.append(set_cell_size(p, w) if cell_len(p) > w else p)
    return out


def _cell_lines(text: str, w: int, justify: str) -> list[str]:
    """A table cell's lines in its column's width ``w``: padded one space each side, wrapped at words, a
    word too long cut with an ellipsis, justified left or right."""
    from rich.cells import cell_len, set_cell_size

    inner = w - 2
    out = []
    for line in text.split("\n"):
        for p in _pieces(line, inner, False):
            if justify == "right":
                p = p.rstrip()
            n = cell_len(p)
            if n > inner:
                p = set_cell_size(p, inner - 1) + "…"
            if justify == "right":
                p = " " * (inner - cell_len(p)) + p
            elif n < inner:
                p += " " * (inner - n)
            out.append(" " + set_cell_size(p, inner) + " ")
    return out


def _norm(lo: int, hi: int) -> tuple[int, int]:
    lo = min(max(0, lo), hi)
    return max(0, lo), max(0, max(lo, hi))


def _measure_text(text: str, w: int) -> tuple[int, int]:
    from rich.cells import cell_len

    if w < 1:
        return 0, 0
    lines = text.splitlines()
    hi = max((cell_len(x) for x in lines), default=0)
    words = text.split()
    lo = max((cell_len(x) for x in words), default=hi)
    lo, hi = _norm(lo, hi)
    lo, hi = min(lo, w), min(hi, w)
    return (0, 0) if hi < 1 else _norm(lo, hi)


def _measure_column(cells: Sequence[str], w: int) -> tuple[int, int]:
    if w < 1:
        return 0, 0
    lows, highs = [], []
    for text in cells:  # each cell padded one space each side
        if w - 2 < 1:
            lo, hi = w, w
        else:
            lo, hi = _measure_text(text, w)
            lo, hi = min(lo + 2, w), min(hi + 2, w)
        lo, hi = _norm(lo, hi)
        lo, hi = min(lo, w), min(hi, w)
        lo, hi = (0, 0) if hi < 1 else _norm(lo, hi)
        lows.append(lo)
        highs.append(hi)
    return min(max(lows, default=1), w), min(max(highs, default=w), w)


def _collapse(widths: list[int], max_width: int) -> list[int]:
    """Every column may wrap: the widest shrink first, down to the next widest (rich's Table)."""
    from rich._ratio import ratio_reduce

    total = sum(widths)
    excess = total - max_width
    while total and excess > 0:
        top = max(widths)
        second = max((x for x in widths if x != top), default=0)
        ratios = [1 if x == top else 0 for x in widths]
        if not top - second:
            break
        widths = ratio_reduce(excess, ratios, [min(excess, top - second)] * len(widths), widths)
        total = sum(widths)
        excess = total - max_width
    return widths


def _table(headers: Sequence[str], justify: Sequence[str], rows: Sequence[Sequence[str]], w: int
           ) -> list[str] | None:
    from rich._ratio import ratio_reduce

    n = len(headers)
    columns = [[headers[i], *(r[i] for r in rows)] for i in range(n)]
    room = w - (n + 1)  # the box's edges and dividers
    widths = [_measure_column(c, room)[1] or 1 for c in columns]
    if sum(widths) > room:
        widths = _collapse(widths, room)
        if sum(widths) > room:
            widths = ratio_reduce(sum(widths) - room, [1] * n, widths, widths)
        widths = [_measure_column(c, x)[1] or 0 for c, x in zip(columns, widths)]
    if min(widths) < 3:
        return None
    out = ["┏" + "┳".join("━" * x for x in widths) + "┓"]
    for k, row in enumerate([list(headers), *(list(r) for r in rows)]):
        cells = [_cell_lines(text, x, j) for text, x, j in zip(row, widths, justify)]
        height = max(len(c) for c in cells)
        for c, x in zip(cells, widths):  # the header row aligned at the bottom, the others at the top
            blank = [" " * x] * (height - len(c))
            c[:] = blank + c if k == 0 else c + blank
        bar = "┃" if k == 0 else "│"
        out += [bar + bar.join(c[i] for c in cells) + bar for i in range(height)]
        if k == 0:
            out.append("┡" + "╇".join("━" * x for x in widths) + "┩")
    out.append("└" + "┴".join("─" * x for x in widths) + "┘")
    return out
