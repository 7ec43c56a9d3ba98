"""The command line for people: ``asl-terrain move|path|reach|los|viewshed|tem|setup|render|ask ...``.

One short function per subcommand, in the submodules (``cli.core``, ``cli.movement``, ``cli.los``,
``cli.effects``). Each builds the same query object the batch ``ask`` takes and prints the ruling, so the
three faces give the same answer. Errors the user can fix print one line and exit with status 2; a bug
says so and shows its traceback only with ``--debug``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from ..chart import Chart, load_chart
from ..errors import UserError
from ..model import Map, demo_map_path

app = typer.Typer(
    name="asl-terrain",
    help="ASL terrain rulings that cite the rule: movement, LOS, TEM, set-up. "
         "Every command works on the bundled demo map when no MAP is given.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


class State:
    debug: bool = False
    chart_path: Optional[str] = None


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks of internal errors."),
    chart: Optional[Path] = typer.Option(None, "--chart", help="A terrain chart TOML to use instead of the "
                                         "bundled one (see `asl-terrain chart`)."),
) -> None:
    State.debug = debug
    State.chart_path = str(chart) if chart else None


def get_chart() -> Chart:
    return load_chart(State.chart_path)


def is_map_arg(text: str) -> bool:
    """Whether a positional argument names a map file rather than a hex or Location."""
    return text.lower().endswith((".toml", ".json")) or ("/" in text and Path(text).exists()) or Path(text).is_file()


def load_map(path: Optional[str]) -> Map:
    """The map at ``path``, or the bundled demo map."""
    return Map.load(path if path else demo_map_path())


def board_image(m: Map) -> bytes | None:
    """The board artwork of an imported VASL map, as a PNG for ``render.map_svg(board_image=...)``; None for
    a hand-made map (drawn from its terrain)."""
    if not m.depiction.follows_artwork:
        return None
    from .. import vasl

    raster = vasl.load_artwork(m.depiction)
    g = m.grid
    return vasl.artwork_png(raster.archives, (g.col_first, g.col_last), (g.row_first, g.row_last), 1.0)


def split_map(args: list[str], n: int, names: str) -> tuple[Map, list[str]]:
    """Split ``[MAP] A B ...``: the first argument is a map when it names one (or when there are n + 1)."""
    if len(args) == n + 1:
        return load_map(args[0]), args[1:]
    if len(args) == n and not (n and is_map_arg(args[0])):
        return load_map(None), args
    raise UserError(f"expected [MAP] {names} ({n} argument{'s' if n != 1 else ''} after the optional map file), "
                    f"got {len(args)}: {' '.join(args) or '(none)'}")


def print_answer(ans: dict[str, Any], keys: list[str] | None = None, item_key: str = "cost") -> int:
    """Print one answer for a person; returns 1 for an error answer, else 0."""
    if "error" in ans:
        err_console.print(f"[bold red]error:[/] {ans['error']}")
        return 1
    skip = {"kind", "rules", "explain", "items", "steps", "paths", "costs", "visible", "hindrances"}
    for k in keys or [k for k in ans if k not in skip]:
        if k in ans:
            console.print(f"[bold]{k}[/]: {format_value(ans[k])}")
    items = ans.get("items")
    if items:
        t = Table(show_header=True, header_style="bold")
        key = "amount" if items and "amount" in items[0] else item_key
        t.add_column(key.upper() if key != "amount" else "TEM/DRM", justify="right")
        t.add_column("why")
        t.add_column("rule")
        for it in items:
            t.add_row(format_value(it.get(key)), str(it.get("why", "")), str(it.get("rule", "")))
        console.print(t)
    console.print(f"[bold]rules[/]: {', '.join(ans.get('rules', [])) or '-'}")
    console.print(f"[italic]{ans.get('explain', '')}[/]")
    return 0


def format_value(v: Any) -> str:
    if isinstance(v, float):
        whole = int(v)
        rest = v - whole
        frac = {0.5: "½", 0.25: "¼", 0.75: "¾"}.get(round(abs(rest), 2))
        if frac:
            return f"{'-' if v < 0 and whole == 0 else ''}{whole if whole else ''}{frac}"
        return f"{v:g}"
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def main() -> None:
    """Console entry point: run the app, turning user errors into one line and exit status 2."""
    try:
        rv = app(standalone_mode=False)
        if isinstance(rv, int) and rv:
            sys.exit(rv)
    except UserError as e:
        err_console.print(f"[bold red]error:[/] {e}", soft_wrap=True)
        sys.exit(2)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        err_console.print("aborted")
        sys.exit(130)
    except Exception as e:  # click's usage errors carry their own exit code
        # click's own usage errors (typer may ship its own click): they print themselves
        code = getattr(e, "exit_code", None)
        if isinstance(code, int) and hasattr(e, "show"):
            e.show()
            sys.exit(code)
        if isinstance(code, int) and type(e).__name__ == "Exit":
            sys.exit(code)
        if State.debug:
            raise
        err_console.print(f"[bold red]internal error:[/] {type(e).__name__}: {e}\n"
                          "This is a bug in asl-terrain; please report it with the command line and the map. "
                          "Run with --debug for the traceback.")
        sys.exit(3)


for _name in ("core", "movement", "los", "effects", "vasl"):
    try:
        importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as _e:
        if _e.name != f"{__name__}.{_name}":
            raise
